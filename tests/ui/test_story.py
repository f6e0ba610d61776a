"""Pilot tests of the whole story: the paged conversation, search and the request
inspector, on the real Commander over prepared databases (nothing moves)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from zoea_tui.config import Config
from zoea_tui.storage import NewMemory, Store
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.focus import FocusScreen
from zoea_tui.ui.screens.inspector import InspectorScreen
from zoea_tui.ui.screens.search import SearchScreen
from zoea_tui.ui.textual_compat.testing import layouts_of
from zoea_tui.ui.widgets.conversation import MAX_ENTRIES, ConversationLog
from zoea_tui.ui.widgets.hit_list import HitList
from zoea_tui.ui.widgets.text_block import TextBlock

from .helpers import opener, seeded_app, settle, wait_for
from .story_helpers import seed_long, seed_requests

SIZE = (120, 40)


async def _focus(pilot) -> ConversationLog:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(pilot.app.screen, FocusScreen)
    return pilot.app.screen.query_one(ConversationLog)


async def _search(pilot) -> SearchScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("slash")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    return screen


@asynccontextmanager
async def _long_story_in_focus(
    tmp_path: Path, config: Config, memories: int
) -> AsyncIterator[tuple[Pilot[None], ZoeaApp, ConversationLog]]:
    """The app on a Mysis with a long story, its focus view open on the newest page."""
    db = tmp_path / "long.db"
    await seed_long(db, memories)
    app = ZoeaApp(opener(config, db))
    async with app.run_test(size=SIZE) as pilot:
        yield pilot, app, await _focus(pilot)


async def test_home_reaches_memory_one_and_end_the_newest(
    tmp_path: Path, still_config: Config
) -> None:
    async with _long_story_in_focus(tmp_path, still_config, 3000) as (pilot, app, log):
        assert log.span == (2960, 3009) and log.at_end and not log.at_start
        assert "of 3,009" in str(log.border_subtitle)
        await pilot.press("home")
        await settle(pilot)
        await wait_for(pilot, lambda: log.span is not None and log.span[0] == 1, what="memory #1")
        assert log.at_start and log.scroll_y == 0
        assert log.entries[0].memory.content.startswith("Mine ore")
        assert app.screen.bench_state == "page 1-50"
        await pilot.press("end")
        await settle(pilot)
        await wait_for(pilot, lambda: log.at_end, what="the newest page")
        assert log.span == (2960, 3009)
        # The nudge turn begun after the newest memory is marked at the end.
        assert "nudge, level 2" in log.blocks[-1].plain


async def test_scrolling_up_loads_older_pages_and_keeps_few_entries(
    tmp_path: Path, still_config: Config
) -> None:
    async with _long_story_in_focus(tmp_path, still_config, 1000) as (pilot, _app, log):
        for _ in range(40):
            await pilot.press("pageup")
            await settle(pilot)
        span = log.span
        assert span is not None and span[0] < 900  # older pages arrived
        assert len(log.blocks) <= MAX_ENTRIES
        assert not log.at_end
        # The entry at the top of the view stays the same while a page arrives above it.
        log.scroll_to(y=0, animate=False, immediate=True)
        await settle(pilot)
        await pilot.pause(0.05)
        assert log.scroll_y > 0  # the older page went above; the view kept its place
        # A memory stored now is counted, not shown, while the newest page is away.
        before = len(log.entries)
        log.add_memory(log.entries[-1].memory)  # what MessageStored does
        assert len(log.entries) == before and "1 new" in str(log.border_subtitle)


async def test_resting_near_the_top_reads_the_older_page_ahead_of_the_keys(
    tmp_path: Path, still_config: Config
) -> None:
    async with _long_story_in_focus(tmp_path, still_config, 1000) as (pilot, app, log):
        screen = app.screen
        assert isinstance(screen, FocusScreen)
        asked: list[str] = []
        load = screen._load_page
        screen._load_page = lambda mysis_id, direction: (
            asked.append(direction)
            or load(  # type: ignore[method-assign]
                mysis_id, direction
            )
        )
        assert log.span is not None
        first = log.span[0]
        while log.span is not None and log.span[0] == first and log.scroll_y > 0:
            await pilot.press("pageup")  # a commander reading up, resting between keys
            await pilot.pause(0.3)
            await settle(pilot)
        # Read while the commander rested near the top: no key asked for it.
        assert asked == [] and log.span is not None and log.span[0] < first
        assert log.scroll_y > 0 and not log.waiting


async def test_search_opens_the_conversation_at_the_hit(
    tmp_path: Path, still_config: Config
) -> None:
    db = tmp_path / "long.db"
    ada = await seed_long(db, 2000)
    store = await Store.open(db)
    try:
        [needle] = await store.add_memories(
            ada,
            [
                NewMemory(
                    "tool",
                    "tool",
                    "Found a derelict [b]beacon[/b] \x1b[31m zorblax\x1b[0m signal",
                    tool_name="scan",
                )
            ],
        )
        await store.add_memories(
            ada, [NewMemory("assistant", "llm", f"later {i}") for i in range(200)]
        )
    finally:
        await store.close()
    app = ZoeaApp(opener(still_config, db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _search(pilot)
        await pilot.press(*"zorbl")
        await settle(pilot)
        assert screen.bench_state == "search 1"
        plain = " ".join(line.plain for line in screen.query_one(HitList).hit_lines(0))
        assert "[b]beacon[/b]" in plain and "\x1b" not in plain  # shown as text, cleaned
        assert "zorblax" in plain
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, FocusScreen)
        log = app.screen.query_one(ConversationLog)
        await wait_for(
            pilot, lambda: log.hit_id == needle.id and log.entries, what="the page around the hit"
        )
        ids = [e.memory.id for e in log.entries]
        assert needle.id in ids and ids[0] < needle.id < ids[-1]
        hit = next(e for e in log.entries if e.memory.id == needle.id)
        assert hit.hit and sum(e.hit for e in log.blocks) == 1
        assert not log.at_start and not log.at_end


@pytest.mark.overrides
async def test_search_finds_broadcasts_says_when_nothing_matches_and_is_kept(
    seeded_db: Path, still_config: Config
) -> None:
    async with seeded_app(still_config, seeded_db, SIZE) as (pilot, app):
        await pilot.press("slash", *"iron")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SearchScreen) and "Ada" in screen._title()
        assert {h.kind for h in screen.hits} == {"memory", "broadcast"}
        # New hits repaint the list and move its scrollbar; the screen is not laid out.
        layouts = layouts_of(screen)
        hits = screen.hits
        screen.show_hits("iron", [])
        screen.show_hits("iron", [replace(h, id=h.id + 1000 * n) for n in range(20) for h in hits])
        await pilot.pause()
        hit_list = screen.query_one(HitList)
        assert layouts == [] and hit_list.max_scroll_y > 0
        assert hit_list.vertical_scrollbar.window_virtual_size == hit_list.virtual_size.height
        screen.show_hits("iron", hits)
        await pilot.press("ctrl+a", *" qqqqzz")
        await settle(pilot)
        status = screen.query_one("#search-status", TextBlock)
        assert "Nothing matches" in str(status.render())
        await pilot.press("escape")
        assert not isinstance(app.screen, SearchScreen)
        # The same screen searches the next Mysis, empty.
        await pilot.press("right", "slash")
        await settle(pilot)
        assert app.screen is screen and "Brin" in screen._title()
        assert screen.query_one(Input).value == "" and screen.hits == []
        assert screen.query_one(HitList).count == 0
        assert "Type to search" in str(status.render())
        await pilot.press(*"iron")
        await settle(pilot)
        assert {h.kind for h in screen.hits} == {"broadcast"}  # Brin said nothing of iron


@pytest.mark.overrides
async def test_typing_a_query_lays_nothing_out_and_keeps_the_cursor_in_view(
    seeded_db: Path, still_config: Config
) -> None:
    app = ZoeaApp(opener(still_config, seeded_db))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _search(pilot)
        field = screen.query_one(Input)
        layouts = layouts_of(screen)
        query = "iron " * 40  # wider than the field
        await pilot.press(*query)
        await settle(pilot)
        assert field.value == query and layouts == []
        width = field.scrollable_content_region.width
        assert field.virtual_size.width == len(query) + 1 > width
        assert field.scroll_x == field.max_scroll_x > 0  # the end of the text, with the cursor
        row = field.render_line(0).text
        assert "iron" in row and row.rstrip().endswith("iron")


async def test_inspector_opens_requests_as_sent_with_answer_and_diff(
    tmp_path: Path, still_config: Config
) -> None:
    db = tmp_path / "requests.db"
    await seed_requests(db)
    async with seeded_app(still_config, db, SIZE) as (pilot, app):
        await pilot.press("x")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        assert [r.id for r in screen.requests] == [2, 1]
        assert screen.bench_state == "request 2"
        text = str(screen.query_one("#inspector-text", Static).render())
        assert "byte-identical" in text
        assert "Sell it at Sol Station." in text and "sell(" in text  # sent, and came back
        assert "Against request #1" in text and "appended" in text
        await pilot.press("down")
        await settle(pilot)
        assert screen.bench_state == "request 1"
        text = str(screen.query_one("#inspector-text", Static).render())
        assert "first request" in text and "Cargo: 12 iron ore." in text
        await pilot.press("escape")
        assert not isinstance(app.screen, InspectorScreen)


async def test_an_in_flight_request_says_in_flight(tmp_path: Path, still_config: Config) -> None:
    """A request logged whose call has not ended yet reads "in flight" in the list and
    opened, never "nothing stored (the call failed or was stopped)"."""
    from textual.widgets import OptionList

    from zoea_tui.orchestrator.context import next_composition

    db = tmp_path / "requests.db"
    ada = await seed_requests(db)
    async with seeded_app(still_config, db, SIZE) as (pilot, app):
        store = app.commander.store  # type: ignore[union-attr]
        settings = Config().compose_settings(None)
        composition = await next_composition(store, ada, "turn-aware", settings)
        await store.log_request(
            ada, composition, last_memory_id=composition.last_memory_id, settings=settings
        )  # logged as the runtime logs it before the call; the call is under way
        await pilot.press("x")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        assert [r.id for r in screen.requests] == [3, 2, 1]
        await wait_for(pilot, lambda: screen.bench_state == "request 3", what="request 3")
        text = str(screen.query_one("#inspector-text", Static).render())
        assert "in flight" in text and "nothing yet: the call is in flight" in text
        assert "the call failed or was stopped" not in text
        row = str(screen.query_one(OptionList).get_option_at_index(0).prompt)
        assert "#3" in row and "in flight" in row and "pending" not in row

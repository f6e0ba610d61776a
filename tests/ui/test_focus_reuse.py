"""The focus view is built once and kept: each open reads first, then shows it all at once."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot

from zoea_tui.config import Config
from zoea_tui.orchestrator.events import ErrorRaised, MessageStored, NudgeSent
from zoea_tui.storage import NewMemory, Store
from zoea_tui.ui import formatting as fmt
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.dashboard import DashboardScreen
from zoea_tui.ui.screens.focus import PAGE, FocusScreen
from zoea_tui.ui.textual_compat.testing import layouts_of
from zoea_tui.ui.widgets.context_preview import ContextPreview
from zoea_tui.ui.widgets.conversation import ConversationLog
from zoea_tui.ui.worker_groups import AHEAD_GROUP

from .helpers import opener, seed, seeded_app, settle, wait_for

SIZE = (160, 45)


async def _seeded(path: Path) -> dict[str, int]:
    """The fixed swarm, Brin with a conversation of its own; ids by name."""
    await seed(path)
    store = await Store.open(path)
    try:
        ids = {m.name: m.id for m in await store.list_myses()}
        await store.add_memories(
            ids["Brin"],
            [NewMemory("user", "direct", "Scout the belt.")]
            + [NewMemory("assistant", "llm", f"Brin's report {n}.") for n in range(5)],
        )
        return ids
    finally:
        await store.close()


def _shown(screen: FocusScreen) -> tuple[set[int], str | None]:
    """Whose memories the conversation shows, and whose request the preview shows (its
    text: the system prompt is the swarm's, the Mysis's name travels after it)."""
    log = screen.query_one(ConversationLog)
    data = screen.query_one(ContextPreview).data
    owners = {e.memory.mysis_id for e in log.entries if e.memory is not None}
    if data is None:
        return owners, None
    return owners, "\n".join(str(m.get("content") or "") for m in data.request.composition.messages)


async def test_a_second_open_switches_to_the_same_screen_with_everything_in_place(
    tmp_path: Path, still_config: Config
) -> None:
    db = tmp_path / "zoea.db"
    ids = await _seeded(db)
    app = ZoeaApp(opener(still_config, db))
    pushed: list[tuple[FocusScreen, set[int], str | None]] = []  # (screen, owners, request)
    push = app.push_screen

    def spy(screen: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(screen, FocusScreen) and screen.is_mounted:
            pushed.append((screen, *_shown(screen)))
        return push(screen, *args, **kwargs)

    app.push_screen = spy  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_focus(ids["Ada"])
        await settle(pilot)
        first = app.screen
        assert isinstance(first, FocusScreen) and _shown(first)[0] == {ids["Ada"]}
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen)
        app.open_focus(ids["Brin"])
        await settle(pilot)
        assert app.screen is first
        # When the kept screen was switched to, Brin's story and request were on it.
        assert len(pushed) == 1
        screen, owners, request = pushed[0]
        assert screen is first and owners == {ids["Brin"]}
        assert request is not None and "Brin" in request
        assert "Ada" not in request


@asynccontextmanager
async def _ada_in_focus(
    tmp_path: Path, config: Config
) -> AsyncIterator[tuple[Pilot[None], ZoeaApp, FocusScreen, dict[str, int]]]:
    """The app on the seeded swarm, its focus view on Ada."""
    db = tmp_path / "zoea.db"
    ids = await _seeded(db)
    async with seeded_app(config, db, SIZE) as (pilot, app):
        app.open_focus(ids["Ada"])
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FocusScreen) and app.commander is not None
        yield pilot, app, screen, ids


async def test_steps_typed_before_the_first_is_shown_each_move_on(
    tmp_path: Path, still_config: Config
) -> None:
    async with _ada_in_focus(tmp_path, still_config) as (pilot, _app, screen, ids):
        screen.action_step(1)  # `]` twice, the second before the first is read
        screen.action_step(1)
        await settle(pilot)
        assert screen.mysis_id == ids["Cass"]
        assert _shown(screen)[0] <= {ids["Cass"]}


async def test_a_memory_stored_while_the_view_reads_is_shown_after_the_page(
    tmp_path: Path, still_config: Config
) -> None:
    async with _ada_in_focus(tmp_path, still_config) as (pilot, app, screen, ids):
        assert app.commander is not None
        content = await screen.read(ids["Brin"])
        late = await app.commander.store.add_memory(
            ids["Brin"], NewMemory("assistant", "llm", "Stored while the page was read.")
        )
        app.swarm.feed((MessageStored(mysis_id=ids["Brin"], memory=late),))
        await pilot.pause()  # the event is handled while Ada is still shown
        screen.show(content)
        log = screen.query_one(ConversationLog)
        assert [m.id for m in log.memories][-2:] == [late.id - 1, late.id]
        await settle(pilot)
        assert [m.id for m in log.memories].count(late.id) == 1


async def test_an_error_and_a_nudge_of_the_mysis_shown_are_noted_in_its_log(
    tmp_path: Path, still_config: Config
) -> None:
    async with _ada_in_focus(tmp_path, still_config) as (pilot, app, screen, ids):
        app.swarm.feed(
            (
                ErrorRaised(
                    at=0.0, mysis_id=ids["Ada"], message="the model timed out", transient=True
                ),
                NudgeSent(at=0.0, mysis_id=ids["Ada"], level=2, text="Keep mining."),
                ErrorRaised(at=0.0, mysis_id=ids["Brin"], message="not shown here"),
                NudgeSent(at=0.0, mysis_id=ids["Brin"], level=1, text="not shown either"),
            )
        )
        await settle(pilot)
        log = screen.query_one(ConversationLog)
        notes = [(e.kind, e.note) for e in log._entries if e.kind in ("-error", "-nudge")]
        stamp = fmt.stamp(0.0, app.swarm.tick).plain
        assert [(kind, note.plain if note else None) for kind, note in notes] == [
            ("-error", f"{stamp} ERROR (will retry)\n  the model timed out"),
            ("-nudge", f"{stamp} NUDGE 2  (synthetic, not stored)\n  Keep mining."),
        ]
        error, nudge = (note for _, note in notes)
        assert error is not None and nudge is not None

        def after_stamp(note: Text) -> list[tuple[str, str]]:
            return [
                (note.plain[s.start : s.end], str(s.style))
                for s in note.spans
                if s.start >= len(stamp)
            ]

        assert after_stamp(error) == [
            (" ERROR (will retry)", f"bold {fmt.ERROR}"),
            ("the model timed out", fmt.ERROR),
        ]
        assert after_stamp(nudge) == [
            (" NUDGE 2", f"bold {fmt.WARNING}"),
            ("  (synthetic, not stored)", fmt.DIM),
            ("Keep mining.", fmt.WARNING),
        ]


@asynccontextmanager
async def _prebuilt(
    tmp_path: Path, config: Config
) -> AsyncIterator[tuple[Pilot[None], ZoeaApp, FocusScreen, dict[str, int]]]:
    """The app on the seeded swarm as ``run_app`` starts it, its engine open and its views
    built unseen: the pilot, the app, its focus view and the Myses' ids by name."""
    db = tmp_path / "zoea.db"
    ids = await _seeded(db)
    app = ZoeaApp(opener(config, db), prebuild=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.commander is not None and app._focus is not None
        yield pilot, app, app._focus, ids


async def _ada_read_ahead(pilot: Pilot[None], focus: FocusScreen, ids: dict[str, int]) -> None:
    """Waits until the app's own read-ahead of the selected Mysis (Ada) is done, to have it
    out of the way."""
    await wait_for(pilot, lambda: _done(focus, ids["Ada"]), what="the read-ahead")


@pytest.mark.overrides
async def test_the_focus_view_and_search_are_built_unseen_and_the_first_open_uses_them(
    tmp_path: Path, still_config: Config
) -> None:
    async with _prebuilt(tmp_path, still_config) as (pilot, app, focus, ids):
        search = app._search
        assert focus.is_mounted and search is not None
        assert search.is_mounted
        # Built, never shown: the dashboard stays on top with its keys.
        assert app.screen_stack == [app.screen] and isinstance(app.screen, DashboardScreen)
        log = focus.query_one(ConversationLog)
        assert log.entries  # its Mysis's story already read
        assert log.size.width > 0 and log.entries[0].width > 0  # laid out, rendered
        # Read, laid out and styled unseen: its first open only paints.
        restyled: list[object] = []
        update_styles = app.update_styles
        app.update_styles = lambda node, animate=True: (  # type: ignore[method-assign]
            restyled.append(node) or update_styles(node, animate=animate)
        )
        laid_out = layouts_of(focus)
        await pilot.press("right", "enter")
        await settle(pilot)
        assert app.screen is focus and _shown(focus)[0] == {ids["Brin"]}
        assert focus not in restyled and laid_out == []
        await pilot.press("escape", "slash")
        await settle(pilot)
        assert app.screen is search


@pytest.mark.overrides
async def test_deleting_the_mysis_of_the_unseen_focus_view_leaves_it_ready(
    tmp_path: Path, still_config: Config
) -> None:
    async with _prebuilt(tmp_path, still_config) as (pilot, app, focus, ids):
        assert focus.mysis_id == ids["Ada"]
        await app.commander.delete_mysis(ids["Ada"])
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen) and ids["Ada"] not in app.views
        app.open_focus(ids["Brin"])
        await settle(pilot)
        assert app.screen is focus and _shown(focus)[0] == {ids["Brin"]}


def _looks(screen: FocusScreen) -> list[tuple[object, ...]]:
    """Every node's colours and border, in DOM order."""
    return [
        (node, node.styles.background, node.styles.color, node.styles.border)
        for node in screen.walk_children(with_self=True)
    ]


@pytest.mark.overrides
async def test_the_focus_view_shown_again_is_restyled_only_when_the_styling_changed(
    tmp_path: Path, still_config: Config
) -> None:
    async with _ada_in_focus(tmp_path, still_config) as (pilot, app, screen, ids):
        restyled: list[object] = []
        update_styles = app.update_styles

        def spy(node: Any, animate: bool = True) -> None:
            restyled.append(node)
            update_styles(node, animate=animate)

        async def away_then_back(change: Callable[[], None]) -> list[tuple[object, ...]]:
            """Leave the focus view, ``change`` the styling, open it again: the looks
            from before the change."""
            await pilot.press("escape")
            await settle(pilot)
            before = _looks(screen)
            change()
            await settle(pilot)
            assert _looks(screen) == before  # Textual restyles no screen away
            restyled.clear()
            app.open_focus(ids["Brin"])
            await settle(pilot)
            assert app.screen is screen
            return before

        app.update_styles = spy  # type: ignore[method-assign]
        await away_then_back(lambda: None)
        assert screen not in restyled  # nothing changed: kept

        def new_rule() -> None:
            app.stylesheet.add_source("FocusScreen ConversationLog { color: #102030; }")
            app.refresh_css()

        changes = {"new theme": lambda: setattr(app, "theme", "textual-light"), "new CSS": new_rule}
        for change in changes.values():
            before = await away_then_back(change)
            assert screen in restyled
            after = _looks(screen)
            assert after != before
            # What a full restyle now would give: the styles shown are current.
            app.stylesheet.update_nodes(screen.walk_children(with_self=True), animate=False)
            assert _looks(screen) == after
        assert screen.query_one(ConversationLog).styles.color.hex == "#102030"


def _done(focus: FocusScreen, mysis_id: int) -> bool:
    return focus.center.ahead.done(mysis_id)


def _count_fetches(screen: FocusScreen) -> list[int]:
    """The Myses whose content the focus view reads on a key from now on: those a key
    opens or steps to with nothing read ahead to take (reads ahead are not counted)."""
    fetched: list[int] = []
    ahead = screen.center.ahead
    take = ahead.take

    def counted(mysis_id: int) -> Any:
        taken = take(mysis_id)
        if taken is None:
            fetched.append(mysis_id)
        return taken

    ahead.take = counted  # type: ignore[method-assign]
    return fetched


async def test_news_of_a_memory_the_view_already_shows_does_not_show_it_twice(
    tmp_path: Path, still_config: Config
) -> None:
    async with _ada_in_focus(tmp_path, still_config) as (pilot, app, screen, ids):
        assert app.commander is not None
        late = await app.commander.store.add_memory(
            ids["Ada"], NewMemory("assistant", "llm", "Read ahead, and then its news came.")
        )
        # As when content read ahead, which gathered it, is shown before its news is handled.
        log = screen.query_one(ConversationLog)
        log.add_memory(late)
        app.swarm.feed((MessageStored(mysis_id=ids["Ada"], memory=late),))
        await pilot.pause()
        assert [m.id for m in log.memories].count(late.id) == 1
        newer = await app.commander.store.add_memory(
            ids["Ada"], NewMemory("assistant", "llm", "Stored after it.")
        )
        app.swarm.feed((MessageStored(mysis_id=ids["Ada"], memory=newer),))
        await pilot.pause()
        assert [m.id for m in log.memories][-2:] == [late.id, newer.id]


@pytest.mark.overrides
async def test_the_selected_mysis_is_read_ahead_and_enter_only_shows_it(
    tmp_path: Path, still_config: Config
) -> None:
    async with _prebuilt(tmp_path, still_config) as (pilot, app, focus, ids):
        await pilot.press("right")  # Brin, then a rest on it: its view is read ahead
        await wait_for(pilot, lambda: _done(focus, ids["Brin"]), what="Brin read ahead")
        assert list(app.ahead.reads) == [ids["Brin"]] and not app.ahead.reads[ids["Brin"]].stale
        # Stored after the read: gathered, and shown after the page on the open.
        late = await app.commander.store.add_memory(
            ids["Brin"], NewMemory("assistant", "llm", "Stored after the read-ahead.")
        )
        app.swarm.feed((MessageStored(mysis_id=ids["Brin"], memory=late),))
        await pilot.pause()
        assert app.ahead.reads[ids["Brin"]].stale  # its request is composed again on the open
        fetched = _count_fetches(focus)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is focus, what="the open")
        assert fetched == []  # no page read on the open
        assert _shown(focus)[0] == {ids["Brin"]}
        assert focus.query_one(ConversationLog).memories[-1].id == late.id


async def test_the_neighbours_of_the_focused_mysis_are_read_ahead_and_a_step_only_shows(
    tmp_path: Path, still_config: Config
) -> None:
    async with _ada_in_focus(tmp_path, still_config) as (pilot, _app, screen, ids):
        order = sorted(ids.values())
        after, before = order[1], order[-1]  # Ada is the first: `[` wraps to the last
        assert screen.neighbours() == [after, before]
        await pilot.press("i")  # any key, then a rest: the neighbours are read ahead
        await wait_for(pilot, lambda: _done(screen, after) and _done(screen, before))
        fetched = _count_fetches(screen)
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: screen.mysis_id == after and screen._reading is None)
        assert _shown(screen)[0] <= {after} and fetched == []
        # Resting on Brin reads its own neighbours; `[` goes back to Ada without a read.
        await wait_for(pilot, lambda: _done(screen, ids["Ada"]), what="Ada read ahead")
        await pilot.press("left_square_bracket")
        await wait_for(pilot, lambda: screen.mysis_id == ids["Ada"] and screen._reading is None)
        assert _shown(screen)[0] <= {ids["Ada"]} and fetched == []
        # A step shown late (here with no key at all) reads around its Mysis too.
        await wait_for(pilot, lambda: _done(screen, after) and _done(screen, before))
        screen.action_step(1)
        await wait_for(pilot, lambda: _done(screen, ids["Ada"]) and _done(screen, ids["Cass"]))


@pytest.mark.overrides
async def test_read_ahead_content_is_handed_over_once_while_wanted_and_within_a_page(
    tmp_path: Path, still_config: Config
) -> None:
    async with _prebuilt(tmp_path, still_config) as (pilot, app, focus, ids):
        await _ada_read_ahead(pilot, focus, ids)
        await app.ahead.read([ids["Cass"]])
        assert app.ahead.take(ids["Ada"]) is None  # no longer wanted: dropped
        assert app.ahead.take(ids["Brin"]) is None  # never read
        ahead = app.ahead.take(ids["Cass"])
        assert ahead is not None and ahead.content.page.memories is not None
        assert not ahead.stale
        assert app.ahead.take(ids["Cass"]) is None  # once
        # A read that did not end (a key cancelled it) is not handed over, and read again.
        go_on = asyncio.Event()
        read_content = app.ahead.read_content

        async def held(*args: Any) -> Any:
            await go_on.wait()
            return await read_content(*args)

        app.ahead.read_content = held  # type: ignore[method-assign]
        reading = asyncio.create_task(app.ahead.read([ids["Cass"]]))
        await pilot.pause()
        reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reading
        assert not _done(focus, ids["Cass"]) and app.ahead.take(ids["Cass"]) is None
        # Something of Cass happened while it was read: its request is composed again,
        # and what was stored meanwhile is gathered.
        reading = asyncio.create_task(app.ahead.read([ids["Cass"]]))
        await pilot.pause()
        late = await app.commander.store.add_memory(
            ids["Cass"], NewMemory("assistant", "llm", "Stored during the read-ahead.")
        )
        app.swarm.feed((MessageStored(mysis_id=ids["Cass"], memory=late),))
        await pilot.pause()  # handled while the read is under way
        go_on.set()
        await reading
        ahead = app.ahead.take(ids["Cass"])
        assert ahead is not None and ahead.stale and ahead.content.arrived == [late]
        # More than a page stored since the read: the page is left behind, and dropped.
        await app.ahead.read([ids["Cass"]])
        app.swarm.feed(
            tuple(MessageStored(mysis_id=ids["Cass"], memory=late) for _ in range(PAGE + 1))
        )
        await pilot.pause()
        assert ids["Cass"] not in app.ahead.reads and app.ahead.take(ids["Cass"]) is None


async def test_nothing_is_read_ahead_before_the_focus_view_that_shows_it_is_built(
    tmp_path: Path, still_config: Config
) -> None:
    db = tmp_path / "zoea.db"
    ids = await _seeded(db)
    app = ZoeaApp(opener(still_config, db))  # no view built unseen
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("right")  # Brin, then a rest on it
        await pilot.pause(0.5)
        await settle(pilot)
        assert app._focus is None and app.ahead.reads == {}
        app.ahead.want([ids["Brin"]])
        # The page beyond an edge, asked for with no view to show it: never read.
        fill = _never_read()
        app.ahead.want_page(fill)
        assert inspect.getcoroutinestate(fill) == inspect.CORO_CLOSED
        await settle(pilot)
        assert app.ahead.reads == {}
        assert not [w for w in app.workers if w.group == AHEAD_GROUP]


async def _never_read() -> None:
    raise AssertionError("read with no view to show it")


@pytest.mark.overrides
async def test_an_open_hands_over_what_was_read_ahead_with_what_the_view_gathered_once_each(
    tmp_path: Path, still_config: Config
) -> None:
    async with _prebuilt(tmp_path, still_config) as (pilot, app, focus, ids):
        await _ada_read_ahead(pilot, focus, ids)
        brin = ids["Brin"]
        await app.ahead.read([brin])
        ahead = app.ahead.reads[brin]
        read_page = ahead.content.page
        first, second = await app.commander.store.add_memories(
            brin,
            [NewMemory("assistant", "llm", "One."), NewMemory("assistant", "llm", "Two.")],
        )
        ahead.content.arrived.extend([first, second])  # gathered by the read
        gathered = [second]  # what the view gathered since the key, second only
        content = await app.ahead.open(brin, None, gathered)
        assert content.page is read_page and content.arrived is gathered
        assert [m.id for m in gathered] == [first.id, second.id]
        assert brin not in app.ahead.reads  # handed over once
        # Nothing read ahead for it now: read afresh, around memory ``at`` when given.
        fresh = await app.ahead.open(brin, first.id)
        assert fresh.focus_id == first.id and first.id in {m.id for m in fresh.page.memories}

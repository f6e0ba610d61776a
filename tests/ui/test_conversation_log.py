"""The conversation log on its own: lines drawn for the rows on screen, pages added above
and below without moving the view, the stream replaced by what was stored, entries
expanded with the keyboard and the mouse."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from rich.console import RenderableType
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from zoea_tui.core.types import Memory
from zoea_tui.ui.textual_compat.testing import layouts_of
from zoea_tui.ui.widgets.conversation import ConversationLog, LogEntry, Page

LONG = "\n".join(f"line {i} of a long result" for i in range(40))


def memory(i: int, content: str = "", role: str = "assistant") -> Memory:
    return Memory(
        id=i,
        mysis_id=1,
        role=role,  # type: ignore[arg-type]
        source="tool" if role == "tool" else "llm",
        content=content or f"memory number {i}",
        tool_name="scan" if role == "tool" else None,
        seq=i,
    )


def rows(log: ConversationLog) -> list[str]:
    """The text of the rows on screen."""
    return [log.render_line(y).text for y in range(log.scrollable_content_region.height)]


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationLog(id="conversation")


@asynccontextmanager
async def shown(
    page: Page, size: tuple[int, int] = (60, 20)
) -> AsyncIterator[tuple[Pilot[None], ConversationLog]]:
    """The log alone in an app of ``size``, told to show ``page``: the pilot and the log."""
    app = LogApp()
    async with app.run_test(size=size) as pilot:
        log = app.query_one(ConversationLog)
        log.show_page(page)
        yield pilot, log


async def test_rows_are_drawn_from_the_entries_and_only_for_the_view() -> None:
    first = Page([memory(i) for i in range(1, 101)], [], True, True, 100)
    async with shown(first) as (pilot, log):
        await pilot.pause()
        assert log.max_scroll_y > 100 and log.scroll_y == log.max_scroll_y  # stuck to the end
        assert not list(log.children)  # no widget per entry
        drawn: list[int] = []
        original = log.render_line
        log.render_line = lambda y: (drawn.append(y), original(y))[1]  # type: ignore[method-assign]
        log.refresh()
        await pilot.pause()
        assert drawn and max(drawn) < 20  # the rows of the view, not the 300 lines
        assert any("memory number 100" in row for row in rows(log))


async def test_an_older_page_arrives_above_without_moving_the_view() -> None:
    first = Page([memory(i) for i in range(51, 101)], [], False, True, 100)
    async with shown(first) as (pilot, log):
        await pilot.pause()
        log.scroll_to(y=10, animate=False, immediate=True, force=True)
        await pilot.pause()
        before = rows(log)
        log.prepend_page(Page([memory(i) for i in range(1, 51)], [], True, False, 100))
        await pilot.pause()
        assert log.span == (1, 100) and log.at_start
        assert log.scroll_y > 100  # the new page went above the view
        assert rows(log) == before  # the same rows on screen


async def test_what_was_streamed_gives_way_to_the_stored_memory() -> None:
    first = Page([memory(1)], [], True, True, 1)
    async with shown(first) as (pilot, log):
        log.show_stream(Text("AI ⋯ mining until"))
        log.show_stream(Text("AI ⋯ mining until the hold is full"))
        assert [b.kind for b in log.blocks] == ["", "-stream"]
        log.add_memory(memory(2, "mining until the hold is full"))
        await pilot.pause()
        assert [b.kind for b in log.blocks] == ["", ""]  # no stale stream left behind
        assert not any("⋯" in row for row in rows(log))


async def test_tab_and_enter_expand_an_entry_and_a_click_collapses_it() -> None:
    first = Page([memory(1, LONG, "tool"), memory(2)], [], True, True, 2)
    async with shown(first, size=(60, 30)) as (pilot, log):
        log.focus()
        await pilot.pause()
        log.scroll_to(y=0, animate=False, immediate=True, force=True)
        [long, short] = log.entries
        assert long.expandable and not short.expandable
        height = len(long.lines)
        await pilot.press("tab", "enter")
        assert long.expanded and len(long.lines) > height + 20
        assert "line 39 of a long result" in "\n".join(s.text for s in long.lines)
        await pilot.click(ConversationLog, offset=(5, 1))
        assert not long.expanded and len(long.lines) == height


@pytest.mark.overrides
async def test_new_entries_and_pages_never_lay_the_screen_out_again() -> None:
    first = Page([memory(i) for i in range(51, 101)], [], False, True, 100)
    async with shown(first) as (pilot, log):
        await pilot.pause()
        layouts = layouts_of(pilot.app.screen)
        log.add_memory(memory(101, LONG))
        await pilot.pause()
        log.prepend_page(Page([memory(i) for i in range(1, 51)], [], True, False, 101))
        await pilot.pause()
        log.show_page(Page([memory(i) for i in range(1, 31)], [], True, False, 101), top=True)
        await pilot.pause()
        # A story shorter than the view, then a long one again: the scrollbar stays.
        log.show_page(Page([memory(1)], [], True, True, 1))
        await pilot.pause()
        log.show_page(Page([memory(i) for i in range(1, 31)], [], True, False, 101), top=True)
        await pilot.pause()
        assert layouts == []
        # The scrollbar follows the new virtual size all the same.
        assert log.vertical_scrollbar.window_virtual_size == log.virtual_size.height
        assert log.max_scroll_y == log.virtual_size.height - log.scrollable_content_region.height
        assert any("memory number 1" in row for row in rows(log))


async def test_page_keys_move_a_whole_page_at_once() -> None:
    first = Page([memory(i) for i in range(1, 101)], [], True, True, 100)
    async with shown(first) as (pilot, log):
        log.focus()
        await pilot.pause()
        bottom, page = log.scroll_y, log.scrollable_content_region.height
        log.action_page_up()
        assert log.scroll_y == bottom - page  # at once: no animation on its way
        log.action_page_down()
        assert log.scroll_y == bottom
        await pilot.press("pageup")
        assert log.scroll_y == bottom - page  # the key is bound to it


async def test_a_memory_shown_again_is_not_laid_out_again(monkeypatch: pytest.MonkeyPatch) -> None:
    laid_out: list[int] = []
    original = LogEntry.renderable

    def renderable(entry: LogEntry, names: dict[str, str]) -> RenderableType:
        if entry.memory is not None:
            laid_out.append(entry.memory.id)
        return original(entry, names)

    monkeypatch.setattr(LogEntry, "renderable", renderable)
    app = LogApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(ConversationLog)
        page = Page([memory(i) for i in range(1, 21)], [], True, True, 20)
        log.show_page(page)
        await pilot.pause()
        assert sorted(laid_out) == list(range(1, 21))
        log.show_page(Page([memory(99)], [], True, True, 1))  # another Mysis, say
        log.show_page(page)  # and back
        await pilot.pause()
        assert laid_out[20:] == [99]  # only memory 99 was new
        assert any("memory number 20" in row for row in rows(log))
        # Expanded, a memory is laid out anew; so is every header once a name changes.
        log.all_expanded = True
        assert sorted(laid_out[21:]) == list(range(1, 21))
        log.all_expanded = False
        assert len(laid_out) == 41  # collapsed again: as laid out before
        log.names = {"7": "Brin"}
        log.show_page(page)
        assert len(laid_out) == 41 + 20

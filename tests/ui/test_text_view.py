"""TextView: new text of any length repaints and moves the scrollbar, never lays the screen out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.pilot import Pilot
from textual.scrollbar import ScrollBar
from textual.widgets import Static

from zoea_tui.ui.textual_compat.testing import forget_painted_rows, layouts_of, repaint_asked
from zoea_tui.ui.textual_compat.views import SteadyScrollBar
from zoea_tui.ui.widgets.text_view import TextView

from .helpers import painted, view_rows


class ViewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TextView(Text("one line"), id="view")


@pytest.mark.overrides
async def test_new_text_of_any_length_is_shown_without_a_layout() -> None:
    app = ViewApp()
    async with painted(app, (40, 10), TextView) as (pilot, view):
        assert view_rows(view)[0] == "one line"
        layouts = layouts_of(app.screen)
        view.show(Group(*(Text(f"row {i}") for i in range(30))))
        await pilot.pause()
        assert view_rows(view)[:2] == ["row 0", "row 1"] and view.max_scroll_y == 20
        view.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert view_rows(view)[-1] == "row 29"
        view.show(Text("x" * 100), top=True)  # wraps at the view's width
        await pilot.pause()
        width = view.scrollable_content_region.width
        assert view.virtual_size.height == 3 and view_rows(view)[:3] == [
            "x" * width,
            "x" * width,
            "x" * (100 - 2 * width),
        ]
        assert layouts == []


async def test_a_new_width_lays_the_text_out_again() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(TextView)
        view.show(Text("y" * 60))
        await pilot.pause()
        assert view.virtual_size.height == 2
        await pilot.resize_terminal(80, 10)
        await pilot.pause()
        assert view.virtual_size.height == 1 and view_rows(view)[0] == "y" * 60


class Counted:
    """A block that counts its renderings."""

    renders = 0

    def __init__(self, text: str, rows: int = 2) -> None:
        self.text = text
        self.rows = rows

    def __rich_console__(self, console: Any, options: Any) -> Any:
        Counted.renders += 1
        for row in range(self.rows):
            yield Text(f"{self.text}.{row}")


async def test_blocks_with_a_guess_are_rendered_when_first_in_view() -> None:
    app = ViewApp()
    async with painted(app, (40, 10), TextView) as (pilot, view):
        Counted.renders = 0
        blocks = [Counted(f"b{i}", rows=3 if i % 2 else 2) for i in range(100)]
        view.show_blocks(blocks, guess=lambda width: [2] * len(blocks), top=True)
        await pilot.pause()
        height = view.scrollable_content_region.height
        # Only the blocks down to the view's height; the rest counted at their guess.
        assert Counted.renders < 10 and view_rows(view)[:3] == ["b0.0", "b0.1", "b1.0"]
        assert view.virtual_size.height == sum(b.rows for b in blocks[: Counted.renders]) + 2 * (
            100 - Counted.renders
        )
        view.scroll_to(y=20, animate=False, immediate=True)
        await pilot.pause()
        assert (
            view_rows(view)[:height]
            == [f"b{i}.{r}" for i, b in enumerate(blocks) for r in range(b.rows)][20 : 20 + height]
        )
        view.scroll_end(animate=False, immediate=True)  # to the true end
        await pilot.pause()
        assert Counted.renders == 100 and view.virtual_size.height == 250
        assert view_rows(view)[-1] == "b99.2"
        Counted.renders = 0
        view.show_blocks(blocks)  # without a guess: all of them at once
        assert Counted.renders == 100


async def test_blocks_with_keys_are_kept_for_the_next_show() -> None:
    app = ViewApp()
    async with painted(app, (40, 10), TextView) as (pilot, view):
        blocks = [Counted(f"b{i}") for i in range(4)]
        keys = [b.text for b in blocks]
        view.show_blocks(blocks, keys=keys)
        Counted.renders = 0
        blocks[2] = Counted("new")
        view.show_blocks(blocks, keys=[b.text for b in blocks])  # one block is new
        await pilot.pause()
        assert Counted.renders == 1
        assert view_rows(view)[:6] == ["b0.0", "b0.1", "b1.0", "b1.1", "new.0", "new.1"]
        await pilot.resize_terminal(60, 10)  # a new width renders them all again
        await pilot.pause()
        assert Counted.renders == 5
        view.show_blocks(blocks)  # without keys: rendered, never kept
        assert Counted.renders == 9


async def test_a_paint_works_the_views_style_out_once_not_per_row() -> None:
    calls = []

    class Counted(TextView):
        @property
        def rich_style(self) -> Any:
            calls.append(1)
            return super().rich_style

    class CountedApp(App[None]):
        def compose(self) -> ComposeResult:
            yield Counted(Group(*(Text(f"row {i}") for i in range(30))))

    app = CountedApp()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        view = app.query_one(Counted)
        forget_painted_rows(view)
        calls.clear()
        strips = view.render_lines(Region(0, 0, view.size.width, view.size.height))
        assert [s.text.rstrip() for s in strips][:2] == ["row 0", "row 1"]
        assert len(calls) == 1


@pytest.mark.overrides
async def test_kept_rows_are_filtered_once_as_textual_filters_a_line() -> None:
    # An ANSI colour becomes the theme's truecolour, as Textual's own filter makes it;
    # the filter runs in the view, once per row kept, so Textual is given none to run.
    app = ViewApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(TextView)
        view.show(Text.assemble(("red", "red"), " ", ("hex", "#123456")))
        await pilot.pause()
        assert list(view.get_line_filters()) == [] and app.get_line_filters()
        forget_painted_rows(view)
        row = view.render_lines(Region(0, 0, view.size.width, 1))[0]
        colours = {seg.text: seg.style.color for seg in row if seg.style and seg.text.strip()}
        assert colours["red"] is not None and colours["red"].triplet is not None
        assert colours["hex"] is not None and colours["hex"].triplet is not None
        assert colours["hex"].triplet.hex == "#123456"
        # Unchanged, the row is the same strip paint after paint (Textual caches both steps).
        kept = view._lines[0]
        assert view.paint(kept) is view.paint(kept)
        assert view.paint(kept).text == kept.text


class TwoViewsApp(App[None]):
    """A line-API view beside Textual's own scroll view, both taller than the screen."""

    CSS = "Horizontal > * { width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield TextView(Group(*(Text(f"row {i}") for i in range(30))), id="steady")
            yield VerticalScroll(*(Static(f"row {i}") for i in range(30)), id="plain")


@pytest.mark.overrides
async def test_a_restyle_repaints_no_scrollbar_that_looks_the_same() -> None:
    # Textual repaints a scrollbar whenever its view's scrollbar colours are set, as the
    # screen's restyle on coming back on top does; the repaint then came a frame late.
    app = TwoViewsApp()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        steady = app.query_one("#steady", TextView).vertical_scrollbar
        plain = app.query_one("#plain", VerticalScroll).vertical_scrollbar
        assert isinstance(steady, SteadyScrollBar) and not isinstance(plain, SteadyScrollBar)
        assert not repaint_asked(steady) and not repaint_asked(plain)
        app.update_styles(app.screen)
        assert repaint_asked(plain)  # the check can fail: Textual's own bar repaints
        assert not repaint_asked(steady)


@asynccontextmanager
async def steady_bar() -> AsyncIterator[tuple[Pilot[None], TextView, ScrollBar]]:
    """The line-API view of a running :class:`TwoViewsApp`, and its scrollbar."""
    app = TwoViewsApp()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        view = app.query_one("#steady", TextView)
        yield pilot, view, view.vertical_scrollbar


@pytest.mark.overrides
async def test_a_steady_scrollbar_repaints_when_what_it_draws_changes() -> None:
    async with steady_bar() as (pilot, view, bar):

        def drawn() -> list[tuple[tuple[str, str], ...]]:
            """The bar as the screen gets it (from Textual's cache of its rows)."""
            rows = bar.render_lines(Region(0, 0, bar.size.width, bar.size.height))
            return [tuple((seg.text, str(seg.style)) for seg in row) for row in rows]

        steps = [
            lambda: view.scroll_end(animate=False, immediate=True),  # the thumb moves
            lambda: view.show(Group(*(Text(f"row {i}") for i in range(300)))),  # shrinks
            lambda: setattr(view.styles, "scrollbar_color", "red"),  # a new colour
        ]
        for step in steps:
            before = drawn()
            step()
            assert repaint_asked(bar)
            await pilot.pause()
            assert drawn() != before


@pytest.mark.overrides
async def test_a_steady_scrollbar_that_looks_the_same_is_not_rendered_again() -> None:
    async with steady_bar() as (_pilot, view, bar):
        whole = Region(0, 0, bar.size.width, bar.size.height)
        renders: list[object] = []
        render = bar.render
        bar.render = lambda: renders.append(1) or render()  # type: ignore[method-assign]
        first = bar.render_lines(whole)
        forget_painted_rows(bar)  # as a repaint of the whole screen asks for it
        assert bar.render_lines(whole) is first and renders == []
        view.scroll_to(y=5, animate=False, immediate=True)  # the thumb moves
        moved = bar.render_lines(whole)
        assert renders and [list(r) for r in moved] != [list(r) for r in first]
        view.scroll_to(y=0, animate=False, immediate=True)
        bar._painted = None  # what Textual paints for the same looks, afresh
        assert [list(r) for r in bar.render_lines(whole)] == [list(r) for r in first]

"""EdgedRows: a bordered widget's rows of content are painted as Textual paints them."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.geometry import Region

from zoea_tui.ui.textual_compat.edged_rows import EdgedRows, edges_of
from zoea_tui.ui.widgets.text_view import TextView

#: Tests of an override: skipped with ZOEA_STOCK_TEXTUAL=1, which turns it off.
pytestmark = pytest.mark.overrides

#: A style per view: the short way for the first five, Textual's way for the rest.
STYLES = {
    "round": "border: round $accent; padding: 0 1; background: $panel;",
    "titled": "border: heavy red; border-title-align: center; padding: 1 2;",
    "left-only": "border-left: thick $primary; background: #203040 50%;",
    "bare": "padding: 0 3 0 1;",
    "plain": "",
    "tinted": "border: round $accent; tint: red 20%;",
    "faded": "border: round $accent; opacity: 60%;",
    "hatched": "border: round $accent; hatch: right $primary 40%;",
    "outlined": "outline: solid green; padding: 0 1;",
}
SHORT = ("round", "titled", "left-only", "bare", "plain")


class Views(App[None]):
    CSS = "\n".join(f"#{name} {{ height: 7; {css} }}" for name, css in STYLES.items())

    def compose(self) -> ComposeResult:
        for name in STYLES:
            view = TextView(
                Text("\n".join(f"[{name}] row {i} " + "▒" * (i * 7) for i in range(12))),
                id=name,
            )
            view.border_title = f"{name} title"
            view.border_subtitle = "sub"
            yield view


@pytest.mark.parametrize("name", list(STYLES))
async def test_every_row_is_the_row_textual_paints(name: str) -> None:
    app = Views()
    async with app.run_test(size=(70, 70)) as pilot:
        await pilot.pause()
        view = app.query_one(f"#{name}", TextView)
        assert isinstance(view._styles_cache, EdgedRows)
        assert (edges_of(view, view._styles_cache) is not None) == (name in SHORT)
        for offset in (0, 3):  # two pages of the text
            view.scroll_to(y=offset, animate=False, immediate=True)
            whole = Region(0, 0, *view.outer_size)
            view._styles_cache.clear()
            ours = view.render_lines(whole)
            textual = StylesCache()
            view._styles_cache, kept = textual, view._styles_cache
            theirs = view.render_lines(whole)
            view._styles_cache = kept
            assert [list(row) for row in ours] == [list(row) for row in theirs]
            assert [row.cell_length for row in ours] == [whole.width] * whole.height
            part = Region(2, 1, 9, 3)  # a crop: cut as Textual cuts
            view._styles_cache.clear()
            assert [list(r) for r in view.render_lines(part)] == [
                list(r) for r in textual.render_widget(view, part)
            ]

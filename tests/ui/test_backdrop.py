"""An opaque screen keeps its backdrop's rows while nothing they are drawn from changes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.color import Color
from textual.geometry import Region
from textual.widgets import Static

from zoea_tui.ui.screens.base import OpaqueScreensApp, ZoeaModalScreen, ZoeaScreen


class Backdrop(ZoeaScreen[None]):
    def compose(self) -> ComposeResult:
        yield Static("over the backdrop")


class BackdropApp(OpaqueScreensApp):
    CSS = "Backdrop { background: #102030; } ZoeaModalScreen { background: #000000 50%; }"

    def on_mount(self) -> None:
        self.push_screen(Backdrop())


async def test_a_full_repaint_reuses_the_backdrop_rows_until_its_colour_changes() -> None:
    app = BackdropApp()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        screen = app.screen
        whole = screen.size.region
        first = screen.render_lines(whole)
        screen.refresh()  # a full repaint clears Textual's own cache of the rows
        await pilot.pause()
        again = screen.render_lines(whole)
        assert all(a is b for a, b in zip(first, again, strict=True))
        part = screen.render_lines(Region(5, 2, 10, 3))
        assert [row.cell_length for row in part] == [10, 10, 10]

        screen.styles.background = Color.parse("#304050")
        await pilot.pause()
        changed = screen.render_lines(whole)
        assert changed[0] is not first[0]
        colours = {seg.style.bgcolor.triplet.hex for seg in changed[0] if seg.style}
        assert colours == {"#304050"}


async def test_a_translucent_screen_keeps_nothing_and_shows_what_is_under_it() -> None:
    app = BackdropApp()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        dialog = ZoeaModalScreen[None]()
        await app.push_screen(dialog)
        await pilot.pause()
        rows = dialog.render_lines(dialog.size.region)
        assert dialog._backdrop is None
        # Blended over the backdrop under it, not a colour of its own.
        colours = {seg.style.bgcolor.triplet.hex for seg in rows[0] if seg.style}
        assert colours and "#000000" not in colours

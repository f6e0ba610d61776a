"""The game-state sidebar: every cached snapshot, repainted in place whatever its length."""

from __future__ import annotations

from textual.app import App, ComposeResult

from zoea_tui.game.state_cache import Snapshot
from zoea_tui.ui.widgets.game_state import GameStateSidebar

from .helpers import layouts_of, view_rows


class SidebarApp(App[None]):
    def compose(self) -> ComposeResult:
        yield GameStateSidebar(id="game-state")


async def test_new_snapshots_are_shown_in_place_without_a_layout() -> None:
    app = SidebarApp()
    async with app.run_test(size=(40, 12)) as pilot:
        sidebar = app.query_one(GameStateSidebar)
        await pilot.pause()
        layouts = layouts_of(app.screen)
        sidebar.show_state({}, 5)
        await pilot.pause()
        assert view_rows(sidebar)[0].startswith("No game state yet")
        status = Snapshot("get_status", {"credits": 150, "ship": {"fuel": 80}}, 4, 0.0)
        cargo = Snapshot("get_cargo", {f"item{i}": i for i in range(20)}, 5, 0.0)
        sidebar.show_state({"get_status": status, "get_cargo": cargo}, 5)
        await pilot.pause()
        shown = view_rows(sidebar)
        assert shown[0].startswith("get_status  T4") and " credits: 150" in shown
        assert " ship.fuel: 80" in shown and sidebar.max_scroll_y > 0  # the cargo scrolls
        assert layouts == []

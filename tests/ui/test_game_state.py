"""The game-state sidebar: every cached snapshot, repainted in place whatever its length."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from zoea_tui.game.state_cache import Snapshot
from zoea_tui.ui.widgets.game_state import GameStateSidebar, game_state_text

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


def _snapshots(tick: int) -> dict[str, Snapshot]:
    tools = ("get_status", "get_cargo", "get_system", "get_poi", "view_market", "get_skills")
    return {
        tool: Snapshot(tool, {f"{tool}_{i}": "word " * (i % 7) for i in range(20)}, tick, 0.0)
        for tool in tools
    }


async def test_only_the_tools_in_view_are_rendered_and_unchanged_ones_are_kept() -> None:
    app = SidebarApp()
    async with app.run_test(size=(40, 12)) as pilot:
        sidebar = app.query_one(GameStateSidebar)
        await pilot.pause()
        rendered: list[str] = []
        render_lines = app.console.render_lines

        def spy(renderable: Any, *args: Any, **kwargs: Any) -> Any:
            rendered.append(renderable.plain.strip())
            return render_lines(renderable, *args, **kwargs)

        app.console.render_lines = spy  # type: ignore[method-assign]
        sidebar.show_state(_snapshots(4), 4)
        await pilot.pause()
        # The first tool fills the view: only it is rendered.
        assert [text.split("\n")[0] for text in rendered] == ["get_status  T4 (now)"]
        assert "get_cargo" not in rendered[0]
        # Another Mysis's state, then this one's again: nothing rendered twice.
        sidebar.show_state({"get_status": Snapshot("get_status", {"credits": 1}, 2, 0.0)}, 2)
        rendered.clear()
        sidebar.show_state(_snapshots(4), 4)
        await pilot.pause()
        assert rendered == []
        # The rows down to the end are those of the whole text rendered at once.
        sidebar.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        width = sidebar.scrollable_content_region.width
        whole = [
            "".join(segment.text for segment in line).rstrip()
            for line in render_lines(
                game_state_text(_snapshots(4), 4), app.console.options.update_width(width)
            )
        ]
        assert sidebar.virtual_size.height == len(whole)
        assert view_rows(sidebar) == whole[-sidebar.scrollable_content_region.height :]

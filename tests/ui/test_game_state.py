"""The game-state sidebar: every cached snapshot, repainted in place whatever its length."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult

from zoea_tui.core.redaction import PASSWORD_MASK, SESSION_MASK
from zoea_tui.game.state_cache import Snapshot
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.dashboard import DashboardScreen
from zoea_tui.ui.screens.focus import FocusScreen
from zoea_tui.ui.textual_compat.testing import layouts_of
from zoea_tui.ui.widgets.game_state import GameStateSidebar, game_state_text

from .helpers import painted, settle, view_rows, wait_for


class SidebarApp(App[None]):
    def compose(self) -> ComposeResult:
        yield GameStateSidebar(id="game-state")


@pytest.mark.overrides
async def test_new_snapshots_are_shown_in_place_without_a_layout() -> None:
    app = SidebarApp()
    async with painted(app, (40, 12), GameStateSidebar) as (pilot, sidebar):
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
    async with painted(app, (40, 12), GameStateSidebar) as (pilot, sidebar):
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


PASSWORD = "c0ffee" * 8
SESSION = "5e55" * 8


def test_the_sidebar_shows_that_secrets_are_kept_never_their_values() -> None:
    """Even a snapshot that reached it unmasked: the sidebar masks every secret's field."""
    raw = {
        "register": Snapshot(
            "register",
            {"username": "ada", "password": PASSWORD, "session_id": SESSION},
            1,
            0.0,
        ),
        "login": Snapshot("login", {"player": {"session_id": SESSION, "token": "t0k3n"}}, 2, 0.0),
    }
    text = game_state_text(raw, 2).plain
    assert PASSWORD not in text and SESSION not in text and "t0k3n" not in text
    assert f"password: {PASSWORD_MASK}" in text
    assert f"session_id: {SESSION_MASK}" in text and f"player.session_id: {SESSION_MASK}" in text


def _all_rows(sidebar: GameStateSidebar) -> list[str]:
    """Every row of the sidebar, scrolled through from the top."""
    rows: list[str] = []
    height = sidebar.scrollable_content_region.height
    for top in range(0, max(sidebar.virtual_size.height, 1), max(height, 1)):
        sidebar.scroll_to(y=top, animate=False, immediate=True)
        rows.extend(view_rows(sidebar))
    return rows


async def test_the_focus_views_sidebar_never_shows_the_password_or_session_id(
    app: ZoeaApp, commander: Commander
) -> None:
    """The real swarm registers and logs in; its sidebar shows the masks only."""
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)

        def registered() -> int | None:
            for view in app.views.values():
                if view.account and commander.cache.latest(view.account, "register"):
                    return view.id
            return None

        await wait_for(pilot, lambda: registered() is not None, what="a registration")
        mysis_id = registered()
        assert mysis_id is not None
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen)
        dashboard.select(mysis_id)
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FocusScreen), what="the focus view")
        screen = app.screen
        sidebar = screen.query_one(GameStateSidebar)
        await wait_for(pilot, lambda: any("register" in r for r in _all_rows(sidebar)))
        # Rows wrap long values: look at the text with its line breaks and blanks taken out.
        shown = "".join("".join(_all_rows(sidebar)).split())
        secrets = [a.password for a in await commander.store.list_accounts()]
        secrets += list(commander.backend.host.world._sessions)
        assert secrets and all(secret not in shown for secret in secrets), shown
        for mask in (PASSWORD_MASK, SESSION_MASK):
            assert "".join(mask.split()) in shown

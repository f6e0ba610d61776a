"""Pilot tests: every key path against the real Commander running the autopilot."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import replace
from typing import Any, ClassVar

import pytest
from rich.table import Table
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.theme import Theme
from textual.widgets import Input, OptionList, Select, Static

import zoea_tui.ui
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.events import Notice
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.commands import help_sections
from zoea_tui.ui.screens.confirm import ConfirmScreen
from zoea_tui.ui.screens.dashboard import DashboardScreen
from zoea_tui.ui.screens.focus import FocusScreen
from zoea_tui.ui.screens.forms import ConfigureScreen, NewMysisScreen
from zoea_tui.ui.screens.help import HelpScreen
from zoea_tui.ui.screens.input_bar import InputBar
from zoea_tui.ui.screens.strategies import StrategyScreen
from zoea_tui.ui.screens.too_small import TooSmallScreen
from zoea_tui.ui.widgets.broadcast_log import BroadcastLog
from zoea_tui.ui.widgets.context_preview import ContextPreview
from zoea_tui.ui.widgets.conversation import ConversationLog
from zoea_tui.ui.widgets.hit_list import HitList
from zoea_tui.ui.widgets.mysis_pane import MysisPane
from zoea_tui.ui.widgets.status_bar import StatusBar
from zoea_tui.ui.widgets.swarm_panes import SwarmPanes

from .helpers import settle, wait_for

SIZE = (120, 40)


def spy_notifications(app: ZoeaApp) -> list[tuple[str, str]]:
    """Record every notification as (severity, message)."""
    seen: list[tuple[str, str]] = []
    original = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        seen.append((kwargs.get("severity", "information"), message))
        original(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return seen


def log_text(app: ZoeaApp) -> str:
    """Everything the focus view's log shows, as plain text."""
    log = app.screen.query_one(ConversationLog)
    return "\n".join(m.content for m in log.memories)


async def test_dashboard_shows_one_row_per_mysis(app: ZoeaApp, commander: Commander) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = app.screen.query(MysisPane)
        assert [r.mysis_id for r in rows] == [v.id for v in commander.myses()]
        panes = app.screen.query_one(SwarmPanes)
        left = commander.myses()[0].id
        await wait_for(pilot, lambda: panes.selected_id == left, what="the next row selected")


async def test_direct_message_reaches_the_mysis_and_shows_in_the_log(
    app: ZoeaApp, commander: Commander
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FocusScreen), what="focus view")
        mysis_id = app.screen.mysis_id
        await pilot.press("m")
        assert isinstance(app.screen, InputBar)
        await pilot.press(*"hold position", "enter")
        await wait_for(pilot, lambda: "hold position" in log_text(app), what="the message")
        memories = await commander.memories(mysis_id, 500)
        assert any(m.source == "direct" and m.content == "hold position" for m in memories)


async def test_broadcast_reaches_every_listening_mysis(app: ZoeaApp, commander: Commander) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b", *"all pilots: mine iron", "enter")
        log = app.screen.query_one(BroadcastLog)
        await wait_for(
            pilot,
            lambda: any("mine iron" in line.content for line in log._lines),
            what="the broadcast",
        )
        assert (await commander.broadcasts())[-1].content == "all pilots: mine iron"
        for view in commander.myses():
            memories = await commander.memories(view.id, 500)
            assert any(
                m.source == "broadcast" and m.content == "all pilots: mine iron" for m in memories
            )


async def test_broadcast_bar_recalls_earlier_broadcasts(app: ZoeaApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b", *"first order", "enter")
        await pilot.press("b", *"draft", "up")
        assert app.screen.query_one(Input).value == "first order"
        await pilot.press("down")
        assert app.screen.query_one(Input).value == "draft"
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)


async def test_new_mysis_form_creates_and_starts_a_mysis(
    app: ZoeaApp, commander: Commander
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        assert isinstance(app.screen, NewMysisScreen)
        await pilot.press(*"Dora")
        app.screen.query_one("#form-strategy", Select).value = "loop-slice"
        await pilot.click("#form-submit")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), what="the form")
        dora = next(v for v in commander.myses() if v.name == "Dora")
        assert dora.strategy == "loop-slice" and dora.provider == "autopilot"
        await wait_for(
            pilot, lambda: bool(app.screen.query(f"#mysis-{dora.id}")), what="Dora's row"
        )
        assert app.screen.query_one(SwarmPanes).selected_id == dora.id


async def test_duplicate_name_is_refused_visibly_in_the_form(
    app: ZoeaApp, commander: Commander
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        notes = spy_notifications(app)
        await settle(pilot)
        taken = commander.myses()[0].name
        await pilot.press("n", *taken, "enter")
        form = app.screen
        assert isinstance(form, NewMysisScreen)
        await wait_for(
            pilot,
            lambda: "already exists" in str(form.query_one("#form-error").render()),
            what="the refusal",
        )
        # Engine news, it comes once the keys typed are handled.
        await wait_for(
            pilot,
            lambda: any(sev == "error" and "already exists" in msg for sev, msg in notes),
            what="the notification",
        )
        assert len(commander.myses()) == 3


async def test_configure_changes_the_strategy(app: ZoeaApp, commander: Commander) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = commander.myses()[0]
        await pilot.press("c")
        assert isinstance(app.screen, ConfigureScreen)
        app.screen.query_one("#form-strategy", Select).value = "sliding-window"
        await pilot.click("#form-submit")
        await wait_for(
            pilot,
            lambda: commander.mysis(first.id).strategy == "sliding-window",
            what="the new strategy",
        )
        await wait_for(
            pilot,
            lambda: app.views[first.id].strategy == "sliding-window",
            what="the view to follow",
        )


async def test_stop_refuses_messages_visibly_and_relaunch_restarts(
    app: ZoeaApp, commander: Commander
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        notes = spy_notifications(app)
        await settle(pilot)
        first = commander.myses()[0]
        await pilot.press("s")
        await wait_for(pilot, lambda: commander.mysis(first.id).state == "stopped", what="the stop")
        await wait_for(
            pilot,
            lambda: app.screen.query_one(f"#mysis-{first.id}", MysisPane).has_class("-stopped"),
            what="the row to show it",
        )
        await pilot.press("m", *"are you there", "enter")
        await wait_for(
            pilot,
            lambda: any(sev == "error" and "stopped" in msg for sev, msg in notes),
            what="the refusal",
        )
        memories = await commander.memories(first.id, 500)
        assert not any(m.content == "are you there" for m in memories)
        await pilot.press("r")
        await wait_for(
            pilot, lambda: commander.mysis(first.id).state == "running", what="the relaunch"
        )


async def test_delete_asks_first_and_removes_the_row(app: ZoeaApp, commander: Commander) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = commander.myses()[0]
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the dialog")
        await pilot.press("n")
        assert len(commander.myses()) == 3
        # Each key once the screen it is meant for shows, as a user types them: a key typed
        # while the dialog may still be closing can go to it (a CI run once saw no delete).
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="no")
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the dialog")
        await pilot.press("y")
        # A hang detector, not a timing: the delete stops the Mysis (up to 2 s for its
        # turn) and removes its memories, which takes longer on a loaded machine.
        await wait_for(pilot, lambda: len(commander.myses()) == 2, 30, what="the delete")
        await wait_for(
            pilot, lambda: not app.screen.query(f"#mysis-{first.id}"), what="the row to go"
        )
        panes = app.screen.query_one(SwarmPanes)
        left = commander.myses()[0].id
        await wait_for(pilot, lambda: panes.selected_id == left, what="the next row selected")


async def test_strategy_switcher_compares_totals_and_applies_one(
    app: ZoeaApp, commander: Commander
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = commander.myses()[0]
        await pilot.press("p")
        screen = app.screen
        assert isinstance(screen, StrategyScreen)
        await wait_for(
            pilot,
            lambda: len(screen.compositions) == len(commander.strategies),
            what="every strategy",
        )
        totals = {s: c.tokens for s, c in screen.compositions.items()}
        options = screen.query_one(OptionList)
        assert options.option_count == len(commander.strategies)
        target = "sliding-window" if first.strategy != "sliding-window" else "loop-slice"
        options.highlighted = commander.strategies.index(target)
        preview = screen.query_one(ContextPreview)

        def shows_the_listed_request() -> bool:
            # The Mysis plays on and the screen composes again, so compare like with like:
            # the request beside the list is the one the list totals for that strategy.
            data = preview.data
            return (
                data is not None
                and data.request.composition.strategy == target
                and data.request.composition.tokens == screen.compositions[target].tokens
            )

        await wait_for(pilot, shows_the_listed_request, what="the highlighted request")
        assert len(set(totals.values())) > 1, totals  # the strategies do differ
        await pilot.press("a")
        await wait_for(
            pilot,
            lambda: commander.mysis(first.id).strategy == target,
            what="the strategy to apply",
        )
        await wait_for(pilot, lambda: screen.current == target, what="the marker to move")


async def test_focus_moves_between_myses_and_back(app: ZoeaApp, commander: Commander) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ids = [v.id for v in commander.myses()]
        await pilot.press("enter")
        # A focus view not built ahead (stock Textual) is composed by this push: wait for it.
        await wait_for(pilot, lambda: isinstance(app.screen, FocusScreen), what="focus view")
        screen = app.screen
        assert isinstance(screen, FocusScreen) and screen.mysis_id == ids[0]
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: screen.mysis_id == ids[1], what="the next Mysis")
        await pilot.press("left_square_bracket", "left_square_bracket")
        await wait_for(pilot, lambda: screen.mysis_id == ids[-1], what="the last Mysis")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), what="dashboard")
        assert app.screen.query_one(SwarmPanes).selected_id == ids[-1]


async def test_every_status_bar_follows_the_apps_status(
    app: ZoeaApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The status is one reactive on the app; the bars watch it (no screen pushes it)."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        dashboard = app.screen
        await pilot.press("enter")
        focus = app.screen
        assert isinstance(focus, FocusScreen)
        bars = [dashboard.query_one(StatusBar), focus.query_one(StatusBar)]
        assert all(bar.status == app.status for bar in bars)
        # Only this test sets the status from here on (the engine's batches would rebuild it).
        monkeypatch.setattr(app, "_refresh_status", lambda: None)
        shown = replace(app.status, tick=987_654)
        app.status = shown
        await pilot.pause()
        assert [bar.status for bar in bars] == [shown, shown]
        assert "T987654" in focus.query_one(StatusBar).text().plain
        bar = focus.query_one(StatusBar)
        painted = bar.render_lines(Region(0, 0, *bar.outer_size))
        assert "T987654" in painted[0].text
        # A new status repaints the line (its region), never the bar's whole render.
        asked: list[tuple[Region, ...]] = []
        monkeypatch.setattr(bar, "refresh", lambda *regions, **_: asked.append(regions))
        app.status = replace(shown, tick=987_655)
        app.status = replace(shown, tick=987_655)  # the same again: nothing
        assert asked == [(Region(0, 0, bar.content_size.width, 1),)]


async def test_preview_follows_the_requests_the_mysis_composes(app: ZoeaApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        preview = app.screen.query_one(ContextPreview)
        await wait_for(
            pilot,
            lambda: preview.data is not None and not preview.data.upcoming,
            what="a RequestComposed event",
        )
        assert preview.data is not None and preview.data.request.composition.messages


async def test_log_keeps_the_users_place_when_scrolled_up(app: ZoeaApp) -> None:
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        log = app.screen.query_one(ConversationLog)
        await wait_for(pilot, lambda: log.max_scroll_y > 5, what="a long log")
        log.focus()
        await pilot.press("home")
        await pilot.pause()
        place = log.scroll_y
        count = len(log.entries)
        await wait_for(pilot, lambda: len(log.entries) > count, what="new entries")
        await pilot.pause()
        assert log.scroll_y == place
        assert "new" in str(log.border_subtitle)
        await pilot.press("end")
        await pilot.pause()
        assert not log.border_subtitle


async def test_quit_asks_while_myses_run(app: ZoeaApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("q", "y")
        await wait_for(pilot, lambda: not app.is_running, what="the app to exit")


#: How the help writes a binding's key.
KEY_NAMES = {
    "question_mark": "?",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "escape": "esc",
    "pageup": "pgup",
    "pagedown": "pgdn",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "slash": "/",
}


def _ui_classes() -> list[type]:
    """Every class the ``zoea_tui.ui`` package defines (each of its modules imported)."""
    found: list[type] = []
    for info in pkgutil.walk_packages(zoea_tui.ui.__path__, "zoea_tui.ui."):
        module = importlib.import_module(info.name)
        found.extend(
            value
            for value in vars(module).values()
            if isinstance(value, type) and value.__module__ == info.name
        )
    return found


def owners_of_keys(classes: list[type]) -> dict[type, tuple[str, ...]]:
    """Every class of ``classes`` that binds keys of its own, with the help groups it
    declares (``HELP_GROUPS``) must list them; one that binds keys without declaring
    them is named, as no help would list its keys."""
    owners: dict[type, tuple[str, ...]] = {}
    for cls in classes:
        if not cls.__dict__.get("BINDINGS"):
            continue
        groups = cls.__dict__.get("HELP_GROUPS")
        assert groups, f"{cls.__name__} binds keys but names no HELP_GROUPS"
        owners[cls] = groups
    return owners


def keys_missing_from_help(
    owners: dict[type, tuple[str, ...]], key_help: tuple[tuple[str, tuple], ...]
) -> list[str]:
    """Each bound key its owner's help groups do not list as a key of their own: keys
    are compared whole (``e`` is not listed by ``esc`` or ``enter``)."""
    listed = {group: {k for keys, _ in rows for k in keys.split()} for group, rows in key_help}
    missing = []
    for owner, groups in owners.items():
        tokens = set().union(*(listed.get(group, set()) for group in groups))
        for binding in owner.__dict__.get("BINDINGS", []):
            for key in binding.key.split(","):
                if KEY_NAMES.get(key, key) not in tokens:
                    missing.append(f"{owner.__name__}: {key}")
    return missing


def test_help_lists_every_key_binding_where_it_applies() -> None:
    owners = owners_of_keys(_ui_classes())
    # The walk finds the app, its screens and the widgets that bind keys.
    assert {ZoeaApp, FocusScreen, SwarmPanes, ConversationLog, HitList} <= set(owners)
    assert keys_missing_from_help(owners, help_sections()) == []


def test_the_help_check_finds_a_single_missing_key() -> None:
    """Take one key out of the help: the check names it, even a letter found inside
    other keys' names (e in esc, enter, end; s in esc, shift+tab, space)."""

    def without(group_name: str, key: str) -> tuple[tuple[str, tuple], ...]:
        """The help with ``key`` taken out of one group's rows (the rest left as is)."""
        return tuple(
            (
                group,
                tuple(
                    (" ".join(k for k in keys.split() if k != key), what)
                    if group == group_name
                    else (keys, what)
                    for keys, what in rows
                ),
            )
            for group, rows in help_sections()
        )

    owners = owners_of_keys(_ui_classes())
    assert keys_missing_from_help(owners, without("Everywhere", "s")) == ["ZoeaApp: s"]
    assert keys_missing_from_help(owners, without("Focus view", "e")) == ["FocusScreen: e"]
    assert keys_missing_from_help(owners, without("Dashboard", "k")) == ["SwarmPanes: k"]
    assert keys_missing_from_help(owners, without("Arena", "ctrl+r")) == ["ArenaScreen: ctrl+r"]


def test_a_class_that_binds_keys_without_help_groups_is_named() -> None:
    class Unlisted(Static):
        BINDINGS: ClassVar[list[BindingType]] = [Binding("z", "zap", "Zap")]

    with pytest.raises(AssertionError, match="Unlisted binds keys but names no HELP_GROUPS"):
        owners_of_keys([HitList, Unlisted])


async def test_question_mark_opens_the_help_and_escape_closes_it(app: ZoeaApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)


async def test_help_shows_the_data_folder_and_what_it_weighs(
    app: ZoeaApp, commander: Commander
) -> None:
    db = commander.store.path
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        table = app.screen.query_one("#help-table", Static).content
    assert isinstance(table, Table)
    rows = list(zip(*(column.cells for column in table.columns), strict=True))
    shown = {str(name): str(what) for name, what in rows if str(name)}
    size, unit = shown["folder"].removeprefix(f"{db.parent} · ").split()
    assert unit in ("KB", "MB") and float(size.replace(",", "")) > 0
    assert shown["database"].startswith(f"{db.name} · ")
    assert "zoea vacuum" in shown["database"]


async def test_palette_offers_every_action(app: ZoeaApp, commander: Commander) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for title in (
            "Message",
            "Broadcast",
            "New Mysis",
            "Configure",
            "Relaunch",
            "Stop",
            "Delete",
            "Context preview and strategies",
            "Help",
            "Quit",
        ):
            assert title in titles
        assert {f"Focus {v.name}" for v in commander.myses()} <= titles
        await pilot.press("ctrl+p")
        await pilot.press(*"broadcast", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InputBar), what="the bar")


@pytest.mark.parametrize("size", [(79, 24), (100, 23)])
async def test_guard_below_80x24(commander: Commander, size: tuple[int, int]) -> None:
    app = ZoeaApp(commander)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)


async def test_mouse_selects_and_double_click_focuses(app: ZoeaApp, commander: Commander) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        second = commander.myses()[1]
        await pilot.click(f"#mysis-{second.id}")
        assert app.screen.query_one(SwarmPanes).selected_id == second.id
        await pilot.click(f"#mysis-{second.id}", times=2)
        await wait_for(pilot, lambda: isinstance(app.screen, FocusScreen), what="focus")
        assert app.screen.mysis_id == second.id


async def test_the_theme_in_use_is_looked_up_once_and_follows_every_change(
    app: ZoeaApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        looked_up: list[str] = []
        get_theme = app.get_theme
        monkeypatch.setattr(
            app, "get_theme", lambda name: looked_up.append(name) or get_theme(name)
        )
        zoea = app.current_theme
        assert all(app.current_theme is zoea for _ in range(100)) and looked_up == []
        app.theme = "textual-light"
        assert app.current_theme.name == "textual-light" and looked_up == ["textual-light"]
        app.register_theme(Theme(name="textual-light", primary="#123456", dark=False))
        assert app.current_theme.primary == "#123456"  # a new theme under the name in use
        app.theme = zoea.name
        assert app.current_theme is zoea


async def test_the_commanders_keys_and_clicks_hold_the_swarms_next_steps(
    app: ZoeaApp, commander: Commander, monkeypatch: pytest.MonkeyPatch
) -> None:
    held: list[float] = []
    gate = commander.services.step_gate
    # Long holds, uncapped: the second input must find a hold on however slow a machine
    # (with the 0.5 s cap it found none when it came 0.5 s after the first, on a fresh
    # clone's first run).
    monkeypatch.setattr(gate, "hold_s", 60.0)
    monkeypatch.setattr(gate, "max_held_s", 120.0)
    original = commander.commander_input

    def commander_input() -> None:
        original()
        held.append(gate.held_for())

    monkeypatch.setattr(commander, "commander_input", commander_input)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # As the terminal's driver sends them (the pilot's clicks skip the app).
        for event in (
            events.MouseMove(None, 5, 5, 0, 0, 0, False, False, False),  # no input
            events.MouseDown(None, 5, 5, 0, 0, 1, False, False, False),
            events.MouseUp(None, 5, 5, 0, 0, 1, False, False, False),
        ):
            app.post_message(event)
        await pilot.pause()
        assert len(held) == 1
        await pilot.press("right")  # once, though it comes back up to the app
        assert len(held) == 2 and all(h > 0 for h in held)


async def test_engine_news_waits_while_the_commanders_key_is_handled(
    app: ZoeaApp, commander: Commander, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = commander.services.step_gate
    seen: list[str] = []
    say = app.say

    def said(message: str, severity: str = "information") -> None:
        seen.append(message)  # the swarm model's notice, as the app shows it
        say(message, severity)

    monkeypatch.setattr(app, "say", said)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        monkeypatch.setattr(gate, "hold_s", 1.0)
        monkeypatch.setattr(gate, "max_held_s", 1.0)
        await pilot.press("right")
        await commander.bus.publish(Notice(level="info", message="news"))
        await pilot.pause(0.3)  # unheld, a batch reaches the app within milliseconds
        assert "news" not in seen and gate.held_for() > 0
        await wait_for(pilot, lambda: "news" in seen, what="the news after the hold")

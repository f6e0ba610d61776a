"""The command table (``ui/commands.py``): every row has its handler, no key is bound twice,
and what lists the commands (bindings, the palette, the help) is generated from it."""

from __future__ import annotations

import asyncio
from importlib import import_module

import pytest
from textual.binding import Binding
from textual.screen import Screen

from zoea_tui.orchestrator.commander import Commander
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.commands import (
    BY_NAME,
    COMMANDS,
    EVERYWHERE,
    Command,
    app_bindings,
    help_sections,
    key_table_markdown,
)
from zoea_tui.ui.screens.confirm import ConfirmScreen
from zoea_tui.ui.screens.inspector import InspectorScreen

from .helpers import settle, wait_for

SIZE = (120, 40)


def handler_errors(commands: tuple[Command, ...]) -> list[str]:
    """Each command the app cannot run: no ``action_<name>`` on the app (or on
    Textual's app, for a key Textual binds), or no screen with ``opened`` to build it."""
    errors = []
    for command in commands:
        if not command.screen:
            if not callable(getattr(ZoeaApp, f"action_{command.name}", None)):
                errors.append(f"{command.name}: no ZoeaApp.action_{command.name}")
            continue
        module, _, name = command.screen.rpartition(".")
        try:
            found = getattr(import_module(f"zoea_tui.ui.screens.{module}"), name, None)
        except ModuleNotFoundError:
            found = None
        if not (isinstance(found, type) and issubclass(found, Screen)):
            errors.append(f"{command.name}: {command.screen} is no screen of zoea_tui.ui.screens")
        elif not callable(getattr(found, "opened", None)):
            errors.append(f"{command.name}: {command.screen} has no opened(view)")
    return errors


def test_every_command_has_its_handler() -> None:
    assert handler_errors(COMMANDS) == []


def test_the_handler_check_names_a_command_without_one() -> None:
    assert handler_errors(
        (
            Command("fly", ("f",), "Fly", "Fly", "fly"),
            Command("map", ("M",), "Map", "Map", "the map", screen="map.MapScreen"),
            Command("box", ("B",), "Box", "Box", "a box", screen="confirm.ConfirmScreen"),
            Command("bus", ("U",), "Bus", "Bus", "a bus", screen="base.CommandCenter"),
        )
    ) == [
        "fly: no ZoeaApp.action_fly",
        "map: map.MapScreen is no screen of zoea_tui.ui.screens",
        "box: confirm.ConfirmScreen has no opened(view)",
        "bus: base.CommandCenter is no screen of zoea_tui.ui.screens",
    ]


def test_a_screen_for_a_mysis_refuses_to_open_without_one() -> None:
    """A command that acts on a Mysis opens its screen for one; asked for none, the screen
    says which it is and why, instead of being built half."""
    targeted = [c for c in COMMANDS if c.screen and c.target]
    assert len(targeted) >= 5
    for command in targeted:
        module, _, name = command.screen.rpartition(".")
        screen = getattr(import_module(f"zoea_tui.ui.screens.{module}"), name)
        with pytest.raises(ValueError, match=f"{name} opens for a Mysis"):
            screen.opened(None)


def test_each_key_and_name_is_the_table_s_once() -> None:
    keys = [key for command in COMMANDS for key in (*command.keys, *command.also)]
    assert len(keys) == len(set(keys))
    assert len(BY_NAME) == len(COMMANDS)
    assert len({command.title for command in COMMANDS}) == len(COMMANDS)


def test_the_app_binds_the_table() -> None:
    bound = [b for b in ZoeaApp.BINDINGS if isinstance(b, Binding)]
    assert [(b.key, b.action, b.description, b.show) for b in bound] == [
        (b.key, b.action, b.description, b.show) for b in app_bindings()
    ]
    assert ("x", "open('requests')") in {(b.key, b.action) for b in bound}


def test_the_help_lists_every_command_first() -> None:
    group, lines = help_sections()[0]
    assert group == EVERYWHERE
    assert [what for _, what in lines] == [c.help for c in COMMANDS]
    assert ("q  ctrl+q", BY_NAME["quit"].help) in lines  # Textual's own key beside ours
    assert "| | `/` | search the Mysis's memories" in key_table_markdown()


async def test_the_palette_offers_every_command_and_runs_one(
    app: ZoeaApp, commander: Commander
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        offered = {c.title: c.help for c in app.get_system_commands(app.screen)}
        for command in COMMANDS:
            if command.palette:
                assert command.title in offered
        assert offered["Quit"] == "q ctrl+q · quit (asks first while Myses run)"
        assert list(offered).count("Quit") == 1  # ours instead of Textual's
        await pilot.press("ctrl+p")
        await pilot.press(*"request inspector", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), what="inspector")
        assert app.screen.mysis_id == commander.myses()[0].id


async def test_before_the_engine_opens_the_palette_offers_only_what_needs_none() -> None:
    started = False

    async def never() -> Commander:
        nonlocal started
        started = True
        await wait_forever()
        raise AssertionError("unreachable")

    app = ZoeaApp(never)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert started and app.commander is None
        ours = {c.title for c in COMMANDS}
        offered = {c.title for c in app.get_system_commands(app.screen)} & ours
        assert offered == {"Help", "Quit"}
        assert app.check_action("open", ("requests",)) is None  # shown dimmed
        assert app.check_action("help", ()) is True
        await pilot.press("x")
        assert not isinstance(app.screen, InspectorScreen)


async def wait_forever() -> None:
    """Never returns (an engine that never opens)."""
    await asyncio.Event().wait()


async def test_under_a_question_quit_waits_and_the_palette_is_textual_s_to_decide(
    app: ZoeaApp,
) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="question")
        assert app.check_action("quit", ()) is False
        assert app.check_action("command_palette", ()) is True  # listed, not gated
        assert app.check_action("open", ("requests",)) is False  # quiet under a dialog
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen), what="answer")
        assert app.check_action("open", ("requests",)) is True

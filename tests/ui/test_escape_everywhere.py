"""Every screen and panel the app opens closes with esc, and its Tab order stops only
on what shows (issue 40, item 4).

The screens are found in the code (every :class:`~textual.screen.Screen` defined under
``zoea_tui/ui/screens``): a new one fails :func:`test_every_screen_is_walked` by name
until it is given the keys that open it here, or a reason esc does not close it.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.containers import ScrollableContainer
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import HelpPanel

from zoea_tui.config import Config
from zoea_tui.ui import screens
from zoea_tui.ui.screens.dashboard import DashboardScreen
from zoea_tui.ui.screens.focus import FocusScreen

from .helpers import seeded_app, settle, wait_for

#: The keys that open each screen from the dashboard (the first Mysis selected).
OPENED_BY: dict[str, tuple[str, ...]] = {
    "AddProviderScreen": ("a",),
    "ArenaScreen": ("A",),
    "BroadcastBar": ("b",),
    "ConfigureScreen": ("c",),
    "DeleteScreen": ("d",),
    "FocusScreen": ("enter",),
    "HelpScreen": ("question_mark",),
    "InspectorScreen": ("x",),
    "MessageBar": ("m",),
    "NewMysisScreen": ("n",),
    "SearchScreen": ("slash",),
    "StrategyScreen": ("p",),
}
#: The screens esc does not close, and why.
NOT_CLOSED_BY_ESC: dict[str, str] = {
    "DashboardScreen": "the first screen: nothing lies under it (q quits)",
    "TooSmallScreen": "the guard below 80×24: it goes when the terminal grows",
}
#: Bases that are never shown themselves (or, for the plain question, shown by screens
#: this walk does not reach: the delete question is its instance here).
BASES: dict[str, str] = {
    "ZoeaScreen": "the base of every screen",
    "ZoeaModalScreen": "the base of the modal ones",
    "FormScreen": "the base of every form (the Mysis forms, adding a provider)",
    "MysisForm": "the base of the new-Mysis and configure forms",
    "InputBar": "the base of the message and broadcast bars",
    "ConfirmScreen": "the base of the delete question (quit's and the save of a provider "
    "ask it as it is: test_app and test_add_provider answer them)",
}


def screen_classes() -> set[str]:
    """The name of every screen class defined in the app's screens package."""
    found: set[str] = set()
    for info in pkgutil.iter_modules(screens.__path__):
        module = importlib.import_module(f"{screens.__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Screen)
                and value.__module__ == module.__name__
            ):
                found.add(value.__name__)
    return found


def test_every_screen_is_walked() -> None:
    unknown = screen_classes() - set(OPENED_BY) - set(NOT_CLOSED_BY_ESC) - set(BASES)
    assert not unknown, f"screens this test does not open (add them to OPENED_BY): {unknown}"
    gone = (set(OPENED_BY) | set(NOT_CLOSED_BY_ESC) | set(BASES)) - screen_classes()
    assert not gone, f"screens named here that the code no longer has: {gone}"


def test_the_check_names_a_screen_it_does_not_know(monkeypatch: pytest.MonkeyPatch) -> None:
    """A screen nobody told the walk about fails the check, by name."""
    monkeypatch.delitem(OPENED_BY, "ArenaScreen")
    with pytest.raises(AssertionError, match="ArenaScreen"):
        test_every_screen_is_walked()


def _shows(widget: Widget) -> bool:
    """Whether a focused widget is something the commander can see and use: on the
    screen, enabled, and, for a box whose only keys scroll, with something to scroll
    (an empty findings box was such a stop)."""
    only_scrolls = isinstance(widget, ScrollableContainer) and not any(
        cls.__dict__.get("BINDINGS")
        for cls in type(widget).__mro__
        if issubclass(cls, Widget) and not issubclass(ScrollableContainer, cls)
    )
    return bool(
        widget.display
        and widget.visible
        and not widget.disabled
        and widget.region.area
        and widget.screen.region.contains_region(widget.region)
        and (not only_scrolls or widget.max_scroll_y > 0 or widget.max_scroll_x > 0)
    )


async def _round_the_tab_order(pilot: Pilot, name: str) -> None:
    """Press Tab round the screen's focus chain: every stop shows and can be used."""
    app = pilot.app
    opened = app.screen
    for _ in range(12):  # no screen has more stops than this
        await pilot.press("tab")
        focused = app.focused
        if focused is not None:
            assert _shows(focused), f"{name}: Tab stopped on {focused!r}, not shown"
    assert app.screen is opened  # Tab moved the focus, nothing else


async def test_tab_on_the_dashboard_stops_only_on_what_shows(
    seeded_db: Path, still_config: Config
) -> None:
    async with seeded_app(still_config, seeded_db, (120, 40)) as (pilot, _app):
        await _round_the_tab_order(pilot, "DashboardScreen")


@pytest.mark.parametrize("name", sorted(OPENED_BY))
async def test_esc_closes_every_screen_and_tab_stops_only_on_what_shows(
    seeded_db: Path, still_config: Config, name: str
) -> None:
    async with seeded_app(still_config, seeded_db, (120, 40)) as (pilot, app):
        await pilot.press(*OPENED_BY[name])
        await wait_for(pilot, lambda: type(app.screen).__name__ == name, what=name)
        await settle(pilot)
        await _round_the_tab_order(pilot, name)
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: isinstance(app.screen, DashboardScreen), what=f"esc to close {name}"
        )


@pytest.mark.parametrize("under", ["dashboard", "focus"])
async def test_esc_closes_the_palette_and_its_keys_panel(
    seeded_db: Path, still_config: Config, under: str
) -> None:
    """Issue 40: the palette's Keys panel did not close with esc. It is a panel in the
    screen, not a screen: esc closes it first, and only the next esc leaves the view."""
    async with seeded_app(still_config, seeded_db, (120, 40)) as (pilot, app):
        if under == "focus":
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, FocusScreen), what="focus")
        view = app.screen
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is view, what="esc to close the palette")

        await pilot.press("ctrl+p", *"keys")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
        await pilot.pause(0.3)  # the palette's search
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(view.query(HelpPanel)), what="the Keys panel")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not view.query(HelpPanel), what="esc to close Keys")
        assert app.screen is view  # that esc closed the panel, not the view
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), what="esc to leave")

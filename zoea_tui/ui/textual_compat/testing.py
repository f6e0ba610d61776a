"""What the tests and benchmarks read of Textual's inside, in one place.

Spies and flags only (no override): they work the same with the overrides on or off, so a
test may assert that stock Textual asks for a layout where the overrides ask for none.
Checked on Textual 8.2.8.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.dom import DOMNode
from textual.driver import Driver
from textual.screen import Screen
from textual.widget import Widget


def layouts_of(screen: Screen[Any]) -> list[object]:
    """A list that gets an item for each layout of ``screen`` from now on (a spy on
    Textual's ``Screen._refresh_layout``)."""
    layouts: list[object] = []
    original = screen._refresh_layout

    def spy(*args: Any, **kwargs: Any) -> None:
        layouts.append(args)
        original(*args, **kwargs)

    screen._refresh_layout = spy  # type: ignore[method-assign]
    return layouts


def repaint_asked(widget: Widget) -> bool:
    """True while ``widget`` has asked for a repaint not yet handed to its screen."""
    return widget._repaint_required


def forget_painted_rows(widget: Widget) -> None:
    """Drop the rows Textual keeps for ``widget`` (as a repaint of the whole screen does),
    so its next ``render_lines`` draws them."""
    widget._styles_cache.clear()


def css_lineage(cls: type[DOMNode]) -> list[type[DOMNode]]:
    """The classes ``cls`` takes its CSS and type names from (Textual's ``_css_bases``)."""
    return list(cls._css_bases(cls))


def component_classes(cls: type[DOMNode]) -> set[str]:
    """Every component class of ``cls``, its bases' included."""
    return set(cls._get_component_classes())


def driver_of(app: App[Any]) -> Driver | None:
    """The driver ``app`` runs on (None before it starts)."""
    return app._driver

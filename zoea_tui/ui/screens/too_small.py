"""Shown instead of everything else while the terminal is smaller than 80×24."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from .. import formatting as fmt

MIN_WIDTH = 80
MIN_HEIGHT = 24


class TooSmallScreen(Screen[None]):
    """Asks for a bigger terminal; the app removes it when there is room again."""

    def compose(self) -> ComposeResult:
        """One centred message."""
        yield Static(id="too-small-text")

    def on_mount(self) -> None:
        self.show_size(self.app.size.width, self.app.size.height)

    def show_size(self, width: int, height: int) -> None:
        """Say how big the terminal is and how big it must be."""
        text = Text(justify="center")
        text.append("◆ TERMINAL TOO SMALL ◆\n\n", style=f"bold {fmt.ERROR}")
        text.append(
            f"Zoea Nova needs at least {MIN_WIDTH}×{MIN_HEIGHT}; this one is {width}×{height}.\n",
            style=fmt.TEXT,
        )
        text.append("Enlarge the window (or zoom out) to continue.", style=fmt.MUTED)
        self.query_one("#too-small-text", Static).update(text)

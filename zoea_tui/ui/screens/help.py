"""The help screen: every key, from :mod:`zoea_tui.ui.keys`."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from .. import formatting as fmt
from ..keys import KEY_HELP


def help_table() -> Table:
    """Every group of keys as one table."""
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", no_wrap=True)
    table.add_column()
    for n, (group, keys) in enumerate(KEY_HELP):
        if n:
            table.add_row("", "")
        table.add_row("", Text(group.upper(), style=f"bold {fmt.ASSISTANT}"))
        for key, what in keys:
            table.add_row(Text(key, style=f"bold {fmt.TEAL}"), Text(what, style=fmt.TEXT))
    table.add_row("", "")
    table.add_row(
        "",
        Text(
            "The mouse works too: click a Mysis, double click to focus it, "
            "click an entry to expand it, wheel to scroll.",
            style=fmt.MUTED,
        ),
    )
    return table


class HelpScreen(ModalScreen[None]):
    """The command reference; esc, ? or q closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "close", "Close")]

    def compose(self) -> ComposeResult:
        """The key table in a scrolling dialog."""
        with VerticalScroll(id="help-dialog", classes="dialog") as scroll:
            scroll.border_title = "◆ COMMAND REFERENCE ◆"
            scroll.border_subtitle = "esc closes"
            yield Static(help_table(), id="help-table")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)

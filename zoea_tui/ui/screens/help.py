"""The help screen: every key, from :mod:`zoea_tui.ui.keys`; then the providers, and where
each comes from (the config file, a built-in, or a convention of the environment)."""

from __future__ import annotations

from collections.abc import Sequence
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


def help_table(providers: Sequence[tuple[str, str]] = (), applied: str = "") -> Table:
    """Every group of keys as one table; then ``providers`` (name, what it is) and the
    configuration that ``applied``."""
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", no_wrap=True)
    table.add_column()
    for n, (group, keys) in enumerate(KEY_HELP):
        if n:
            table.add_row("", "")
        table.add_row("", Text(group.upper(), style=f"bold {fmt.ASSISTANT}"))
        for key, what in keys:
            table.add_row(Text(key, style=f"bold {fmt.TEAL}"), Text(what, style=fmt.TEXT))
    if providers or applied:
        table.add_row("", "")
        table.add_row("", Text("PROVIDERS", style=f"bold {fmt.ASSISTANT}"))
        for name, what in providers:
            table.add_row(Text(name, style=f"bold {fmt.TEAL}"), Text(what, style=fmt.TEXT))
        if applied:
            table.add_row("", Text(f"configuration: {applied}", style=fmt.MUTED))
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

    def __init__(self, providers: Sequence[tuple[str, str]] = (), applied: str = "") -> None:
        super().__init__()
        self.providers = providers
        self.applied = applied

    def compose(self) -> ComposeResult:
        """The key table in a scrolling dialog."""
        with VerticalScroll(id="help-dialog", classes="dialog") as scroll:
            scroll.border_title = "◆ COMMAND REFERENCE ◆"
            scroll.border_subtitle = "esc closes"
            yield Static(help_table(self.providers, self.applied), id="help-table")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)

"""The help screen: every key, from :mod:`zoea_tui.ui.commands`; then the providers, and where
each comes from (the config file, a built-in, or a convention of the environment)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...config.paths import database_bytes, folder_bytes, size_text
from .. import formatting as fmt
from ..commands import help_sections


def data_rows(db_path: Path) -> list[tuple[str, str]]:
    """Where the data is and what it weighs on disk (read when the help opens); the
    first row's text ends with the folder's size."""
    folder = db_path.parent
    return [
        ("folder", f"{folder} · {size_text(folder_bytes(folder))}"),
        (
            "database",
            f"{db_path.name} · {size_text(database_bytes(db_path))} with its WAL; "
            "`zoea vacuum` applies [storage] request_log and reclaims space",
        ),
    ]


def help_table(
    providers: Sequence[tuple[str, str]] = (),
    applied: str = "",
    data: Sequence[tuple[str, str]] = (),
) -> Table:
    """Every group of keys as one table; then ``providers`` (name, what it is) and the
    configuration that ``applied``; then where the data is (:func:`data_rows`)."""
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", no_wrap=True)
    table.add_column()
    for n, (group, keys) in enumerate(help_sections()):
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
    if data:
        table.add_row("", "")
        table.add_row("", Text("DATA", style=f"bold {fmt.ASSISTANT}"))
        for name, what in data:
            table.add_row(Text(name, style=f"bold {fmt.TEAL}"), Text(what, style=fmt.TEXT))
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
        commander = getattr(self.app, "commander", None)
        db_path = commander.store.path if commander is not None else None
        rows = data_rows(db_path) if db_path is not None else []
        with VerticalScroll(id="help-dialog", classes="dialog") as scroll:
            scroll.border_title = "◆ COMMAND REFERENCE ◆"
            data = f"data folder {rows[0][1].rsplit(' · ', 1)[-1]} · " if rows else ""
            scroll.border_subtitle = f"{data}esc closes"
            yield Static(help_table(self.providers, self.applied, rows), id="help-table")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)

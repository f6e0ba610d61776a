"""The help screen: every key, from :mod:`zoea_tui.ui.commands`; then the providers, and where
each comes from (the config file, a built-in, or a convention of the environment)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Self

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...config import ProviderConfig, conventions_note
from ...config.paths import database_bytes, folder_bytes, size_text
from .. import formatting as fmt
from ..commands import help_sections

if TYPE_CHECKING:
    from ...orchestrator.events import MysisView


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


#: Where the costs the meter shows come from.
PRICES_HELP = (
    "costs: a provider's price_in, price_cached, price_cache_write and price_out "
    "(USD per million tokens) in its [providers.NAME] table; without them, tokens only"
)


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
        table.add_row("", Text(PRICES_HELP, style=fmt.MUTED))
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


def describe_provider(provider: ProviderConfig) -> str:
    """A provider in one line: its type, where it is, its model, its prices when it has
    them, and where it comes from."""
    model = provider.model or "the first model the server lists"
    what = provider.kind.summary.format(type=provider.type, endpoint=provider.endpoint, model=model)
    prices = provider.prices.describe()
    return (
        what
        + (f" · {prices}" if prices else "")
        + (f" · from {provider.origin}" if provider.origin else "")
    )


class HelpScreen(ModalScreen[None]):
    """The command reference; esc, ? or q closes it."""

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("This help",)
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "close", "Close")]

    @classmethod
    def opened(cls, view: MysisView | None) -> Self:
        """The help, as the ``?`` command opens it (it points at no Mysis)."""
        return cls()

    def __init__(self) -> None:
        super().__init__()
        #: The providers (name, what it is) and the configuration that applied, as
        #: read from the engine when the help is composed (none before it opens).
        self.providers: list[tuple[str, str]] = []
        self.applied = ""

    def compose(self) -> ComposeResult:
        """The key table in a scrolling dialog, with the engine's providers once it is open."""
        commander = getattr(self.app, "commander", None)
        rows: list[tuple[str, str]] = []
        if commander is not None:
            config = commander.config
            self.providers = [(name, describe_provider(p)) for name, p in config.providers.items()]
            self.applied = conventions_note(config, os.environ)
            rows = data_rows(commander.store.path)
        with VerticalScroll(id="help-dialog", classes="dialog") as scroll:
            scroll.border_title = "◆ COMMAND REFERENCE ◆"
            data = f"data folder {rows[0][1].rsplit(' · ', 1)[-1]} · " if rows else ""
            scroll.border_subtitle = f"{data}esc closes"
            yield Static(help_table(self.providers, self.applied, rows), id="help-table")

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)

"""The input bar: a direct message or a broadcast, with history (↑/↓)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from .. import formatting as fmt

#: Most entries kept per history; consecutive duplicates are not repeated.
HISTORY_SIZE = 100


class InputHistory:
    """Earlier inputs of one kind (newest last), browsed with up and down."""

    def __init__(self, entries: list[str] | None = None) -> None:
        self.entries: list[str] = list(entries or [])

    def add(self, text: str) -> None:
        """Remember ``text`` (skipping a repeat of the newest entry)."""
        if text and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            del self.entries[:-HISTORY_SIZE]


class InputBar(ModalScreen[str | None]):
    """A one-line prompt docked at the bottom; enter sends, esc cancels.

    Dismisses with the text (stripped; never empty) or None.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("up", "history(-1)", "Earlier", show=False),
        Binding("down", "history(1)", "Later", show=False),
    ]

    def __init__(self, prompt: Text, *, placeholder: str, history: InputHistory, kind: str) -> None:
        super().__init__(classes=f"input-bar -{kind}")
        self.prompt = prompt
        self.placeholder = placeholder
        self.history = history
        self._position = len(history.entries)
        self._draft = ""

    def compose(self) -> ComposeResult:
        """The prompt and the input."""
        with Vertical(id="input-dock"):
            yield Static(self.prompt, id="input-prompt")
            yield Input(placeholder=self.placeholder, id="input-text", max_length=4000)
            yield Static(
                Text("enter send · esc cancel · ↑↓ history", style=fmt.MUTED), id="input-hint"
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.app.bell()
            self.query_one("#input-hint", Static).update(
                Text("nothing to send: type a message, or esc to cancel", style=fmt.WARNING)
            )
            return
        self.history.add(text)
        self.dismiss(text)

    def action_cancel(self) -> None:
        """Close without sending."""
        self.dismiss(None)

    def action_history(self, step: int) -> None:
        """Show an earlier (-1) or later (+1) entry; past the newest, the draft returns."""
        entries = self.history.entries
        if not entries:
            return
        field = self.query_one(Input)
        if self._position == len(entries):
            self._draft = field.value
        self._position = max(0, min(len(entries), self._position + step))
        field.value = entries[self._position] if self._position < len(entries) else self._draft
        field.cursor_position = len(field.value)

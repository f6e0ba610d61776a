"""A yes/no question (delete, quit)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[bool]):
    """Asks ``question``; dismisses with True for yes (``y``), False for no (``n``/esc)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(
        self, question: Text | str, *, yes: str = "Yes", no: str = "No", danger: bool = False
    ) -> None:
        super().__init__(classes="-danger" if danger else "")
        self.question = question if isinstance(question, Text) else Text(question)
        self.yes_label = yes
        self.no_label = no

    def compose(self) -> ComposeResult:
        """The question and two buttons."""
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Static(self.question, id="confirm-question")
            with Horizontal(classes="buttons"):
                yield Button(
                    f"{self.yes_label} (y)",
                    id="yes",
                    compact=True,
                    variant="error" if self.has_class("-danger") else "primary",
                )
                yield Button(f"{self.no_label} (n)", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button answers."""
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        """Answer from the keyboard."""
        self.dismiss(value)

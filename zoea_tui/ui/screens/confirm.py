"""A yes/no question (delete, quit, save a provider), with an optional detail that
scrolls (a diff)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[bool]):
    """Asks ``question``; dismisses with True for yes (``y``), False for no (``n``/esc)."""

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Questions",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(
        self,
        question: Text | str,
        *,
        yes: str = "Yes",
        no: str = "No",
        danger: bool = False,
        detail: Text | None = None,
    ) -> None:
        classes = ("-danger" if danger else "", "-wide" if detail is not None else "")
        super().__init__(classes=" ".join(c for c in classes if c))
        self.question = question if isinstance(question, Text) else Text(question)
        self.detail = detail
        self.yes_label = yes
        self.no_label = no

    def compose(self) -> ComposeResult:
        """The question and two buttons."""
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Static(self.question, id="confirm-question")
            if self.detail is not None:
                with VerticalScroll(id="confirm-detail"):
                    yield Static(self.detail)
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
        self._answer(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        """Answer from the keyboard."""
        self._answer(value)

    def answered(self, yes: bool) -> None:
        """Act on the answer as the question closes (here nothing: whoever asked acts on
        the result); a question that acts itself overrides it."""

    def _answer(self, yes: bool) -> None:
        self.answered(yes)
        self.dismiss(yes)

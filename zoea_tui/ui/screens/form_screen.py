"""What every form of the command center shares (the Mysis forms, adding a provider).

A form is a modal screen (styled ``.form-screen``) that acts on the engine itself, shows
why it cannot go on in its ``#form-error`` line, and closes changing nothing on escape or
its Cancel button (``#form-cancel``); its result says whether it acted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Button, Static

from .. import formatting as fmt
from ..sanitize import one_line
from .base import ZoeaModalScreen

if TYPE_CHECKING:
    from ...orchestrator.commander import Commander


class FormScreen(ZoeaModalScreen[bool]):
    """A form: True once it acted, False when cancelled.

    Opened once the engine is open (the commands' rows wait for it)."""

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Forms and input bar",)
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self) -> None:
        super().__init__(classes="form-screen")

    @property
    def commander(self) -> Commander:
        """The engine the form acts on."""
        commander = self.center.commander
        assert commander is not None, "a form opens once the engine is open"
        return commander

    def error_and_buttons(self, *buttons: Button) -> ComposeResult:
        """The form's last rows: its error line, then ``buttons`` and Cancel."""
        yield Static("", id="form-error")
        yield Horizontal(
            *buttons, Button("Cancel", id="form-cancel", compact=True), classes="buttons"
        )

    def show_error(self, message: str) -> None:
        """Show why the form cannot go on."""
        self.query_one("#form-error", Static).update(
            Text("✗ " + one_line(message, 300), style=f"bold {fmt.ERROR}")
        )

    @on(Button.Pressed, "#form-cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_cancel(self) -> None:
        """Close, changing nothing."""
        self.dismiss(False)

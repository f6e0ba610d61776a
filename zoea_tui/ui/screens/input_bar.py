"""The input bars: a direct message (``m``) or a broadcast (``b``), with history (↑/↓).

Each bar is a screen row of the command table (``ui/commands.py``) and sends what was
typed itself, through the app's :class:`~zoea_tui.ui.screens.base.CommandCenter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Self

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from .. import formatting as fmt
from ..input_history import InputHistory
from ..sanitize import one_line
from .base import ZoeaModalScreen, targeted

if TYPE_CHECKING:
    from ...orchestrator.events import MysisView


class InputBar(ZoeaModalScreen[str | None]):
    """A one-line prompt docked at the bottom; enter sends (:meth:`send`), esc cancels.

    Dismisses with the text (stripped; never empty) or None. Its earlier entries are the
    app's, one history per ``kind``.
    """

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Forms and input bar",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("up", "history(-1)", "Earlier", show=False),
        Binding("down", "history(1)", "Later", show=False),
    ]

    def __init__(self, *, placeholder: str, kind: str) -> None:
        super().__init__(classes=f"input-bar -{kind}")
        self.placeholder = placeholder
        self.kind = kind
        self._position = 0
        self._draft = ""

    @property
    def history(self) -> InputHistory:
        """The earlier entries of this bar's kind."""
        return self.center.history[self.kind]

    def prompt(self) -> Text:
        """The line above the input: to whom it goes."""
        raise NotImplementedError

    def send(self, text: str) -> None:
        """Send ``text`` (stripped, never empty)."""
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        """The prompt and the input."""
        self._position = len(self.history.entries)
        with Vertical(id="input-dock"):
            yield Static(self.prompt(), id="input-prompt")
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
        self.send(text)
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


class MessageBar(InputBar):
    """A direct message to one Mysis (the ``m`` command's)."""

    @classmethod
    def opened(cls, view: MysisView | None) -> Self:
        """The bar for a message to Mysis ``view``."""
        return cls(targeted(view, cls))

    def __init__(self, view: MysisView) -> None:
        self.view = view
        self.mysis_name = one_line(view.name, 40)
        super().__init__(placeholder=f"Message to {self.mysis_name}…", kind="message")

    def prompt(self) -> Text:
        """To whom, in which state."""
        prompt = Text()
        prompt.append("◆ MESSAGE TO ", style=f"bold {fmt.USER}")
        prompt.append(self.mysis_name, style=f"bold {fmt.TEAL}")
        prompt.append(f"  ({self.view.state})", style=fmt.state_style(self.view.state))
        return prompt

    def send(self, text: str) -> None:
        """Send the message to the Mysis."""
        commander, mysis_id = self.center.commander, self.view.id
        if commander is not None:
            self.center.run_command(
                "send the message",
                lambda: commander.send_message(mysis_id, text),
                done=f"sent to {self.mysis_name}",
            )


class BroadcastBar(InputBar):
    """An order for every idle or running Mysis (the ``b`` command's)."""

    def __init__(self) -> None:
        super().__init__(placeholder="An order for every Mysis…", kind="broadcast")

    def prompt(self) -> Text:
        """To the swarm, and how many listen."""
        views = self.center.swarm.views.values()
        listening = sum(1 for v in views if v.state in ("idle", "running"))
        prompt = Text()
        prompt.append("◆ BROADCAST TO THE SWARM", style=f"bold {fmt.ASSISTANT}")
        prompt.append(f"  ({listening} listening)", style=fmt.MUTED)
        return prompt

    def send(self, text: str) -> None:
        """Broadcast the order."""
        commander = self.center.commander
        if commander is not None:
            self.center.run_command(
                "broadcast",
                lambda: commander.broadcast(text),
                done=lambda n: f"broadcast sent to {n} Mys{'is' if n == 1 else 'es'}",
            )

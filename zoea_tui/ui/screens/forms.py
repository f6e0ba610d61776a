"""The new-Mysis and configure forms.

A form only collects values; the app passes in the coroutine that acts on them
(``submit``), which returns None on success or the refusal text, shown in the form
so the user can correct it without typing everything again.

The model is picked from the list the provider's server gives (``list_models``, fetched
in a worker when the form opens and whenever the provider changes; the configured model
first), or typed: "other…" opens the text field, which is all there is for a server that
lists nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Select, Static

from .. import formatting as fmt
from ..sanitize import one_line
from ..widgets.form_row import form_row
from ..widgets.model_field import ModelField


@dataclass(frozen=True, slots=True)
class MysisSettings:
    """What a form collected (None: leave as is, or use the default)."""

    name: str | None
    provider: str | None
    model: str | None
    strategy: str | None


#: Creates or configures; returns None when done, else why it was refused.
Submit = Callable[[MysisSettings], Awaitable[str | None]]
#: The models a provider's server lists, the configured one first (empty: type one).
ListModels = Callable[[str], Awaitable[list[str]]]


@dataclass(frozen=True, slots=True)
class FormChoices:
    """The choices a form offers and its starting values."""

    providers: list[str]
    strategies: list[str]
    provider: str
    strategy: str
    model: str = ""
    #: Default model per provider (shown as the model field's placeholder).
    models: dict[str, str] | None = None


class MysisForm(ModalScreen[bool]):
    """Base of both forms: fields, a refusal line, and Save/Cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    title_text = "MYSIS"
    submit_label = "Save"
    with_name = False

    def __init__(
        self,
        choices: FormChoices,
        submit: Submit,
        *,
        subject: str = "",
        list_models: ListModels | None = None,
    ) -> None:
        super().__init__(classes="form-screen")
        self.choices = choices
        self.submit = submit
        self.subject = subject
        self.list_models = list_models

    def compose(self) -> ComposeResult:
        """Name (new Mysis only), provider, model, strategy, and the buttons."""
        c = self.choices
        with Vertical(id="form-dialog", classes="dialog") as dialog:
            dialog.border_title = Content(self.title_text)
            if self.with_name:
                yield form_row(
                    "Name",
                    Input(
                        placeholder="a unique name, e.g. Dora",
                        id="form-name",
                        max_length=40,
                        compact=True,
                    ),
                )
            yield form_row(
                "Provider",
                Select(
                    [(Text(p), p) for p in c.providers],
                    value=c.provider,
                    allow_blank=False,
                    id="form-provider",
                    compact=True,
                ),
            )
            yield form_row("Model", ModelField(c.model, self._model_placeholder(c.provider)))
            yield form_row(
                "Strategy",
                Select(
                    [(Text(s), s) for s in c.strategies],
                    value=c.strategy,
                    allow_blank=False,
                    id="form-strategy",
                    compact=True,
                ),
            )
            yield Static("", id="form-error")
            with Horizontal(classes="buttons"):
                yield Button(self.submit_label, id="form-submit", variant="primary", compact=True)
                yield Button("Cancel", id="form-cancel", compact=True)

    def _model_placeholder(self, provider: str) -> str:
        default = (self.choices.models or {}).get(provider, "")
        return f"empty: {default}" if default else "empty: the provider's model"

    def on_mount(self) -> None:
        first = "#form-name" if self.with_name else "#form-provider"
        self.query_one(first).focus()
        self._fetch_models(self.choices.provider)

    @on(Select.Changed, "#form-provider")
    def _provider_changed(self, event: Select.Changed) -> None:
        self.query_one("#form-model", Input).placeholder = self._model_placeholder(str(event.value))
        self._fetch_models(str(event.value))

    @work(exclusive=True, group="form-models", exit_on_error=False)
    async def _fetch_models(self, provider: str) -> None:
        """Ask the provider's server for its models, then offer them."""
        if self.list_models is None:
            return
        models = await self.list_models(provider)
        if str(self.query_one("#form-provider", Select).value) == provider:
            self.query_one(ModelField).offer(models)

    @property
    def models(self) -> list[str]:
        """The models offered for the provider in the form (empty: free text only)."""
        return self.query_one(ModelField).models

    def collected(self) -> MysisSettings:
        """The values in the form."""
        name = self.query_one("#form-name", Input).value.strip() if self.with_name else None
        model = self.query_one(ModelField).value
        provider = self.query_one("#form-provider", Select).value
        strategy = self.query_one("#form-strategy", Select).value
        return MysisSettings(name=name, provider=str(provider), model=model, strategy=str(strategy))

    def show_error(self, message: str) -> None:
        """Show why the form was refused."""
        self.query_one("#form-error", Static).update(
            Text("✗ " + one_line(message, 300), style=f"bold {fmt.ERROR}")
        )

    @on(Input.Submitted)
    @on(Button.Pressed, "#form-submit")
    def _submit(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        settings = self.collected()
        if self.with_name and not settings.name:
            self.show_error("a Mysis needs a name")
            self.query_one("#form-name", Input).focus()
            return
        self._run_submit(settings)

    @work(exclusive=True, group="form-submit")
    async def _run_submit(self, settings: MysisSettings) -> None:
        self.query_one("#form-submit", Button).disabled = True
        try:
            error = await self.submit(settings)
        finally:
            self.query_one("#form-submit", Button).disabled = False
        if error is None:
            self.dismiss(True)
        else:
            self.show_error(error)

    @on(Button.Pressed, "#form-cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_cancel(self) -> None:
        """Close without changes."""
        self.dismiss(False)


class NewMysisScreen(MysisForm):
    """Create a Mysis: name, provider, model and strategy; it starts at once."""

    title_text = "◆ NEW MYSIS"
    submit_label = "Create and start"
    with_name = True


class ConfigureScreen(MysisForm):
    """Change a Mysis's provider, model or strategy (used from its next request)."""

    submit_label = "Save"

    def __init__(
        self,
        choices: FormChoices,
        submit: Submit,
        *,
        subject: str = "",
        list_models: ListModels | None = None,
    ) -> None:
        super().__init__(choices, submit, subject=subject, list_models=list_models)
        self.title_text = f"◆ CONFIGURE {one_line(subject, 30)}"

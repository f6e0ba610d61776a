"""The new-Mysis (``n``) and configure (``c``) forms.

Each form is a screen row of the command table (``ui/commands.py``): it offers the
engine's providers and strategies and acts on what was collected itself (:meth:`MysisForm.submit`),
through the app's :class:`~zoea_tui.ui.screens.base.CommandCenter`. A refusal is shown in
the form so the user can correct it without typing everything again.

The model is picked from the list the provider's server gives (the commander's
``list_models``, fetched in a worker when the form opens and whenever the provider changes;
the configured model first), or typed: "other…" opens the text field, which is all there
is for a server that lists nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Self

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Button, Input, Select

from ...orchestrator.refusals import CommandRefused
from ..sanitize import one_line
from ..widgets.form_row import choice, form_row, text_field
from ..widgets.model_field import ModelField
from .base import targeted
from .form_screen import FormScreen

if TYPE_CHECKING:
    from ...orchestrator.commander import Commander
    from ...orchestrator.events import MysisView


@dataclass(frozen=True, slots=True)
class MysisSettings:
    """What a form collected (None: leave as is, or use the default)."""

    name: str | None
    provider: str | None
    model: str | None
    strategy: str | None


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

    @classmethod
    def of(cls, commander: Commander, view: MysisView | None = None) -> FormChoices:
        """The engine's providers and strategies, starting at Mysis ``view``'s settings
        (the swarm's defaults for a new one)."""
        config = commander.config
        return cls(
            providers=commander.provider_names(),
            strategies=list(commander.strategies),
            provider=view.provider if view else config.swarm.default_provider,
            strategy=view.strategy if view else config.swarm.strategy,
            model=view.model if view else "",
            models={name: p.model for name, p in config.providers.items()},
        )


class MysisForm(FormScreen):
    """Base of both forms: fields, a refusal line, and Save/Cancel."""

    title_text = "MYSIS"
    submit_label = "Save"
    with_name = False

    @cached_property
    def choices(self) -> FormChoices:
        """What the form offers, read from the engine when it is first shown."""
        return FormChoices.of(self.commander)

    async def submit(self, settings: MysisSettings) -> str | None:
        """Act on ``settings``: None when done, else why the engine refused."""
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        """Name (new Mysis only), provider, model, strategy, and the buttons."""
        c = self.choices
        with Vertical(id="form-dialog", classes="dialog") as dialog:
            dialog.border_title = Content(self.title_text)
            if self.with_name:
                yield form_row(
                    "Name", text_field("a unique name, e.g. Dora", "form-name", max_length=40)
                )
            yield form_row(
                "Provider", choice(((p, p) for p in c.providers), c.provider, "form-provider")
            )
            yield form_row("Model", ModelField(c.model, self._model_placeholder(c.provider)))
            yield form_row(
                "Strategy", choice(((s, s) for s in c.strategies), c.strategy, "form-strategy")
            )
            yield from self.error_and_buttons(
                Button(self.submit_label, id="form-submit", variant="primary", compact=True)
            )

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
        models = await self.commander.list_models(provider)
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


class NewMysisScreen(MysisForm):
    """Create a Mysis: name, provider, model and strategy; it starts at once."""

    title_text = "◆ NEW MYSIS"
    submit_label = "Create and start"
    with_name = True

    async def submit(self, settings: MysisSettings) -> str | None:
        """Create the Mysis, select it on the dashboard and say so."""
        try:
            view = await self.commander.create_mysis(
                settings.name or "",
                provider=settings.provider,
                model=settings.model,
                strategy=settings.strategy,
            )
        except CommandRefused as exc:
            return exc.message
        self.center.swarm.note_view(view)
        self.center.say(f"{view.name} created and started")
        self.center.select_on_dashboard(view.id)
        return None


class ConfigureScreen(MysisForm):
    """Change a Mysis's provider, model or strategy (used from its next request)."""

    submit_label = "Save"

    @classmethod
    def opened(cls, view: MysisView | None) -> Self:
        """The form for Mysis ``view`` (the ``c`` command's)."""
        return cls(targeted(view, cls))

    def __init__(self, view: MysisView) -> None:
        super().__init__()
        self.view = view
        self.title_text = f"◆ CONFIGURE {one_line(view.name, 30)}"

    @cached_property
    def choices(self) -> FormChoices:
        """What the form offers, starting at the Mysis's settings."""
        return FormChoices.of(self.commander, self.view)

    async def submit(self, settings: MysisSettings) -> str | None:
        """Apply the settings to the Mysis and say so."""
        try:
            new = await self.commander.configure_mysis(
                self.view.id,
                provider=settings.provider,
                model=settings.model,
                strategy=settings.strategy,
            )
        except CommandRefused as exc:
            return exc.message
        self.center.say(f"{new.name}: {new.provider_label} · {new.strategy}")
        return None

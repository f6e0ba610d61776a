"""Add a provider from the TUI (key ``a``): type, endpoint, model, key variable; probed
before it is saved, then saved to the config file after a confirmation that shows the diff.

A screen row of the command table (``ui/commands.py``): the form acts itself, through the
app's :class:`~zoea_tui.ui.screens.base.CommandCenter`: probing (``zoea probe``'s, in a
worker: the UI never waits on the network), working out the file's new text
(``config/edit.py``: comments and layout kept), and writing it. A provider that cannot fly
is saved only when asked a second time ("Save anyway").
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Button, Input, Select, Static

from ...config import KINDS, ConfigError, ProviderConfig, build_config
from ...orchestrator.refusals import CommandRefused
from .. import formatting as fmt
from ..sanitize import clean, one_line
from ..widgets.form_row import choice, form_row, text_field
from ..widgets.model_field import ModelField
from ..widgets.scroll_box import ScrollBox
from .confirm import ConfirmScreen
from .form_screen import FormScreen

if TYPE_CHECKING:
    from ...config.edit import ProviderPlan
    from ...providers.probe import ProbeReport

#: Where the form's values are checked (named in a refusal).
FORM = "the form"
#: Stands for the model until the server is asked (the first one it lists).
ANY_MODEL = "?"
#: Stands for the name until the server is known (then named after it).
UNNAMED = "new-provider"


class AddProviderScreen(FormScreen):
    """Type, endpoint, model and key variable of a new provider; Probe, then Save."""

    def __init__(self) -> None:
        super().__init__()
        #: The last probe: the provider probed and what it found.
        self.probed: tuple[ProviderConfig, ProbeReport] | None = None
        #: The provider the commander agreed to save although it cannot fly.
        self._anyway: ProviderConfig | None = None

    def compose(self) -> ComposeResult:
        """The fields, the probe's findings, and the buttons."""
        with Vertical(id="form-dialog", classes="dialog -provider") as dialog:
            dialog.border_title = Content("◆ ADD A PROVIDER")
            kinds = [kind for kind in KINDS.values() if kind.probe]
            yield form_row(
                "Type",
                choice(((kind.label, kind.name) for kind in kinds), kinds[0].name, "provider-type"),
            )
            yield form_row(
                "Endpoint",
                text_field(
                    "http://127.0.0.1:8080/v1 (Ollama: http://127.0.0.1:11434)", "provider-endpoint"
                ),
            )
            yield form_row("Model", ModelField("", "empty: the first one the server lists"))
            yield form_row(
                "Key var",
                text_field("the variable holding the API key (empty: none)", "provider-key"),
            )
            yield form_row(
                "Name", text_field("empty: named after the server", "provider-name", max_length=64)
            )
            with ScrollBox(id="provider-report"):
                yield Static("", id="provider-verdict")
            yield from self.error_and_buttons(
                Button("Probe", id="provider-probe", compact=True),
                Button("Save…", id="provider-save", variant="primary", compact=True),
            )

    def on_mount(self) -> None:
        self.query_one("#provider-endpoint").focus()

    # -- what the form holds -------------------------------------------------------------

    def candidate(self, *, name_from: ProbeReport | None = None) -> ProviderConfig:
        """The provider the fields describe, checked as the config file would be (raises
        :class:`ConfigError` with what is wrong)."""
        name = self.query_one("#provider-name", Input).value.strip()
        if not name:
            name = name_from.server_name if name_from is not None else UNNAMED
        table: dict[str, object] = {
            "type": str(self.query_one("#provider-type", Select).value),
            "endpoint": self.query_one("#provider-endpoint", Input).value.strip(),
            # Until the server is asked, an empty model stands for "the first it lists".
            "model": self.query_one(ModelField).value
            or (name_from.model if name_from is not None else "")
            or ANY_MODEL,
        }
        if key := self.query_one("#provider-key", Input).value.strip():
            table["api_key_env"] = key
        config = build_config({"providers": {name: table}}, FORM)
        return config.providers[name]

    def show_report(self, report: ProbeReport) -> None:
        """The probe's findings, its verdict first."""
        text = Text()
        style = f"bold {fmt.TEAL}" if report.flies else f"bold {fmt.ERROR}"
        text.append(("✓ " if report.flies else "✗ ") + clean(report.summary()) + "\n", style=style)
        for line in report.table():
            text.append(clean(line) + "\n", style=fmt.TEXT)
        for failure in report.failures:
            text.append(f"  {failure.step}: {clean(failure.fix)}\n", style=fmt.WARNING)
        for note in report.notes:
            text.append(f"  {clean(note)}\n", style=fmt.MUTED)
        self.query_one("#provider-verdict", Static).update(text)

    # -- probing and saving ----------------------------------------------------------------

    async def probe(self, provider: ProviderConfig) -> ProbeReport:
        """What ``zoea probe`` finds of ``provider``."""
        return await self.commander.probe(provider)

    async def plan(self, provider: ProviderConfig, report: ProbeReport) -> ProviderPlan:
        """The config file's change for ``provider`` (raises ConfigError: name taken, file
        unusable)."""
        from ...config import default_config_path
        from ...config.edit import plan_provider

        commander = self.commander
        config = commander.config
        models: dict[str, str] = {}
        if config.source is None:  # a new file silences the conventions: keep theirs
            for name, found in config.providers.items():
                if found.origin and not found.model:
                    listed = await commander.list_models(name)
                    models[name] = listed[0] if listed else ""
        path = config.source or default_config_path()
        comment = f"added from zoea: {report.summary()}"
        return await asyncio.to_thread(
            plan_provider, config, provider, path, comment=comment, convention_models=models
        )

    async def commit(self, plan: ProviderPlan) -> None:
        """Write ``plan`` and offer its provider (raises ConfigError)."""
        from ...config.edit import write_plan

        await asyncio.to_thread(write_plan, plan)
        self.commander.add_provider(plan.provider, source=plan.path)
        self.center.say(
            f"provider {plan.provider.name} saved to {plan.path}: "
            "press n for a Mysis on it, or c to move one"
        )

    @on(Button.Pressed, "#provider-probe")
    def _probe_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.run_probe()

    @on(Button.Pressed, "#provider-save")
    @on(Input.Submitted)
    def _save_pressed(self, event: Button.Pressed | Input.Submitted) -> None:
        event.stop()
        self.run_save()

    @work(exclusive=True, group="provider-form", exit_on_error=False)
    async def run_probe(self) -> None:
        """Probe what the fields describe and show the findings."""
        await self._probe()

    @work(exclusive=True, group="provider-form", exit_on_error=False)
    async def run_save(self) -> None:
        """Probe (unless these values were), then confirm the diff, then save."""
        probed = await self._probe(again=False)
        if probed is None:
            return
        report = probed[1]
        try:
            final = self._final(self.candidate(name_from=report), report)
        except ConfigError as exc:
            self.show_error(exc.message)
            return
        if not report.flies and self._anyway != final:
            self._anyway = final
            self.query_one("#provider-save", Button).label = "Save anyway…"
            self.show_error("it cannot fly a Mysis yet (see above); Save anyway to keep it")
            return
        try:
            plan = await self.plan(final, report)
        except (ConfigError, CommandRefused) as exc:
            self.show_error(str(exc))
            return
        if not await self.app.push_screen_wait(self._confirmation(plan)):
            return
        try:
            await self.commit(plan)
        except (ConfigError, CommandRefused) as exc:
            self.show_error(str(exc))
            return
        self.dismiss(True)

    async def _probe(self, *, again: bool = True) -> tuple[ProviderConfig, ProbeReport] | None:
        try:
            candidate = self.candidate()
        except ConfigError as exc:
            self.show_error(exc.message)
            return None
        if not again and self.probed is not None and self._same(self.probed[0], candidate):
            return self.probed
        self.show_error("")
        self.query_one("#form-error", Static).update(
            Text(f"probing {one_line(candidate.endpoint or '', 80)}…", style=fmt.MUTED)
        )
        buttons = self.query(Button).exclude("#form-cancel")
        buttons.set(disabled=True)
        try:
            model = "" if candidate.model == ANY_MODEL else candidate.model
            report = await self.probe(replace(candidate, model=model))
        except CommandRefused as exc:
            self.show_error(exc.message)
            return None
        finally:
            buttons.set(disabled=False)
        self.query_one("#form-error", Static).update("")
        # The model the server was asked with (the first it lists, for "any").
        self.probed = (replace(candidate, model=report.model or candidate.model), report)
        self.show_report(report)
        models = [report.model] if report.model else []
        self.query_one(ModelField).offer(models + [m for m in report.models if m not in models])
        self.query_one("#provider-save", Button).label = "Save…"
        return self.probed

    @staticmethod
    def _same(probed: ProviderConfig, candidate: ProviderConfig) -> bool:
        """Whether ``candidate`` needs no new probe: same server, model and key."""
        model_open = candidate.model in (ANY_MODEL, probed.model)
        return (
            probed.type == candidate.type
            and probed.endpoint == candidate.endpoint
            and probed.api_key_env == candidate.api_key_env
            and model_open
        )

    @staticmethod
    def _final(candidate: ProviderConfig, report: ProbeReport) -> ProviderConfig:
        """The provider to save: what the probe found that flies on this endpoint."""
        if candidate.model == ANY_MODEL and not report.model:
            # A server that did not answer listed nothing: the verdict above says why,
            # and this only what the form needs (not a second diagnosis).
            if not report.reachable:
                raise ConfigError("to save it anyway, type the model's name")
            raise ConfigError("the server lists no model: type the model's name")
        return replace(
            candidate,
            endpoint=report.endpoint,
            model=report.model if candidate.model == ANY_MODEL else candidate.model,
            context_window=report.context_window or candidate.context_window,
            stream=False if report.stream_setting is False else candidate.stream,
            tools="compact" if report.tools_setting == "compact" else candidate.tools,
        )

    def _confirmation(self, plan: ProviderPlan) -> ConfirmScreen:
        question = Text()
        question.append("Save provider ", style=fmt.TEXT)
        question.append(one_line(plan.provider.name, 64), style=f"bold {fmt.TEAL}")
        question.append(f" to {plan.path}?", style=fmt.TEXT)
        if plan.note:
            question.append(f"\n{plan.note}", style=fmt.WARNING)
        question.append("\nEvery comment and line of the file stays as it is.", style=fmt.MUTED)
        return ConfirmScreen(question, yes="Save", no="Back", detail=diff_text(plan.diff()))


def diff_text(diff: str) -> Text:
    """A unified diff, its added lines green and removed ones red (never markup)."""
    text = Text()
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            style = fmt.TEAL
        elif line.startswith("-") and not line.startswith("---"):
            style = fmt.ERROR
        else:
            style = fmt.MUTED
        text.append(clean(line) + "\n", style=style)
    return text

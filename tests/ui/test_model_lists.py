"""The new-Mysis and configure forms offer the models the provider's server lists (the
configured model first), fetched in a worker; free text stays for a server that lists
nothing, and for a model the list does not have ("other…")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Select

from tests.fakes.llm_servers import FakeOpenAIServer
from zoea_tui.config import Config, GameConfig, ProviderConfig, builtin_providers
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.dashboard import DashboardScreen
from zoea_tui.ui.screens.forms import ConfigureScreen, MysisForm, NewMysisScreen
from zoea_tui.ui.widgets.model_field import OTHER

from .helpers import opener, seeded_app, settle, wait_for

SIZE = (120, 40)


def engine_config(url: str, model: str = "m2") -> Config:
    engine = ProviderConfig(name="engine", type="openai", endpoint=url, model=model)
    return Config(
        providers={**builtin_providers(), "engine": engine}, game=GameConfig(tick_seconds=0)
    )


def model_list(form: MysisForm) -> Select[str]:
    return form.query_one("#form-model-list", Select)


@asynccontextmanager
async def new_mysis_form(
    tmp_path: Path, url: str, name: str
) -> AsyncIterator[tuple[ZoeaApp, Pilot[None], NewMysisScreen]]:
    """The app with the provider "engine" at ``url``, settled, its new-Mysis form (``n``)
    open with ``name`` typed: the app, its pilot and the form."""
    app = ZoeaApp(opener(engine_config(url), tmp_path / "zoea.db"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n", *name)
        form = app.screen
        assert isinstance(form, NewMysisScreen)
        yield app, pilot, form


async def test_the_new_mysis_form_lists_the_servers_models_default_first(
    tmp_path: Path,
) -> None:
    async with (
        FakeOpenAIServer(listed=["m1", "m2", "m3"]) as server,
        new_mysis_form(tmp_path, server.url, "Dora") as (app, pilot, form),
    ):
        assert not model_list(form).display  # the autopilot lists nothing
        assert form.query_one("#form-model", Input).display

        form.query_one("#form-provider", Select).value = "engine"
        await wait_for(pilot, lambda: form.models == ["m2", "m1", "m3"], what="the list")
        assert model_list(form).display and model_list(form).value == "m2"
        assert not form.query_one("#form-model", Input).display

        model_list(form).value = "m3"
        await pilot.click("#form-submit")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), what="close")
        assert app.commander is not None
        dora = next(v for v in app.commander.myses() if v.name == "Dora")
        assert (dora.provider, dora.model) == ("engine", "m3")
    assert ("GET", "/v1/models") in [(r.method, r.path) for r in server.requests]


async def test_other_opens_free_text_for_a_model_the_list_lacks(tmp_path: Path) -> None:
    async with (
        FakeOpenAIServer(listed=["m1", "m2"]) as server,
        new_mysis_form(tmp_path, server.url, "Eve") as (_app, pilot, form),
    ):
        form.query_one("#form-provider", Select).value = "engine"
        await wait_for(pilot, lambda: bool(form.models), what="the list")
        model_list(form).value = OTHER
        await pilot.pause()
        field = form.query_one("#form-model", Input)
        assert field.display
        field.value = "my-finetune"
        assert form.collected().model == "my-finetune"


async def test_a_server_that_lists_nothing_leaves_free_text(tmp_path: Path) -> None:
    async with (
        FakeOpenAIServer(lists_models=False) as server,
        new_mysis_form(tmp_path, server.url, "Fay") as (_app, pilot, form),
    ):
        form.query_one("#form-provider", Select).value = "engine"
        await wait_for(
            pilot,
            lambda: any(r.path == "/v1/models" for r in server.requests),
            what="the ask",
        )
        await settle(pilot)
        assert form.models == [] and not model_list(form).display
        assert form.query_one("#form-model", Input).display


async def test_the_configure_form_starts_on_the_mysis_model(tmp_path: Path) -> None:
    async with FakeOpenAIServer(listed=["m1", "m2", "m3"]) as server:
        config = engine_config(server.url)
        async with seeded_app(config, tmp_path / "zoea.db", SIZE) as (pilot, app):
            assert app.commander is not None
            first = app.commander.myses()[0]
            await app.commander.configure_mysis(first.id, provider="engine", model="m1")
            await pilot.pause()
            await pilot.press("c")
            form = app.screen
            assert isinstance(form, ConfigureScreen)
            await wait_for(pilot, lambda: bool(form.models), what="the list")
            assert model_list(form).value == "m1"

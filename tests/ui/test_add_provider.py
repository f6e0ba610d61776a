"""Adding a provider from the TUI (key a): probed against a real loopback server, the diff
shown for confirmation, then saved to the config file with its comments and layout kept."""

from __future__ import annotations

import socket
import tomllib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.fakes.llm_servers import Call, FakeOpenAIServer, LlamaServer, Reply
from zoea_tui.config import load_config
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.add_provider import AddProviderScreen
from zoea_tui.ui.screens.confirm import ConfirmScreen
from zoea_tui.ui.screens.dashboard import DashboardScreen

from .helpers import opener, settle, wait_for

SIZE = (120, 40)
STATUS_CALL = Reply(tool_calls=[Call("get_status", {"section": "ship"})])
COMMENTED = """\
# My swarm. Keep this comment.
[swarm]
max_myses = 4          # four is plenty

# The game: the embedded world for now.
[game]
endpoint = "embedded"  # or the real one
tick_seconds = 10
"""


def rendered(static: Static) -> str:
    return str(static.render())


@asynccontextmanager
async def add_provider_form(
    tmp_path: Path,
) -> AsyncIterator[tuple[Path, ZoeaApp, Pilot[None], AddProviderScreen]]:
    """The app on a commented config file in ``tmp_path``, settled, its form to add a
    provider open (``a``): the file, the app, its pilot and the form."""
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED)
    app = ZoeaApp(opener(load_config(path, env={}), tmp_path / "zoea.db"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        form = app.screen
        assert isinstance(form, AddProviderScreen)
        yield path, app, pilot, form


async def fill_and_save(
    pilot: Pilot[None], form: AddProviderScreen, endpoint: str, *, name: str = ""
) -> Static:
    """Fill in the endpoint (and ``name``) and press Save; the form's error line."""
    form.query_one("#provider-endpoint", Input).value = endpoint
    if name:
        form.query_one("#provider-name", Input).value = name
    await pilot.click("#provider-save")
    return form.query_one("#form-error", Static)


async def test_a_provider_is_probed_shown_as_a_diff_and_saved_keeping_comments(
    tmp_path: Path,
) -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384), listed=["qwen"]) as server:
        server.default = STATUS_CALL
        async with add_provider_form(tmp_path) as (path, app, pilot, form):
            await fill_and_save(pilot, form, server.url)
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the diff")
            confirm = app.screen
            assert isinstance(confirm, ConfirmScreen) and confirm.detail is not None
            diff = confirm.detail.plain
            assert "+[providers.llama-server]" in diff
            assert f'+endpoint = "{server.url}"' in diff and '+model = "qwen"' in diff
            assert "+context_window = 16384" in diff
            removed = [x for x in diff.splitlines() if x.startswith("-") and x[:3] != "---"]
            assert removed == []  # the diff only adds
            verdict = rendered(form.query_one("#provider-verdict", Static))
            assert "flies a Mysis" in verdict
            assert path.read_text() == COMMENTED  # nothing written before the yes

            await pilot.press("y")
            await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), what="close")
            assert app.commander is not None
            assert "llama-server" in app.commander.provider_names()

    text = path.read_text()
    for line in COMMENTED.splitlines():
        assert line in text  # every comment and line kept
    assert text.index("# four is plenty") < text.index("[providers.llama-server]")
    saved = tomllib.loads(text)["providers"]["llama-server"]
    assert saved["model"] == "qwen" and saved["type"] == "openai"
    assert load_config(path, env={}).providers["llama-server"].endpoint == server.url


async def test_a_provider_that_cannot_fly_is_saved_only_when_asked_twice(
    tmp_path: Path,
) -> None:
    async with FakeOpenAIServer() as server:
        server.default = Reply("I only talk.")
        async with add_provider_form(tmp_path) as (path, app, pilot, form):
            error = await fill_and_save(pilot, form, server.url, name="talker")
            await wait_for(pilot, lambda: "cannot fly" in rendered(error), what="the refusal")
            assert "no tool call came back parsed" in rendered(
                form.query_one("#provider-verdict", Static)
            )
            assert isinstance(app.screen, AddProviderScreen)

            # Textual's Button ignores a click while the last one's press effect (0.2 s)
            # still shows; the fake server answers the probe faster than that.
            save = form.query_one("#provider-save")
            await wait_for(pilot, lambda: not save.has_class("-active"), what="the press to end")
            await pilot.click("#provider-save")  # Save anyway…
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the diff")
            await pilot.press("n")  # Back: nothing written
            await wait_for(pilot, lambda: app.screen is form, what="the form again")
            assert path.read_text() == COMMENTED
            assert len([r for r in server.chat_requests]) == 3  # probed once, not again


async def test_a_name_already_taken_is_refused_in_the_form(tmp_path: Path) -> None:
    async with FakeOpenAIServer() as server:
        server.default = STATUS_CALL
        async with add_provider_form(tmp_path) as (path, _app, pilot, form):
            error = await fill_and_save(pilot, form, server.url, name="autopilot")
            await wait_for(pilot, lambda: "exists already" in rendered(error), what="refusal")
            assert path.read_text() == COMMENTED


def _dead_endpoint() -> str:
    """An endpoint on a loopback port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


async def test_a_server_that_is_down_gets_one_verdict(tmp_path: Path) -> None:
    """Issue 40: a server that is down was both "nothing answers" and "the server lists
    no model"; the form now says only what it needs to save it anyway."""
    async with add_provider_form(tmp_path) as (_, _app, pilot, form):
        await pilot.press(*_dead_endpoint(), "enter")  # Enter in a field: save
        error = form.query_one("#form-error", Static)
        await wait_for(pilot, lambda: "model" in rendered(error), what="the form's word")
        verdict = rendered(form.query_one("#provider-verdict", Static))
        assert "nothing answers" in verdict
        assert rendered(error) == "✗ to save it anyway, type the model's name"
        assert "lists no model" not in verdict + rendered(error)


async def test_tab_visits_only_what_shows_and_four_tabs_from_the_endpoint_reach_probe(
    tmp_path: Path,
) -> None:
    """Issue 40: an empty findings box was an invisible stop (four Tabs from Endpoint,
    then Enter did nothing); now Model, Key var, Name, then Probe, and Enter probes."""
    async with FakeOpenAIServer(listed=["qwen"]) as server:
        server.default = STATUS_CALL
        async with add_provider_form(tmp_path) as (_, app, pilot, form):
            await pilot.press(*server.url)
            seen = []
            for _ in range(4):
                await pilot.press("tab")
                focused = app.focused
                assert focused is not None and focused.display and focused.region.area
                seen.append(focused.id)
            assert seen == ["form-model", "provider-key", "provider-name", "provider-probe"]
            await pilot.press("enter")
            verdict = form.query_one("#provider-verdict", Static)
            await wait_for(pilot, lambda: "flies a Mysis" in rendered(verdict), what="probe")
            assert isinstance(app.screen, AddProviderScreen)  # probed, nothing saved yet

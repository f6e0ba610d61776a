"""Pilot test: a provider without a model is named by the provider in errors and toasts."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from zoea_tui.config import Config, GameConfig, ProviderConfig, SwarmConfig, builtin_providers
from zoea_tui.config.model import NudgeConfig
from zoea_tui.providers.registry import build_provider
from zoea_tui.ui.app import ZoeaApp

from .helpers import opener, settle, wait_for


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_provider_without_a_model_is_labelled_by_its_name() -> None:
    config = ProviderConfig(name="openai", type="openai", endpoint="http://127.0.0.1:9/v1")
    assert build_provider(config, env={}).label == "openai"
    named = ProviderConfig(name="openai", type="openai", endpoint="http://x/v1", model="qwen3")
    assert build_provider(named, env={}).label == "qwen3"
    ollama = ProviderConfig(name="box", type="ollama", endpoint="http://127.0.0.1:9")
    assert build_provider(ollama, env={}).label == "box"


async def test_an_unreachable_provider_without_a_model_is_named_in_the_error_and_toast(
    tmp_path: Path,
) -> None:
    """Issue 40: "✖ : unreachable: Could not reach …/v1/models" and the toast
    "Ada: : unreachable" for the provider OPENAI_BASE_URL adds (it names no model); the
    line the Mysis shows while it backs off names the provider."""
    url = f"http://127.0.0.1:{closed_port()}/v1"
    provider = ProviderConfig(name="openai", type="openai", endpoint=url)
    config = Config(
        providers={**builtin_providers(), "openai": provider},
        swarm=SwarmConfig(default_provider="openai"),
        game=GameConfig(tick_seconds=0),
        nudge=NudgeConfig(idle_seconds=0.5, wait_state_seconds=1.0),
    )
    db = tmp_path / "zoea.db"
    app = ZoeaApp(opener(config, db))
    seen: list[str] = []
    original = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        seen.append(message)
        original(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        commander = app.commander
        assert commander is not None
        first = commander.myses()[0]
        await commander.start_mysis(first.id)
        # An unreachable server heals by waiting (issue 39): the Mysis backs off, and its
        # pane's line names the provider; nothing stops it, so no toast is raised.
        await wait_for(
            pilot, lambda: commander.mysis(first.id).next_try_at is not None, 20, what="the failure"
        )
        view = commander.mysis(first.id)
        assert view.activity == "unreachable" and view.state == "running", view
        assert view.last_line.startswith("openai: "), view.last_line
        assert ": :" not in view.last_line and "Could not reach" in view.last_line
        assert not [m for m in seen if ": :" in m], seen

"""Each provider type is built from its configuration alone (never guessed from a URL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import FakeOpenAIServer
from zoea_tui.config import ProviderConfig
from zoea_tui.providers.autopilot import AutopilotProvider
from zoea_tui.providers.base import AuthenticationError, ChatRequest, ProviderSettings
from zoea_tui.providers.local import LocalProvider
from zoea_tui.providers.ollama import OllamaProvider
from zoea_tui.providers.openai_compat import OpenAIProvider
from zoea_tui.providers.registry import build_provider


def test_every_type_builds_its_own_client() -> None:
    # An Ollama-looking URL typed "openai" stays OpenAI-compatible: the type decides.
    openai = build_provider(
        ProviderConfig(
            name="a",
            type="openai",
            model="m",
            endpoint="http://localhost:11434/v1",
            api_key_env="ZOEA_REGISTRY_KEY",
        ),
        env={"ZOEA_REGISTRY_KEY": "sk-x"},
    )
    ollama = build_provider(
        ProviderConfig(
            name="b", type="ollama", model="qwen3:8b", endpoint="http://localhost:11434"
        ),
        env={},
    )
    pilot = build_provider(ProviderConfig(name="c", type="autopilot"), env={})
    local = build_provider(
        ProviderConfig(name="d", type="local", model="smollm2-135m", context_window=8192), env={}
    )
    assert isinstance(openai, OpenAIProvider) and openai.label == "m"
    assert isinstance(ollama, OllamaProvider) and ollama.label == "qwen3:8b"
    assert isinstance(pilot, AutopilotProvider) and pilot.label == "autopilot (rule-based)"
    assert isinstance(local, LocalProvider) and "local" in local.label
    assert "sk-x" not in repr(openai.__dict__.get("label"))


async def test_a_refused_request_names_the_key_variable_that_held_nothing(tmp_path: Path) -> None:
    # No key in the environment, none in the credentials file: nothing was sent, and the
    # server's 401 says which variable to export.
    env = {"ZOEA_CREDENTIALS": str(tmp_path / "credentials.toml")}
    async with FakeOpenAIServer(api_key="the-right-key") as guarded:
        config = ProviderConfig(
            name="zen", type="openai", model="m", endpoint=guarded.url, api_key_env="ZEN_KEY_42"
        )
        provider = build_provider(config, env=env)
        request = ChatRequest(
            messages=[{"role": "user", "content": "Mine."}], settings=ProviderSettings()
        )
        try:
            with pytest.raises(AuthenticationError) as caught:
                await provider.chat(request)
            # With the key set, the refusal is of the key itself: no variable to blame.
            keyed = build_provider(config, env={**env, "ZEN_KEY_42": "sk-wrong"})
            with pytest.raises(AuthenticationError) as wrong:
                await keyed.chat(request)
            await keyed.aclose()
        finally:
            await provider.aclose()
    assert "No key was sent: api_key_env ZEN_KEY_42: that variable is empty or unset" in str(
        caught.value
    )
    assert "ZEN_KEY_42" not in str(wrong.value)
    assert "Check the provider's API key" in str(wrong.value)

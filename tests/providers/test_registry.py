"""Each provider type is built from its configuration alone (never guessed from a URL)."""

from __future__ import annotations

from zoea_tui.config import ProviderConfig
from zoea_tui.providers.autopilot import AutopilotProvider
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

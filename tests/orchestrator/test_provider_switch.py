"""A Mysis switched between providers by configuration alone, each over a real connection."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.fakes.llm_servers import Call, FakeOllamaServer, FakeOpenAIServer, Reply
from tests.helpers import open_on_world
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core.validator import validate

from .conftest import until


def _config(openai_url: str, ollama_url: str) -> Config:
    base = Config()
    providers = dict(base.providers)
    providers["cloud"] = ProviderConfig(
        name="cloud",
        type="openai",
        endpoint=openai_url,
        model="fake-gpt",
        temperature=0.0,
        api_key_env="ZOEA_TEST_KEY",
    )
    providers["home"] = ProviderConfig(
        name="home",
        type="ollama",
        endpoint=ollama_url,
        model="qwen3:8b",
        temperature=0.0,
        context_window=16384,
    )
    return replace(base, providers=providers, game=replace(base.game, tick_seconds=0))


async def test_one_mysis_through_autopilot_openai_and_ollama(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ZOEA_TEST_KEY", "sk-test-secret")
    async with FakeOpenAIServer(api_key="sk-test-secret") as cloud, FakeOllamaServer() as home:
        cloud.script(Reply("", tool_calls=[Call("get_status", {})]), Reply("Status checked."))
        home.script(Reply("", tool_calls=[Call("help", {})]), Reply("Help read."))
        config = _config(cloud.url, home.origin)
        commander = await open_on_world(config, tmp_path)
        try:
            view = await commander.create_mysis("Switch")  # the default: the autopilot
            await until(lambda: commander.mysis(view.id).account is not None)
            assert commander.mysis(view.id).provider_label == "autopilot (rule-based)"
            await commander.stop_mysis(view.id)

            await commander.configure_mysis(view.id, provider="cloud")
            assert commander.mysis(view.id).provider_label == "fake-gpt"
            await commander.relaunch_mysis(view.id)
            await until(lambda: len(cloud.chat_requests) >= 2)
            await commander.stop_mysis(view.id)

            await commander.configure_mysis(view.id, provider="home")
            await commander.relaunch_mysis(view.id)
            await until(lambda: len(home.chat_requests) >= 2)
            await commander.stop_mysis(view.id)
        finally:
            await commander.shutdown()

    first = cloud.chat_requests[0]
    body = first.json()
    assert body["model"] == "fake-gpt" and body["temperature"] == 0
    assert first.headers["authorization"] == "Bearer sk-test-secret"
    assert "sk-test-secret" not in first.text
    assert {t["function"]["name"] for t in body["tools"]} >= {"get_status", "login"}
    assert not validate(body["messages"])
    second = cloud.chat_requests[1].json()["messages"]
    result = next(m for m in reversed(second) if m["role"] == "tool")
    assert json.loads(result["content"])["player"]["username"] == "Switch"

    ollama = home.chat_requests[0].json()
    assert ollama["model"] == "qwen3:8b"
    assert ollama["options"]["num_ctx"] == 16384 and ollama["options"]["temperature"] == 0
    assert ollama["tools"]
    assert any(
        m["role"] == "tool" and "help" in m["content"].lower()
        for m in home.chat_requests[1].json()["messages"]
    )


async def test_a_missing_ollama_model_stops_the_mysis_with_the_pull_command(tmp_path: Path):
    async with FakeOpenAIServer() as cloud, FakeOllamaServer(models=("llama3:8b",)) as home:
        config = _config(cloud.url, home.origin)
        commander = await open_on_world(config, tmp_path)
        try:
            view = await commander.create_mysis("Puller", provider="home")
            await until(lambda: commander.mysis(view.id).state == "errored")
            assert "ollama pull qwen3:8b" in commander.mysis(view.id).last_error
            assert home.chat_requests == []
        finally:
            await commander.shutdown()

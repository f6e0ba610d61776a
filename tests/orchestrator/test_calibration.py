"""The engine fit's rules, one at a time: how the ratio learns, what fitting does to the
settings, and how a smaller server context is reported."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

from tests.fakes.llm_servers import FakeOpenAIServer, LlamaServer
from zoea_tui.core.composition import ComposeSettings, Composition
from zoea_tui.orchestrator.calibration import EngineFit
from zoea_tui.providers.autopilot import AutopilotProvider
from zoea_tui.providers.base import ChatRequest, ProviderSettings, Usage
from zoea_tui.providers.openai_compat import OpenAIProvider, request_body

from .conftest import ScriptedModel

ENGINE = ("llama", "qwen2.5")
MODEL = ScriptedModel()


def estimated(tokens: int) -> Composition:
    """A composition whose uncalibrated estimate is ``tokens``."""
    return Composition("turn-aware", (), (), (), round(tokens * 1.1), raw_tokens=tokens)


def test_the_first_count_sets_the_ratio_and_a_higher_one_is_taken_at_once() -> None:
    fit = EngineFit()
    assert fit.scale(ENGINE) == 1.0
    assert fit.observe(ENGINE, MODEL, estimated(5981), Usage(prompt_tokens=8120))
    assert fit.scale(ENGINE) == pytest.approx(8120 / 5981)
    fit.observe(ENGINE, MODEL, estimated(1000), Usage(prompt_tokens=1500))
    assert fit.scale(ENGINE) == pytest.approx(1.5)
    assert fit.scale(("llama", "other-model")) == 1.0, "per model"
    assert fit.scale(("cloud", "qwen2.5")) == 1.0, "per provider"


def test_a_lower_count_moves_the_ratio_only_in_part() -> None:
    fit = EngineFit()
    fit.observe(ENGINE, MODEL, estimated(1000), Usage(prompt_tokens=1400))
    fit.observe(ENGINE, MODEL, estimated(1000), Usage(prompt_tokens=1200))
    assert fit.scale(ENGINE) == pytest.approx(1.4 + 0.3 * (1.2 - 1.4))


@pytest.mark.parametrize(
    "usage",
    [
        Usage(),  # no count
        Usage(prompt_tokens=0),
        Usage(prompt_tokens=30),  # an Ollama that counted only what its cache lacked
        Usage(prompt_tokens=50_000),
    ],
    ids=["none", "zero", "cached-only", "absurd"],
)
def test_a_count_that_is_not_a_whole_prompts_teaches_nothing(usage: Usage) -> None:
    fit = EngineFit()
    fit.observe(ENGINE, MODEL, estimated(1000), Usage(prompt_tokens=1300))
    assert not fit.observe(ENGINE, MODEL, estimated(1000), usage)
    assert fit.scale(ENGINE) == pytest.approx(1.3)


def test_the_autopilots_estimate_teaches_nothing() -> None:
    fit = EngineFit()
    autopilot = AutopilotProvider()
    assert not fit.observe(ENGINE, autopilot, estimated(1000), Usage(prompt_tokens=1230))
    assert fit.scale(ENGINE) == 1.0


def test_fitted_settings_carry_the_scale_and_room_for_the_answer() -> None:
    fit = EngineFit()
    fit.observe(ENGINE, MODEL, estimated(1000), Usage(prompt_tokens=1250))
    compose, provider = fit.fitted(
        ENGINE, ComposeSettings(context_window=16_384), ProviderSettings(max_tokens=4096)
    )
    assert provider == ProviderSettings(max_tokens=4096), "the server said nothing"
    assert compose.token_scale == pytest.approx(1.25)
    assert compose.context_window == 16_384 and compose.reserve_tokens == 4096
    assert compose.budget == 16_384 - 4096
    small, _ = fit.fitted(ENGINE, ComposeSettings(), ProviderSettings(max_tokens=100))
    assert small.reserve_tokens == ComposeSettings().reserve_tokens, "never less than the default"


async def test_a_smaller_server_context_wins_and_is_reported(caplog) -> None:
    fit = EngineFit()
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=8192)) as llama:
        provider = OpenAIProvider(llama.url, "qwen2.5")
        try:
            with caplog.at_level(logging.WARNING):
                found = await fit.discover(ENGINE, provider, 32_768)
            assert found is not None and found.tokens == 8192
            assert provider.notes == {"context": "server context 8192 < configured 32768"}
            assert "server context 8192 < configured 32768" in caplog.text
            compose, settings = fit.fitted(
                ENGINE, ComposeSettings(context_window=32_768), ProviderSettings()
            )
            assert compose.context_window == 8192 and settings.context_window == 8192
            # Configured below the server's: the configuration stands, the note goes.
            await fit.discover(ENGINE, provider, 4096)
            assert provider.notes == {}
            configured = ComposeSettings(context_window=4096)
            assert fit.fitted(ENGINE, configured, ProviderSettings())[0].context_window == 4096
        finally:
            await provider.aclose()


async def test_a_provider_that_cannot_tell_is_left_alone() -> None:
    fit = EngineFit()
    assert await fit.discover(ENGINE, MODEL, 32_768) is None
    compose, _ = fit.fitted(ENGINE, ComposeSettings(), ProviderSettings())
    assert compose == ComposeSettings()


async def test_a_server_that_counts_the_prompt_is_believed_before_the_request_goes() -> None:
    """llama-server counts the request with its own template and tokenizer before it is
    sent; the count is learnt from at once. A server that does not count is asked once."""
    engine = LlamaServer(n_ctx=8192)
    tools = [{"type": "function", "function": {"name": "mine", "parameters": {}}}]
    messages = [{"role": "system", "content": "Play."}, {"role": "user", "content": "Mine."}]
    request = ChatRequest(messages, tools, ProviderSettings(model="qwen2.5"))
    async with (
        FakeOpenAIServer(llama=engine) as llama,
        FakeOpenAIServer(llama=replace(engine, counts=False)) as mute,
    ):
        counting = OpenAIProvider(llama.url, "qwen2.5")
        silent = OpenAIProvider(mute.url, "qwen2.5")
        fit = EngineFit()
        try:
            counted = await fit.count(ENGINE, counting, estimated(40), request)
            assert await fit.count(("mute", "qwen2.5"), silent, estimated(10), request) is None
            assert await fit.count(("mute", "qwen2.5"), silent, estimated(10), request) is None
            assert await fit.count(ENGINE, AutopilotProvider(), estimated(10), request) is None
        finally:
            await counting.aclose()
            await silent.aclose()
    body = request_body(request, "qwen2.5")
    assert counted == engine.prompt_tokens(body)  # the engine's own count, exactly
    assert fit.scale(ENGINE) == pytest.approx(counted / 40)
    assert fit.scale(("mute", "qwen2.5")) == 1.0
    assert [r.path for r in mute.requests] == ["/apply-template"], "asked once"
    assert [r.path for r in llama.requests] == ["/apply-template", "/tokenize"]
    assert not llama.chat_requests, "counting sends no chat request"

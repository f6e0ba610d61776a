"""The local provider: SmolLM2-135M run in-process by llama.cpp, no mocks."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.local.conftest import OFFERED, STATUS, STATUS_ORDER, TOOLS, ask
from zoea_tui.providers.base import (
    BadRequestError,
    Provider,
    ProviderError,
    ProviderTimeoutError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
)
from zoea_tui.providers.local import (
    INSTALL_COMMANDS,
    MODELS,
    NO_TOOL_CALL,
    LocalModelUnavailableError,
    LocalProvider,
    find_model_path,
    template_messages,
)

pytestmark = pytest.mark.local

LONG_STORY = [{"role": "user", "content": "Write a very long story about a space pilot."}]


@pytest.fixture
async def provider(gguf: Path) -> AsyncIterator[LocalProvider]:
    """A fresh provider; loading the 98 MB model takes about 0.2 s."""
    local = LocalProvider("smollm2-135m", context_window=2048, n_threads=2)
    yield local
    await local.aclose()


async def test_offered_tool_is_called_with_json_arguments(provider: LocalProvider) -> None:
    events: list[StreamEvent] = []

    answer = await provider.chat(ask(STATUS_ORDER, stream=True), events.append)

    assert isinstance(provider, Provider)
    assert provider.label == "smollm2-135m (local, llama.cpp)"
    assert answer.finish_reason == "tool_calls"
    assert answer.tool_calls
    for call in answer.tool_calls:
        assert call.id
        assert call.name in OFFERED
        assert isinstance(call.parsed_arguments(), dict)
    assert len({call.id for call in answer.tool_calls}) == len(answer.tool_calls)
    # The handler cannot stream a tool choice: the whole call is reported at once.
    reported = [e.name for e in events if isinstance(e, ToolCallDelta)]
    assert reported == [call.name for call in answer.tool_calls]
    assert answer.usage.prompt_tokens


async def test_tool_result_fed_back_gets_a_second_answer(provider: LocalProvider) -> None:
    first = await provider.chat(ask(STATUS_ORDER))
    call = first.tool_calls[0]
    messages = [
        *STATUS_ORDER,
        {"role": "assistant", "content": None, "tool_calls": [call.to_openai()]},
        {"role": "tool", "tool_call_id": call.id, "content": STATUS},
    ]

    second = await provider.chat(ask(messages))

    # The model's choice is poor, but the answer is well-formed either way.
    assert second.usage.prompt_tokens and second.usage.prompt_tokens > first.usage.prompt_tokens
    # The conversation grew at its end: its start (system prompt, tools) was reused.
    assert second.usage.cached_tokens and second.usage.cached_tokens > 0
    if second.tool_calls:
        assert second.finish_reason == "tool_calls"
        assert {c.name for c in second.tool_calls} <= OFFERED
    else:
        assert second.content.startswith(NO_TOOL_CALL)


async def test_same_request_gets_the_same_answer(provider: LocalProvider) -> None:
    first = await provider.chat(ask(STATUS_ORDER))
    second = await provider.chat(ask(STATUS_ORDER))

    assert [(c.name, c.arguments) for c in first.tool_calls] == [
        (c.name, c.arguments) for c in second.tool_calls
    ]


async def test_fresh_model_reuses_nothing_and_a_repeated_prompt_is_reused(
    provider: LocalProvider,
) -> None:
    first = await provider.chat(ask(STATUS_ORDER))
    second = await provider.chat(ask(STATUS_ORDER))

    assert first.usage.cached_tokens == 0
    assert second.usage.prompt_tokens and second.usage.cached_tokens
    assert 0 < second.usage.cached_tokens < second.usage.prompt_tokens


async def test_repeated_text_prompt_reuses_all_but_its_last_token(
    provider: LocalProvider,
) -> None:
    request = ask([{"role": "user", "content": "Say hello."}], tools=(), max_tokens=8)
    events: list[StreamEvent] = []

    first = await provider.chat(request)
    second = await provider.chat(replace(request, stream=True), events.append)

    assert first.usage.cached_tokens == 0
    # A streamed answer counts its prompt the same way as a whole one.
    assert second.usage.prompt_tokens == first.usage.prompt_tokens
    assert second.usage.prompt_tokens is not None
    # The prompt lies wholly in the state the first call left; llama.cpp evaluates its
    # last token again to get fresh logits.
    assert second.usage.cached_tokens == second.usage.prompt_tokens - 1


async def test_request_without_tools_streams_text_within_max_tokens(
    provider: LocalProvider,
) -> None:
    events: list[StreamEvent] = []
    request = ask([{"role": "user", "content": "Say hello."}], tools=(), stream=True, max_tokens=16)

    answer = await provider.chat(request, events.append)

    assert answer.content.strip()
    assert not answer.tool_calls
    assert answer.finish_reason in ("stop", "length")
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == answer.content
    assert answer.usage.completion_tokens is not None
    assert answer.usage.completion_tokens <= 16


async def test_token_budget_spent_before_a_tool_call_gives_the_fallback_text(
    provider: LocalProvider,
) -> None:
    # With tools offered llama-cpp-python ignores max_tokens; the provider enforces it.
    answer = await provider.chat(ask(STATUS_ORDER, max_tokens=2))

    assert not answer.tool_calls
    assert answer.content.startswith(NO_TOOL_CALL)
    assert answer.finish_reason == "length"


async def test_timeout_stops_generation_and_the_provider_answers_again(
    provider: LocalProvider,
) -> None:
    await provider.chat(ask(STATUS_ORDER))  # loaded, so only generation is timed out

    with pytest.raises(ProviderTimeoutError, match=r"within 0\.5 s"):
        await provider.chat(
            ask(LONG_STORY, tools=(), max_tokens=3000, timeout=0.5, temperature=0.8)
        )

    answer = await provider.chat(ask(STATUS_ORDER, timeout=30.0))
    assert answer.tool_calls


async def test_cancelled_call_stops_and_the_provider_answers_again(
    provider: LocalProvider,
) -> None:
    await provider.chat(ask(STATUS_ORDER))
    task = asyncio.create_task(
        provider.chat(ask(LONG_STORY, tools=(), max_tokens=3000, temperature=0.8))
    )
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    answer = await provider.chat(ask(STATUS_ORDER))
    assert answer.tool_calls


async def test_request_larger_than_the_context_is_refused_with_the_counts(
    provider: LocalProvider,
) -> None:
    huge = [{"role": "user", "content": "mine ore " * 2000}]

    with pytest.raises(BadRequestError, match=r"exceed context window of 2048"):
        await provider.chat(ask(huge))
    assert (await provider.chat(ask(STATUS_ORDER))).tool_calls


async def test_closed_provider_refuses_requests(provider: LocalProvider) -> None:
    await provider.chat(ask(STATUS_ORDER))
    await provider.aclose()

    with pytest.raises(ProviderError, match="closed"):
        await provider.chat(ask(STATUS_ORDER))


def test_template_shows_tool_results_as_user_messages_naming_the_tool() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "get_status", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "Check your status"},
        {"role": "system", "content": "Summary: docked."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": STATUS},
    ]

    shown = template_messages(messages, TOOLS)

    assert shown[0] == {"role": "system", "content": "Summary: docked."}
    assert shown[2] == {"role": "assistant", "content": "", "tool_calls": [call]}
    assert shown[3] == {"role": "user", "content": f"Result of get_status:\n{STATUS}"}


async def test_unknown_model_name_lists_the_known_ones(gguf: Path) -> None:
    local = LocalProvider("qwen3:8b")

    with pytest.raises(LocalModelUnavailableError, match="expected one of smollm2-135m"):
        await local.chat(ask(STATUS_ORDER))
    await local.aclose()


def test_missing_weights_package_names_the_install_command(
    gguf: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(MODELS, "ghost", ("zoea_no_such_weights", "ghost.gguf"))

    with pytest.raises(LocalModelUnavailableError) as raised:
        find_model_path("ghost")

    assert "not installed" in raised.value.message
    assert INSTALL_COMMANDS[1] in raised.value.message
    assert not raised.value.retryable


def test_missing_llama_cpp_names_the_build_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def without_llama_cpp(name: str, *args: Any) -> Any:
        return None if name == "llama_cpp" else real_find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_llama_cpp)

    with pytest.raises(LocalModelUnavailableError) as raised:
        find_model_path()

    assert "llama-cpp-python, which is not installed" in raised.value.message
    assert INSTALL_COMMANDS[0] in raised.value.message
    assert "make test" in raised.value.message

"""The native Ollama client against a real loopback server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from tests.fakes import (
    Call,
    FakeOllamaServer,
    HttpError,
    Malformed,
    Raw,
    RecordingSleep,
    Reply,
    refused_url,
)
from tests.providers.asking import MESSAGES, TOOLS, ask
from zoea_tui.core.retry import ONCE
from zoea_tui.providers.base import (
    ChatRequest,
    CutShortError,
    MalformedResponseError,
    ModelNotFoundError,
    Provider,
    ProviderSettings,
    ProviderTimeoutError,
    ProviderUnavailableError,
    ReasoningDelta,
    ServerError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from zoea_tui.providers.ollama import OllamaProvider

MODEL = "qwen3:8b"
#: A request timeout the fake server's 30 s delay always passes, long enough that the
#: request reaches the server on a loaded machine before it fires.
TIMEOUT = 1.0


@pytest.fixture
async def server() -> AsyncIterator[FakeOllamaServer]:
    async with FakeOllamaServer(models=[MODEL, "llama3.2:latest"]) as fake:
        yield fake


@pytest.fixture
async def provider(
    server: FakeOllamaServer, sleep: RecordingSleep
) -> AsyncIterator[OllamaProvider]:
    client = OllamaProvider(server.url, MODEL, sleep=sleep)
    yield client
    await client.aclose()


# --- what is sent ---------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
async def test_sends_explicit_stream_num_ctx_temperature_zero_and_tools(
    server: FakeOllamaServer, provider: OllamaProvider, stream: bool
) -> None:
    await provider.chat(
        ask(
            stream=stream,
            tools=TOOLS,
            temperature=0.0,
            context_window=40960,
            max_tokens=256,
            seed=3,
        )
    )
    body = server.requests[0].json()
    assert server.requests[0].path == "/api/chat"
    assert body["stream"] is stream
    assert body["options"] == {"num_ctx": 40960, "temperature": 0, "num_predict": 256, "seed": 3}
    assert body["tools"] == TOOLS
    assert body["model"] == MODEL
    assert "tool_choice" not in body


async def test_num_ctx_is_always_sent_and_unset_options_are_not(
    server: FakeOllamaServer, provider: OllamaProvider
) -> None:
    await provider.chat(ask())
    body = server.requests[0].json()
    assert body["options"] == {"num_ctx": ProviderSettings().context_window}
    assert "tools" not in body


async def test_outgoing_tool_calls_take_ollamas_shape(
    server: FakeOllamaServer, provider: OllamaProvider
) -> None:
    calls = [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "mine", "arguments": '{"target": "iron_ore"}'},
        },
        {"id": "c2", "type": "function", "function": {"name": "dock", "arguments": "{broken"}},
    ]
    messages = [
        *MESSAGES,
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "content": "mined 3"},
        {"role": "tool", "tool_call_id": "c2", "content": "docked"},
    ]
    await provider.chat(ask(messages=messages))
    sent = server.requests[0].json()["messages"]
    assert sent[:2] == MESSAGES
    assert sent[2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"name": "mine", "arguments": {"target": "iron_ore"}}},
            {"function": {"name": "dock", "arguments": {}}},
        ],
    }
    assert sent[3] == {
        "role": "tool",
        "content": "mined 3",
        "tool_name": "mine",
        "tool_call_id": "c1",
    }
    assert sent[4]["tool_name"] == "dock"


async def test_api_key_when_given_goes_in_the_header_only(server: FakeOllamaServer) -> None:
    client = OllamaProvider(server.url, MODEL, api_key="ollama-secret")
    await client.chat(ask())
    await client.aclose()
    request = server.requests[0]
    assert request.headers["authorization"] == "Bearer ollama-secret"
    assert "ollama-secret" not in request.text


# --- what is understood -----------------------------------------------------------------------


async def test_whole_answer_text_usage_and_finish(
    server: FakeOllamaServer, provider: OllamaProvider
) -> None:
    server.script(Reply("Mining now.", usage=(500, 9)))
    answer = await provider.chat(ask())
    assert answer.content == "Mining now."
    assert answer.usage == Usage(500, 9)
    assert answer.finish_reason == "stop"
    assert answer.model == MODEL
    assert answer.latency_s > 0


async def test_streamed_text_and_thinking_are_reported_as_deltas(
    server: FakeOllamaServer, provider: OllamaProvider
) -> None:
    server.script(Reply("Mining the belt.", reasoning="Ore is near.", chunk_size=5, usage=(50, 4)))
    events: list[StreamEvent] = []
    answer = await provider.chat(ask(stream=True), events.append)
    assert answer.content == "Mining the belt."
    assert answer.reasoning == "Ore is near."
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == answer.content
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == answer.reasoning
    assert answer.usage == Usage(50, 4)


@pytest.mark.parametrize("stream", [False, True])
async def test_tool_calls_get_json_text_arguments_and_stable_ids(
    server: FakeOllamaServer, provider: OllamaProvider, stream: bool
) -> None:
    reply = Reply(tool_calls=[Call("mine", {"target": "iron_ore", "n": 2}), Call("mine")])
    server.script(reply, reply)
    events: list[StreamEvent] = []
    first = await provider.chat(ask(stream=stream, tools=TOOLS), events.append)
    second = await provider.chat(ask(stream=stream, tools=TOOLS))
    assert [c.name for c in first.tool_calls] == ["mine", "mine"]
    assert json.loads(first.tool_calls[0].arguments) == {"target": "iron_ore", "n": 2}
    ids = [c.id for c in first.tool_calls]
    assert all(ids) and len(set(ids)) == 2
    assert ids == [c.id for c in second.tool_calls]
    assert first.finish_reason == "tool_calls"
    if stream:
        deltas = [e for e in events if isinstance(e, ToolCallDelta)]
        assert [(d.index, d.name) for d in deltas] == [(0, "mine"), (1, "mine")]


async def test_server_ids_are_kept_when_sent(
    server: FakeOllamaServer, provider: OllamaProvider
) -> None:
    server.script(Reply(tool_calls=[Call("mine", id="call_abc")]))
    assert (await provider.chat(ask())).tool_calls[0].id == "call_abc"


@pytest.mark.parametrize("stream", [False, True])
async def test_arguments_sent_as_invalid_text_are_kept_raw(
    server: FakeOllamaServer, provider: OllamaProvider, stream: bool
) -> None:
    server.script(Reply(tool_calls=[Call("mine", '{"target": '), Call("dock", "")]))
    answer = await provider.chat(ask(stream=stream))
    assert [c.arguments for c in answer.tool_calls] == ['{"target": ', "{}"]


@pytest.mark.parametrize("stream", [False, True])
async def test_thinking_only_answer_and_missing_usage(
    server: FakeOllamaServer, provider: OllamaProvider, stream: bool
) -> None:
    server.script(Reply("", reasoning="Hmm.", usage=None))
    answer = await provider.chat(ask(stream=stream))
    assert (answer.content, answer.reasoning) == ("", "Hmm.")
    assert answer.usage == Usage(None, None)


@pytest.mark.parametrize("stream", [False, True])
async def test_no_cached_token_count_since_ollama_reports_none(
    server: FakeOllamaServer, provider: OllamaProvider, stream: bool
) -> None:
    # Fields other servers use are not Ollama's: the client does not look for them.
    server.script(Reply("ok", usage=(800, 3), extra={"timings": {"cache_n": 700}}))
    answer = await provider.chat(ask(stream=stream))
    assert answer.usage == Usage(800, 3, None)


async def test_length_finish_is_mapped(server: FakeOllamaServer, provider: OllamaProvider) -> None:
    server.script(Reply("cut", finish_reason="length"))
    assert (await provider.chat(ask())).finish_reason == "length"


async def test_provider_matches_the_interface(provider: OllamaProvider) -> None:
    assert isinstance(provider, Provider)
    assert provider.label == MODEL


# --- start-up checks --------------------------------------------------------------------------


@pytest.mark.parametrize("model", [MODEL, "llama3.2", "llama3.2:latest"])
async def test_check_model_accepts_installed_models(provider: OllamaProvider, model: str) -> None:
    await provider.check_model(model)


async def test_check_model_names_the_pull_command_for_a_missing_model(
    provider: OllamaProvider,
) -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        await provider.check_model("mistral-nemo:12b")
    assert "ollama pull mistral-nemo:12b" in str(caught.value)
    assert MODEL in str(caught.value)


async def test_check_model_reports_a_server_that_is_down() -> None:
    sleep = RecordingSleep()
    url = refused_url()
    client = OllamaProvider(url, MODEL, sleep=sleep)
    with pytest.raises(ProviderUnavailableError) as caught:
        await client.check_model()
    await client.aclose()
    assert url in str(caught.value)
    assert "ollama serve" in str(caught.value)
    assert sleep.delays == []


async def test_version_is_read(provider: OllamaProvider) -> None:
    assert await provider.version() == "0.12.3"


async def test_chat_with_a_model_not_pulled_names_the_pull_command(
    server: FakeOllamaServer, sleep: RecordingSleep
) -> None:
    client = OllamaProvider(server.url, "phi4", sleep=sleep)
    with pytest.raises(ModelNotFoundError) as caught:
        await client.chat(ask())
    await client.aclose()
    assert "ollama pull phi4" in str(caught.value)
    assert "try pulling it first" in str(caught.value)
    assert sleep.delays == []


# --- faults ----------------------------------------------------------------------------------


async def test_429_and_503_are_retried_honouring_retry_after(
    server: FakeOllamaServer, provider: OllamaProvider, sleep: RecordingSleep
) -> None:
    server.script(HttpError(429, retry_after="3"), HttpError(503), Reply("ok"))
    assert (await provider.chat(ask(stream=True))).content == "ok"
    assert sleep.delays == [3.0, 1.0]


async def test_persistent_500_escapes_with_the_servers_words(
    server: FakeOllamaServer, provider: OllamaProvider
) -> None:
    server.default = HttpError(500, "llama runner process has terminated")
    with pytest.raises(ServerError, match="llama runner process has terminated"):
        await provider.chat(ask())
    assert len(server.requests) == 4


@pytest.mark.parametrize("stream", [False, True])
async def test_connection_cut_is_retried_then_unavailable(
    server: FakeOllamaServer, provider: OllamaProvider, stream: bool
) -> None:
    server.script(Reply("a long enough answer", cut_after=2))
    assert (await provider.chat(ask(stream=stream))).content == "ok"
    server.default = Reply("a long enough answer", cut_after=2)
    with pytest.raises(CutShortError):
        await provider.chat(ask(stream=stream))


async def test_stream_without_its_done_line_is_unavailable(
    server: FakeOllamaServer, provider: OllamaProvider
) -> None:
    line = {"model": MODEL, "message": {"role": "assistant", "content": "half"}, "done": False}
    server.default = Raw(json.dumps(line) + "\n", content_type="application/x-ndjson")
    with pytest.raises(CutShortError, match="ended before"):
        await provider.chat(ask(stream=True))


@pytest.mark.parametrize("stream", [False, True])
async def test_malformed_json_is_a_malformed_response(
    server: FakeOllamaServer, provider: OllamaProvider, stream: bool
) -> None:
    server.script(Malformed())
    with pytest.raises(MalformedResponseError):
        await provider.chat(ask(stream=stream))
    assert len(server.requests) == 1


async def test_error_line_inside_a_stream_is_a_server_error(
    server: FakeOllamaServer, provider: OllamaProvider
) -> None:
    server.default = Raw('{"error": "out of memory"}\n', content_type="application/x-ndjson")
    with pytest.raises(ServerError, match="out of memory"):
        await provider.chat(ask(stream=True))


async def test_timeout_escapes_as_provider_timeout(server: FakeOllamaServer) -> None:
    client = OllamaProvider(server.url, MODEL, retry=ONCE)
    server.default = Reply("late", delay=30)
    with pytest.raises(ProviderTimeoutError):
        await client.chat(ask(timeout=TIMEOUT))
    await client.aclose()


async def test_server_down_during_chat_is_unavailable_after_retries() -> None:
    sleep = RecordingSleep()
    client = OllamaProvider(refused_url(), MODEL, sleep=sleep)
    with pytest.raises(ProviderUnavailableError):
        await client.chat(ask())
    await client.aclose()
    assert sleep.delays == [0.5, 1.0, 2.0]


async def test_cancel_mid_stream_closes_the_stream(
    server: FakeOllamaServer, provider: OllamaProvider
) -> None:
    server.script(Reply("some text that stalls", stall_after=2))
    started = asyncio.Event()
    task = asyncio.create_task(provider.chat(ask(stream=True), lambda _: started.set()))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with asyncio.timeout(5):
        while server.abandoned != 1:
            await asyncio.sleep(0.005)


async def test_an_ollama_host_provider_flies_the_first_model_pulled() -> None:
    async with FakeOllamaServer(models=["llama3.2", "qwen3:8b"]) as server:
        provider = OllamaProvider(server.url, "")
        try:
            assert (await provider.server_context()) is None  # the fake's model tells none
            assert provider.model == "llama3.2"
            await provider.check_model()
            await provider.chat(ChatRequest([{"role": "user", "content": "hi"}]))
        finally:
            await provider.aclose()
    assert [r.json()["model"] for r in server.chat_requests] == ["llama3.2"]

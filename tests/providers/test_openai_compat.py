"""The OpenAI-compatible client against a real loopback server."""

from __future__ import annotations

import asyncio
import json
import tomllib
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from tests.fakes import (
    Call,
    FakeOpenAIServer,
    HttpError,
    Malformed,
    Raw,
    RecordingSleep,
    Reply,
    refused_url,
)
from tests.providers.asking import MESSAGES, TOOLS, ask
from zoea_tui.config import ConfigError, build_config
from zoea_tui.core.retry import CLIENT, ONCE
from zoea_tui.providers._http import parse_retry_after
from zoea_tui.providers._wire import cached_tokens
from zoea_tui.providers.base import (
    AuthenticationError,
    BadRequestError,
    ChatRequest,
    CutShortError,
    MalformedResponseError,
    ModelNotFoundError,
    Provider,
    ProviderTimeoutError,
    ProviderUnavailableError,
    RateLimitedError,
    ReasoningDelta,
    ServerError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from zoea_tui.providers.openai_compat import OpenAIProvider
from zoea_tui.providers.registry import build_provider

KEY = "sk-test-secret-4242"
#: A request timeout the fake server's 30 s delay always passes, long enough that the
#: request reaches the server on a loaded machine before it fires.
TIMEOUT = 1.0


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAIServer]:
    async with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
async def provider(
    server: FakeOpenAIServer, sleep: RecordingSleep
) -> AsyncIterator[OpenAIProvider]:
    client = OpenAIProvider(server.url, "fake-model", api_key=KEY, sleep=sleep)
    yield client
    await client.aclose()


# --- what is sent ---------------------------------------------------------------------------


async def test_sends_temperature_zero_tools_and_explicit_stream_false(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    await provider.chat(ask(tools=TOOLS, temperature=0.0, max_tokens=64, seed=7))
    body = server.requests[0].json()
    assert body["temperature"] == 0
    assert body["stream"] is False
    assert "stream_options" not in body
    assert body["tools"] == TOOLS
    assert body["tool_choice"] == "auto"
    assert body["max_tokens"] == 64
    assert body["seed"] == 7
    assert body["model"] == "fake-model"
    assert body["messages"] == MESSAGES


async def test_streaming_request_asks_for_usage(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    await provider.chat(ask(stream=True))
    body = server.requests[0].json()
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


async def test_unset_options_and_empty_tools_are_not_sent(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    await provider.chat(ask())
    body = server.requests[0].json()
    for key in ("temperature", "max_tokens", "seed", "tools", "tool_choice"):
        assert key not in body


async def test_model_from_request_settings_wins_over_configured_model(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    answer = await provider.chat(ask(model="other-model"))
    assert server.requests[0].json()["model"] == "other-model"
    assert answer.model == "other-model"
    assert provider.label == "fake-model"


async def test_api_key_travels_only_in_the_authorization_header(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    await provider.chat(ask(stream=True))
    request = server.requests[0]
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in request.text
    assert KEY not in request.path
    assert all(KEY not in v for k, v in request.headers.items() if k != "authorization")


async def test_no_authorization_header_without_a_key(server: FakeOpenAIServer) -> None:
    client = OpenAIProvider(server.url, "fake-model")
    await client.chat(ask())
    await client.aclose()
    assert "authorization" not in server.requests[0].headers


@pytest.mark.parametrize("suffix", ["", "/v1", "/v1/"])
async def test_endpoint_is_joined_with_chat_completions(
    server: FakeOpenAIServer, suffix: str
) -> None:
    client = OpenAIProvider(server.origin + suffix, "fake-model")
    await client.chat(ask())
    await client.aclose()
    assert server.requests[0].path == suffix.rstrip("/") + "/chat/completions"


async def test_assistant_tool_call_message_gets_empty_content_instead_of_null(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "mine", "arguments": "{}"}}
    messages = [
        *MESSAGES,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    await provider.chat(ask(messages=messages))
    sent = server.requests[0].json()["messages"]
    assert sent[2] == {"role": "assistant", "content": "", "tool_calls": [call]}
    assert sent[3] == messages[3]


# --- what is understood -----------------------------------------------------------------------


async def test_whole_answer_text_usage_finish_and_latency(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(Reply("Mining now.", usage=(100, 5)))
    answer = await provider.chat(ask())
    assert answer.content == "Mining now."
    assert answer.tool_calls == ()
    assert answer.usage == Usage(100, 5)
    assert answer.finish_reason == "stop"
    assert answer.model == "fake-model"
    assert answer.latency_s > 0


async def test_streamed_text_is_reported_as_deltas(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(Reply("Mining the belt now.", usage=(40, 6), chunk_size=3))
    events: list[StreamEvent] = []
    answer = await provider.chat(ask(stream=True), events.append)
    assert answer.content == "Mining the belt now."
    assert all(isinstance(e, TextDelta) for e in events)
    assert len(events) == 7
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == answer.content
    assert answer.usage == Usage(40, 6)


@pytest.mark.parametrize("stream", [False, True])
async def test_tool_calls_keep_server_ids_and_raw_arguments(
    server: FakeOpenAIServer, provider: OpenAIProvider, stream: bool
) -> None:
    server.script(
        Reply(
            tool_calls=[
                Call("mine", '{"target": "iron_ore", "n": 3}', id="a"),
                Call("dock", "{}", id="b"),
            ],
            chunk_size=2,
        )
    )
    answer = await provider.chat(ask(stream=stream, tools=TOOLS))
    assert [(c.id, c.name, c.arguments) for c in answer.tool_calls] == [
        ("a", "mine", '{"target": "iron_ore", "n": 3}'),
        ("b", "dock", "{}"),
    ]
    assert answer.finish_reason == "tool_calls"
    assert answer.content == ""


async def test_streamed_tool_call_deltas_carry_id_and_name_first(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(Reply(tool_calls=[Call("mine", '{"target": "iron_ore"}', id="a")], chunk_size=1))
    events: list[StreamEvent] = []
    answer = await provider.chat(ask(stream=True), events.append)
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert (deltas[0].id, deltas[0].name) == ("a", "mine")
    assert all(d.id is None and d.name is None for d in deltas[1:])
    assert len(deltas) > 3
    assert "".join(d.arguments for d in deltas) == answer.tool_calls[0].arguments


async def test_streamed_tool_call_name_repeated_in_later_deltas_is_not_doubled(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    chunks = [
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "x",
                                "function": {"name": "mine", "arguments": '{"a"'},
                            }
                        ]
                    }
                }
            ]
        },
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "x",
                                "function": {"name": "mine", "arguments": ": 1}"},
                            }
                        ]
                    }
                }
            ]
        },
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
    ]
    server.script(Raw(_sse(chunks), content_type="text/event-stream"))
    answer = await provider.chat(ask(stream=True))
    assert [(c.id, c.name, c.arguments) for c in answer.tool_calls] == [("x", "mine", '{"a": 1}')]


@pytest.mark.parametrize("stream", [False, True])
async def test_missing_and_repeated_ids_become_stable_unique_ids(
    server: FakeOpenAIServer, provider: OpenAIProvider, stream: bool
) -> None:
    reply = Reply(
        tool_calls=[Call("mine", without_id=True), Call("dock", id="same"), Call("sell", id="same")]
    )
    server.script(reply, reply)
    first = await provider.chat(ask(stream=stream))
    second = await provider.chat(ask(stream=stream))
    ids = [c.id for c in first.tool_calls]
    assert all(ids) and len(set(ids)) == 3
    assert ids[1] == "same"
    assert ids == [c.id for c in second.tool_calls]


@pytest.mark.parametrize("stream", [False, True])
async def test_invalid_json_arguments_are_kept_raw_and_empty_ones_become_braces(
    server: FakeOpenAIServer, provider: OpenAIProvider, stream: bool
) -> None:
    server.script(Reply(tool_calls=[Call("mine", '{"target": "iron'), Call("dock", "")]))
    answer = await provider.chat(ask(stream=stream))
    assert [c.arguments for c in answer.tool_calls] == ['{"target": "iron', "{}"]
    assert answer.tool_calls[0].parsed_arguments() is None


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
@pytest.mark.parametrize("stream", [False, True])
async def test_reasoning_is_kept_from_either_field(
    server: FakeOpenAIServer, provider: OpenAIProvider, field: str, stream: bool
) -> None:
    server.script(Reply("Mining.", reasoning="The belt is close.", reasoning_field=field))
    events: list[StreamEvent] = []
    answer = await provider.chat(ask(stream=stream), events.append)
    assert answer.reasoning == "The belt is close."
    assert answer.content == "Mining."
    if stream:
        thoughts = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
        assert thoughts == answer.reasoning


@pytest.mark.parametrize("stream", [False, True])
async def test_reasoning_only_answer_has_empty_content(
    server: FakeOpenAIServer, provider: OpenAIProvider, stream: bool
) -> None:
    server.script(Reply("", reasoning="Thinking, no answer."))
    answer = await provider.chat(ask(stream=stream))
    assert (answer.content, answer.reasoning) == ("", "Thinking, no answer.")
    assert answer.tool_calls == ()


@pytest.mark.parametrize("stream", [False, True])
async def test_absent_usage_is_none_none(
    server: FakeOpenAIServer, provider: OpenAIProvider, stream: bool
) -> None:
    server.script(Reply("ok", usage=None))
    answer = await provider.chat(ask(stream=stream))
    assert answer.usage == Usage(None, None)


# --- prompt-cache counts -------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("cached", [1920, 0])
async def test_cached_tokens_are_read_from_prompt_tokens_details(
    server: FakeOpenAIServer, provider: OpenAIProvider, stream: bool, cached: int
) -> None:
    server.script(
        Reply(
            "ok", usage=(2048, 5), usage_extra={"prompt_tokens_details": {"cached_tokens": cached}}
        )
    )
    answer = await provider.chat(ask(stream=stream))
    assert answer.usage == Usage(2048, 5, cached)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("usage", [(2358, 3), None])
async def test_cached_tokens_are_read_from_llama_cpp_timings_cache_n(
    server: FakeOpenAIServer,
    provider: OpenAIProvider,
    stream: bool,
    usage: tuple[int, int] | None,
) -> None:
    # Streamed, the timings ride on the last chunk: the usage chunk, or without
    # usage the chunk with the finish reason.
    timings = {"cache_n": 2355, "prompt_n": 3, "prompt_ms": 38.0, "predicted_n": 3}
    server.script(Reply("ok", usage=usage, extra={"timings": timings}))
    answer = await provider.chat(ask(stream=stream))
    assert answer.usage.cached_tokens == 2355
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (usage or (None, None))


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("inside_usage", [False, True])
async def test_cached_tokens_are_read_from_tokens_cached(
    server: FakeOpenAIServer, provider: OpenAIProvider, stream: bool, inside_usage: bool
) -> None:
    if inside_usage:
        server.script(Reply("ok", usage=(300, 4), usage_extra={"tokens_cached": 256}))
    else:
        server.script(Reply("ok", usage=(300, 4), extra={"tokens_cached": 256}))
    answer = await provider.chat(ask(stream=stream))
    assert answer.usage == Usage(300, 4, 256)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("details", "expected"),
    [
        ({"cached_tokens": 1024}, 1024),  # the OpenAI field wins when valid
        ({"cached_tokens": "1024"}, 7),  # a malformed one gives way to the next source
        (None, 7),
    ],
)
async def test_first_valid_cache_source_wins(
    server: FakeOpenAIServer,
    provider: OpenAIProvider,
    stream: bool,
    details: dict[str, Any] | None,
    expected: int,
) -> None:
    server.script(
        Reply(
            "ok",
            usage=(2000, 2),
            usage_extra={"prompt_tokens_details": details, "tokens_cached": 9},
            extra={"timings": {"cache_n": 7}},
        )
    )
    answer = await provider.chat(ask(stream=stream))
    assert answer.usage == Usage(2000, 2, expected)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("usage_extra", "extra"),
    [
        (None, None),
        ({"prompt_tokens_details": None}, None),
        ({"prompt_tokens_details": {}}, None),
        ({"prompt_tokens_details": [64]}, None),
        ({"prompt_tokens_details": {"cached_tokens": "64"}}, None),
        ({"prompt_tokens_details": {"cached_tokens": -1}}, None),
        ({"prompt_tokens_details": {"cached_tokens": 1.5}}, None),
        ({"prompt_tokens_details": {"cached_tokens": True}}, None),
        ({"tokens_cached": None}, {"timings": "fast"}),
        (None, {"timings": {"cache_n": None}}),
        (None, {"timings": {"cache_n": -5}, "tokens_cached": [1]}),
    ],
)
async def test_missing_or_malformed_cache_counts_give_none(
    server: FakeOpenAIServer,
    provider: OpenAIProvider,
    stream: bool,
    usage_extra: dict[str, Any] | None,
    extra: dict[str, Any] | None,
) -> None:
    server.script(Reply("ok", usage=(12, 7), usage_extra=usage_extra, extra=extra))
    answer = await provider.chat(ask(stream=stream))
    assert answer.content == "ok"
    assert answer.usage == Usage(12, 7, None)


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "usage",
        42,
        {"usage": "none"},
        {"usage": {"prompt_tokens_details": 3}},
        {"timings": []},
        {"usage": None, "timings": None, "tokens_cached": "all"},
    ],
)
def test_cache_parser_never_raises_on_junk(data: Any) -> None:
    assert cached_tokens(data) is None


@pytest.mark.parametrize(
    ("sent", "mapped"),
    [("length", "length"), ("content_filter", "error"), ("something_new", "unknown")],
)
async def test_finish_reason_is_mapped(
    server: FakeOpenAIServer, provider: OpenAIProvider, sent: str, mapped: str
) -> None:
    server.script(Reply("cut", finish_reason=sent))
    assert (await provider.chat(ask())).finish_reason == mapped


async def test_provider_matches_the_interface(provider: OpenAIProvider) -> None:
    assert isinstance(provider, Provider)
    assert provider.label == "fake-model"


async def test_borrowed_client_is_left_open(server: FakeOpenAIServer) -> None:
    async with httpx.AsyncClient() as http:
        client = OpenAIProvider(server.url, "fake-model", client=http)
        await client.chat(ask())
        await client.aclose()
        assert not http.is_closed


# --- faults ----------------------------------------------------------------------------------


async def test_429_waits_as_long_as_retry_after_says(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep
) -> None:
    server.script(HttpError(429, "slow down", retry_after="2"), Reply("ok"))
    answer = await provider.chat(ask())
    assert answer.content == "ok"
    assert sleep.delays == [2.0]
    assert len(server.requests) == 2


async def test_retry_after_as_http_date_is_honoured(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep
) -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    server.script(HttpError(503, retry_after=when), Reply("ok"))
    await provider.chat(ask())
    assert len(sleep.delays) == 1
    assert 10 < sleep.delays[0] <= 20


async def test_retry_after_beyond_the_cap_escapes_at_once_with_the_hint(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep
) -> None:
    server.script(HttpError(429, "daily quota", retry_after="3600"))
    with pytest.raises(RateLimitedError) as caught:
        await provider.chat(ask())
    assert caught.value.retry_after == 3600
    assert caught.value.retryable
    assert sleep.delays == []


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_server_errors_are_retried_with_exponential_backoff(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep, status: int
) -> None:
    server.script(HttpError(status), HttpError(status), Reply("ok"))
    assert (await provider.chat(ask())).content == "ok"
    assert sleep.delays == [0.5, 1.0]


@pytest.mark.parametrize(
    ("said", "retryable", "delays"),
    [
        ("Cannot read properties of undefined", True, [0.5, 1.0, 2.0]),
        ("Failed to parse tool call arguments as JSON", False, []),
    ],
    ids=["persistent", "parse-error"],
)
async def test_a_server_error_escapes_after_the_retries_or_at_once_naming_a_parse_error(
    server: FakeOpenAIServer,
    provider: OpenAIProvider,
    sleep: RecordingSleep,
    said: str,
    retryable: bool,
    delays: list[float],
) -> None:
    """A 500 that goes on is tried until the retries run out; one naming a parse error
    of the arguments would fail the same again: it is not retried."""
    server.default = HttpError(500, said)
    with pytest.raises(ServerError) as caught:
        await provider.chat(ask())
    assert caught.value.status == 500 and caught.value.kind == "server_error"
    assert said in str(caught.value)
    assert caught.value.retryable is retryable
    assert sleep.delays == delays
    assert len(server.requests) == len(delays) + 1


@pytest.mark.parametrize("status", [401, 403])
async def test_refused_key_is_an_authentication_error_without_the_key(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep, status: int
) -> None:
    server.script(HttpError(status, f"Incorrect API key provided: {KEY}"))
    with pytest.raises(AuthenticationError) as caught:
        await provider.chat(ask())
    assert KEY not in str(caught.value)
    assert KEY not in repr(caught.value.args)
    assert not caught.value.retryable
    assert sleep.delays == []


async def test_wrong_key_against_a_guarded_server() -> None:
    async with FakeOpenAIServer(api_key="the-right-key") as guarded:
        client = OpenAIProvider(guarded.url, "fake-model", api_key=KEY)
        with pytest.raises(AuthenticationError) as caught:
            await client.chat(ask())
        await client.aclose()
    assert "Incorrect API key" in str(caught.value)


async def test_unknown_model_is_model_not_found() -> None:
    async with FakeOpenAIServer(models=["known"]) as picky:
        client = OpenAIProvider(picky.url, "unknown-model")
        with pytest.raises(ModelNotFoundError) as caught:
            await client.chat(ask())
        await client.aclose()
    assert "unknown-model" in str(caught.value)


@pytest.mark.parametrize("status", [400, 422])
async def test_bad_request_carries_the_servers_words(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep, status: int
) -> None:
    server.script(HttpError(status, "messages with role 'tool' must follow tool_calls"))
    with pytest.raises(BadRequestError) as caught:
        await provider.chat(ask())
    assert caught.value.said == "messages with role 'tool' must follow tool_calls"
    assert f"answered HTTP {status}: messages with role 'tool'" in caught.value.message
    assert caught.value.status == status
    assert caught.value.kind == "refused"
    assert caught.value.describe().startswith("refused: ")
    assert sleep.delays == []


async def test_plain_text_error_body_is_kept(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(Raw("upstream says no", status=400, content_type="text/plain"))
    with pytest.raises(BadRequestError, match="upstream says no"):
        await provider.chat(ask())


async def test_timeout_is_retried_then_escapes(server: FakeOpenAIServer) -> None:
    sleep = RecordingSleep()
    client = OpenAIProvider(
        server.url, "fake-model", retry=replace(CLIENT, attempts=2), sleep=sleep
    )
    server.default = Reply("late", delay=30)
    with pytest.raises(ProviderTimeoutError) as caught:
        await client.chat(ask(timeout=TIMEOUT))
    await client.aclose()
    assert caught.value.retryable
    assert len(server.requests) == 2
    assert sleep.delays == [0.5]


async def test_timeout_then_answer_recovers(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(Reply("late", delay=30), Reply("on time"))
    assert (await provider.chat(ask(timeout=TIMEOUT))).content == "on time"


async def test_stream_cut_mid_way_is_retried_streamed_when_streaming_is_forced(
    server: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    client = OpenAIProvider(server.url, "fake-model", sleep=sleep, stream=True)
    server.script(Reply("a long answer", cut_after=3), Reply("whole"))
    try:
        assert (await client.chat(ask(stream=True))).content == "whole"
    finally:
        await client.aclose()
    assert sleep.delays == [0.5]
    assert [r.json()["stream"] for r in server.chat_requests] == [True, True]
    assert client.streaming and client.notes == {}


async def test_auto_gives_up_streaming_after_two_streams_broken_and_answered_unstreamed(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep
) -> None:
    # llama-cpp-python's server: 200, then the stream breaks whenever the model picks a
    # tool; the same request unstreamed is answered. Twice, and streaming is off.
    server.script(
        Reply("a long answer", cut_after=3),
        Reply(tool_calls=[Call("get_status", "{}")]),
        Reply("a long answer", cut_after=3),
        Reply("second"),
        Reply("next"),
    )

    first = await provider.chat(ask(stream=True, tools=TOOLS))
    assert first.tool_calls[0].name == "get_status"
    assert not provider.streaming  # that answer came unstreamed
    assert provider.notes["stream"].startswith("streamed; the server broke 1 streamed")
    second = await provider.chat(ask(stream=True, tools=TOOLS))
    third = await provider.chat(ask(stream=True, tools=TOOLS))

    assert (second.content, third.content) == ("second", "next")
    assert [r.json()["stream"] for r in server.chat_requests] == [True, False, True, False, False]
    assert sleep.delays == []  # the resend is no retry: it goes at once
    assert not provider.streaming
    assert provider.notes["stream"].startswith("unstreamed: the server broke 2 streamed")


async def test_once_streaming_is_given_up_the_retries_never_stream(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep
) -> None:
    broken = (Reply("a long answer", cut_after=3), Reply("unstreamed"))
    server.script(*broken, *broken, HttpError(503), HttpError(503), Reply("late"))
    for _ in range(2):
        await provider.chat(ask(stream=True, tools=TOOLS))
    assert (await provider.chat(ask(stream=True, tools=TOOLS))).content == "late"
    assert [r.json()["stream"] for r in server.chat_requests][4:] == [False, False, False]


async def test_a_stream_cut_without_tools_is_retried_streamed_under_auto(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep
) -> None:
    server.script(Reply("a long answer", cut_after=3), Reply("whole"))
    assert (await provider.chat(ask(stream=True))).content == "whole"
    assert [r.json()["stream"] for r in server.chat_requests] == [True, True]
    assert sleep.delays == [0.5]
    assert provider.streaming and provider.notes == {}


async def test_stream_false_never_streams(server: FakeOpenAIServer, sleep: RecordingSleep) -> None:
    client = OpenAIProvider(server.url, "fake-model", sleep=sleep, stream=False)
    server.script(Reply("plain"))
    try:
        assert (await client.chat(ask(stream=True))).content == "plain"
    finally:
        await client.aclose()
    assert server.chat_requests[0].json()["stream"] is False


async def test_a_refusal_naming_streaming_falls_back(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(HttpError(400, "Streaming is not supported with tools"), Reply("fine"))
    assert (await provider.chat(ask(stream=True))).content == "fine"
    assert [r.json()["stream"] for r in server.chat_requests] == [True, False]


async def test_a_refusal_not_about_streaming_does_not_fall_back(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(HttpError(400, "request (8251 tokens) exceeds the available context size"))
    with pytest.raises(BadRequestError) as caught:
        await provider.chat(ask(stream=True))
    assert len(server.chat_requests) == 1
    assert provider.streaming
    assert "exceeds the available context size" in caught.value.message
    assert "larger context" in caught.value.message  # and what to do


@pytest.mark.parametrize("stream", [False, True])
async def test_connection_cut_every_time_is_cut_short(
    server: FakeOpenAIServer, sleep: RecordingSleep, stream: bool
) -> None:
    client = OpenAIProvider(server.url, "fake-model", sleep=sleep, stream=stream)
    server.default = Reply("a long answer that never arrives whole", cut_after=5)
    with pytest.raises(CutShortError) as caught:
        await client.chat(ask(stream=stream))
    await client.aclose()
    assert caught.value.retryable
    assert caught.value.kind == "cut_short"
    assert "broke off after HTTP 200" in caught.value.message
    assert len(server.requests) == 4


async def test_stream_ending_without_finish_or_done_is_cut_short(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.default = Raw(
        _sse([{"choices": [{"delta": {"content": "half"}}]}], done=False),
        content_type="text/event-stream",
    )
    with pytest.raises(CutShortError, match="ended before"):
        await provider.chat(ask(stream=True))


@pytest.mark.parametrize("stream", [False, True])
async def test_a_web_page_is_not_an_openai_answer(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep, stream: bool
) -> None:
    page = "<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>hi</body>"
    server.default = Raw(page, content_type="text/html")
    with pytest.raises(MalformedResponseError) as caught:
        await provider.chat(ask(stream=stream))
    assert caught.value.kind == "not_compatible"
    assert "web page" in caught.value.message and "Welcome to nginx!" in caught.value.message
    assert not caught.value.retryable
    assert sleep.delays == []


async def test_a_web_page_behind_an_error_status_is_named_by_its_title(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>"
    server.default = Raw(page, status=502, content_type="text/html")
    with pytest.raises(ServerError) as caught:
        await provider.chat(ask())
    assert caught.value.said == "a web page: 502 Bad Gateway"


async def test_an_empty_200_is_not_an_openai_answer(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.default = Raw("", content_type="application/json")
    with pytest.raises(MalformedResponseError, match="empty body"):
        await provider.chat(ask())


async def test_a_stream_request_answered_with_one_json_body_is_read_whole(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    body = {"choices": [{"message": {"role": "assistant", "content": "whole"}}]}
    server.default = Raw(json.dumps(body), content_type="application/json")
    assert (await provider.chat(ask(stream=True))).content == "whole"


async def test_a_kept_alive_connection_closed_by_the_server_is_tried_once_more() -> None:
    # A server that closes each connection after its answer, without saying so
    # (no "Connection: close"): the next request finds the pooled connection dead.
    answer = json.dumps({"choices": [{"message": {"role": "assistant", "content": "ok"}}]})
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(answer)}\r\n\r\n"
    )
    served = 0

    async def answer_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal served
        headers = (await reader.readuntil(b"\r\n\r\n")).decode().lower()
        length = int(headers.split("content-length:")[1].split("\r\n")[0])
        await reader.readexactly(length)
        writer.write((head + answer).encode())
        await writer.drain()
        served += 1
        await asyncio.sleep(0.05)
        writer.close()

    listener = await asyncio.start_server(answer_then_close, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    client = OpenAIProvider(f"http://127.0.0.1:{port}", "m", retry=ONCE)
    try:
        assert (await client.chat(ask())).content == "ok"
        await asyncio.sleep(0.2)  # the server has closed the kept-alive connection
        assert (await client.chat(ask())).content == "ok"
    finally:
        await client.aclose()
        listener.close()
        await listener.wait_closed()
    assert served == 2


@pytest.mark.parametrize("stream", [False, True])
async def test_malformed_json_is_a_malformed_response_not_retried(
    server: FakeOpenAIServer, provider: OpenAIProvider, sleep: RecordingSleep, stream: bool
) -> None:
    server.script(Malformed())
    with pytest.raises(MalformedResponseError):
        await provider.chat(ask(stream=stream))
    assert len(server.requests) == 1
    assert sleep.delays == []


async def test_answer_without_choices_is_malformed(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(Raw('{"object": "chat.completion", "choices": []}'))
    with pytest.raises(MalformedResponseError):
        await provider.chat(ask())


async def test_error_inside_a_stream_is_a_server_error(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.default = Raw(
        _sse([{"error": {"message": "overloaded"}}]), content_type="text/event-stream"
    )
    with pytest.raises(ServerError, match="overloaded"):
        await provider.chat(ask(stream=True))


async def test_server_down_is_unavailable_after_retries() -> None:
    sleep = RecordingSleep()
    client = OpenAIProvider(refused_url() + "/v1", "fake-model", api_key=KEY, sleep=sleep)
    with pytest.raises(ProviderUnavailableError) as caught:
        await client.chat(ask())
    await client.aclose()
    assert "Could not reach" in str(caught.value)
    assert KEY not in str(caught.value)
    assert sleep.delays == [0.5, 1.0, 2.0]


# --- cancellation ------------------------------------------------------------------------------


async def test_cancel_while_waiting_closes_the_connection(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(Reply("never", delay=30))
    task = asyncio.create_task(provider.chat(ask()))
    await server.wait_for_requests(1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _until(lambda: server.abandoned == 1)


async def test_cancel_mid_stream_closes_the_stream(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.script(Reply("some text that stalls", stall_after=3))
    started = asyncio.Event()
    task = asyncio.create_task(provider.chat(ask(stream=True), lambda _: started.set()))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await _until(lambda: server.abandoned == 1)
    server.script(Reply("next"))
    assert (await provider.chat(ask(stream=True))).content == "next"


def test_fake_server_also_runs_in_a_thread_for_sync_callers() -> None:
    server = FakeOpenAIServer().script(Reply("from a thread"))
    with server.running_in_thread():
        answer = httpx.post(
            f"{server.url}/chat/completions", json={"model": "m", "messages": [], "stream": False}
        )
    assert answer.json()["choices"][0]["message"]["content"] == "from a thread"
    assert len(server.requests) == 1


# --- Retry-After parsing -------------------------------------------------------------------------


def test_retry_after_parses_seconds_dates_and_rejects_garbage() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("7", now) == 7.0
    assert parse_retry_after("1.5", now) == 1.5
    assert parse_retry_after("-3", now) == 0.0
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:30 GMT", now) == 30.0
    assert parse_retry_after("Wed, 01 Jan 2025 11:00:00 GMT", now) == 0.0
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after("nan", now) is None  # floats, but no wait
    assert parse_retry_after("inf", now) is None
    assert parse_retry_after(None, now) is None


# --- helpers -------------------------------------------------------------------------------------


def _sse(chunks: list[dict[str, Any]], done: bool = True) -> str:
    frames = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return frames + ("data: [DONE]\n\n" if done else "")


async def _until(condition: Any, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.005)


async def test_a_provider_without_a_model_flies_the_first_one_listed() -> None:
    async with FakeOpenAIServer(listed=["first", "second"]) as server:
        provider = OpenAIProvider(server.url, "")
        try:
            await provider.chat(ChatRequest([{"role": "user", "content": "hi"}], stream=False))
            await provider.chat(ChatRequest([{"role": "user", "content": "hi"}], stream=False))
        finally:
            await provider.aclose()
    assert [r.json()["model"] for r in server.chat_requests] == ["first", "first"]
    assert [r.path for r in server.requests].count("/v1/models") == 1
    assert provider.label == "first"


async def test_a_provider_without_a_model_on_a_server_listing_none_is_refused() -> None:
    async with FakeOpenAIServer(listed=[]) as server:
        provider = OpenAIProvider(server.url, "", retry=ONCE)
        try:
            with pytest.raises(ModelNotFoundError, match="lists no model"):
                await provider.chat(ChatRequest([{"role": "user", "content": "hi"}]))
        finally:
            await provider.aclose()
    assert server.chat_requests == []


async def test_cache_control_marks_anthropics_breakpoints_on_content_parts(
    server: FakeOpenAIServer,
) -> None:
    """A router to Claude (OpenRouter) caches only up to marked parts: the system
    prompt's, and the last message's last part; unmarked otherwise."""
    turn = [
        *MESSAGES,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "mine", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "mined 3 ore"},
    ]
    marked = OpenAIProvider(server.url, "anthropic/claude-sonnet-4.5", cache_control=True)
    await marked.chat(ask(stream=True, tools=TOOLS, messages=turn))
    sent = server.requests[0].json()["messages"]
    ephemeral = {"type": "ephemeral"}
    assert sent[0] == {
        "role": "system",
        "content": [{"type": "text", "text": "You are a pilot.", "cache_control": ephemeral}],
    }
    assert sent[1] == MESSAGES[1]  # unmarked between
    assert sent[2]["content"] == ""
    assert sent[3] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [{"type": "text", "text": "mined 3 ore", "cache_control": ephemeral}],
    }
    plain = OpenAIProvider(server.url, "anthropic/claude-sonnet-4.5")
    await plain.chat(ask(messages=turn))
    assert "cache_control" not in server.requests[1].text
    await marked.aclose()
    await plain.aclose()


def test_cache_control_is_a_key_of_the_openai_type_only() -> None:
    table = '[providers.router]\ntype = "openai"\nendpoint = "https://openrouter.ai/api/v1"\n'
    table += 'model = "anthropic/claude-sonnet-4.5"\n'
    config = build_config(tomllib.loads(table + "cache_control = true\n"), "zoea.toml")
    provider = build_provider(config.providers["router"], env={})
    assert isinstance(provider, OpenAIProvider) and provider.cache_control is True
    with pytest.raises(ConfigError, match=r"cache_control.*true or false"):
        build_config(tomllib.loads(table + 'cache_control = "yes"\n'), "zoea.toml")
    ollama = table.replace('"openai"', '"ollama"')
    with pytest.raises(ConfigError, match="cache_control"):
        build_config(tomllib.loads(ollama + "cache_control = true\n"), "zoea.toml")

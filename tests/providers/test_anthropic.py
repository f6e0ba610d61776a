"""The Anthropic Messages API client against a real loopback server.

Every request the client sends here is checked by the server against the ``anthropic``
SDK's own ``MessageCreateParams`` (``tests/fakes/anthropic_api.py``): a request it
rejects is refused with HTTP 400, which fails the test that sent it.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.fakes import Call, Endless, HttpError, Raw, RecordingSleep, Reply
from tests.fakes.anthropic_api import (
    AnthropicCache,
    FakeAnthropicServer,
    bytes_tokens,
    cache_blocks,
    error_midstream,
    message_params_problems,
)
from zoea_tui.config import ConfigError, build_config
from zoea_tui.core.retry import CLIENT, ONCE
from zoea_tui.core.validator import validate
from zoea_tui.providers.anthropic import (
    ANTHROPIC_VERSION,
    RULES,
    AnthropicProvider,
    request_body,
)
from zoea_tui.providers.base import (
    AuthenticationError,
    BadRequestError,
    ChatRequest,
    CutShortError,
    ModelNotFoundError,
    ProviderSettings,
    ProviderTimeoutError,
    RateLimitedError,
    ReasoningDelta,
    ServerError,
    StreamEvent,
    TextDelta,
    TooLargeError,
    ToolCallDelta,
)
from zoea_tui.providers.probe import ProbeTarget, probe
from zoea_tui.providers.registry import build_provider

KEY = "sk-ant-test-secret-4242"
MODEL = "claude-fake-4"
#: Long enough to be cached (the API's minimum: 1 024 tokens).
SYSTEM = "You are a pilot of the swarm. " + "Mine, sell, fly and report. " * 200
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "mine",
            "description": "Mine ore.",
            "parameters": {"type": "object", "properties": {"ore": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "get_status", "description": "Your status."}},
]
OPENING = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Play."}]


def call(call_id: str, name: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


#: A turn of the composer's: two calls in one answer, their two results, a nudge.
TURN = [
    *OPENING,
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [call("a1", "mine"), call("a2", "get_status")],
    },
    {"role": "tool", "tool_call_id": "a1", "content": "mined 3 ore"},
    {"role": "tool", "tool_call_id": "a2", "content": "credits 100"},
    {"role": "user", "content": "Go on."},
]


def ask(
    messages: Any = OPENING, stream: bool = False, tools: Any = TOOLS, **settings: Any
) -> ChatRequest:
    settings.setdefault("max_tokens", 256)
    return ChatRequest(messages, tools, ProviderSettings(**settings), stream=stream)


@pytest.fixture
async def server() -> AsyncIterator[FakeAnthropicServer]:
    async with FakeAnthropicServer(api_key=KEY) as fake:
        yield fake


@pytest.fixture
async def provider(
    server: FakeAnthropicServer, sleep: RecordingSleep
) -> AsyncIterator[AnthropicProvider]:
    client = AnthropicProvider(server.url, MODEL, api_key=KEY, sleep=sleep, retry=ONCE)
    yield client
    await client.aclose()


# --- the oracle -------------------------------------------------------------------------


def test_the_sdk_oracle_rejects_a_malformed_request() -> None:
    good = request_body(ask(TURN), MODEL)
    assert message_params_problems(good) == []
    without_cap = {k: v for k, v in good.items() if k != "max_tokens"}
    assert any("max_tokens" in p for p in message_params_problems(without_cap))
    wrong_role = {**good, "messages": [{"role": "tool", "content": "x"}]}
    assert message_params_problems(wrong_role)
    bad_block = {**good, "messages": [{"role": "user", "content": [{"type": "txt", "text": "x"}]}]}
    assert message_params_problems(bad_block)
    no_id = {
        **good,
        "messages": [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}],
    }
    assert message_params_problems(no_id)
    marked = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    five = {**good, "messages": [{"role": "user", "content": [dict(marked) for _ in range(5)]}]}
    assert message_params_problems(five) == [
        "A maximum of 4 blocks with cache_control may be provided. Found 6."  # and the system
    ]


async def test_a_request_the_oracle_rejects_is_refused_with_its_words(
    server: FakeAnthropicServer,
) -> None:
    client = AnthropicProvider(server.url, MODEL, api_key=KEY, retry=ONCE)
    with pytest.raises(BadRequestError) as caught:
        # An empty message list: the SDK's type takes it, the fake renders none; a
        # request body handed in raw shows the server's check.
        async with client._exchange(client.url, 5.0, {"model": MODEL, "messages": []}):
            pass
    assert "max_tokens" in caught.value.message
    assert server.refused and any("max_tokens" in p for p in server.refused[0])
    await client.aclose()


# --- what is sent -------------------------------------------------------------------------


async def test_headers_carry_the_key_and_version_and_nothing_else_does(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    await provider.chat(ask(stream=True))
    request = server.chat_requests[0]
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == ANTHROPIC_VERSION == "2023-06-01"
    assert "authorization" not in request.headers
    assert KEY not in request.text
    assert request.path == "/v1/messages"


async def test_the_body_has_system_tools_and_max_tokens_in_the_apis_shape(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    await provider.chat(ask(temperature=1.7, seed=3))
    body = server.chat_requests[0].json()
    assert body["system"] == [
        {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}
    ]
    assert body["max_tokens"] == 256
    assert body["temperature"] == 1.0  # the API's range ends at 1
    assert "seed" not in body
    assert body["stream"] is False
    assert body["tool_choice"] == {"type": "auto"}
    assert body["tools"] == [
        {
            "name": "mine",
            "description": "Mine ore.",
            "input_schema": {"type": "object", "properties": {"ore": {"type": "string"}}},
        },
        {
            "name": "get_status",
            "description": "Your status.",
            "input_schema": {"type": "object", "properties": {}},
        },
    ]
    assert all(m["role"] != "system" for m in body["messages"])


async def test_max_tokens_is_always_sent(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    await provider.chat(ChatRequest(OPENING, (), ProviderSettings(), stream=False))
    assert server.chat_requests[0].json()["max_tokens"] == 1024


async def test_a_turn_renders_calls_results_in_one_user_message_and_merges_roles(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    assert validate(TURN) == []
    await provider.chat(ask(TURN))
    turns = server.chat_requests[0].json()["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert [b["type"] for b in turns[1]["content"]] == ["tool_use", "tool_use"]
    assert turns[1]["content"][0] == {"type": "tool_use", "id": "a1", "name": "mine", "input": {}}
    # Both results and the nudge: ONE user message, the results first.
    assert [b["type"] for b in turns[2]["content"]] == ["tool_result", "tool_result", "text"]
    assert [b["tool_use_id"] for b in turns[2]["content"][:2]] == ["a1", "a2"]
    assert server.refused == []


# --- what comes back --------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
async def test_text_comes_back_with_usage_and_stop(
    server: FakeAnthropicServer, provider: AnthropicProvider, stream: bool
) -> None:
    server.script(Reply("Mining now.", usage=(0, 9)))
    events: list[StreamEvent] = []
    answer = await provider.chat(ask(stream=stream), events.append)
    assert answer.content == "Mining now."
    assert answer.finish_reason == "stop"
    assert answer.model == MODEL
    assert answer.usage.completion_tokens == 9
    billed = server.billed[0]
    assert answer.usage.prompt_tokens == billed.prompt_tokens
    assert answer.usage.cache_write_tokens == billed.written > 0
    assert answer.usage.cached_tokens == 0
    if stream:
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Mining now."


async def test_a_streamed_tool_call_comes_in_input_json_deltas(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    arguments = json.dumps({"ore": "iron_ore", "note": "x" * 40})
    server.script(
        Reply("I'll mine.", tool_calls=[Call("mine", arguments, id="toolu_1"), Call("get_status")])
    )
    events: list[StreamEvent] = []
    answer = await provider.chat(ask(stream=True), events.append)
    assert [(c.id, c.name, c.arguments) for c in answer.tool_calls] == [
        ("toolu_1", "mine", arguments),
        ("toolu_fake_1_1", "get_status", "{}"),
    ]
    assert answer.content == "I'll mine."
    assert answer.finish_reason == "tool_calls"
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert (deltas[0].index, deltas[0].id, deltas[0].name) == (0, "toolu_1", "mine")
    assert "".join(d.arguments for d in deltas if d.index == 0) == arguments
    assert deltas[-1].index == 1


@pytest.mark.parametrize("stream", [True, False])
async def test_thinking_is_kept_with_its_signature_and_sent_back_before_its_calls(
    server: FakeAnthropicServer, provider: AnthropicProvider, stream: bool
) -> None:
    server.script(Reply("", reasoning="The belt is near.", tool_calls=[Call("mine", id="toolu_9")]))
    events: list[StreamEvent] = []
    answer = await provider.chat(ask(stream=stream), events.append)
    assert answer.reasoning == "The belt is near."
    if stream:
        assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == answer.reasoning
    history = [
        *OPENING,
        {"role": "assistant", "content": "", "tool_calls": [call("toolu_9", "mine")]},
        {"role": "tool", "tool_call_id": "toolu_9", "content": "mined"},
    ]
    await provider.chat(ask(history, stream=stream))
    assistant = server.chat_requests[1].json()["messages"][1]
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "The belt is near.",
        "signature": "sig-1",
    }
    assert assistant["content"][1]["type"] == "tool_use"


async def test_a_cut_at_max_tokens_is_length(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    server.script(Reply("Mining and then", finish_reason="max_tokens"))
    answer = await provider.chat(ask(stream=True))
    assert answer.finish_reason == "length"


async def test_the_models_the_api_lists(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    assert await provider.list_models() == [MODEL]
    assert server.requests[-1].path == "/v1/models"
    with_v1 = AnthropicProvider(f"{server.url}/v1", MODEL, api_key=KEY)
    assert await with_v1.list_models() == [MODEL]
    await with_v1.chat(ask())
    assert server.requests[-1].path == "/v1/messages"
    await with_v1.aclose()


# --- the prompt cache ---------------------------------------------------------------------


def test_breakpoints_by_rule() -> None:
    history = [
        *TURN,
        {"role": "assistant", "content": "", "tool_calls": [call("b1", "mine")]},
        {"role": "tool", "tool_call_id": "b1", "content": "mined 2 ore"},
    ]
    body = request_body(ask(history), MODEL)
    marked = [b for b in cache_blocks(body) if b[1]]
    assert len(marked) == 4 == len(RULES)
    turns = body["messages"]
    assert "cache_control" in body["system"][-1]  # the tools come before it
    assert "cache_control" in turns[-1]["content"][-1]  # last: the result of b1
    assert "cache_control" in turns[-3]["content"][-1]  # previous: where the last request ended
    assert "cache_control" in turns[0]["content"][-1]  # head: the opening user message
    assert not any("cache_control" in t for t in body["tools"])
    none = request_body(ask(history), MODEL, breakpoints=())
    assert not any(marked for _, marked in cache_blocks(none))
    # No system prompt: the last tool carries the first mark.
    bare = request_body(ask(OPENING[1:]), MODEL)
    assert "cache_control" in bare["tools"][-1]


async def test_the_next_request_of_a_turn_reads_the_one_before(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    first = await provider.chat(ask(TURN[:3] + TURN[3:5]))
    second = await provider.chat(
        ask(
            [
                *TURN,
                {"role": "assistant", "content": "", "tool_calls": [call("b1", "mine")]},
                {"role": "tool", "tool_call_id": "b1", "content": "mined 2 ore"},
            ]
        )
    )
    assert first.usage.cache_write_tokens and first.usage.cached_tokens == 0
    assert second.usage.cached_tokens == first.usage.prompt_tokens
    assert second.usage.prompt_tokens is not None
    assert second.usage.cached_tokens / second.usage.prompt_tokens > 0.9


async def test_a_second_mysis_reads_the_shared_prefix(server: FakeAnthropicServer) -> None:
    one = AnthropicProvider(server.url, MODEL, api_key=KEY)
    two = AnthropicProvider(server.url, MODEL, api_key=KEY)
    await one.chat(ask([OPENING[0], {"role": "user", "content": "I am Ada."}]))
    answer = await two.chat(ask([OPENING[0], {"role": "user", "content": "I am Bo."}]))
    # What it read: exactly the tools and the system prompt, every Mysis's same prefix.
    assert answer.usage.cached_tokens == cache_use_of_prefix() > 1024
    assert answer.usage.cache_write_tokens == server.billed[1].written < 20
    await one.aclose()
    await two.aclose()


def round_of(prefix: str, calls: int) -> list[dict[str, Any]]:
    """An answer with ``calls`` parallel calls, and their results."""
    ids = [f"{prefix}{n}" for n in range(calls)]
    answer = {"role": "assistant", "content": "", "tool_calls": [call(i, "mine") for i in ids]}
    return [answer, *({"role": "tool", "tool_call_id": i, "content": "mined"} for i in ids)]


def test_the_previous_breakpoint_reads_the_request_before_past_the_lookback() -> None:
    """A round of 12 parallel calls adds 24 blocks, past the API's 20-block lookback: only
    the ``previous`` mark finds where the request before it ended."""
    before = [*OPENING, *round_of("a", 12)]
    after = [*before, *round_of("b", 12)]
    for rules, reads_all in ((("system", "last"), False), (("system", "last", "previous"), True)):
        cache = AnthropicCache()
        first = cache.use(request_body(ask(before), MODEL, breakpoints=rules), 0.0)
        second = cache.use(request_body(ask(after), MODEL, breakpoints=rules), 10.0)
        assert (second.read == first.prompt_tokens) is reads_all, rules
        assert second.read >= cache_use_of_prefix()


def cache_use_of_prefix() -> int:
    """Tokens of the tools and the system prompt (what every request reads at least)."""
    blocks = cache_blocks(request_body(ask(), MODEL))[: len(TOOLS) + 1]
    return sum(bytes_tokens(text) for text, _ in blocks)


def test_the_simulated_cache_expires_and_has_a_minimum() -> None:
    cache = AnthropicCache()
    body = request_body(ask(), MODEL)
    first = cache.use(body, 0.0)
    assert first.read == 0 and first.written > 1024
    assert cache.use(body, 200.0).read == first.written  # read, and the TTL renewed
    assert cache.use(body, 450.0).read == first.written
    assert cache.use(body, 800.0).read == 0  # five minutes after the last read
    # A request that reads past its own system breakpoint keeps that entry alive too.
    cache = AnthropicCache()
    cache.use(body, 0.0)
    longer = request_body(ask([*OPENING, {"role": "user", "content": "More."}]), MODEL)
    assert cache.use(longer, 200.0).read == first.written > cache_use_of_prefix()
    other = request_body(ask([OPENING[0], {"role": "user", "content": "Other."}]), MODEL)
    assert cache.use(other, 450.0).read == cache_use_of_prefix()
    small = request_body(ask([{"role": "user", "content": "hi"}], tools=()), MODEL)
    assert AnthropicCache().use(small, 0.0).written == 0  # under the minimum


# --- failures ---------------------------------------------------------------------------


async def test_overloaded_529_is_a_retryable_server_error(
    server: FakeAnthropicServer, sleep: RecordingSleep
) -> None:
    server.script(HttpError(529, "Overloaded"), Reply("ok"))
    client = AnthropicProvider(server.url, MODEL, api_key=KEY, sleep=sleep, retry=CLIENT)
    answer = await client.chat(ask())
    assert answer.content == "ok" and len(sleep.delays) == 1
    server.script(HttpError(529, "Overloaded"))
    once = AnthropicProvider(server.url, MODEL, api_key=KEY, retry=ONCE)
    with pytest.raises(ServerError) as caught:
        await once.chat(ask())
    assert caught.value.retryable and caught.value.status == 529
    assert caught.value.said == "Overloaded"
    await client.aclose()
    await once.aclose()


async def test_rate_limit_carries_retry_after(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    server.script(HttpError(429, "Number of request tokens has exceeded your rate limit", "7"))
    with pytest.raises(RateLimitedError) as caught:
        await provider.chat(ask())
    assert caught.value.retry_after == 7.0
    assert "rate limit" in (caught.value.said or "")


@pytest.mark.parametrize(
    ("status", "error"),
    [(400, BadRequestError), (401, AuthenticationError), (404, ModelNotFoundError)],
)
async def test_refusals_keep_the_apis_words(
    server: FakeAnthropicServer, provider: AnthropicProvider, status: int, error: type
) -> None:
    words = "messages: text content blocks must be non-empty"
    server.script(HttpError(status, words))
    with pytest.raises(error) as caught:
        await provider.chat(ask())
    assert caught.value.said == words and not caught.value.retryable


async def test_a_wrong_key_or_model_is_refused_by_the_server(
    server: FakeAnthropicServer,
) -> None:
    wrong = AnthropicProvider(server.url, MODEL, api_key="sk-ant-wrong")
    with pytest.raises(AuthenticationError) as caught:
        await wrong.chat(ask())
    assert "sk-ant-wrong" not in caught.value.message
    other = AnthropicProvider(server.url, "claude-unknown", api_key=KEY, retry=ONCE)
    with pytest.raises(ModelNotFoundError):
        await other.chat(ask())
    await wrong.aclose()
    await other.aclose()


async def test_an_error_event_mid_stream_is_its_class(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    server.script(error_midstream())
    with pytest.raises(ServerError) as caught:
        await provider.chat(ask(stream=True))
    assert caught.value.retryable and caught.value.status == 529
    assert "overloaded_error" in caught.value.message
    server.script(error_midstream(kind="invalid_request_error", message="bad turn"))
    with pytest.raises(BadRequestError) as refused:
        await provider.chat(ask(stream=True))
    assert refused.value.said == "bad turn"


async def test_a_cut_stream_is_cut_short(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    server.script(Reply("A long answer that breaks.", cut_after=4))
    with pytest.raises(CutShortError):
        await provider.chat(ask(stream=True, tools=()))


async def test_a_broken_stream_with_tools_is_answered_unstreamed_under_auto(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    server.script(Reply("broken", cut_after=3), Reply("whole"))
    answer = await provider.chat(ask(stream=True))
    assert answer.content == "whole"
    assert [r.json()["stream"] for r in server.chat_requests] == [True, False]


async def test_slow_and_endless_answers_end(server: FakeAnthropicServer) -> None:
    client = AnthropicProvider(server.url, MODEL, api_key=KEY, retry=ONCE, max_answer_bytes=65536)
    server.script(Reply("late", delay=5.0))
    with pytest.raises(ProviderTimeoutError):
        await client.chat(ask(timeout=0.3, stream=True))
    server.script(Endless())
    with pytest.raises(TooLargeError):
        await client.chat(ask(stream=True))
    await client.aclose()


# --- configured ---------------------------------------------------------------------------


def test_a_configured_anthropic_provider_is_built_from_its_table() -> None:
    table = (
        '[providers.claude]\ntype = "anthropic"\nendpoint = "https://api.anthropic.com"\n'
        'model = "claude-sonnet-4-5"\napi_key_env = "ANTHROPIC_API_KEY"\n'
    )
    config = build_config(tomllib.loads(table), "zoea.toml")
    provider = build_provider(config.providers["claude"], env={"ANTHROPIC_API_KEY": KEY})
    assert isinstance(provider, AnthropicProvider)
    assert provider.url == "https://api.anthropic.com/v1/messages"
    assert provider._headers["x-api-key"] == KEY
    with pytest.raises(ConfigError, match="seed"):
        build_config(tomllib.loads(table + "seed = 3\n"), "zoea.toml")


async def test_the_probe_flies_an_anthropic_endpoint(server: FakeAnthropicServer) -> None:
    status = Call("get_status", {"section": "ship"})
    server.script(*(Reply("", tool_calls=[status]) for _ in range(3)))
    report = await probe(
        ProbeTarget(endpoint=server.url, type="anthropic", model=MODEL, api_key=KEY)
    )
    assert report.flies, report.problems
    assert report.models == [MODEL]
    assert report.tool_call_parsed and report.stream_with_tools and report.unstreamed_with_tools
    assert report.template_tools is None and report.env_line() is None
    assert report.config_block().startswith('[providers.anthropic]\ntype = "anthropic"')
    assert [r.path for r in server.requests] == ["/v1/models", *["/v1/messages"] * 3]


async def test_pings_and_unknown_events_are_passed_over(
    server: FakeAnthropicServer, provider: AnthropicProvider
) -> None:
    def event(kind: str, **fields: Any) -> str:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"

    start = {"type": "message", "role": "assistant", "model": MODEL, "content": []}
    stream = "".join(
        [
            event("message_start", message={**start, "usage": {"input_tokens": 5}}),
            event("ping"),
            event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
            event("ping"),
            event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hi"}),
            event("a_future_event", detail=1),
            event("content_block_stop", index=0),
            event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 2}),
            event("ping"),
            event("message_stop"),
        ]
    )
    server.script(Raw(stream, content_type="text/event-stream"))
    answer = await provider.chat(ask(stream=True))
    assert (answer.content, answer.finish_reason) == ("Hi", "stop")
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (5, 2)
    assert answer.usage.cached_tokens is None  # the API said nothing of its cache

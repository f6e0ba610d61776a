"""Every answer has bounds, and every failure is told for what happened (issue 39).

Over real HTTP on loopback, against the scripted OpenAI-compatible and Ollama servers:
the answer's token cap is sent with every request, an answer that never ends is cut at
``max_answer_bytes`` and told "too large" in one line (memory stays bounded: measured in
a subprocess), an answer cut at its cap comes back as such, a context refusal caused by
the answer says so with the fix, a server killed mid-stream is no server that cannot
stream, and an answer with nothing in it is a failure, retried.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import (
    Call,
    Empty,
    Endless,
    FakeOllamaServer,
    FakeOpenAIServer,
    Malformed,
    RecordingSleep,
    Reply,
    context_exceeded,
)
from tests.providers.asking import MESSAGES, TOOLS, ask
from zoea_tui.config import DEFAULT_MAX_ANSWER_BYTES, ProviderConfig, build_config
from zoea_tui.core.composition import ANSWER_RESERVE
from zoea_tui.core.failures import failure_label
from zoea_tui.core.retry import CLIENT, ONCE
from zoea_tui.providers._http import HttpProvider, answer_exceeds_context
from zoea_tui.providers.base import (
    BadRequestError,
    ChatRequest,
    CutShortError,
    EmptyAnswerError,
    TooLargeError,
)
from zoea_tui.providers.building import provider_settings
from zoea_tui.providers.ollama import OllamaProvider
from zoea_tui.providers.openai_compat import OpenAIProvider
from zoea_tui.providers.registry import build_provider

#: A small cap keeps the endless answers of these tests short (the RSS test uses the default).
CAP = 64 * 1024
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
async def openai() -> AsyncIterator[FakeOpenAIServer]:
    async with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
async def ollama() -> AsyncIterator[FakeOllamaServer]:
    async with FakeOllamaServer(models=["m"]) as fake:
        yield fake


def openai_client(server: FakeOpenAIServer, sleep: RecordingSleep, **kw: Any) -> OpenAIProvider:
    return OpenAIProvider(server.url, "fake-model", sleep=sleep, **kw)


def ollama_client(server: FakeOllamaServer, sleep: RecordingSleep, **kw: Any) -> OllamaProvider:
    return OllamaProvider(server.url, "m", sleep=sleep, **kw)


async def refused_by_openai(
    server: FakeOpenAIServer, sleep: RecordingSleep, request: ChatRequest
) -> BadRequestError:
    """The refusal the OpenAI-compatible client raises for ``request`` (closed after)."""
    client = openai_client(server, sleep)
    try:
        with pytest.raises(BadRequestError) as caught:
            await client.chat(request)
    finally:
        await client.aclose()
    return caught.value


# --- a cap on the answer's tokens -------------------------------------------------------------


def test_a_server_provider_without_max_tokens_is_capped_by_the_answer_reserve() -> None:
    config = build_config(
        {
            "providers": {
                "srv": {"type": "openai", "endpoint": "http://h:1/v1", "model": "m"},
                "oll": {"type": "ollama", "endpoint": "http://h:2", "model": "m"},
                "own": {"type": "openai", "endpoint": "http://h:3/v1", "model": "m"},
            }
        },
        "test",
    )
    assert provider_settings(config.provider("srv")).max_tokens == ANSWER_RESERVE
    assert provider_settings(config.provider("oll")).max_tokens == ANSWER_RESERVE
    own = ProviderConfig(name="own", type="openai", endpoint="http://h", model="m", max_tokens=64)
    assert provider_settings(own).max_tokens == 64
    # local keeps its own budgets (128 with tools, 512 without) unless told otherwise
    assert provider_settings(config.provider("local")).max_tokens is None
    # and the composer keeps at least that room for the answer
    assert config.compose_settings("srv").reserve_tokens >= ANSWER_RESERVE


@pytest.mark.parametrize("stream", [False, True])
async def test_every_request_carries_its_cap_on_the_wire(
    openai: FakeOpenAIServer, ollama: FakeOllamaServer, sleep: RecordingSleep, stream: bool
) -> None:
    settings = provider_settings(ProviderConfig(name="p", type="openai", endpoint=openai.url))
    request = ChatRequest(MESSAGES, TOOLS, settings, stream=stream)
    for client in (openai_client(openai, sleep), ollama_client(ollama, sleep)):
        try:
            await client.chat(request)
        finally:
            await client.aclose()
    assert openai.chat_requests[-1].json()["max_tokens"] == ANSWER_RESERVE
    assert ollama.chat_requests[-1].json()["options"]["num_predict"] == ANSWER_RESERVE


@pytest.mark.parametrize("stream", [False, True])
async def test_an_answer_cut_at_its_cap_says_so_and_the_next_request_goes_on(
    openai: FakeOpenAIServer, ollama: FakeOllamaServer, sleep: RecordingSleep, stream: bool
) -> None:
    openai.script(Reply("I was saying that", finish_reason="length"), Reply("next"))
    ollama.script(Reply("I was saying that", finish_reason="length"), Reply("next"))
    for client in (openai_client(openai, sleep), ollama_client(ollama, sleep)):
        try:
            cut = await client.chat(ask(stream=stream, max_tokens=4))
            assert (cut.content, cut.finish_reason) == ("I was saying that", "length")
            after = await client.chat(ask(stream=stream, max_tokens=4))
            assert (after.content, after.finish_reason) == ("next", "stop")
        finally:
            await client.aclose()
    assert sleep.delays == []


# --- a cap on the answer's bytes --------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
async def test_an_answer_that_never_ends_is_too_large_after_one_request(
    openai: FakeOpenAIServer, ollama: FakeOllamaServer, sleep: RecordingSleep, stream: bool
) -> None:
    openai.default = ollama.default = Endless()
    for client, server in (
        (openai_client(openai, sleep, max_answer_bytes=CAP), openai),
        (ollama_client(ollama, sleep, max_answer_bytes=CAP), ollama),
    ):
        try:
            with pytest.raises(TooLargeError) as caught:
                await client.chat(ask(stream=stream, tools=TOOLS))
        finally:
            await client.aclose()
        assert caught.value.kind == "too_large" and not caught.value.retryable
        assert f"passed {CAP:,} bytes (64 KiB" in caught.value.message
        assert caught.value.describe().startswith("too large: ")
        assert "\n" not in caught.value.describe()
        assert len(server.chat_requests) == 1  # not retried, not sent again unstreamed
        assert client.streaming is stream and "stream" not in client.notes
    assert sleep.delays == []


def test_max_answer_bytes_is_a_provider_key_with_a_default_and_a_floor() -> None:
    config = build_config(
        {"providers": {"p": {"type": "openai", "endpoint": "http://h/v1", "model": "m"}}},
        "test",
    )
    assert config.provider("p").max_answer_bytes == DEFAULT_MAX_ANSWER_BYTES == 4 * 1024**2
    built = build_provider(
        build_config(
            {
                "providers": {
                    "p": {
                        "type": "ollama",
                        "endpoint": "http://h",
                        "model": "m",
                        "max_answer_bytes": 65536,
                    }
                }
            },
            "test",
        ).provider("p")
    )
    assert isinstance(built, HttpProvider) and built.max_answer_bytes == 65536
    with pytest.raises(Exception, match="max_answer_bytes"):
        build_config(
            {
                "providers": {
                    "p": {
                        "type": "openai",
                        "endpoint": "http://h/v1",
                        "model": "m",
                        "max_answer_bytes": 10,
                    }
                }
            },
            "test",
        )


_RSS_SCRIPT = textwrap.dedent(
    """
    import asyncio, gc, json, sys
    from tests.fakes import Endless, FakeOllamaServer, FakeOpenAIServer
    from zoea_tui.core.retry import ONCE
    from zoea_tui.providers.base import ChatRequest, ProviderError, ProviderSettings
    from zoea_tui.providers.ollama import OllamaProvider
    from zoea_tui.providers.openai_compat import OpenAIProvider

    def status(field):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024

    async def main(kind, stream):
        fake = FakeOpenAIServer() if kind == "openai" else FakeOllamaServer(models=["m"])
        async with fake as server:
            server.default = Endless()
            cls = OpenAIProvider if kind == "openai" else OllamaProvider
            client = cls(server.url, "m" if kind == "ollama" else "fake-model", retry=ONCE)
            seen = []
            request = ChatRequest([{"role": "user", "content": "go"}], (), ProviderSettings(),
                                  stream=stream)
            gc.collect()
            before = status("VmRSS")
            try:
                await client.chat(request, seen.append)
                line = "ok"
            except ProviderError as error:
                line = error.describe()
            finally:
                await client.aclose()
            peak = status("VmHWM")
            print(json.dumps({"line": line, "growth": peak - before, "events": len(seen),
                              "requests": len(server.chat_requests)}))

    asyncio.run(main(sys.argv[1], sys.argv[2] == "stream"))
    """
)


@pytest.mark.parametrize(
    ("kind", "mode"),
    [("openai", "stream"), ("openai", "whole"), ("ollama", "stream"), ("ollama", "whole")],
)
def test_an_endless_answer_costs_less_than_100_mb_and_ends_in_one_line(
    kind: str, mode: str
) -> None:
    # The default cap (4 MiB), in a process of its own: its peak RSS over its RSS before
    # the call is what the endless answer cost, the server's side included.
    done = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT, kind, mode],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["line"].startswith("too large: The answer from http://127.0.0.1:")
    assert "passed 4,194,304 bytes (4 MiB" in result["line"]
    assert "\n" not in result["line"]
    assert result["requests"] == 1
    assert result["growth"] < 100 * 1024 * 1024, result
    assert done.stderr == ""


# --- a context the answer overflowed ---------------------------------------------------------


async def test_a_context_overflowed_by_the_answer_says_to_lower_max_tokens(
    openai: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    # llama-cpp-python's server with tools generates until its context is full, then
    # asks its model for more: "8192 in the messages" of 8192.
    openai.script(context_exceeded(8192, 8192, 1024))
    refusal = await refused_by_openai(openai, sleep, ask(stream=True, tools=TOOLS))
    message = refusal.message
    assert "maximum context length is 8192 tokens" in message  # the server's words
    assert "The answer ran past the server's context: lower max_tokens" in message
    assert "-c" in message
    assert "context_window" not in message
    assert refusal.kind == "refused" and len(openai.chat_requests) == 1


async def test_a_prompt_over_the_context_still_says_the_request_is_too_large(
    openai: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    openai.script(context_exceeded(256, 1243, 4))
    refusal = await refused_by_openai(openai, sleep, ask())
    assert "The request is larger than the server's context" in refusal.message
    assert "lower max_tokens" not in refusal.message


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        (context_exceeded(8192, 8192, 1024).message, True),  # generated to the full context
        (context_exceeded(8192, 8192, None).message, True),  # the same, no max_tokens sent
        (context_exceeded(8192, 7000, 2000).message, True),  # the cap does not fit beside it
        (context_exceeded(256, 1243, 4).message, False),  # the prompt is over the context
        (context_exceeded(8192, 6000, 1024).message, False),  # fits: not an overflow at all
        ("Requested tokens (8192) exceed context window of 8192", True),
        ("Requested tokens (9000) exceed context window of 8192", False),
        ("request (8251 tokens) exceeds the available context size (8192 tokens)", False),
        ("Incorrect API key provided.", False),
    ],
)
def test_which_context_refusals_the_answer_caused(said: str, answer: bool) -> None:
    assert answer_exceeds_context(said) is answer


# --- failures classed by what happened --------------------------------------------------------


async def test_a_server_killed_mid_stream_is_cut_short_and_streaming_stays_on(
    openai: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    openai.script(Reply("a long answer", cut_after=3, dies=True))
    client = openai_client(openai, sleep, retry=ONCE)
    try:
        with pytest.raises(CutShortError) as caught:
            await client.chat(ask(stream=True, tools=TOOLS))
        assert caught.value.kind == "cut_short"
        assert "unstreamed" not in caught.value.describe()
        assert "stream" not in client.notes and client.broken_streams == 0
        # the resend found no server: it was a crash, not a server that cannot stream
        await openai.revive()
        openai.script(Reply("back"))
        assert (await client.chat(ask(stream=True, tools=TOOLS))).content == "back"
    finally:
        await client.aclose()
    assert openai.chat_requests[-1].json()["stream"] is True
    assert client.streaming and client.notes == {}


async def test_a_server_killed_mid_stream_again_and_again_never_loses_streaming(
    openai: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    client = openai_client(openai, sleep, retry=ONCE)
    try:
        for _ in range(3):
            openai.script(Reply("a long answer", cut_after=3, dies=True))
            with pytest.raises(CutShortError):
                await client.chat(ask(stream=True, tools=TOOLS))
            await openai.revive()
    finally:
        await client.aclose()
    assert [r.json()["stream"] for r in openai.chat_requests] == [True, True, True]
    assert client.notes == {} and client.broken_streams == 0


async def test_malformed_streamed_chunks_twice_lose_streaming_for_the_session(
    openai: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    openai.script(Malformed(), Reply("one"), Malformed(), Reply("two"), Reply("three"))
    client = openai_client(openai, sleep)
    try:
        answers = [(await client.chat(ask(stream=True, tools=TOOLS))).content for _ in range(3)]
    finally:
        await client.aclose()
    assert answers == ["one", "two", "three"]
    assert [r.json()["stream"] for r in openai.chat_requests] == [True, False, True, False, False]
    assert client.notes["stream"].startswith("unstreamed: the server broke 2 streamed answers")


@pytest.mark.parametrize("stream", [True, False])
async def test_an_empty_answer_is_a_failure_retried_never_ok(
    openai: FakeOpenAIServer, ollama: FakeOllamaServer, sleep: RecordingSleep, stream: bool
) -> None:
    openai.script(Empty(), Reply("said"))
    ollama.script(Empty(), Reply("said"))
    for client in (openai_client(openai, sleep), ollama_client(ollama, sleep)):
        try:
            assert (await client.chat(ask(stream=stream))).content == "said"
        finally:
            await client.aclose()
    assert sleep.delays == [0.5, 0.5]  # one retry each, under the retry policy

    openai.default = ollama.default = Empty()
    for client in (
        openai_client(openai, sleep, retry=replace(CLIENT, attempts=2)),
        ollama_client(ollama, sleep, retry=replace(CLIENT, attempts=2)),
    ):
        try:
            with pytest.raises(EmptyAnswerError) as caught:
                await client.chat(ask(stream=stream))
        finally:
            await client.aclose()
        assert caught.value.kind == "empty_answer" and caught.value.retryable
        assert caught.value.describe().startswith("empty answer: ")
    assert failure_label("empty_answer") == "empty answer"


async def test_an_empty_stream_to_a_tool_request_is_answered_unstreamed(
    openai: FakeOpenAIServer, sleep: RecordingSleep
) -> None:
    # llama-cpp-python's server streams a role chunk and [DONE] for some tool requests.
    openai.script(Empty(), Reply(tool_calls=[Call("mine")]), Reply("streamed again"))
    client = openai_client(openai, sleep)
    try:
        first = await client.chat(ask(stream=True, tools=TOOLS))
        second = await client.chat(ask(stream=True, tools=TOOLS))
    finally:
        await client.aclose()
    assert first.tool_calls[0].name == "mine" and second.content == "streamed again"
    assert [r.json()["stream"] for r in openai.chat_requests] == [True, False, True]
    assert client.broken_streams == 1 and client.streaming
    assert sleep.delays == []


async def test_the_probe_of_a_server_that_streams_forever_ends_with_too_large_steps() -> None:
    # `zoea probe` grew by ~70 MB a second against such a server (issue 39): each of its
    # steps now stops at the provider's byte cap and says so.
    from zoea_tui.providers.probe import ProbeTarget, probe

    async with FakeOpenAIServer() as server:
        server.default = Endless()
        report = await probe(ProbeTarget(server.url))

    assert report.stream_with_tools is False and report.unstreamed_with_tools is False
    assert {f.kind for f in report.failures} == {"too_large"}
    assert {f.step for f in report.failures} >= {"stream", "unstreamed"}
    assert not report.flies

"""Model faults, one by one: each ends as the table says, and nothing is lost.

A Mysis's provider does not retry by itself: its runtime retries each call under
the one policy (core/retry.py), logging every try and waiting on the swarm's
clock, so each row checks the requests log and the clock's waits.

| fault                         | expected outcome                                        |
|-------------------------------|---------------------------------------------------------|
| timeout once                  | logged as a timeout, retried after 1 s; plays on        |
| 500 once / 503 once           | logged with the server's words, retried after 1 s       |
| 429 with Retry-After: 1       | "rate limited", retried after exactly the 1 s the       |
|                               | server asked for, waited for real on the virtual clock  |
| stream cut mid-way            | sent again at once unstreamed (stream = "auto"); the    |
|                               | next request streams again (one break is no verdict);   |
|                               | the partial text never stored                           |
| malformed JSON chunk          | the same: sent again at once unstreamed                 |
| empty stream (role + [DONE])  | the same: never stored as an answer                     |
| empty answer, both ways       | "empty answer", retried after 1 s; never stored as ok   |
| answer cut at its token cap   | stored as written; the next request goes on             |
| invalid JSON tool arguments   | an invalid_json tool error goes back to the model       |
| tool call without id          | a stable id, the same in the call, its result and the   |
|                               | next request                                            |
| empty message / reasoning only| stored, not productive: the next request is a nudge     |
| 500 every time / unreachable  | tried again and again (backoff up to a minute), the     |
|                               | server's words on the pane; plays on once it answers    |
| 401 / 404 / 400               | errored at once: "API key" in the error                 |

A backoff's wait is jittered (80-100 % of 1 s, 2 s …); a server's ``Retry-After`` is not.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.llm_servers import Call, Empty, FakeOpenAIServer, HttpError, Malformed, Reply
from zoea_tui.core.prompts import nudge_text
from zoea_tui.core.types import Memory
from zoea_tui.orchestrator.events import MysisChanged, NudgeSent
from zoea_tui.storage import RequestRecord

from .conftest import RecordingClock, Watch, cloud_config, nothing_lost, open_swarm, until

OK = Reply("", tool_calls=[Call("get_status", {})])
DONE = Reply("All good.")
LONG = "a long answer " * 20


@dataclass
class Run:
    """What one faulty run left behind."""

    server: FakeOpenAIServer
    clock: RecordingClock
    requests: list[RequestRecord]
    memories: list[Memory]
    events: list[object]


Check = Callable[[Run], Awaitable[None] | None]


def retried(words: str, wait: float, *, hinted: bool = False) -> Check:
    """The first try is logged as failed with ``words``, the second after ``wait`` s (the
    backoff's, jittered by up to 20 %; the server's own when ``hinted``) is ok."""

    def check(run: Run) -> None:
        first, second = run.requests[0], run.requests[1]
        assert first.outcome == "error" and words in (first.error or "").lower(), first
        assert second.outcome == "ok"
        assert second.last_memory_id == first.last_memory_id  # the same request, again
        waited = run.clock.waits[0]
        assert waited == wait if hinted else 0.8 * wait <= waited <= wait, waited
        # A server's wait passes in its time: the virtual clock does not skip it.
        assert run.clock.outside == ([wait] if hinted else []), run.clock.outside
        assert len(run.server.chat_requests) >= 2

    return check


def cut_stream(run: Run) -> None:
    # stream = "auto": the same request goes again at once, unstreamed; the next one
    # streams again (a server loses streaming only after two such breaks).
    first = run.requests[0]
    assert first.outcome == "ok" and first.streamed is False, first
    assert [r.json()["stream"] for r in run.server.chat_requests[:3]] == [True, False, True]
    assert run.requests[1].streamed is True
    # No backoff: the resend goes at once (the first wait is the nudge's, after the turn).
    assert run.clock.waits and run.clock.waits[0] > 1.0
    assert not any(m.content and LONG.startswith(m.content) for m in run.memories)
    assert not any("a lo" in m.content for m in run.memories)  # none of it was stored
    assert not any(m.role == "assistant" and not (m.content or m.tool_calls) for m in run.memories)


def cut_at_cap(run: Run) -> None:
    first, second = run.requests[0], run.requests[1]
    assert first.outcome == "ok" and second.outcome == "ok", run.requests
    answer = next(m for m in run.memories if m.role == "assistant")
    assert answer.content == "I was saying that the ore"
    # Nothing failed, nothing retried: the first wait is the nudge's, after the turn.
    assert run.clock.waits and run.clock.waits[0] > 1.0


def invalid_arguments(run: Run) -> None:
    result = next(m for m in run.memories if m.role == "tool")
    assert json.loads(result.content)["error"]["code"] == "invalid_json"
    sent = run.server.chat_requests[1].json()["messages"]
    assert any(m["role"] == "tool" and "invalid_json" in m["content"] for m in sent)


def stable_id(run: Run) -> None:
    call = next(m for m in run.memories if m.tool_calls).tool_calls[0]
    result = next(m for m in run.memories if m.role == "tool")
    assert call.id and result.tool_call_id == call.id
    sent = run.server.chat_requests[1].json()["messages"]
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == [call.id]


def nudged(*, reasoning: str | None = None) -> Check:
    """The unproductive answer is stored; the next request is the level-1 nudge's turn."""

    def check(run: Run) -> None:
        answer = next(m for m in run.memories if m.role == "assistant")
        assert answer.content == "" and not answer.tool_calls
        assert (answer.reasoning or None) == reasoning
        assert [e.level for e in run.events if isinstance(e, NudgeSent)][:1] == [1]
        assert run.requests[1].nudge_level == 1
        sent = run.server.chat_requests[1].json()["messages"]
        assert any(m["role"] == "user" and m["content"] == nudge_text(1) for m in sent)

    return check


RECOVERABLE: dict[str, tuple[list[object], Check]] = {
    "timeout once": ([Reply("late", delay=3.0)], retried("within 1 s", 1.0)),
    "500 once": ([HttpError(500, "internal hiccup")], retried("internal hiccup", 1.0)),
    "503 once": ([HttpError(503, "overloaded")], retried("overloaded", 1.0)),
    "429 with Retry-After": (
        [HttpError(429, "slow down", retry_after="1")],
        retried("rate limited", 1.0, hinted=True),
    ),
    "stream cut mid-way": ([Reply(LONG, cut_after=5)], cut_stream),
    "malformed JSON chunk": ([Malformed()], cut_stream),
    "empty stream": ([Empty()], cut_stream),
    "empty answer, streamed and unstreamed": (
        [Empty(), Empty()],
        retried("no text, no tool call and no finish reason", 1.0),
    ),
    "answer cut at its token cap": (
        [Reply("I was saying that the ore", finish_reason="length")],
        cut_at_cap,
    ),
    "invalid JSON tool arguments": (
        [Reply("", tool_calls=[Call("travel", '{"target_poi": ')])],
        invalid_arguments,
    ),
    "tool call without id": (
        [Reply("", tool_calls=[Call("get_cargo", {}, without_id=True)])],
        stable_id,
    ),
    "empty message": ([Reply("")], nudged()),
    "reasoning only": (
        [Reply("", reasoning="I am thinking about ore prices.")],
        nudged(reasoning="I am thinking about ore prices."),
    ),
}


@pytest.mark.parametrize("fault", list(RECOVERABLE))
async def test_each_fault_has_its_own_outcome(fault: str, tmp_path: Path) -> None:
    script, check = RECOVERABLE[fault]
    async with FakeOpenAIServer() as server:
        server.script(*script, OK, DONE)
        server.default = DONE
        clock = RecordingClock()
        commander, sub = await open_swarm(
            tmp_path, cloud_config(server.url, timeout=1.0), clock=clock
        )
        watch = Watch()
        events: list[object] = []
        try:
            view = await commander.create_mysis("Tough")
            await until(lambda: len(server.chat_requests) >= 4)
            while (event := sub.get_nowait()) is not None:
                events.append(event)
            watch.feed_events(events)
            assert commander.mysis(view.id).state == "running", commander.mysis(view.id)
            await nothing_lost(commander, watch, tmp_path / "zoea.db")
            run = Run(
                server,
                clock,
                await commander.store.list_requests(view.id),
                await commander.memories(view.id),
                events,
            )
            outcome = check(run)
            if outcome is not None:
                await outcome
        finally:
            await commander.shutdown(timeout=2)


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (HttpError(401, "invalid api key"), "invalid api key"),
        (HttpError(404, "model fake-gpt not found"), "not found"),
        (HttpError(400, "messages: tool_call_id mismatch"), "tool_call_id mismatch"),
    ],
)
async def test_the_mysis_stops_with_a_clear_error(fault, words: str, tmp_path: Path) -> None:
    async with FakeOpenAIServer() as server:
        server.default = fault
        commander, sub = await open_swarm(tmp_path, cloud_config(server.url, timeout=1.0))
        watch = Watch()
        try:
            view = await commander.create_mysis("Fragile")
            await until(lambda: commander.mysis(view.id).state == "errored", limit=60)
            watch.feed(sub)
            error = commander.mysis(view.id).last_error
            assert words in error.lower() and "fake-gpt" in error
            assert error.split(": ")[1] == "refused"  # its class
            await nothing_lost(commander, watch, tmp_path / "zoea.db")
            # Fixed upstream, a relaunch plays again.
            server.default = DONE
            await commander.relaunch_mysis(view.id)
            await until(lambda: commander.mysis(view.id).last_line == "All good.")
        finally:
            await commander.shutdown(timeout=2)


@pytest.mark.parametrize(
    ("fault", "label", "words"),
    [
        (HttpError(500, "the model server is on fire"), "server error", "on fire"),
        (None, "unreachable", "fake-gpt"),
    ],
)
async def test_a_server_down_or_failing_is_tried_until_it_answers(
    fault: HttpError | None, label: str, words: str, tmp_path: Path
) -> None:
    """A 500 every time, or no server at all: the Mysis stays running, says what failed
    and keeps trying with a growing backoff; once the server answers it plays on."""
    from tests.fakes import refused_url

    async with FakeOpenAIServer() as server:
        server.default = fault or DONE
        url = server.url if fault is not None else refused_url()
        clock = RecordingClock()
        commander, sub = await open_swarm(tmp_path, cloud_config(url, timeout=1.0), clock=clock)
        watch = Watch()
        try:
            view = await commander.create_mysis("Tough")
            runtime = commander._myses[view.id]
            await until(lambda: runtime._failed_tries >= 9, limit=60)
            assert commander.mysis(view.id).state == "running"
            assert commander.mysis(view.id).last_error is None
            events: list[object] = []
            while (event := sub.get_nowait()) is not None:
                events.append(event)
            watch.feed_events(events)
            # Each backoff told as it began (virtual time ends it at once).
            told = [
                e.mysis
                for e in events
                if isinstance(e, MysisChanged) and e.mysis.next_try_at is not None
            ]
            assert len(told) >= 9
            assert all(v.activity == label and words in v.last_line.lower() for v in told)
            # 1, 2, 4, 8, 16, 32 s, then a minute at most, each jittered by up to 20 %.
            backoff = clock.waits[:8]
            for n, waited in enumerate(backoff):
                full = min(2.0**n, 60.0)
                assert 0.8 * full <= waited <= full, (n, waited)
            if fault is not None:  # fixed upstream: the next try is answered, no r
                server.default = DONE
                await until(lambda: commander.mysis(view.id).last_line == "All good.")
                watch.feed(sub)
                await nothing_lost(commander, watch, tmp_path / "zoea.db")
        finally:
            await commander.shutdown(timeout=2)

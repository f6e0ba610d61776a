"""The summarize strategy's summary, written by the Mysis's own model over loopback HTTP.

A real commander on the manual clock composes through the real path
(``MysisRuntime.compose`` → ``next_composition`` → ``ModelSummarizer``) against
a scripted OpenAI-compatible server. With a threshold of one token the
summary falls due on the turn's second round: the server gets the summary
request (not streamed, no tools), the answer is stored as a ``summary``
memory, and the next request carries it. When the model fails or answers
nothing, the extractive summary stands in and the Mysis plays on.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.fakes.llm_servers import Call, FakeOpenAIServer, HttpError, Reply
from tests.helpers import open_on_world
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core import prompts
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.summarizer import EXTRACTIVE_LABEL
from zoea_tui.core.validator import validate
from zoea_tui.orchestrator.clock import ManualClock
from zoea_tui.orchestrator.context import REWRITES_BY_MODEL, next_composition
from zoea_tui.orchestrator.events import Notice, RequestComposed
from zoea_tui.storage import NewMemory, Store

from .conftest import drain, until

MODEL_SUMMARY = "The pilot checked its status at Sol and is ready to mine."


def _config(url: str) -> Config:
    base = Config()
    providers = dict(base.providers)
    providers["cloud"] = ProviderConfig(
        name="cloud", type="openai", endpoint=url, model="fake-gpt", timeout=5.0
    )
    return replace(
        base,
        providers=providers,
        swarm=replace(base.swarm, default_provider="cloud", strategy="summarize"),
        context=replace(base.context, summarize_threshold=1),
        game=replace(base.game, tick_seconds=0),
    )


async def _play(tmp_path: Path, summary_answer: Reply | HttpError):
    """Run one turn of two rounds; return the server, the memories and the events."""
    async with FakeOpenAIServer() as server:
        server.script(
            Reply("", tool_calls=[Call("get_status", {})]), summary_answer, Reply("Done.")
        )
        config = _config(server.url)
        commander = await open_on_world(config, tmp_path, clock=ManualClock())
        sub = commander.bus.subscribe()
        try:
            view = await commander.create_mysis("Brief")
            await until(lambda: commander.mysis(view.id).last_answer == "Done.")
            assert commander.mysis(view.id).state == "running"
            memories = await commander.memories(view.id)
            events = drain(sub)
            preview = await commander.preview(view.id)
        finally:
            await commander.shutdown(timeout=2)
    assert not validate(preview.messages)
    composed = [e for e in events if isinstance(e, RequestComposed) and not e.preview]
    assert len(composed) == 2 and all(e.valid for e in composed)
    _PLAYED["events"] = events
    return server, memories


#: The events of the latest ``_play`` (read by the tests that look at them).
_PLAYED: dict[str, list] = {}


def _summary_request(server: FakeOpenAIServer) -> dict:
    body = server.chat_requests[1].json()
    assert body["stream"] is False and not body.get("tools")
    assert prompts.SUMMARY_PROMPT.strip()[:60] in body["messages"][-1]["content"]
    return body


async def test_the_mysis_model_writes_the_summary_the_next_request_carries(tmp_path: Path) -> None:
    server, memories = await _play(tmp_path, Reply(MODEL_SUMMARY))
    _summary_request(server)
    (summary,) = [m for m in memories if m.source == "summary"]
    assert summary.content.startswith(prompts.SUMMARY_HEADER + MODEL_SUMMARY)
    assert EXTRACTIVE_LABEL not in summary.content
    after = server.chat_requests[2].json()
    assert after["stream"] is True and after["tools"]  # the Mysis's own request again
    assert [
        m["content"]
        for m in after["messages"]
        if m["role"] == "user" and m["content"].startswith(prompts.SUMMARY_HEADER)
    ] == [summary.content]
    assert len(server.chat_requests) == 3


@pytest.mark.parametrize(
    "failure",
    [HttpError(500, "summaries are off today"), Reply("  ")],
    ids=["model error", "empty answer"],
)
async def test_the_extractive_summary_stands_in_when_the_model_fails(
    failure, tmp_path: Path
) -> None:
    server, memories = await _play(tmp_path, failure)
    _summary_request(server)
    (summary,) = [m for m in memories if m.source == "summary"]
    assert summary.content.startswith(prompts.SUMMARY_HEADER + EXTRACTIVE_LABEL)
    assert "get_status x1" in summary.content  # extracted from the history itself
    assert "summaries are off" not in summary.content
    after = server.chat_requests[2].json()
    assert any(m["content"] == summary.content for m in after["messages"])


async def test_summaries_that_cannot_make_room_pause_with_one_notice(tmp_path: Path) -> None:
    """With a threshold of one token, no summary can bring the request under it: the one
    summary is written, then the trigger stops (no summary per memory) and the commander
    is told once, with what to change."""
    _, memories = await _play(tmp_path, Reply(MODEL_SUMMARY))
    assert [m.source for m in memories].count("summary") == 1
    notices = [
        e for e in _PLAYED["events"] if isinstance(e, Notice) and "summaries paused" in e.message
    ]
    assert len(notices) == 1 and notices[0].level == "warning"
    assert "raise summarize_threshold" in notices[0].message
    composed = [e for e in _PLAYED["events"] if isinstance(e, RequestComposed)]
    gauge = composed[-1].composition.summary_gauge
    assert gauge is not None and gauge.paused is not None and gauge.trigger == 1


async def test_a_summary_never_hides_a_prompt_it_did_not_see(tmp_path: Path) -> None:
    """A prompt stored while the summary was written lies before the summary; kept, the
    summary would hide the prompt it never saw (the order's turn went out with the
    summary and the game state alone). A Mysis's broadcast cuts nothing, so the summary
    under way ends; it is dropped and written again over the history with the prompt.
    An order cuts the summary with the request (``MysisRuntime.deliver``), and the
    order's turn writes it."""
    async with FakeOpenAIServer() as server:
        server.script(
            Reply("", tool_calls=[Call("get_status", {})]),
            Reply("A summary that never saw the news.", delay=1.0),
            Reply(MODEL_SUMMARY),
            Reply("Noted: iron at Sol."),
        )
        commander = await open_on_world(_config(server.url), tmp_path, clock=ManualClock())
        try:
            view = await commander.create_mysis("Brief")
            other = await commander.create_mysis("Other", provider="autopilot")
            await until(lambda: len(server.chat_requests) == 2)  # the summary is being written
            await commander.broadcast_from(other.id, "iron at Sol")
            await until(lambda: commander.mysis(view.id).last_answer.startswith("Noted"))
            memories = await commander.memories(view.id)
        finally:
            await commander.shutdown(timeout=2)
    (summary,) = [m for m in memories if m.source == "summary"]
    news = next(m for m in memories if m.content == "iron at Sol")
    assert summary.content.startswith(prompts.SUMMARY_HEADER + MODEL_SUMMARY)
    assert news.id < summary.id
    rewritten = server.chat_requests[2].json()["messages"]
    assert any("iron at Sol" in (m.get("content") or "") for m in rewritten), "it saw the news"
    assert "iron at Sol" in summary.content  # its last request, quoted after it


async def test_prompts_that_keep_coming_do_not_keep_a_summary_from_being_kept(
    tmp_path: Path,
) -> None:
    """Every summary the model writes is overtaken by a prompt (a chatty swarm, a slow
    model): after ``REWRITES_BY_MODEL`` tries the extractive summarizer writes it, taking
    no time for another prompt to come, and it is kept, the latest prompt in it."""
    store = await Store.open(tmp_path / "zoea.db")
    try:
        mysis = await store.create_mysis("Brief")
        for i in range(4):
            await store.add_memory(mysis.id, NewMemory("user", "direct", f"order {i}"))
            await store.add_memory(mysis.id, NewMemory("assistant", "llm", f"Done {i}."))

        class Overtaken:
            """A model summarizer during each of whose summaries a broadcast comes in."""

            calls = 0

            async def summarize(self, request: object) -> str:
                self.calls += 1
                news = NewMemory("user", "broadcast", f"news {self.calls}", sender_id="2")
                await store.add_memory(mysis.id, news)
                return MODEL_SUMMARY

        model = Overtaken()
        settings = ComposeSettings(summarize_threshold=1)
        composition = await next_composition(
            store, mysis.id, "summarize", settings, summarizer=model
        )
        memories = [m async for m in store.iter_memories(mysis.id)]
    finally:
        await store.close()
    assert model.calls == REWRITES_BY_MODEL
    (summary,) = [m for m in memories if m.source == "summary"]
    assert EXTRACTIVE_LABEL in summary.content and MODEL_SUMMARY not in summary.content
    assert f"news {REWRITES_BY_MODEL}" in summary.content  # the latest prompt, quoted
    assert memories[-1].id == summary.id
    assert composition.last_memory_id == summary.id

"""Context v2 over real loopback HTTP: a scripted OpenAI-compatible model plays a
nudge-driven session on the embedded world, and every request it receives is checked.

- every in-turn request holds every call of its turn;
- the nudge (or start) text that opened a turn appears once, before the turn's first call;
- the system message is byte-identical across turns once the account is known;
- within a turn each request is the previous one plus the new messages;
- the account and location survive the registration result leaving the window.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_servers import Call, FakeOpenAIServer, Reply
from tests.helpers import open_on_world
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core import prompts
from zoea_tui.core.cache import ReuseTally, serialize
from zoea_tui.core.validator import validate
from zoea_tui.game.waits import ticks_to_wait
from zoea_tui.orchestrator.clock import ManualClock
from zoea_tui.orchestrator.commander import Commander

from .conftest import advance_until, until

TURNS = 8


def opening_index(texts: list[str | None], opening: str | None) -> int:
    """Where the current turn's opening stands (the last occurrence of its text)."""
    return len(texts) - 1 - texts[::-1].index(opening)


def _script() -> list[Reply]:
    """Turn 1 registers; every later turn checks status and cargo, then answers."""
    replies = [
        Reply("", tool_calls=[Call("register", {"username": "Vega", "empire": "solarian"})]),
        Reply("Registered as Vega."),
    ]
    for n in range(TURNS - 1):
        replies += [
            Reply("", tool_calls=[Call("get_status", {})]),
            Reply("", tool_calls=[Call("get_cargo", {}), Call("get_system", {})]),
            Reply(f"Turn {n + 2}: status and cargo checked."),
        ]
    return replies


async def _session(
    tmp_path: Path, strategy: str
) -> tuple[list[dict[str, Any]], Commander, int, ManualClock]:
    clock = ManualClock()
    base = Config()
    providers = dict(base.providers)
    providers["cloud"] = ProviderConfig(name="cloud", type="openai", endpoint="", model="m")
    config = replace(
        base,
        game=replace(base.game, tick_seconds=0),
        providers=providers,
        context=replace(base.context, max_context_messages=8, window_margin=4),
    )
    server = FakeOpenAIServer()
    await server.start()
    server.script(*_script())
    server.default = Reply("Nothing to do.")
    config.providers["cloud"] = replace(providers["cloud"], endpoint=server.url)
    commander = await open_on_world(config, tmp_path, clock=clock)
    try:
        view = await commander.create_mysis("Vega", provider="cloud", strategy=strategy)
        await advance_until(
            clock,
            lambda: server.pending == 0 and commander.mysis(view.id).activity == "waiting",
            step=5,
        )
        bodies = [r.json() for r in server.chat_requests]
    finally:
        await server.aclose()
    return bodies, commander, view.id, clock


@pytest.mark.parametrize(
    "strategy", ["turn-aware", "sliding-window", "snapshot-compaction", "summarize"]
)
async def test_a_nudge_driven_session_keeps_turns_whole_and_requests_cacheable(
    tmp_path: Path, strategy: str
) -> None:
    bodies, commander, mysis_id, _ = await _session(tmp_path, strategy)
    try:
        store = commander.store
        requests = await store.list_requests(mysis_id)
        assert len(requests) == len(bodies) == 2 + 3 * (TURNS - 1)
        memories = [m async for m in store.iter_memories(mysis_id)]
        turns = {t.id: t for t in await store.list_turns(mysis_id)}
        assert [t.kind for t in sorted(turns.values(), key=lambda t: t.id)] == ["start"] + [
            "nudge"
        ] * (TURNS - 1)
        systems = [body["messages"][0]["content"] for body in bodies]
        for body, request in zip(bodies, requests, strict=True):
            messages = body["messages"]
            assert not validate(messages)
            turn = turns[request.turn_id]
            # Every call of this turn made before the request is in it.
            mine = [
                m for m in memories if turn.first_memory_id <= m.id <= (request.last_memory_id or 0)
            ]
            sent_ids = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
            for memory in mine:
                for call in memory.tool_calls:
                    assert call.id in sent_ids, (strategy, call)
            # The opening text stands right before the turn's first call, and (where earlier
            # turns are not sent whole) only there: the nudge text is the same every turn.
            texts = [m.get("content") for m in messages]
            if strategy == "turn-aware":
                assert texts.count(turn.text) == 1, texts
            # (the game state at the turn's start follows the opening)
            body_texts = [t for t in texts if not (t or "").startswith(prompts.STATE_HEADER)]
            if mine:
                first_call = next(
                    i
                    for i, m in enumerate(messages)
                    if any(c["id"] == mine[0].tool_calls[0].id for c in m.get("tool_calls") or ())
                )
                before_call = [
                    t for t in texts[:first_call] if not (t or "").startswith(prompts.STATE_HEADER)
                ]
                assert before_call[-1] == turn.text, (strategy, texts)
            else:
                assert body_texts[-1] == turn.text, (strategy, texts)
            if strategy == "turn-aware" and turn.state:  # the state follows the opening
                assert texts[opening_index(texts, turn.text) + 1].startswith(prompts.STATE_HEADER)
        # Byte-identical system prompt, before registering and after: the account is
        # told in the state message after each turn's opening.
        assert len(set(systems)) == 1 and "Vega" not in systems[0]
        assert any(
            "Username: Vega" in (m.get("content") or "")
            and (m.get("content") or "").startswith(prompts.STATE_HEADER)
            for m in bodies[-1]["messages"]
        )
        # Within a turn, each request is the previous one plus the new messages.
        for (a, ra), (b, rb) in zip(
            zip(bodies, requests, strict=True),
            zip(bodies[1:], requests[1:], strict=True),
            strict=False,
        ):
            if ra.turn_id != rb.turn_id:
                continue
            if (
                strategy in ("sliding-window", "snapshot-compaction")
                and a["messages"][1:3] != b["messages"][1:3]
            ):
                continue  # the window was cut back one step: the one break it allows
            before = list(a["messages"])
            if (before[-1].get("content") or "").startswith(prompts.STATE_HEADER):
                before.pop()  # a closing state message (when the opening is not sent)
            assert serialize(b["messages"]).startswith(serialize(before)[:-1]), strategy
        # The account and the location outlive the registration result.
        last = bodies[-1]["messages"]
        assert not any(
            "Welcome to SpaceMolt" in (m.get("content") or "") for m in last
        ) or strategy in ("summarize",)
        assert any(
            "Location:" in (m.get("content") or "") and prompts.STATE_HEADER in m["content"]
            for m in last
        )
        tally = ReuseTally()
        for body in bodies:
            tally.add(mysis_id, body["messages"])
        if strategy in ("turn-aware", "summarize", "snapshot-compaction"):
            assert tally.report()["prefix_reuse"]["median"] >= 0.9, tally.report()
    finally:
        await commander.shutdown(timeout=2)


async def test_the_preview_of_a_nudge_turn_is_what_the_turn_sends(tmp_path: Path) -> None:
    clock = ManualClock()
    base = Config()
    server = FakeOpenAIServer()
    await server.start()
    server.script(
        Reply("First turn done.", usage_extra={"prompt_tokens_details": {"cached_tokens": 64}}),
        Reply("Second turn done."),
    )
    providers = dict(base.providers)
    providers["cloud"] = ProviderConfig(name="cloud", type="openai", endpoint=server.url, model="m")
    config = replace(base, providers=providers, game=replace(base.game, tick_seconds=0))
    commander = await open_on_world(config, tmp_path, clock=clock)
    try:
        view = await commander.create_mysis("Quiet", provider="cloud")
        await until(
            lambda: (
                len(server.chat_requests) == 1 and commander.mysis(view.id).activity == "waiting"
            )
        )
        preview = await commander.preview(view.id)
        clock.advance(29)
        await until(lambda: clock.waiting >= 1)
        assert len(server.chat_requests) == 1  # nothing before the idle interval
        await advance_until(clock, lambda: len(server.chat_requests) == 2, step=1)
        sent = server.chat_requests[1].json()["messages"]
        assert sent == list(preview.messages)
        assert prompts.nudge_text(1) in [m["content"] for m in sent]
        # The cached tokens the server reported are kept with the request and shown.
        logged = await commander.store.list_requests(view.id)
        assert [r.cached_tokens for r in logged] == [64, None]
        first_turn = await commander.store.get_turn(logged[0].turn_id)
        assert first_turn is not None and first_turn.kind == "start"
    finally:
        await server.aclose()
        await commander.shutdown(timeout=2)


def test_results_that_announce_a_later_tick_are_wait_states() -> None:
    assert ticks_to_wait({"action": "travel", "arrival_tick": 15}, 12) == 3
    assert ticks_to_wait({"action": "travel", "arrival_tick": 15, "arrived": True}, 15) is None
    assert ticks_to_wait({"next_action_tick": 9}, 8) == 1
    assert ticks_to_wait({"player": {"in_transit": True}}, 8) == 0
    assert ticks_to_wait({"credits": 100}, 8) is None
    assert ticks_to_wait({"arrival_tick": 5}, 8) is None  # already past
    assert json.dumps(ticks_to_wait(None, None)) == "null"

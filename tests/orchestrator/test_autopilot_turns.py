"""The default swarm is seen playing: the autopilot's turn goes through a whole cycle of
mining and selling (past the ten rounds a model's turn gets), ends where a model would,
and the nudge still comes when it stops."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from zoea_tui.config import Config
from zoea_tui.orchestrator.events import NudgeSent

from .conftest import drain, until

ROUNDS = 40


def _autopilot_rounds(rounds: int) -> Config:
    base = Config()
    providers = dict(base.providers)
    providers["autopilot"] = replace(providers["autopilot"], max_tool_iterations=rounds)
    return replace(base, game=replace(base.game, tick_seconds=0), providers=providers)


@pytest.mark.parametrize("config", [_autopilot_rounds(ROUNDS)], ids=[f"{ROUNDS} rounds"])
async def test_an_autopilot_turn_is_a_whole_cycle_then_the_nudge_comes(
    open_commander, clock
) -> None:
    commander = await open_commander(starter_swarm=False)
    sub = commander.bus.subscribe()
    view = await commander.create_mysis("Ada")
    runtime = commander._myses[view.id]
    # It ends waiting for the nudge, or for the game when its last round set out (seed
    # 001's bound pages the long turn, so it looks its system up again on the way).
    await until(
        lambda: runtime.turns >= 1 and runtime.activity in ("waiting", "cooldown"), limit=60
    )
    requests = await commander.store.list_requests(view.id)
    first = [r for r in requests if r.turn_id == requests[0].turn_id]
    assert 10 < len(first) <= ROUNDS, "longer than a model's ten rounds, within its own"
    results = [m.tool_name for m in await commander.memories(view.id) if m.role == "tool"]
    mined, sold = results.index("mine"), results.index("sell")
    assert mined < sold and "travel" in results[sold:], "mined, sold, and set out again"
    # It ends its turn on its last round, with what the turn did and where it stands.
    answer = commander.mysis(view.id).last_answer
    assert answer.startswith("Mined ") and f"Pausing after {ROUNDS - 1} rounds" in answer
    # It stopped: the nudge comes after the idle interval (or the game's wait), as for
    # any model.
    interval = runtime._interval(runtime.swarm.nudge)
    assert interval >= 2
    assert not [e for e in drain(sub) if isinstance(e, NudgeSent)]
    clock.advance(interval - 1)
    await until(lambda: clock.waiting >= 1)
    assert not [e for e in drain(sub) if isinstance(e, NudgeSent)]
    clock.advance(1)
    await until(lambda: runtime.turns >= 2 or runtime.nudges >= 1, limit=60)
    assert [e.level for e in drain(sub) if isinstance(e, NudgeSent)][:1] == [1]


@pytest.mark.parametrize("config", [_autopilot_rounds(ROUNDS)], ids=[f"{ROUNDS} rounds"])
async def test_a_commander_report_order_ends_the_autopilot_turn_with_the_answer(
    open_commander,
) -> None:
    commander = await open_commander(starter_swarm=False)
    view = await commander.create_mysis("Ada")
    runtime = commander._myses[view.id]
    await until(lambda: runtime.turns >= 1, limit=60)
    await commander.send_message(view.id, "Report your status.")
    await until(lambda: runtime.turns >= 2, limit=60)
    assert commander.mysis(view.id).last_answer.startswith("Status report")


@pytest.mark.parametrize("config", [_autopilot_rounds(ROUNDS)], ids=[f"{ROUNDS} rounds"])
async def test_a_report_broadcast_landing_between_two_rounds_of_a_nudge_turn_is_answered(
    open_commander, clock
) -> None:
    """Issue 40, as the first-five-minutes walk saw it: a "report" broadcast stored after
    a round of a nudge turn ran its tool, before the next request was composed. The
    autopilot checks its status first (its context lacks it), and used to have its turn
    ended there: the report was lost until the next nudge. It answers it in that turn."""
    commander = await open_commander(starter_swarm=False)
    view = await commander.create_mysis("Ada")
    runtime = commander._myses[view.id]
    ask = runtime._ask_model
    between, release = asyncio.Event(), asyncio.Event()

    async def held(nudge_level: int, turn_round: int | None = None) -> Any:
        # The nudge turn's second request: its first round's tool ran, nothing composed.
        if runtime.turns >= 1 and turn_round == 2 and not between.is_set():
            between.set()
            await release.wait()
        return await ask(nudge_level, turn_round)

    runtime._ask_model = held  # type: ignore[method-assign]
    await until(
        lambda: runtime.turns >= 1 and runtime.activity in ("waiting", "cooldown"), limit=60
    )
    clock.advance(runtime._interval(runtime.swarm.nudge) + 1)  # the nudge turn begins
    await until(between.is_set, limit=60)
    await commander.broadcast("report")
    release.set()
    # The clock stays still: no other nudge comes, the answer is the same turn's.
    await until(lambda: runtime.last_answer.startswith("Status report"), limit=60)
    memories = await commander.memories(view.id)
    order = next(m for m in memories if m.source == "broadcast")
    after = [m.tool_name or m.role for m in memories if m.id > order.id]
    assert after[:3] == ["assistant", "get_status", "assistant"], after
    turns = await commander.store.list_turns(view.id)
    assert [t.kind for t in turns] == ["start", "nudge"], "answered in the nudge turn"

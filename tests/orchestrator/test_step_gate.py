"""The commander's input goes first: the swarm's next steps wait a bounded moment."""

from __future__ import annotations

import asyncio

import pytest

from zoea_tui.orchestrator.step_gate import StepGate
from zoea_tui.providers.base import ChatResponse

from .conftest import ScriptedModel, calls, settle, until


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_hold_lasts_hold_s_after_the_last_key() -> None:
    time = FakeTime()
    gate = StepGate(hold_s=0.15, max_held_s=0.5, now=time)
    assert gate.held_for() == 0
    gate.hold()
    assert gate.held_for() == pytest.approx(0.15)
    time.now += 0.1
    gate.hold()  # the next key moves the end on
    assert gate.held_for() == pytest.approx(0.15)
    time.now += 0.15
    assert gate.held_for() == 0


def test_holds_in_a_row_end_after_max_held_s_and_the_swarm_then_runs_as_long() -> None:
    time = FakeTime()
    gate = StepGate(hold_s=0.15, max_held_s=0.5, now=time)
    for _ in range(10):  # a key every 0.1 s for a second
        gate.hold()
        time.now += 0.1
    # Held from 100.0 to 100.5 only; the next hold comes no sooner than 101.0.
    assert gate.held_for() == 0
    time.now = 100.9
    gate.hold()
    assert gate.held_for() == 0
    time.now = 101.0
    gate.hold()
    assert gate.held_for() == pytest.approx(0.15)


async def test_a_step_waits_while_held_and_goes_at_once_when_not() -> None:
    gate = StepGate(hold_s=0.05)
    await gate.ready()
    assert gate.waits == 0
    gate.hold()
    step = asyncio.create_task(gate.ready())
    await settle()
    assert not step.done()
    await asyncio.wait_for(step, 2)
    assert gate.waits == 1 and gate.waited_s > 0 and gate.held_for() == 0


async def test_a_mysis_asks_its_model_only_after_the_commanders_key_is_handled(
    open_commander,
) -> None:
    models: dict[str, ScriptedModel] = {}
    commander = await open_commander(models=models, starter_swarm=False)
    view = await commander.create_mysis("Alpha")
    await until(lambda: bool(models["Alpha"].requests))  # its first turn
    await until(lambda: commander.myses()[0].activity == "waiting")
    asked = len(models["Alpha"].requests)
    gate = commander.services.step_gate
    gate.hold_s = 1.0
    commander.commander_input()
    await commander.send_message(view.id, "status?")
    await asyncio.sleep(0.2)  # ungated, the message is answered well within this
    assert len(models["Alpha"].requests) == asked and gate.held_for() > 0
    await until(lambda: len(models["Alpha"].requests) > asked)
    assert gate.waits >= 1


async def test_a_message_sent_while_a_nudges_round_waited_is_answered_in_that_turn(
    open_commander, clock
) -> None:
    """The commander's keys hold the round of a nudge turn already begun; the message they
    typed is then in that round's request. Its answer may take more than one round (a
    status check, then the report): the turn goes on, where it once ended after the
    check and no turn opened at the message, already sent (a report during a hold, issue
    40)."""
    alpha = ScriptedModel(calls(("get_status", "{}")))
    commander = await open_commander(models={"Alpha": alpha}, starter_swarm=False)
    view = await commander.create_mysis("Alpha")
    runtime = commander._myses[view.id]
    await until(lambda: runtime.turns >= 1 and runtime.activity == "waiting")
    gate = commander.services.step_gate
    gate.hold_s = gate.max_held_s = 1.0
    keys = [0.0]  # the gate's clock: the hold ends when the test moves it (not by load)
    gate._now = lambda: keys[0]
    alpha.answers = [calls(("get_status", "{}")), ChatResponse(content="Status: all well.")]
    asked = len(alpha.requests)
    commander.commander_input()  # the keys hold the next round
    clock.advance(runtime._interval(runtime.swarm.nudge))  # the nudge turn begins, held
    await until(lambda: runtime.turn is not None)
    await commander.send_message(view.id, "report")
    keys[0] = 10.0  # the hold is over
    await until(lambda: len(alpha.requests) >= asked + 2, limit=10)
    first, second = alpha.requests[asked : asked + 2]
    for request in (first, second):
        assert any(m["role"] == "user" and m.get("content") == "report" for m in request.messages)
    assert first.turn_round == 1 and second.turn_round == 2

"""Every order the autopilot obeys is carried out once, or stands until another order.

The rules are ``orders.LIFETIMES`` and ``orders.in_force``; these tests hold each
order kind to its rule, given by broadcast and by direct message, over the turns that
follow, with the default strategy composing from the stored memories (which keeps only
the latest tool loop of earlier turns: the commander's message soon leaves view).
"""

from __future__ import annotations

from typing import Any, get_args

import pytest

from tests.providers.autopilot_harness import Harness
from tests.providers.test_autopilot import Chat, answer, calls
from zoea_tui.core import prompts
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.strategies import STRATEGIES
from zoea_tui.providers.autopilot.context import read_context
from zoea_tui.providers.autopilot.orders import (
    LIFETIMES,
    Order,
    OrderKind,
    in_force,
    parse_order,
)

#: One commander text for each order kind, as a commander would type it.
SAMPLES: dict[OrderKind, str] = {
    "mine": "Mine ore and sell it.",
    "hold": "Hold position.",
    "goto": "Go to the Outer Belt.",
    "explore": "Explore the galaxy.",
    "social": "Socialize with the other players.",
    "missions": "Run missions for the stations.",
    "trade": "Trade for profit.",
    "combat": "Hunt pirates.",
    "report": "Report your status.",
    "sell": "Sell everything you carry.",
    "refuel": "Refuel your ship.",
}
WORK = frozenset({"mine", "travel", "dock", "undock", "sell", "refuel", "repair", "jump"})


def test_every_order_has_a_lifetime_and_a_sample() -> None:
    assert set(LIFETIMES) == set(get_args(OrderKind)) == set(SAMPLES)
    for kind, text in SAMPLES.items():
        order = parse_order(text)
        assert order is not None and order.kind == kind


def test_in_force_keeps_a_standing_order_and_ends_the_others() -> None:
    hold = Order("hold", text="hold", index=3)
    assert in_force(hold, turn_start=9, answered=True, done=True)
    assert in_force(Order("hold", text="hold"), turn_start=9, answered=True, done=True)
    report = Order("report", text="report", index=3)
    assert in_force(report, turn_start=3, answered=False, done=False)
    assert not in_force(report, turn_start=3, answered=True, done=False)
    assert not in_force(report, turn_start=5, answered=False, done=False)  # a later turn
    assert not in_force(Order("report", text="report"), turn_start=0, answered=False, done=False)
    sell = Order("sell", text="sell", index=3)
    assert in_force(sell, turn_start=8, answered=True, done=False)
    assert not in_force(sell, turn_start=3, answered=False, done=True)
    assert not in_force(Order("sell", text="sell"), turn_start=0, answered=False, done=False)


def give(harness: Harness, text: str, how: str) -> None:
    (harness.broadcast if how == "broadcast" else harness.order)(text)


def texts(responses: list[Any]) -> list[str]:
    return [r.content for r in responses if not r.tool_calls]


def work(responses: list[Any]) -> list[str]:
    return [c.name for r in responses for c in r.tool_calls if c.name in WORK]


async def ordered(harness: Harness, text: str, how: str, turns: int) -> list[Any]:
    """The responses of ``turns`` turns after three turns of play and the order ``text``."""
    await harness.play(3)
    give(harness, text, how)
    responses = []
    for _ in range(turns):
        responses += await harness.turn()
    return responses


@pytest.mark.parametrize("how", ["broadcast", "direct"])
@pytest.mark.parametrize("kind", [k for k, v in LIFETIMES.items() if v == "standing"])
async def test_a_standing_order_stands_until_another_order(kind: OrderKind, how: str) -> None:
    harness = Harness()
    await harness.play(3)
    give(harness, SAMPLES[kind], how)
    responses = []
    for _ in range(4):
        start = len(harness.requests)
        responses += await harness.turn()
        for request in harness.requests[start:]:
            assert read_context(list(request)).mission.kind == kind
    if kind == "hold":
        assert not work(responses)
        assert all(t.startswith("Holding position as ordered") for t in texts(responses))
        # Another order frees it.
        give(harness, SAMPLES["mine"], "direct")
        freed = await harness.turn()
        assert work(freed)


def harness_for(strategy: str) -> Harness:
    """A Mysis under ``strategy`` (``summarize`` writes its summaries early)."""
    if strategy == "summarize":
        return Harness(strategy=strategy, settings=ComposeSettings(summarize_threshold=6000))
    return Harness(strategy=strategy)


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("how", ["broadcast", "direct"])
async def test_a_report_is_answered_once_then_the_work_goes_on(how: str, strategy: str) -> None:
    """Under every strategy: ``loop-slice`` pins the commander's message in every
    request (only the state message's place says it opened an earlier turn), and
    ``summarize`` repeats it as the summary's "Last request"."""
    responses = await ordered(harness_for(strategy), SAMPLES["report"], how, 6)
    reports = [t for t in texts(responses) if t.startswith("Status report")]
    assert len(reports) == 1
    after = responses[[r.content for r in responses].index(reports[0]) + 1 :]
    assert work(after)


@pytest.mark.parametrize("how", ["broadcast", "direct"])
@pytest.mark.parametrize("kind", ["sell", "refuel"])
async def test_a_sale_or_a_refuel_is_carried_out_once(kind: OrderKind, how: str) -> None:
    harness = Harness()
    responses = await ordered(harness, SAMPLES[kind], how, 5)
    assert "mine" in work(responses)
    last = read_context(list(harness.requests[-1]))
    assert last.order.kind != kind


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("how", ["broadcast", "direct"])
async def test_a_hold_holds_under_every_strategy(how: str, strategy: str) -> None:
    responses = await ordered(harness_for(strategy), SAMPLES["hold"], how, 5)
    assert not work(responses)
    assert all(t.startswith("Holding position as ordered") for t in texts(responses))


async def test_a_state_broadcast_report_is_not_answered_again_the_freeze() -> None:
    """Issue 40: the Swarm Broadcast section repeats "report" in every request; the
    report was answered in the turn the broadcast opened, so a nudge turn works."""
    harness = Harness()
    await harness.play(3)
    harness.broadcast("report")
    first = await harness.turn()
    assert texts(first)[0].startswith("Status report")
    assert work(await harness.turn())


async def test_an_unregistered_mysis_registers_then_answers_the_report() -> None:
    chat = Chat("Report your status.", account=None, name="Dora")
    assert [name for name, _ in calls(await answer(chat))] == ["register"]
    chat.loop(
        "register",
        {"player": {"username": "Dora", "credits": 150}, "password": "x"},
        username="Dora",
        empire="solarian",
    )
    response = await answer(chat)
    assert [name for name, _ in calls(response)] == ["get_status"]


async def test_a_new_mysis_takes_up_no_old_report() -> None:
    """Created after a broadcast "report", it sees it only in the state message: it
    registers and mines instead of answering it."""
    chat = Chat(None, account=None, name="Dora", broadcast="report")
    chat.user(prompts.nudge_text(1))
    assert [name for name, _ in calls(await answer(chat))] == ["register"]


async def test_my_notes_carry_a_direct_order_past_an_older_broadcast() -> None:
    """A direct "mine" after a broadcast "hold": once the message has left view, my
    notes carry the mining order; the broadcast's hold does not come back."""
    chat = Chat(None, broadcast="Hold position.")
    chat.loop("get_status", {}, notes='Notes: system sol; order "Mine ore and sell it.".')
    chat.nudge()
    context = read_context(chat.messages)
    assert (context.mission.kind, context.fallback.kind) == ("mine", "hold")


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("how", ["broadcast", "direct"])
async def test_a_report_during_a_hold_leaves_the_hold_in_force(how: str, strategy: str) -> None:
    """Issue 40: a report sent while the swarm held freed it. The hold's message left the
    request, the report's status check carried no notes line, and the broadcast section
    then said "report": the Mysis went back to mining. The hold holds for as many turns
    as the window has memories, then "mine" frees it."""
    harness = harness_for(strategy)
    responses = await ordered(harness, SAMPLES["hold"], how, 2)
    give(harness, SAMPLES["report"], how)
    answered = await harness.turn()
    assert [t for t in texts(answered) if t.startswith("Status report")]
    assert "standing order: hold" in texts(answered)[-1]
    for _ in range(harness.settings.max_context_messages + 5):
        responses += await harness.turn()
    assert not work(responses + answered)
    assert texts(responses)[-1].startswith("Holding position as ordered")
    give(harness, SAMPLES["mine"], how)
    assert work(await harness.turn())


def said(turns: list[list[Any]], prefix: str) -> int:
    """How many answers of these turns open with ``prefix``."""
    return sum(1 for turn in turns for t in texts(turn) if t.startswith(prefix))


@pytest.mark.parametrize("when", ["same run", "relaunch before it", "relaunch after it"])
@pytest.mark.parametrize("how", ["broadcast", "direct"])
@pytest.mark.parametrize("kind", list(SAMPLES))
async def test_every_order_by_its_rule_across_a_relaunch(
    kind: OrderKind, how: str, when: str
) -> None:
    """The table of ``orders.LIFETIMES``: every order the autopilot obeys, by broadcast and
    by direct message, in one run or with the app relaunched before or after it is carried
    out. A standing order is the mission of every request that follows (a hold: no game
    action until "mine" frees it). A report, a sale or a refuel is carried out once, given
    during a hold, and the Mysis then holds again."""
    harness = Harness()
    await harness.play(4)  # a hold full of ore, a tank no longer full
    once = LIFETIMES[kind] != "standing"
    if once:
        give(harness, SAMPLES["hold"], how)
        assert not work(await harness.turn())
    give(harness, SAMPLES[kind], how)
    if when == "relaunch before it":
        harness.relaunch()
    turns: list[list[Any]] = []
    for i in range(6):
        if when == "relaunch after it" and i == 1:
            harness.relaunch()
        start = len(harness.requests)
        turns.append(await harness.turn())
        if not once:
            for request in harness.requests[start:]:
                assert read_context(list(request)).mission.kind == kind
    after = [r for turn in turns[2:] for r in turn]
    if kind == "hold" or once:
        assert not work(after), "held after the order"
        assert texts(after)[-1].startswith("Holding position as ordered")
    if kind == "report":
        assert said(turns, "Status report") == 1 and not work(turns[0])
    elif kind in ("sell", "refuel"):
        done = [name for turn in turns for name in work(turn) if name == kind]
        assert done and (kind == "sell" or len(done) == 1)
        assert not [n for n in work(after) if n == kind]
    elif kind == "hold":
        give(harness, SAMPLES["mine"], how)
        assert work(await harness.turn())
    else:
        assert any(r.tool_calls for turn in turns for r in turn)


@pytest.mark.parametrize("how", ["broadcast", "direct"])
@pytest.mark.parametrize("kind", list(SAMPLES))
async def test_a_mysis_not_registered_registers_then_takes_up_the_order(
    kind: OrderKind, how: str
) -> None:
    harness = Harness(orders=())
    give(harness, SAMPLES[kind], how)
    turns = [await harness.turn() for _ in range(3)]
    first = [c.name for r in turns[0] for c in r.tool_calls]
    assert first[:1] == ["register"]
    assert harness.account is not None
    if kind == "report":
        assert said(turns, "Status report") == 1
    elif kind == "hold":
        assert not work([r for turn in turns for r in turn])
        assert said(turns, "Holding position as ordered") >= 2
    elif LIFETIMES[kind] == "standing":
        assert read_context(list(harness.requests[-1])).mission.kind == kind


def test_my_notes_carry_a_sale_until_a_sale_carries_it_out() -> None:
    """An order to sell whose message left my context stays in force through my notes
    ("doing"), read apart from the places; the first sale after them ends it."""
    chat = Chat(None)
    notes = (
        "Notes: at sol_central in sol (undocked); hold iron_ore 5; "
        'doing "Sell at Sol Central (sol_central)."; order "Hold position.".'
    )
    chat.loop("get_status", {}, notes=notes)
    chat.nudge()
    context = read_context(chat.messages)
    assert (context.order.kind, context.mission.kind) == ("sell", "hold")
    assert context.notes is not None and [p.id for p in context.notes.places] == []
    # The sale's own answer carries the notes too: its result carries the order out.
    chat.loop("sell", {"action": "sold", "item_id": "iron_ore"}, notes=notes)
    assert read_context(chat.messages).order.kind == "hold"

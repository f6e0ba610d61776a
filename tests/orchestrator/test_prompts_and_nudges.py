"""Direct messages, broadcasts and wake-ups; nudges, escalation and the breaker."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from zoea_tui.config import Config
from zoea_tui.core import prompts
from zoea_tui.core.validator import validate
from zoea_tui.orchestrator.events import BroadcastSent, NudgeSent, RequestFinished
from zoea_tui.orchestrator.mysis import CUT_BY_ORDER
from zoea_tui.providers.base import ChatResponse, ProviderError
from zoea_tui.storage import NewMemory

from .conftest import ScriptedModel, advance_until, calls, drain, last_said, until

SILENT = ChatResponse(content="")  # an answer with nothing in it: not productive


async def test_a_direct_message_reaches_its_mysis_and_is_answered(open_commander) -> None:
    models = {"Alpha": ScriptedModel(), "Bravo": ScriptedModel()}
    commander = await open_commander(models=models, starter_swarm=False)
    a = await commander.create_mysis("Alpha")
    await commander.create_mysis("Bravo")
    await until(lambda: len(models["Alpha"].requests) == 1 and len(models["Bravo"].requests) == 1)
    await commander.send_message(a.id, "Report your cargo.")
    await until(lambda: len(models["Alpha"].requests) == 2)
    last = last_said(models["Alpha"].requests[-1])
    assert last == {"role": "user", "content": "Report your cargo."}
    assert len(models["Bravo"].requests) == 1


async def test_a_broadcast_reaches_idle_and_running_and_wakes_the_idle(
    open_commander, clock
) -> None:
    models = {n: ScriptedModel(default=SILENT) for n in ("Idle", "Run", "Stop")}
    commander = await open_commander(models=models, starter_swarm=False)
    idle = await commander.create_mysis("Idle")
    run = await commander.create_mysis("Run")
    stop = await commander.create_mysis("Stop")
    await commander.stop_mysis(stop.id)
    # Idle trips the breaker; Run gets a productive model afterwards.
    await advance_until(clock, lambda: commander.mysis(idle.id).state == "idle", step=10)
    assert commander.mysis(idle.id).last_error == prompts.BREAKER_ERROR
    sub = commander.bus.subscribe()
    count = await commander.broadcast("All Myses: mine iron.")
    assert count == 2
    assert commander.mysis(idle.id).state == "running"
    assert commander.mysis(stop.id).state == "stopped"
    event = next(e for e in drain(sub) if isinstance(e, BroadcastSent))
    assert set(event.recipients) == {idle.id, run.id}
    await until(
        lambda: last_said(models["Idle"].requests[-1])["content"] == "All Myses: mine iron."
    )
    system = models["Idle"].requests[-1].messages[0]["content"]
    assert "All Myses: mine iron." not in system  # volatile: never in the system prompt
    assert [b.content for b in await commander.broadcasts()] == ["All Myses: mine iron."]


async def test_nudges_escalate_then_the_breaker_idles_the_mysis(open_commander, clock) -> None:
    model = ScriptedModel(default=SILENT)
    commander = await open_commander(models={"Mute": model}, starter_swarm=False)
    sub = commander.bus.subscribe()
    view = await commander.create_mysis("Mute")
    await until(lambda: len(model.requests) == 1)
    clock.advance(29)
    await until(lambda: clock.waiting >= 1)
    assert len(model.requests) == 1  # not yet: the idle interval is 30 s
    await advance_until(clock, lambda: commander.mysis(view.id).state == "idle", step=5)
    nudges = [e for e in drain(sub) if isinstance(e, NudgeSent)]
    assert [n.level for n in nudges] == [1, 2, 3]
    assert [last_said(model.requests[i])["content"] for i in (1, 2, 3)] == [
        prompts.nudge_text(1),
        prompts.nudge_text(2),
        prompts.nudge_text(3),
    ]
    assert commander.mysis(view.id).last_error == "Failed to respond after 3 encouragements"
    # Nudges are ephemeral: never stored as memories, but logged with their requests.
    memories = await commander.memories(view.id)
    assert not any(m.content.startswith(tuple(prompts.NUDGE_TEXTS.values())) for m in memories)
    levels = [r.nudge_level for r in await commander.store.list_requests(view.id)]
    assert levels == [0, 1, 2, 3]


async def test_a_productive_answer_resets_the_counter(open_commander, clock) -> None:
    model = ScriptedModel(SILENT, SILENT, calls(("help", "{}")), default=SILENT)
    commander = await open_commander(models={"Chatty": model}, starter_swarm=False)
    view = await commander.create_mysis("Chatty")
    await advance_until(clock, lambda: len(model.requests) >= 3, step=5)
    await until(lambda: commander.mysis(view.id).nudges == 0)
    assert commander.mysis(view.id).state == "running"


async def test_wait_states_nudge_on_the_games_hint_not_the_idle_interval(
    open_commander, clock, config
) -> None:
    """A refused 'too early' call makes the next nudge come after the game's wait hint."""
    model = ScriptedModel(default=SILENT)
    commander = await open_commander(models={"Waiter": model}, starter_swarm=False)
    view = await commander.create_mysis("Waiter")
    runtime = commander._myses[view.id]
    await until(lambda: len(model.requests) == 1)
    runtime.waiting_on_game, runtime.wait_hint = True, 5.0
    assert runtime._interval(config.nudge) == 5.0
    runtime.wait_hint = 10_000.0
    assert runtime._interval(config.nudge) == config.nudge.wait_state_seconds


def _two_encouragements() -> Config:
    base = Config()
    return replace(
        base,
        game=replace(base.game, tick_seconds=0),
        nudge=replace(base.nudge, max_encouragements=2),
    )


@pytest.mark.parametrize("config", [_two_encouragements()], ids=["max_encouragements=2"])
async def test_the_breaker_names_the_configured_count(open_commander, clock) -> None:
    model = ScriptedModel(default=SILENT)
    commander = await open_commander(models={"Mute": model}, starter_swarm=False)
    sub = commander.bus.subscribe()
    view = await commander.create_mysis("Mute")
    await advance_until(clock, lambda: commander.mysis(view.id).state == "idle", step=5)
    assert [n.level for n in drain(sub) if isinstance(n, NudgeSent)] == [1, 2]
    assert commander.mysis(view.id).last_error == "Failed to respond after 2 encouragements"
    assert prompts.breaker_error(2) != prompts.BREAKER_ERROR  # the count is not fixed at 3


class _HeldModel(ScriptedModel):
    """A scripted model that holds its ``hold_at``-th request until released."""

    def __init__(self, *answers: object, hold_at: int, **kw: object) -> None:
        super().__init__(*answers, **kw)
        self.hold_at = hold_at
        self.held = asyncio.Event()
        self.release = asyncio.Event()

    async def chat(self, request, on_event=None):  # type: ignore[no-untyped-def]
        if len(self.requests) + 1 == self.hold_at and not self.held.is_set():
            self.held.set()
            await self.release.wait()
        return await super().chat(request, on_event)


@pytest.mark.parametrize("how", ["direct", "broadcast"])
async def test_an_order_cuts_a_request_whose_answer_would_end_the_turn(
    open_commander, how: str
) -> None:
    """Issue 40: an order that arrives while the model writes an answer is not taken as
    answered by it. The answer (here text only: it would end the turn) is written from a
    request that did not have the order; stored after the order, it sat between the order
    and a nudge, so the order looked answered and was never carried out. The order cuts
    that request: it is logged as cut, and the next one opens the order's turn with
    nothing after the order but the game state."""
    model = _HeldModel(
        calls(("get_status", "{}")),
        ChatResponse(content="Status report: docked, cargo empty."),
        hold_at=2,
    )
    commander = await open_commander(models={"Ada": model}, starter_swarm=False)
    view = await commander.create_mysis("Ada")
    await until(model.held.is_set)
    if how == "direct":
        await commander.send_message(view.id, "report")
    else:
        await commander.broadcast("report")
    order = (await commander.memories(view.id))[-1]
    assert (order.source, order.content) == (how, "report")
    model.release.set()  # the held request, unless it was cut, answers now
    runtime = commander._myses[view.id]
    await until(lambda: runtime.turns == 2 and runtime.turn is None)
    answering = next(
        r.messages for r in model.requests if any(m.get("content") == "report" for m in r.messages)
    )
    texts = [m.get("content") or "" for m in answering]
    at = texts.index("report")
    assert texts[at + 1].startswith(prompts.STATE_HEADER), "the order opens the turn"
    assert len(texts) == at + 2, "nothing the model wrote before the order follows it"
    assert not validate(answering)
    turns = await commander.store.list_turns(view.id)
    assert [t.kind for t in turns] == ["start", how]
    assert turns[1].first_memory_id == order.id
    requests = await commander.store.list_requests(view.id)
    assert [(r.outcome, r.turn_id) for r in requests] == [
        ("ok", turns[0].id),
        ("cancelled", turns[0].id),
        ("ok", turns[1].id),
    ]
    assert requests[1].error == CUT_BY_ORDER
    after = [m.content for m in await commander.memories(view.id) if m.id > order.id]
    assert after == ["Status report: docked, cargo empty."]


async def test_an_order_that_comes_with_the_answer_drops_it(open_commander) -> None:
    """The answer has come but is not stored yet when the order is: the request is no
    longer cut (its answer is in hand), and the answer, written without the order, is
    dropped rather than stored after it (``Store.add_answer``)."""
    model = ScriptedModel(
        calls(("get_status", "{}")),
        ChatResponse(content="Holding position."),
        ChatResponse(content="Status report: docked, cargo empty."),
    )
    commander = await open_commander(models={"Ada": model}, starter_swarm=False)
    view = await commander.create_mysis("Ada")
    runtime = commander._myses[view.id]
    finish = runtime._finish_request

    async def order_first(request_id: int, outcome: str, *args: object, **kw: object) -> None:
        if len(model.requests) == 2 and outcome == "ok":
            await commander.send_message(view.id, "report")
        await finish(request_id, outcome, *args, **kw)  # type: ignore[arg-type]

    runtime._finish_request = order_first  # type: ignore[method-assign]
    await until(lambda: runtime.turns == 2 and runtime.turn is None)
    memories = await commander.memories(view.id)
    order = next(m for m in memories if m.content == "report")
    assert [m.content for m in memories if m.role == "assistant" and not m.tool_calls] == [
        "Status report: docked, cargo empty."
    ]
    assert memories[-1].id > order.id
    outcomes = [r.outcome for r in await commander.store.list_requests(view.id)]
    assert outcomes == ["ok", "ok", "ok"], "answered, not cut: the answer was dropped"


async def test_a_myses_broadcast_does_not_cut_a_request(open_commander) -> None:
    """A Mysis's broadcast is news, not an order: the request under way goes on."""
    models = {
        "Ada": _HeldModel(ChatResponse(content="Mining."), hold_at=1),
        "Bob": ScriptedModel(),
    }
    commander = await open_commander(models=models, starter_swarm=False)
    ada = await commander.create_mysis("Ada")
    bob = await commander.create_mysis("Bob")
    await until(models["Ada"].held.is_set)
    await commander.broadcast_from(bob.id, "iron at Sol")
    models["Ada"].release.set()
    runtime = commander._myses[ada.id]
    await until(lambda: runtime.turns >= 1 and runtime.turn is None)
    requests = await commander.store.list_requests(ada.id)
    assert requests[0].outcome == "ok"
    said = [m.content for m in await commander.memories(ada.id) if m.role == "assistant"]
    assert said[0] == "Mining."


async def test_a_prompt_arriving_mid_turn_starts_the_next_turn(open_commander) -> None:
    """Seed 004: the turn starts at the most recent prompt. A commander message stored
    while a turn runs ends that turn; the message opens a new turn, so ``turn-aware``
    sends it at the head of the turn, the interrupted turn compressed to its latest loop
    (before: the order was sent in the middle of the running turn). The request the model
    was answering when the order came is cut (``CUT_BY_ORDER``): the calls it would have
    made were chosen without the order, so they are never made, and the order's turn plays
    its own rounds."""
    model = _HeldModel(
        calls(("get_status", "{}")),
        calls(("get_cargo", "{}")),
        ChatResponse(content="Stopping and reporting: cargo empty."),
        hold_at=2,
    )
    commander = await open_commander(models={"Ada": model}, starter_swarm=False)
    view = await commander.create_mysis("Ada")
    await until(lambda: model.held.is_set())
    await commander.send_message(view.id, "Stop and report.")
    order = (await commander.memories(view.id))[-1]
    assert order.content == "Stop and report."
    model.release.set()
    runtime = commander._myses[view.id]
    await until(lambda: len(model.requests) == 3 and runtime.turn is None)
    turns = await commander.store.list_turns(view.id)
    assert [t.kind for t in turns] == ["start", "direct"]
    assert turns[1].first_memory_id == order.id
    requests = await commander.store.list_requests(view.id)
    assert [(r.turn_id, r.outcome) for r in requests] == [
        (turns[0].id, "ok"),
        (turns[0].id, "cancelled"),
        (turns[1].id, "ok"),
        (turns[1].id, "ok"),
    ]
    third = model.requests[2].messages
    texts = [m.get("content") or "" for m in third]
    at = texts.index("Stop and report.")
    assert texts[at + 1].startswith(prompts.STATE_HEADER), "the order opens the turn"
    calls_at = {
        c["function"]["name"]: i for i, m in enumerate(third) for c in m.get("tool_calls") or ()
    }
    # The round stored before the order is the earlier turn's latest loop; the order's
    # turn makes its own call after it.
    assert calls_at["get_status"] < at < calls_at["get_cargo"]
    assert not validate(third)


async def test_a_broadcast_sent_in_a_turns_request_is_answered_in_that_turn(
    open_commander,
) -> None:
    """Issue 40: a broadcast stored after a round's tool ran, before the turn's next
    request was composed, goes in that request. A model that begins its answer with a
    call (the autopilot checks its status before a report) must get the next round:
    the turn used to end on the pending prompt, and the next turn (a nudge, the prompt
    having been sent) no longer asked for it, so the report was never given."""
    model = ScriptedModel(
        calls(("get_status", "{}")),
        calls(("get_status", "{}")),
        ChatResponse(content="Status report: docked, cargo empty."),
    )
    commander = await open_commander(models={"Ada": model}, starter_swarm=False)
    view = await commander.create_mysis("Ada")
    runtime = commander._myses[view.id]
    ask = runtime._ask_model
    between, release = asyncio.Event(), asyncio.Event()

    async def held(nudge_level: int, turn_round: int | None = None) -> object:
        if turn_round == 2 and not between.is_set():  # a tool ran; nothing composed yet
            between.set()
            await release.wait()
        return await ask(nudge_level, turn_round)

    runtime._ask_model = held  # type: ignore[method-assign]
    await until(between.is_set)
    await commander.broadcast("report")
    order = (await commander.memories(view.id))[-1]
    assert (order.source, order.content) == ("broadcast", "report")
    release.set()
    # The manual clock never moves: no nudge comes, the answer is the turn's next round.
    await until(lambda: len(model.requests) == 3)
    await until(lambda: runtime.turn is None)
    assert "report" in [m.get("content") for m in model.requests[1].messages]
    requests = await commander.store.list_requests(view.id)
    assert len({r.turn_id for r in requests}) == 1, "one turn: the order was in it"
    assert commander.mysis(view.id).last_answer == "Status report: docked, cargo empty."


@pytest.mark.parametrize("then", ["another order", "a stop"])
async def test_a_cut_request_is_logged_whatever_comes_next(open_commander, then: str) -> None:
    """The cut request's log row is written while the store's lock is busy (another
    Mysis writing): a second order, or a stop, that comes meanwhile leaves it logged as
    cut, not pending, and its end is told (``RequestFinished``)."""
    model = _HeldModel(calls(("get_status", "{}")), ChatResponse(content="Report."), hold_at=2)
    commander = await open_commander(models={"Ada": model}, starter_swarm=False)
    sub = commander.bus.subscribe()
    view = await commander.create_mysis("Ada")
    await until(model.held.is_set)
    finish = commander.store.finish_request
    finishing = asyncio.Event()

    async def busy(request_id: int, **kw: object) -> None:
        finishing.set()
        await asyncio.sleep(0.2)  # the write lock is another Mysis's meanwhile
        await finish(request_id, **kw)  # type: ignore[arg-type]

    commander.store.finish_request = busy  # type: ignore[method-assign]
    await commander.send_message(view.id, "report")
    await until(finishing.is_set)
    if then == "a stop":
        await commander.stop_mysis(view.id)
    else:
        await commander.send_message(view.id, "and mine")
    model.release.set()

    async def logged() -> list[tuple[int, str, str | None]]:
        return [(r.id, r.outcome, r.error) for r in await commander.store.list_requests(view.id)]

    rows = await logged()
    for _ in range(300):
        if all(outcome != "pending" for _, outcome, _ in rows):
            break
        await asyncio.sleep(0.05)
        rows = await logged()
    assert rows[1][1:] == ("cancelled", CUT_BY_ORDER), rows
    assert all(outcome != "pending" for _, outcome, _ in rows), rows
    told = {e.request_id for e in drain(sub) if isinstance(e, RequestFinished)}
    assert rows[1][0] in told


async def test_an_order_does_not_cut_a_failure_being_recorded(open_commander) -> None:
    """The model refused for good and the Mysis is being recorded as errored when an
    order comes (the commander checked the state before storing it): the record is
    written whole, so the store says errored as the runtime does (a cut once left it
    'running' there, to be started again at the next launch)."""
    refused = ProviderError("bad request")
    refused.retryable = False
    commander = await open_commander(models={"Ada": ScriptedModel(refused)}, starter_swarm=False)
    update = commander.store.update_mysis
    erring = asyncio.Event()

    async def busy(mysis_id: int, **fields: object) -> object:
        if fields.get("state") == "errored":
            erring.set()
            await asyncio.sleep(0.2)  # the write lock is another Mysis's meanwhile
        return await update(mysis_id, **fields)  # type: ignore[arg-type]

    commander.store.update_mysis = busy  # type: ignore[method-assign]
    view = await commander.create_mysis("Ada")
    runtime = commander._myses[view.id]
    await until(erring.is_set)
    await commander.store.add_memory(view.id, NewMemory("user", "direct", "report"))
    runtime.deliver(order=True)  # as ``Commander._deliver`` would, its check passed before
    stored = await commander.store.get_mysis(view.id)
    for _ in range(300):
        if stored is not None and stored.state == "errored":
            break
        await asyncio.sleep(0.05)
        stored = await commander.store.get_mysis(view.id)
    assert runtime.state == "errored"
    assert stored is not None and stored.state == "errored"


async def test_a_request_cut_while_it_is_logged_is_logged_as_cut(open_commander) -> None:
    """The order comes while the request's log row is being written (the store busy with
    another Mysis): the row says the request was cut, not "stopped before the call"."""
    model = ScriptedModel(default=ChatResponse(content="Done."))
    commander = await open_commander(models={"Ada": model}, starter_swarm=False)
    log_request = commander.store.log_request
    logging = asyncio.Event()

    async def busy(*args: object, **kw: object) -> int:
        if not logging.is_set():
            logging.set()
            await asyncio.sleep(0.2)  # the write lock is another Mysis's meanwhile
        return await log_request(*args, **kw)  # type: ignore[arg-type]

    commander.store.log_request = busy  # type: ignore[method-assign]
    view = await commander.create_mysis("Ada")
    await until(logging.is_set)
    await commander.send_message(view.id, "report")
    rows: list[tuple[str, str | None]] = []
    for _ in range(300):
        rows = [(r.outcome, r.error) for r in await commander.store.list_requests(view.id)]
        if len(rows) >= 2 and all(outcome != "pending" for outcome, _ in rows):
            break
        await asyncio.sleep(0.05)
    assert rows[0] == ("cancelled", CUT_BY_ORDER), rows

"""Pilot tests: the commander's orders are carried out once, on the real app.

The swarm is the starter swarm of autopilot Myses on the embedded world with a fast
tick (``fast_config``); orders go in as the commander types them (``b`` for a
broadcast, ``m`` for a direct message). A report is answered once and the Mysis goes
back to its work, in this app and after a relaunch on the same database; a Mysis
created afterwards registers and works instead of answering the old report.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot

from zoea_tui.config import Config
from zoea_tui.core.types import Memory
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.providers.base import (
    ChatRequest,
    ChatResponse,
    EventSink,
    ProviderError,
    TextDelta,
)
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.focus import FocusScreen
from zoea_tui.ui.screens.input_bar import InputBar
from zoea_tui.ui.widgets.conversation import ConversationLog

from .helpers import settle, view_rows, wait_for

SIZE = (120, 40)
#: Game calls that are work (not a look at the status).
WORK = frozenset({"mine", "travel", "dock", "undock", "sell", "refuel", "repair", "jump"})


def reports(memories: list[Memory], after: int) -> list[Memory]:
    """The status reports a Mysis gave after memory ``after``."""
    return [
        m
        for m in memories
        if m.id > after and m.role == "assistant" and m.content.startswith("Status report")
    ]


def worked(memories: list[Memory], after: int) -> bool:
    """Whether a Mysis called a game action after memory ``after``."""
    return any(
        m.id > after and m.role == "assistant" and any(c.name in WORK for c in m.tool_calls)
        for m in memories
    )


class Swarm:
    """What the Myses stored, read again at each look (the test polls it)."""

    def __init__(self, commander: Commander) -> None:
        self.commander = commander
        self.memories: dict[int, list[Memory]] = {}

    async def read(self) -> None:
        for view in self.commander.myses():
            self.memories[view.id] = await self.commander.memories(view.id, 400)

    def newest(self, mysis_id: int) -> int:
        return self.memories[mysis_id][-1].id if self.memories.get(mysis_id) else 0


async def poll(
    pilot: Pilot[None],
    swarm: Swarm,
    predicate: Callable[[], object],
    what: str,
    timeout: float = 60,
) -> None:
    """Let the app run, reading the swarm's memories, until ``predicate()`` holds.

    ``timeout`` detects a hang, it times nothing: a message waits for the turn under way
    to end, which took over 20 s on a loaded machine's stock-Textual run."""
    deadline = time.monotonic() + timeout
    while True:
        await swarm.read()
        if predicate():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.1)


async def poll_each(
    pilot: Pilot[None],
    swarm: Swarm,
    ids: list[int],
    check: Callable[[list[Memory], int], object],
    since: dict[int, int],
    what: str,
) -> None:
    """:func:`poll` until ``check(memories, since[i])`` holds for every Mysis ``i`` of
    ``ids`` (its memories after its memory ``since[i]``)."""
    await poll(pilot, swarm, lambda: all(check(swarm.memories[i], since[i]) for i in ids), what)


@asynccontextmanager
async def launched(
    config: Config, db: Path
) -> AsyncIterator[tuple[Commander, ZoeaApp, Swarm, Pilot[None]]]:
    """A launch of the app on the database ``db``, settled; the commander shut down after."""
    commander = await Commander.open(config, db_path=db)
    app = ZoeaApp(commander)
    swarm = Swarm(commander)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            yield commander, app, swarm, pilot
    finally:
        await commander.shutdown(timeout=0.5)


async def registered(pilot: Pilot[None], swarm: Swarm, ids: list[int]) -> None:
    """Wait for every Mysis of ``ids`` to have an account."""
    commander = swarm.commander
    await poll(
        pilot, swarm, lambda: all(commander.mysis(i).account for i in ids), "the swarm to register"
    )


async def test_a_broadcast_report_is_answered_once_then_the_swarm_works_on(
    tmp_path: Path, fast_config: Config
) -> None:
    """The freeze of issue 40: after a broadcast "report" every Mysis answered it at each
    nudge and never called a tool again, through a relaunch; a Mysis created afterwards
    answered the old report and never registered."""
    db = tmp_path / "zoea.db"
    async with launched(fast_config, db) as (commander, _app, swarm, pilot):
        ids = [v.id for v in commander.myses()]
        await registered(pilot, swarm, ids)
        before = {i: swarm.newest(i) for i in ids}
        await pilot.press("b", *"report", "enter")
        await poll_each(pilot, swarm, ids, reports, before, "every Mysis to report")
        answered = {i: reports(swarm.memories[i], before[i])[0].id for i in ids}
        await poll_each(
            pilot, swarm, ids, worked, answered, "every Mysis to go back to work after its report"
        )
        for i in ids:
            assert len(reports(swarm.memories[i], before[i])) == 1
        last = {i: swarm.newest(i) for i in ids}

    # A relaunch: a new commander and app on the same database.
    async with launched(fast_config, db) as (commander, _app, swarm, pilot):
        await poll_each(pilot, swarm, ids, worked, last, "every Mysis to work after the relaunch")
        dora = await commander.create_mysis("Dora")
        await poll(
            pilot,
            swarm,
            lambda: bool(commander.mysis(dora.id).account) and worked(swarm.memories[dora.id], 0),
            "the new Mysis to register and work",
        )
        assert not reports(swarm.memories[dora.id], 0)
        for i in ids:
            assert not reports(swarm.memories[i], last[i])


async def send_direct(pilot: Pilot[None], app: ZoeaApp, text: str, *, back: bool = True) -> None:
    """Focus the selected Mysis and send it ``text`` (``m``), then (``back``) back to the
    dashboard."""
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, FocusScreen), what="focus view")
    await pilot.press("m")
    assert isinstance(app.screen, InputBar)
    await pilot.press(*text, "enter")
    if back:
        await pilot.press("escape")


async def test_a_direct_report_is_answered_once_then_the_mysis_works_on(
    app: ZoeaApp, commander: Commander
) -> None:
    swarm = Swarm(commander)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = commander.myses()[0].id
        await poll(pilot, swarm, lambda: bool(commander.mysis(first).account), "the registration")
        before = swarm.newest(first)
        await send_direct(pilot, app, "report", back=False)
        await poll(pilot, swarm, lambda: bool(reports(swarm.memories[first], before)), "the report")
        answered = reports(swarm.memories[first], before)[0].id
        await poll(pilot, swarm, lambda: worked(swarm.memories[first], answered), "work after it")
        assert len(reports(swarm.memories[first], before)) == 1


def holds(memories: list[Memory], after: int) -> int:
    """How many times a Mysis answered that it holds, after memory ``after``."""
    return sum(
        1
        for m in memories
        if m.id > after
        and m.role == "assistant"
        and m.content.startswith("Holding position as ordered")
    )


def holding(times: int) -> Callable[[list[Memory], int], bool]:
    """Whether a Mysis answered that it holds at least ``times`` times after a memory."""
    return lambda memories, after: holds(memories, after) >= times


async def test_a_hold_holds_through_a_relaunch_until_another_order(
    tmp_path: Path, fast_config: Config
) -> None:
    """A direct hold to one Mysis and a broadcast hold to all hold through a relaunch
    (no game action, a "Holding" answer at each nudge); another order frees them."""
    db = tmp_path / "zoea.db"
    async with launched(fast_config, db) as (commander, app, swarm, pilot):
        ids = [v.id for v in commander.myses()]
        first = ids[0]
        await registered(pilot, swarm, ids)
        before = swarm.newest(first)
        await send_direct(pilot, app, "hold position")
        await poll(pilot, swarm, lambda: holds(swarm.memories[first], before) >= 2, "the hold")

    async with launched(fast_config, db) as (commander, app, swarm, pilot):
        await swarm.read()
        relaunched = swarm.newest(first)
        await poll(
            pilot,
            swarm,
            lambda: holds(swarm.memories[first], relaunched) >= 2,
            "the direct hold to stand after the relaunch",
        )
        assert not worked(swarm.memories[first], relaunched)
        await send_direct(pilot, app, "mine")
        await poll(pilot, swarm, lambda: worked(swarm.memories[first], relaunched), "work")
        before_all = {i: swarm.newest(i) for i in ids}
        await pilot.press("b", *"all pilots: hold", "enter")
        await poll_each(pilot, swarm, ids, holds, before_all, "every Mysis to hold")

    async with launched(fast_config, db) as (commander, app, swarm, pilot):
        await swarm.read()
        relaunched_all = {i: swarm.newest(i) for i in ids}
        await poll_each(
            pilot, swarm, ids, holding(2), relaunched_all, "the broadcast hold after the relaunch"
        )
        assert not any(worked(swarm.memories[i], relaunched_all[i]) for i in ids)
        await pilot.press("b", *"all pilots: mine", "enter")
        await poll_each(pilot, swarm, ids, worked, relaunched_all, "every Mysis to work again")


@pytest.mark.parametrize(
    ("hold_how", "report_how"),
    [("broadcast", "broadcast"), ("direct", "direct"), ("broadcast", "direct")],
    ids=["broadcast", "direct", "broadcast hold, direct report"],
)
async def test_a_report_during_a_hold_does_not_end_the_hold(
    hold_how: str, report_how: str, tmp_path: Path, fast_config: Config
) -> None:
    """Issue 40, found in tmux: a report (broadcast or direct) sent while the swarm held
    freed it, and within a turn or two the Myses mined again. They answer the report,
    hold through the nudges that follow (no game action), and "mine" frees them. A
    direct report to a Mysis the broadcast holds says the hold it stands under.

    The report goes whenever the keys send it, between turns or while a request is in
    flight: an order cuts a request under way, whose answer would read as the order's
    (``tests/orchestrator/test_prompts_and_nudges.py`` holds a request to show it)."""
    async with launched(fast_config, tmp_path / "zoea.db") as (commander, app, swarm, pilot):
        ids = [v.id for v in commander.myses()]
        told = ids if report_how == "broadcast" else ids[:1]
        await registered(pilot, swarm, ids)

        async def order(text: str, how: str) -> None:
            if how == "broadcast":
                await pilot.press("b", *text, "enter")
            else:
                await pilot.press("enter")
                await wait_for(pilot, lambda: isinstance(app.screen, FocusScreen), what="focus")
                await pilot.press("m", *text, "enter", "escape")

        before = {i: swarm.newest(i) for i in told}
        await order("hold position", hold_how)
        await poll_each(pilot, swarm, told, holds, before, "the hold")
        held = {i: swarm.newest(i) for i in told}
        await order("report", report_how)
        await poll_each(pilot, swarm, told, reports, held, "the report")
        answered = {i: reports(swarm.memories[i], held[i])[0].id for i in told}
        # Several nudges later (the first one after the report freed them), still held.
        await poll_each(pilot, swarm, told, holding(4), answered, "four holds after the report")
        assert not any(worked(swarm.memories[i], held[i]) for i in told)
        for i in told:
            assert "standing order: hold" in reports(swarm.memories[i], held[i])[0].content
        await order("mine", hold_how)
        await poll_each(pilot, swarm, told, worked, answered, "work after the mining order")


class _Streaming:
    """A model that streams the start of an answer to its first request (once the test
    watches), and a last fragment as the request is cut, as a client reading a stream
    does; it answers the next request when the test says."""

    label = "streaming"

    def __init__(self) -> None:
        self.asked = 0
        #: Set when the test watches: the stream begins.
        self.watched = asyncio.Event()
        #: Set when the test has looked: the next request is answered.
        self.answer = asyncio.Event()

    async def chat(self, request: ChatRequest, on_event: EventSink | None = None) -> ChatResponse:
        self.asked += 1
        if self.asked == 1:
            assert on_event is not None
            await self.watched.wait()
            on_event(TextDelta("Holding position, all"))
            try:
                await asyncio.Event().wait()  # writes on until cut
            except asyncio.CancelledError:
                on_event(TextDelta("Holding position, all hands"))
                raise
        await self.answer.wait()
        return ChatResponse(content="Status report: docked.")

    async def aclose(self) -> None:
        return None


@asynccontextmanager
async def _streaming_in_focus(
    model: _Streaming, tmp_path: Path, config: Config
) -> AsyncIterator[tuple[Pilot[None], Commander, int, Callable[[], str]]]:
    """The app on one Mysis flying ``model``, its focus view open once the model
    streams: the pilot, the commander, the Mysis's id and what the conversation shows."""
    commander = await Commander.open(
        config,
        db_path=tmp_path / "zoea.db",
        starter_swarm=False,
        provider_factory=lambda record: model,  # type: ignore[arg-type,return-value]
    )
    try:
        view = await commander.create_mysis("Ada")
        app = ZoeaApp(commander)
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, FocusScreen), what="focus")
            log = app.screen.query_one(ConversationLog)

            def shown() -> str:
                return "\n".join(view_rows(log))

            model.watched.set()
            await wait_for(pilot, lambda: "Holding position, all" in shown(), what="the stream")
            yield pilot, commander, view.id, shown
    finally:
        await commander.shutdown(timeout=0.5)


async def test_what_a_cut_request_streamed_leaves_the_conversation(
    tmp_path: Path, fast_config: Config
) -> None:
    """The focus view shows the answer as it streams; an order cuts the request, and what
    it had streamed goes from the conversation (it would read as the order's answer)."""
    model = _Streaming()
    async with _streaming_in_focus(model, tmp_path, fast_config) as (pilot, commander, ada, shown):
        await commander.send_message(ada, "report")
        await wait_for(pilot, lambda: model.asked == 2, what="the order's request")
        for _ in range(5):  # the cut call's end reaches the screen
            await pilot.pause(0.05)
        assert "report" in shown() and "Holding position" not in shown()
        model.answer.set()
        await wait_for(pilot, lambda: "Status report: docked." in shown(), what="the answer")


class _Failing(_Streaming):
    """Streams the start of an answer, then the server refuses for good."""

    async def chat(self, request: ChatRequest, on_event: EventSink | None = None) -> ChatResponse:
        self.asked += 1
        assert on_event is not None
        await self.watched.wait()
        on_event(TextDelta("Holding position, all"))
        await self.answer.wait()
        raise ProviderError("the server refused: bad request")


async def test_what_a_failed_call_streamed_leaves_the_conversation(
    tmp_path: Path, fast_config: Config
) -> None:
    """A call that fails after streaming part of an answer stores no memory to take the
    stream's place: its end (``RequestsFinished``) clears what it streamed."""
    model = _Failing()
    async with _streaming_in_focus(model, tmp_path, fast_config) as (pilot, commander, ada, shown):
        model.answer.set()
        await wait_for(pilot, lambda: "ERROR" in shown(), what="the error")
        assert commander.mysis(ada).state == "errored"
        assert "Holding position" not in shown()

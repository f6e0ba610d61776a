"""Helpers of the UI tests: a fixed swarm, an opener, waiting on the app, and watching
what a screen lays out and a line-API view shows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

from textual.app import App
from textual.pilot import Pilot
from textual.scroll_view import ScrollView
from textual.widget import Widget

from zoea_tui.config import Config
from zoea_tui.core.types import ToolCall
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.events import Event
from zoea_tui.providers.base import ChatRequest, ChatResponse
from zoea_tui.storage import NewMemory, Store
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.messages import EngineBatch

W = TypeVar("W", bound=Widget)
#: What a picture test runs before it takes the picture (``snap_compare``'s run_before).
Prepare = Callable[[Pilot], Awaitable[None]]

#: A fixed moment (2026-01-02 03:04:05 UTC) for the seeded conversation.
T0 = 1767323045.0


SEEDED_CONVERSATION = (
    NewMemory(
        "user",
        "direct",
        "Mine ore at the belt, sell it at the station, report back.",
        created_at=T0,
        game_tick=10,
    ),
    NewMemory(
        "assistant",
        "llm",
        "",
        reasoning="No account yet: I log in first.\nThen I check where I am.",
        tool_calls=(ToolCall("call_1", "login", '{"username": "Ada"}'),),
        created_at=T0 + 2,
        game_tick=10,
    ),
    NewMemory(
        "tool",
        "tool",
        '{"player": {"username": "Ada", "credits": 150}, "session": "[redacted]"}',
        tool_call_id="call_1",
        tool_name="login",
        created_at=T0 + 3,
        game_tick=11,
    ),
    NewMemory(
        "assistant",
        "llm",
        "",
        tool_calls=(ToolCall("call_2", "get_system", "{}"),),
        created_at=T0 + 4,
        game_tick=11,
    ),
    NewMemory(
        "tool",
        "tool",
        '{"system": {"id": "sol", "name": "Sol", "pois": ['
        + ", ".join(f'{{"id": "poi_{i}", "name": "Station {i}"}}' for i in range(40))
        + "]}}",
        tool_call_id="call_2",
        tool_name="get_system",
        created_at=T0 + 5,
        game_tick=12,
    ),
    NewMemory(
        "assistant",
        "llm",
        "",
        tool_calls=(ToolCall("call_3", "travel", '{"poi": "sol_belt"}'),),
        created_at=T0 + 6,
        game_tick=12,
    ),
    NewMemory(
        "tool",
        "tool",
        '{"error": {"code": "cooldown", "message": "Engines are '
        'cooling down; try again at tick 14."}}',
        tool_call_id="call_3",
        tool_name="travel",
        created_at=T0 + 7,
        game_tick=12,
    ),
    NewMemory(
        "assistant",
        "llm",
        "Engines cooling down. I will travel to the belt at tick 14 and start mining.",
        created_at=T0 + 8,
        game_tick=12,
    ),
    NewMemory(
        "user",
        "broadcast",
        "All pilots: iron ore sells high at Sol Station.",
        created_at=T0 + 20,
        game_tick=15,
    ),
)


async def seed(path: Path) -> None:
    """Write a fixed swarm: Ada (idle, a conversation), Brin (stopped), Cass (errored)."""
    store = await Store.open(path)
    try:
        ada = await store.create_mysis("Ada", provider="autopilot", strategy="turn-aware")
        await store.add_memories(ada.id, SEEDED_CONVERSATION)
        await store.update_mysis(ada.id, state="idle", account="Ada")
        brin = await store.create_mysis("Brin", provider="autopilot", strategy="loop-slice")
        await store.update_mysis(brin.id, state="stopped", account="Brin")
        cass = await store.create_mysis("Cass", provider="autopilot", strategy="summarize")
        await store.update_mysis(
            cass.id,
            state="errored",
            last_error="the model endpoint refused the request (HTTP 503): try again later",
        )
        sent = await store.add_broadcast(
            "All pilots: iron ore sells high at Sol Station.", sender_id=None, game_tick=15
        )
        await store.connection.execute(
            "UPDATE broadcasts SET created_at = ? WHERE id = ?", (T0 + 20, sent.id)
        )
    finally:
        await store.close()


def opener(config: Config, db_path: Path) -> Callable[[], Awaitable[Commander]]:
    """Opens the commander on ``db_path`` without starting any Mysis."""

    async def open_commander() -> Commander:
        return await Commander.open(config, db_path=db_path, autostart=False)

    return open_commander


async def wait_for(
    pilot: Pilot,
    predicate: Callable[[], object],
    timeout: float = 10.0,
    what: str = "the condition",
) -> None:
    """Let the app run until ``predicate()`` is true (fails after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def settle(pilot: Pilot) -> None:
    """Wait for the engine to open and for every finite worker to finish."""
    app = pilot.app
    assert isinstance(app, ZoeaApp)
    await wait_for(pilot, lambda: app.commander is not None, what="the engine")
    for _ in range(3):
        finite = [w for w in app.workers if w.group not in {"engine-events"} and not w.is_finished]
        if finite:
            # A newer worker of an exclusive group cancels the older one: not a failure.
            await asyncio.gather(*(w.wait() for w in finite), return_exceptions=True)
        await pilot.pause()


async def told(pilot: Pilot, events: Iterable[Event]) -> None:
    """Hands ``events`` to the app in one batch, as the bridge does, and waits until the
    dashboard shows what changed (at its next flush)."""
    pilot.app.post_message(EngineBatch(tuple(events)))
    await pilot.pause(0.3)
    await settle(pilot)


def pressed_after(prepare: Prepare, key: str) -> Prepare:
    """``prepare``, then ``key`` pressed and what it started finished."""

    async def run(pilot: Pilot) -> None:
        await prepare(pilot)
        await pilot.press(key)
        await settle(pilot)

    return run


class HeldModel:
    """A model that answers each request with what the test hands it, when it does."""

    label = "held"

    def __init__(self) -> None:
        self.answers: asyncio.Queue[ChatResponse] = asyncio.Queue()
        self.asked = 0

    async def chat(self, request: ChatRequest, on_event: object = None) -> ChatResponse:
        self.asked += 1
        return await self.answers.get()

    async def aclose(self) -> None:
        return None


@asynccontextmanager
async def held_app(
    config: Config, db_path: Path, model: HeldModel
) -> AsyncIterator[tuple[Pilot[None], ZoeaApp, Commander]]:
    """The app at 160×50, settled, on a commander with no starter swarm whose every new
    Mysis asks ``model``: the pilot, the app and the commander (shut down after)."""
    commander = await Commander.open(
        config, db_path=db_path, starter_swarm=False, provider_factory=lambda record: model
    )
    try:
        app = ZoeaApp(commander)
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot)
            yield pilot, app, commander
    finally:
        await commander.shutdown(timeout=0.5)


@asynccontextmanager
async def seeded_app(
    config: Config, db_path: Path, size: tuple[int, int]
) -> AsyncIterator[tuple[Pilot[None], ZoeaApp]]:
    """The app on the swarm stored in ``db_path``, running at ``size`` and settled: the
    pilot and the app."""
    app = ZoeaApp(opener(config, db_path))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        yield pilot, app


def view_rows(view: ScrollView) -> list[str]:
    """The text of a line-API view's rows on screen, without trailing blanks."""
    return [view.render_line(y).text.rstrip() for y in range(view.scrollable_content_region.height)]


@asynccontextmanager
async def painted(
    app: App[None], size: tuple[int, int], kind: type[W]
) -> AsyncIterator[tuple[Pilot[None], W]]:
    """``app`` running at ``size``, once its widget of ``kind`` is painted: the pilot and
    the widget."""
    async with app.run_test(size=size) as pilot:
        widget = app.query_one(kind)
        await pilot.pause()
        yield pilot, widget

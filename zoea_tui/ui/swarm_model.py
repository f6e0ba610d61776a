"""One model of the swarm for the whole UI, fed by the app's bridge.

The app's bridge hands each batch of engine events to :meth:`SwarmModel.feed`, the one
place where engine events are told apart. The model keeps what every screen shows of the
swarm once: the newest view of each Mysis, each one's action tail, each one's newest
request with the engine's checks (:class:`~zoea_tui.orchestrator.checked.CheckedRequest`),
the game tick and the network counters. Then it tells the screens that subscribed
(:meth:`subscribe`) what changed with typed messages, which they handle with
``@on(SwarmModel.MysesChanged)`` and the like and answer by rendering from the model.

What only changes state (views, tails, requests, the tick) comes as one message per
kind and batch, naming the Myses concerned, after the batch's stream of happenings
(memories stored, streamed text, errors, nudges, broadcasts, Myses added and removed),
which keep their order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.message_pump import MessagePump

from ..core.composition import DEFAULT_CONTEXT_WINDOW
from ..core.pricing import Bill
from ..core.types import Memory
from ..orchestrator import events as ev
from ..orchestrator.events import (
    BroadcastSent,
    ErrorRaised,
    Event,
    GameTick,
    MessageStored,
    MysisChanged,
    MysisDeleted,
    MysisView,
    NetworkActivity,
    Notice,
    NudgeSent,
    RequestComposed,
    RequestFinished,
    StreamDelta,
    TokenUsage,
    ToolCallFinished,
    ToolCallStarted,
)
from ..orchestrator.spend import SwarmSpend
from .activity import ActionTail, latest_answer, tail_from_memories
from .widgets.context_preview import PreviewData

if TYPE_CHECKING:
    from ..orchestrator.commander import Commander

#: Memories read per Mysis to fill its action tail (:meth:`SwarmModel.fill_tail`).
TAIL_MEMORIES = 24

#: Told, for each batch, which Myses it concerns and the memories it stored, by Mysis
#: (the read-ahead service listens so).
BatchListener = Callable[[frozenset[int], Mapping[int, list[Memory]]], None]
#: A message to post to each subscriber: its class and what it carries.
Announcement = tuple[Callable[[Any], Message], Any]


def supersedes(memory: Memory) -> bool:
    """True when ``memory`` makes the request a Mysis sent last no longer its newest: a
    turn ended (an answer without tool calls) or a prompt arrived. Until the Mysis sends
    again, the request every view shows is the next one, composed from the store."""
    return memory.role == "user" or (memory.role == "assistant" and not memory.tool_calls)


class SwarmModel:
    """The swarm as the UI knows it, and the typed messages that say it changed."""

    # -- what changed in state: render from the model -------------------------------------

    @dataclass
    class MysesChanged(Message, bubble=False):
        """New views of these Myses (:attr:`SwarmModel.views`)."""

        ids: frozenset[int]

    @dataclass
    class ActionsChanged(Message, bubble=False):
        """These Myses' action tails (:attr:`SwarmModel.tails`) or game facts changed."""

        ids: frozenset[int]

    @dataclass
    class RequestComposed(Message, bubble=False):
        """The newest request of these Myses changed: they composed one
        (:attr:`SwarmModel.latest` holds it), or what they stored since supersedes the
        one they sent (:attr:`SwarmModel.latest` holds none for them: a view composes
        the next one, so every view shows the same request)."""

        ids: frozenset[int]

    @dataclass
    class RequestsFinished(Message, bubble=False):
        """Logged requests whose calls ended, their outcomes now in the log."""

        requests: tuple[ev.RequestFinished, ...]

    @dataclass
    class Spent(Message, bubble=False):
        """These Myses' model calls were billed (:meth:`SwarmModel.spend`,
        :meth:`SwarmModel.bills`)."""

        ids: frozenset[int]

    @dataclass
    class Ticked(Message, bubble=False):
        """The game's tick moved (:attr:`SwarmModel.tick`)."""

        tick: int

    # -- what happened, in order ------------------------------------------------------------

    @dataclass
    class MysisAdded(Message, bubble=False):
        """A Mysis joined the swarm."""

        view: MysisView

    @dataclass
    class MysisRemoved(Message, bubble=False):
        """A Mysis was deleted (already gone from the model)."""

        mysis_id: int

    @dataclass
    class MemoriesStored(Message, bubble=False):
        """Memories stored, oldest first, each with its Mysis."""

        memories: tuple[tuple[int, Memory], ...]

        def of(self, mysis_id: int) -> list[Memory]:
            """The memories of Mysis ``mysis_id``."""
            return [m for i, m in self.memories if i == mysis_id]

    @dataclass
    class Streamed(Message, bubble=False):
        """What a model streamed so far in a Mysis's call."""

        delta: StreamDelta

    @dataclass
    class ErrorRaised(Message, bubble=False):
        """An error of the swarm or of a Mysis."""

        error: ev.ErrorRaised

    @dataclass
    class NudgeSent(Message, bubble=False):
        """A synthetic nudge sent to a Mysis."""

        nudge: ev.NudgeSent

    @dataclass
    class BroadcastSent(Message, bubble=False):
        """A broadcast reached the swarm."""

        broadcast: ev.BroadcastSent

    @dataclass
    class Noticed(Message, bubble=False):
        """Something the engine wants the commander to read."""

        notice: Notice

    def __init__(self) -> None:
        #: The open commander (None until it is).
        self.commander: Commander | None = None
        #: The newest view of every Mysis (from events; never read from the database).
        self.views: dict[int, MysisView] = {}
        #: Each Mysis's newest actions (from stored memories once, then from events).
        self.tails: dict[int, ActionTail] = {}
        #: Each Mysis's newest request sent, checked, while it is the newest: none once
        #: a memory supersedes it (:func:`supersedes`; the next one is composed then).
        self.latest: dict[int, ev.RequestComposed] = {}
        #: The game tick as the UI knew it when each of :attr:`latest` was composed (its
        #: "sent" stamp, the same in every view, whenever it is shown).
        self.latest_tick: dict[int, int | None] = {}
        self.tick: int | None = None
        #: Calls in flight to the models and to the game.
        self.network: tuple[int, int] = (0, 0)
        #: Who is told, and of which messages (empty: all of them).
        self._subscribers: dict[MessagePump, tuple[type[Message], ...]] = {}
        self._listeners: list[BatchListener] = []

    def open(self, commander: Commander) -> None:
        """Take the swarm as the commander has it now."""
        self.commander = commander
        self.views = {view.id: view for view in commander.myses()}
        self.network = commander.network
        self.tick = commander.game_tick

    # -- reading -----------------------------------------------------------------------

    @property
    def ids(self) -> list[int]:
        """The Myses, in order of creation."""
        return sorted(self.views)

    @property
    def names(self) -> dict[str, str]:
        """Mysis names by id as text (how memories and broadcasts name their sender)."""
        return {str(i): v.name for i, v in self.views.items()}

    def sent_request(self, mysis_id: int) -> PreviewData | None:
        """The request the Mysis sent last while it is its newest (:attr:`latest`), as
        every view shows it: its figures and its "sent" stamp the same wherever it is
        shown (None: superseded, or none sent yet: a view composes the next one)."""
        latest = self.latest.get(mysis_id)
        if latest is None:
            return None
        return PreviewData.composed(latest, self.window(mysis_id), self.latest_tick.get(mysis_id))

    def spend(self) -> SwarmSpend:
        """What the swarm's model calls cost this run, and its rate now (the
        orchestrator's meter; nothing before the commander is open)."""
        return self.commander.spend() if self.commander is not None else SwarmSpend()

    def bills(self, mysis_id: int) -> tuple[Bill, ...]:
        """The bills of a Mysis's newest requests this run, oldest first."""
        return self.commander.spend_of(mysis_id) if self.commander is not None else ()

    def window(self, mysis_id: int) -> int:
        """The context window a Mysis's requests are composed against (the default
        when unknown)."""
        view = self.views.get(mysis_id)
        return view.context_window if view is not None else DEFAULT_CONTEXT_WINDOW

    async def fill_tail(self, mysis_id: int) -> tuple[bool, str | None]:
        """Fill a Mysis's action tail from its newest memories, once: whether it was
        read now, and the Mysis's latest answer among them."""
        commander = self.commander
        if commander is None or mysis_id in self.tails or mysis_id not in self.views:
            return False, None
        memories = await commander.memories(mysis_id, TAIL_MEMORIES)
        if mysis_id not in self.tails:  # events may have started one meanwhile
            self.tails[mysis_id] = tail_from_memories(
                memories, turn_since=commander.turn_since(mysis_id)
            )
        return True, latest_answer(memories)

    # -- who is told -------------------------------------------------------------------------

    def subscribe(self, node: MessagePump, *only: type[Message]) -> None:
        """Post the model's messages to ``node`` (a screen, a widget or the app) from now
        on, while it runs: all of them, or ``only`` those of these kinds."""
        self._subscribers[node] = only

    def listen(self, listener: BatchListener) -> None:
        """Tell ``listener`` which Myses each batch concerns and what it stored."""
        self._listeners.append(listener)

    def _post(self, messages: Iterable[Announcement]) -> None:
        makers = list(messages)
        if not makers:
            return
        self._subscribers = {
            node: only
            for node, only in self._subscribers.items()
            if node.is_running and (node.is_attached or node.is_dom_root)
        }
        for node, only in self._subscribers.items():
            for kind, what in makers:  # a message is handled once: one per node
                if not only or kind in only:
                    node.post_message(kind(what))

    # -- feeding engine events in ------------------------------------------------------------

    def note_view(self, view: MysisView) -> None:
        """A view the UI learned from a command's answer, before its event."""
        self.views[view.id] = view

    def feed(self, events: Iterable[Event]) -> None:
        """Feed a batch of engine events in (oldest first), then tell the subscribers."""
        happened: list[Announcement] = []
        stored: list[tuple[int, Memory]] = []
        changed: set[int] = set()
        acted: set[int] = set()
        composed: set[int] = set()
        finished: list[ev.RequestFinished] = []
        spent: set[int] = set()
        superseded: set[int] = set()
        concerned: set[int] = set()
        ticked = False

        def flush_stored() -> None:
            if stored:
                batch = tuple(stored)
                happened.append((SwarmModel.MemoriesStored, batch))
                stored.clear()

        by_mysis: dict[int, list[Memory]] = {}
        for event in events:
            mysis_id: int | None = getattr(event, "mysis_id", None)
            match event:
                case MessageStored():
                    stored.append((event.mysis_id, event.memory))
                    by_mysis.setdefault(event.mysis_id, []).append(event.memory)
                    if supersedes(event.memory):
                        self.latest.pop(event.mysis_id, None)
                        superseded.add(event.mysis_id)
                case MysisChanged(mysis=view):
                    mysis_id = view.id
                    if view.id not in self.views:
                        flush_stored()
                        happened.append((SwarmModel.MysisAdded, view))
                    self.views[view.id] = view
                    changed.add(view.id)
                case MysisDeleted():
                    flush_stored()
                    self.views.pop(event.mysis_id, None)
                    self.tails.pop(event.mysis_id, None)
                    self.latest.pop(event.mysis_id, None)
                    self.latest_tick.pop(event.mysis_id, None)
                    changed.discard(event.mysis_id)
                    happened.append((SwarmModel.MysisRemoved, event.mysis_id))
                case ToolCallStarted():
                    self.tails.setdefault(event.mysis_id, ActionTail()).started(
                        event.call, self.tick
                    )
                    acted.add(event.mysis_id)
                case ToolCallFinished():
                    self.tails.setdefault(event.mysis_id, ActionTail()).finished(
                        event.call,
                        is_error=event.is_error,
                        error_code=event.error_code,
                        tick=self.tick,
                    )
                    acted.add(event.mysis_id)
                case RequestComposed():
                    self.latest[event.mysis_id] = event
                    self.latest_tick[event.mysis_id] = self.tick
                    composed.add(event.mysis_id)
                case RequestFinished():
                    finished.append(event)
                case TokenUsage(bill=bill) if bill is not None:
                    spent.add(event.mysis_id)
                case NetworkActivity():
                    self.network = (event.llm, event.mcp)
                case GameTick():
                    self.tick, ticked = event.tick, True
                case Notice():
                    happened.append((SwarmModel.Noticed, event))
                case _ if type(event) in TOLD_AS_THEY_ARE:
                    flush_stored()
                    happened.append((TOLD_AS_THEY_ARE[type(event)], event))
            if mysis_id is not None:
                concerned.add(mysis_id)
        flush_stored()
        for listener in self._listeners:
            listener(frozenset(concerned), by_mysis)
        later: list[Announcement] = []
        changed &= self.views.keys()
        if changed:
            ids = frozenset(changed)
            later.append((SwarmModel.MysesChanged, ids))
        acted &= self.views.keys()
        if acted:
            acting = frozenset(acted)
            later.append((SwarmModel.ActionsChanged, acting))
        composed = (composed & self.latest.keys()) | (superseded & self.views.keys())
        if composed:
            requests = frozenset(composed)
            later.append((SwarmModel.RequestComposed, requests))
        if finished:
            later.append((SwarmModel.RequestsFinished, tuple(finished)))
        if spent:
            billed = frozenset(spent)
            later.append((SwarmModel.Spent, billed))
        if ticked and self.tick is not None:
            tick = self.tick
            later.append((SwarmModel.Ticked, tick))
        self._post(happened + later)


#: The engine events the model tells its subscribers as they are, in their order (the
#: memories stored before one told first), and the message each is told as.
TOLD_AS_THEY_ARE: dict[type[Event], Callable[[Any], Message]] = {
    StreamDelta: SwarmModel.Streamed,
    ErrorRaised: SwarmModel.ErrorRaised,
    NudgeSent: SwarmModel.NudgeSent,
    BroadcastSent: SwarmModel.BroadcastSent,
}

"""What the engine tells its watchers: immutable events on a lossless bus.

The UI and the headless commands subscribe; nothing in the engine waits for
them to render. Each subscriber has a bounded queue. When it is full,
:meth:`EventBus.publish` waits for room (backpressure) instead of dropping,
except for *coalescing* events (stream deltas, network activity, ticks):
a newer one of the same kind and Mysis replaces the pending older one, so a
flood of them costs one slot, never an unbounded queue, and nothing a
watcher must see is ever lost.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ..core.cache import Reuse
from ..core.composition import DEFAULT_CONTEXT_WINDOW, Composition
from ..core.pricing import Bill
from ..core.retry import seconds_words
from ..core.tokens import RequestTokens
from ..core.types import Memory, ToolCall
from .checked import CheckedRequest

MysisState = Literal["idle", "running", "stopped", "errored"]


@dataclass(frozen=True, slots=True)
class MysisView:
    """A Mysis as watchers see it (a snapshot; a new one comes with each change)."""

    id: int
    name: str
    provider: str
    model: str
    provider_label: str
    strategy: str
    state: MysisState
    last_error: str | None = None
    account: str | None = None
    nudges: int = 0
    max_nudges: int = 3
    #: Estimated tokens of the last request sent.
    last_tokens: int = 0
    #: Prompt tokens the server reported it counted for the last request (None: not
    #: answered yet, or not reported).
    last_reported_tokens: int | None = None
    #: thinking, calling <tool>, traveling, mining, cooldown, waiting, idle …
    activity: str = "idle"
    #: The newest line worth showing in a dashboard row.
    last_line: str = ""
    game_tick: int | None = None
    #: The first line of the Mysis's latest answer (a text that ended a turn).
    last_answer: str = ""
    #: Wall-clock time (``time.time()``) of the next nudge while the Mysis waits.
    next_nudge_at: float | None = None
    #: True while the game said the Mysis must wait (travel, cooldown, pending action).
    waiting_on_game: bool = False
    #: Prompt tokens the server said it served from its cache on the last call (None:
    #: it did not say).
    last_cached_tokens: int | None = None
    #: What the commander should know about the provider as it runs (it fell back to
    #: unstreamed requests; the server's context is smaller than configured); "" if nothing.
    provider_note: str = ""
    #: Where the provider came from when the environment's conventions added it
    #: (``"$OPENAI_BASE_URL"``, ``"$OLLAMA_HOST"``); "" for a configured one.
    provider_origin: str = ""
    #: Wall-clock time (``time.time()``) of the next try of a model call that failed in
    #: a way that heals by waiting (the activity names the failure); None: no backoff.
    next_try_at: float | None = None
    #: What its model calls cost this run (None: none counted; ``spend.py``).
    spend: Bill | None = None
    #: The context window its requests are composed against: the configured one, or
    #: the server's when that is smaller (``EngineFit.fitted``).
    context_window: int = DEFAULT_CONTEXT_WINDOW

    @property
    def last_request(self) -> RequestTokens:
        """The last request's tokens, every figure: what a view shows of it
        (:attr:`RequestTokens.shown`, saying :attr:`RequestTokens.which`), as the
        request list and the inspector show it."""
        return RequestTokens(self.last_tokens, self.last_reported_tokens, self.last_cached_tokens)


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event: when it happened."""

    at: float = field(default_factory=time.time)

    #: Coalescing events replace a pending one with the same :meth:`coalesce_key`.
    coalesce: ClassVar[bool] = False

    def coalesce_key(self) -> tuple[Any, ...]:
        return (type(self),)


@dataclass(frozen=True, slots=True, kw_only=True)
class MysisChanged(Event):
    """A Mysis was created, configured, or changed state, activity or counters."""

    mysis: MysisView
    reason: str = ""


def retry_notice(event: object, *, now: float | None = None) -> str | None:
    """The line for a Mysis about to try a failed model call again, from its
    :class:`MysisChanged` ("sim-01: rate limited · next try in 5 s": what the pane shows,
    for ``zoea simulate`` and ``zoea arena`` to print on stderr); None for any other
    event."""
    if not isinstance(event, MysisChanged) or event.reason != "retry":
        return None
    view = event.mysis
    if view.next_try_at is None:
        return None
    left = max(0.0, view.next_try_at - (time.time() if now is None else now))
    return f"{view.name}: {view.activity} · next try in {seconds_words(left)}"


@dataclass(frozen=True, slots=True, kw_only=True)
class MysisDeleted(Event):
    """A Mysis and its memories were deleted."""

    mysis_id: int
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StateChanged(Event):
    """A state transition (also reflected in the next :class:`MysisChanged`)."""

    mysis_id: int
    name: str
    old: MysisState
    new: MysisState
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageStored(Event):
    """A memory was stored (prompt, assistant message, tool result, summary)."""

    mysis_id: int
    memory: Memory


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallStarted(Event):
    """A tool call is about to run."""

    mysis_id: int
    call: ToolCall


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallFinished(Event):
    """A tool call ended (its result is the next :class:`MessageStored`)."""

    mysis_id: int
    call: ToolCall
    is_error: bool
    error_code: str | None
    latency_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestComposed(Event):
    """The exact request a Mysis sends next (or would send: ``preview``)."""

    mysis_id: int
    composition: Composition
    valid: bool
    violations: tuple[str, ...] = ()
    tools: int = 0
    preview: bool = False
    #: What the request repeats of the Mysis's previous one (None for its first).
    reuse: Reuse | None = None

    @classmethod
    def of(
        cls, mysis_id: int, request: CheckedRequest, *, tools: int = 0, preview: bool = False
    ) -> RequestComposed:
        """The event of a request checked by :func:`.checked.check_request`."""
        return cls(
            mysis_id=mysis_id,
            composition=request.composition,
            valid=request.valid,
            violations=request.violations,
            tools=tools,
            preview=preview,
            reuse=request.reuse,
        )

    @property
    def request(self) -> CheckedRequest:
        """The request with the engine's checks, as every preview shows it."""
        return CheckedRequest(self.composition, self.violations, self.reuse)


@dataclass(frozen=True, slots=True, kw_only=True)
class TokenUsage(Event):
    """Token counts of a finished LLM call."""

    mysis_id: int
    estimated: int
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    #: Prompt tokens the server served from its prompt cache (None: not reported).
    cached_tokens: int | None = None
    #: Prompt tokens the server wrote to its prompt cache (None: not reported).
    cache_write_tokens: int | None = None
    #: What the call cost (None: not billed, the autopilot's; ``spend.py``).
    bill: Bill | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestFinished(Event):
    """A logged request's call ended and its outcome is in the log (``ok``, ``error``,
    ``cancelled``): a view that listed it while it was in flight reads it again."""

    mysis_id: int
    request_id: int
    outcome: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamDelta(Event):
    """Text streamed by the model so far in the current call (coalesced)."""

    coalesce: ClassVar[bool] = True
    mysis_id: int
    text: str
    reasoning: str = ""

    def coalesce_key(self) -> tuple[Any, ...]:
        return (StreamDelta, self.mysis_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class NetworkActivity(Event):
    """How many LLM and MCP calls are in flight across the swarm (coalesced)."""

    coalesce: ClassVar[bool] = True
    llm: int
    mcp: int

    def coalesce_key(self) -> tuple[Any, ...]:
        return (NetworkActivity,)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameTick(Event):
    """The newest game tick seen (coalesced)."""

    coalesce: ClassVar[bool] = True
    tick: int

    def coalesce_key(self) -> tuple[Any, ...]:
        return (GameTick,)


@dataclass(frozen=True, slots=True, kw_only=True)
class NudgeSent(Event):
    """A Mysis was encouraged (an ephemeral nudge, logged with its request)."""

    mysis_id: int
    level: int
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class BroadcastSent(Event):
    """A broadcast went out (``sender_id`` None: the commander)."""

    broadcast_id: int
    sender_id: int | None
    sender_name: str
    content: str
    recipients: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorRaised(Event):
    """Something failed; ``mysis_id`` None for swarm-level errors."""

    mysis_id: int | None
    message: str
    transient: bool = False
    #: The class of a provider's failure (``providers.base.FailureKind``), or
    #: ``"context_too_small"`` (nothing could be sent); None otherwise.
    kind: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Notice(Event):
    """Feedback for the commander, e.g. a refused action."""

    level: Literal["info", "warning", "error"]
    message: str
    mysis_id: int | None = None


class Subscription:
    """One watcher's bounded, lossless queue of events; iterate it asynchronously."""

    def __init__(self, bus: EventBus, maxsize: int) -> None:
        self._bus = bus
        self.maxsize = maxsize
        self._items: OrderedDict[Any, Event] = OrderedDict()
        self._seq = 0
        self._readable = asyncio.Event()
        self._writable = asyncio.Event()
        self._writable.set()
        self.closed = False
        #: Coalescing events replaced by newer ones (not lost: superseded).
        self.coalesced = 0

    def __len__(self) -> int:
        return len(self._items)

    async def put(self, event: Event) -> None:
        if self.closed:
            return
        if event.coalesce:
            key = ("c", *event.coalesce_key())
            if key in self._items:
                # Keep the slot's position (order of first arrival), newest content.
                self._items[key] = event
                self.coalesced += 1
                return
        else:
            self._seq += 1
            key = ("e", self._seq)
        while len(self._items) >= self.maxsize and not self.closed:
            self._writable.clear()
            await self._writable.wait()
        if self.closed:
            return
        self._items[key] = event
        self._readable.set()

    def get_nowait(self) -> Event | None:
        """The oldest pending event, or None."""
        if not self._items:
            return None
        _, event = self._items.popitem(last=False)
        if not self._items:
            self._readable.clear()
        self._writable.set()
        return event

    async def get(self) -> Event:
        """Wait for the next event."""
        while True:
            event = self.get_nowait()
            if event is not None:
                return event
            if self.closed:
                raise StopAsyncIteration
            self._readable.clear()
            await self._readable.wait()

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __anext__(self) -> Event:
        return await self.get()

    def close(self) -> None:
        """Stop receiving; wakes a waiting reader and any blocked publisher."""
        self.closed = True
        self._readable.set()
        self._writable.set()
        self._bus._subscriptions.discard(self)


class EventBus:
    """Fan-out of engine events to every subscriber, never dropping one."""

    def __init__(self, maxsize: int = 10_000) -> None:
        self.maxsize = maxsize
        self._subscriptions: set[Subscription] = set()
        self.published = 0

    def subscribe(self, maxsize: int | None = None) -> Subscription:
        """A new subscription; close it when done watching."""
        sub = Subscription(self, maxsize or self.maxsize)
        self._subscriptions.add(sub)
        return sub

    async def publish(self, event: Event) -> None:
        """Deliver ``event`` to every subscriber (waits while one is full)."""
        self.published += 1
        for sub in list(self._subscriptions):
            await sub.put(event)

"""One warm prefix for the whole swarm, from its first request.

Every Mysis of a swarm begins its requests with the same system prompt and tools, byte
for byte (docs/CONTEXT.md, 'Prompt caches'): a prompt cache that one request warmed
could serve them all. But a swarm starts all at once, and requests that reach an engine
together are each evaluated from scratch: a hosted API caches a prefix once a request
has been evaluated, and llama.cpp's ``llama-server`` with several slots (``-np 4``) gives
each request a slot of its own, whose cache no other slot shares
(``providers/discovery.py``). Four Myses started together were four cold evaluations of
the same 2 640 tokens.

So the first request to an engine goes first (:class:`WarmStart`): the first Mysis to
ask an engine that is cold leads, and the others wait until its answer has ended; then
the engine holds the prefix. A llama-server with several slots is first asked to share
it (:class:`~zoea_tui.providers.discovery.SharesPrefix`: one tiny task, so that it saves
the warm slot to its host-memory cache, from which the other slots load it).

The others' wait is bounded (:attr:`WarmStart.max_wait_s`), and a leader that fails lets
them go at once. A leader cut before its answer (an order came, ``MysisRuntime.deliver``)
leaves the engine cold: the next of them leads in its place. The wait is in real time
whatever the swarm's clock: what it waits for is a server's answer. An engine is cold at
the swarm's start (a launch, a relaunch) and again after a request found it unreachable
(a server that restarts has an empty cache): the next request to it leads again. Only
models behind a server are waited for (a provider that asks its server for its context:
:class:`~zoea_tui.providers.discovery.ReportsContext`); the autopilot and the in-process
model have no cache to share.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable

from ..providers.base import Provider, ProviderError
from ..providers.discovery import ReportsContext, SharesPrefix
from .calibration import Engine

log = logging.getLogger(__name__)

#: The longest a Mysis waits for the leader of its engine (then it goes anyway): a cold
#: evaluation of 8 000 tokens took a minute on 2 quiet cores, and 2 640 took two to four
#: minutes on 2 cores shared by several builds (bench/engine.py).
MAX_WAIT_S = 300.0
#: A follower's activity while it waits (its pane says so, rather than looking idle).
WAITING = "waiting for the warm prefix"


class WarmStart:
    """Lets the first request to each engine warm it before the others are sent."""

    def __init__(self, *, max_wait_s: float = MAX_WAIT_S, enabled: bool = True) -> None:
        self.max_wait_s = max_wait_s
        #: False: every request goes at once (benchmarks compare with it).
        self.enabled = enabled
        self._warm: set[Engine] = set()
        #: The engines being warmed, each with what its followers wait for.
        self._leading: dict[Engine, asyncio.Event] = {}
        #: Leaders cut before their answer (the engine is still cold), forgotten once no
        #: follower holds them.
        self._cut: weakref.WeakSet[asyncio.Event] = weakref.WeakSet()
        #: Requests that waited for a leader, and the slots of each engine that shared its
        #: first prompt.
        self.waits = 0
        self.shared: dict[Engine, int] = {}

    def is_warm(self, engine: Engine) -> bool:
        """Whether requests to ``engine`` go at once."""
        return engine in self._warm

    @contextlib.asynccontextmanager
    async def first(
        self,
        engine: Engine,
        provider: Provider,
        *,
        on_wait: Callable[[], Awaitable[None]] | None = None,
    ) -> AsyncIterator[None]:
        """Around one try of a request to ``engine``: it goes when the engine is warm
        or being warmed by no one (it then leads), else after the leader (bounded);
        ``on_wait`` is awaited when it begins to wait (the Mysis says it waits)."""
        if not self.enabled or not isinstance(provider, ReportsContext):
            yield
            return
        while (leader := self._leading.get(engine)) is not None and engine not in self._warm:
            self.waits += 1
            if on_wait is not None:
                await on_wait()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(leader.wait(), self.max_wait_s)
            if leader not in self._cut:
                break  # answered, failed, or waited long enough: go
            # The leader was cut: the engine is still cold, so lead or follow anew.
        if engine in self._warm or leader is not None:
            async with self._watching(engine):
                yield
            return
        released = self._leading[engine] = asyncio.Event()
        try:
            async with self._watching(engine):
                yield
            if isinstance(provider, SharesPrefix):
                slots = await provider.share_prefix()
                if slots:
                    log.info("%s: the first answer's prompt shared with %d slots", engine[0], slots)
                    self.shared[engine] = slots
            self._warm.add(engine)
        except asyncio.CancelledError:
            self._cut.add(released)  # the next follower leads
            raise
        finally:
            self._release(engine, released)  # answered or failed: the others go now

    def _release(self, engine: Engine, released: asyncio.Event) -> None:
        """Let the followers of ``released``'s leader go."""
        if self._leading.get(engine) is released:
            del self._leading[engine]
        released.set()

    @contextlib.asynccontextmanager
    async def _watching(self, engine: Engine) -> AsyncIterator[None]:
        """A request that finds its engine unreachable makes it cold again."""
        try:
            yield
        except ProviderError as error:
            if error.kind == "unreachable":
                self._warm.discard(engine)
            raise

"""Time for the orchestrator: real, manual (tests) or virtual (``zoea simulate``).

Only nudge intervals and backoff waits go through a clock; the engine never
calls ``asyncio.sleep`` for pacing directly, so tests advance time by hand and
simulations skip the waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Protocol


class Clock(Protocol):
    """Wall time and waiting."""

    def now(self) -> float:
        """Seconds since an arbitrary origin."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``."""
        ...

    async def wait_for(self, event: asyncio.Event, timeout: float) -> bool:
        """Wait until ``event`` is set (True) or ``timeout`` passes (False)."""
        ...

    async def wait_outside(self, event: asyncio.Event, timeout: float) -> bool:
        """:meth:`wait_for` a time set outside the swarm: a server's ``Retry-After``,
        which passes in the server's time even when the swarm's is simulated."""
        ...


async def _wait_real(event: asyncio.Event, timeout: float) -> bool:
    if event.is_set():
        return True
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), timeout=max(0.0, timeout))
        return True
    return event.is_set()


class RealClock:
    """The event loop's clock."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def wait_for(self, event: asyncio.Event, timeout: float) -> bool:
        return await _wait_real(event, timeout)

    async def wait_outside(self, event: asyncio.Event, timeout: float) -> bool:
        return await _wait_real(event, timeout)


class ManualClock:
    """Time that moves only when a test calls :meth:`advance` (no real sleeping)."""

    def __init__(self) -> None:
        self._now = 0.0
        self._waiters: list[tuple[float, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self._now

    @property
    def waiting(self) -> int:
        """How many tasks are waiting on this clock."""
        return sum(1 for _, f in self._waiters if not f.done())

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((self._now + seconds, future))
        await future

    async def wait_for(self, event: asyncio.Event, timeout: float) -> bool:
        if event.is_set():
            return True
        sleeper = asyncio.ensure_future(self.sleep(timeout))
        setter = asyncio.ensure_future(event.wait())
        try:
            await asyncio.wait({sleeper, setter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (sleeper, setter):
                task.cancel()
        return event.is_set()

    async def wait_outside(self, event: asyncio.Event, timeout: float) -> bool:
        return await self.wait_for(event, timeout)  # the test moves time, as for any wait

    def advance(self, seconds: float) -> None:
        """Move time forward and release every wait that has expired."""
        self._now += seconds
        due = [(d, f) for d, f in self._waiters if d <= self._now]
        self._waiters = [(d, f) for d, f in self._waiters if d > self._now and not f.done()]
        for _, future in due:
            if not future.done():
                future.set_result(None)


class VirtualClock:
    """Simulated time: a wait nobody interrupts ends at once, and time jumps ahead.

    Used by ``zoea simulate`` and ``zoea arena``: nudge intervals and backoffs elapse
    without waiting, while a Mysis that is woken by a message still sees it first; a
    server's ``Retry-After`` (:meth:`wait_outside`) is waited for real.
    """

    def __init__(self, settle_rounds: int = 3) -> None:
        self._now = 0.0
        self.settle_rounds = settle_rounds

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(0)
        self._now += max(0.0, seconds)

    async def wait_for(self, event: asyncio.Event, timeout: float) -> bool:
        for _ in range(self.settle_rounds):
            if event.is_set():
                return True
            await asyncio.sleep(0)
        if event.is_set():
            return True
        self._now += max(0.0, timeout)
        return False

    async def wait_outside(self, event: asyncio.Event, timeout: float) -> bool:
        """Waited for real: a rate-limited server's ``Retry-After`` is its own time, which
        a simulation cannot skip (a retry sooner is refused again)."""
        started = time.monotonic()
        woken = await _wait_real(event, timeout)
        self._now += time.monotonic() - started if woken else max(0.0, timeout)
        return woken

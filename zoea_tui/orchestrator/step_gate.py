"""The commander's input goes first: the swarm's next steps wait while a key is handled.

A key the commander types sets off work on the same event loop as the swarm: a page
read, a composition, a frame. Sixteen Myses starting steps meanwhile (a composition, a
model call, a game call, the writes that follow) push that work back behind theirs.
So the command center holds the swarm's *next* steps for a moment after each key:
a Mysis about to ask its model or run a tool waits (:meth:`StepGate.ready`); a step
already under way runs on, and a model call in flight is never touched.

The hold is bounded so the swarm never starves, however fast the commander types:
:attr:`~StepGate.hold_s` after the last key, at most :attr:`~StepGate.max_held_s` in a
row, and then the swarm runs at least as long before the next hold.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

#: How long the swarm's next steps wait after a key.
HOLD_S = 0.15
#: The longest the swarm waits in a row; it then runs as long before waiting again.
MAX_HELD_S = 0.5


class StepGate:
    """Holds the swarm's next steps for a moment after each of the commander's keys."""

    def __init__(
        self,
        *,
        hold_s: float = HOLD_S,
        max_held_s: float = MAX_HELD_S,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.hold_s = hold_s
        self.max_held_s = max_held_s
        self._now = now
        #: Steps wait until then.
        self._until = 0.0
        #: When the current run of holds began.
        self._since = 0.0
        #: No hold before then (the swarm's turn after a full run of holds).
        self._rest_until = 0.0
        #: Steps that waited, and the seconds they waited in all.
        self.waits = 0
        self.waited_s = 0.0

    def hold(self) -> None:
        """A key arrived: hold the next steps for :attr:`hold_s`, within the bounds."""
        now = self._now()
        if now < self._rest_until:
            return
        if now >= self._until:
            self._since = now  # a new run of holds
        self._until = min(now + self.hold_s, self._since + self.max_held_s)
        if self._until >= self._since + self.max_held_s:
            self._rest_until = self._until + self.max_held_s

    def held_for(self) -> float:
        """Seconds until the steps may go (0 when they may go now)."""
        return max(0.0, self._until - self._now())

    async def ready(self) -> None:
        """Return when a step may start: at once unless a hold is on."""
        left = self.held_for()
        if not left:
            return
        started = self._now()
        while left:
            await asyncio.sleep(left)
            left = self.held_for()
        self.waits += 1
        self.waited_s += self._now() - started

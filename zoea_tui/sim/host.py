"""The embedded world in time: a clock, blocking travel, and saved state.

:class:`World` only counts ticks. :class:`WorldHost` gives them a length: with
``tick_seconds > 0`` a background task advances the world in real time and a
``travel`` or ``jump`` blocks until arrival, as on the real server; with
``tick_seconds == 0`` (the simulated clock of ``zoea simulate`` and of the
tests) time jumps forward exactly when a caller has to wait, so nothing ever
sleeps. Every MCP facade, in-process or over HTTP, calls :meth:`WorldHost.call`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from .engine import World
from .errors import GameError

#: Tools whose result says "in transit until arrival_tick": the host waits for it.
BLOCKING_TOOLS = frozenset({"travel", "jump"})
#: The world is saved this often on a real clock (and after every new account).
SAVE_EVERY_TICKS = 10


class WorldHost:
    """Runs one :class:`World` for every connected client.

    Args:
        world: the engine to run.
        tick_seconds: length of a tick; 0 means a simulated clock that advances on demand.
        state_path: where :meth:`save` writes the world (and :meth:`open` reads it).
    """

    def __init__(
        self, world: World, *, tick_seconds: float = 1.0, state_path: Path | None = None
    ) -> None:
        if tick_seconds < 0:
            raise ValueError("tick_seconds must be >= 0")
        self.world = world
        self.tick_seconds = tick_seconds
        self.state_path = state_path
        self.calls = 0
        self._ticked = asyncio.Event()
        self._ticker: asyncio.Task[None] | None = None
        self._saving = asyncio.Lock()

    @classmethod
    def open(
        cls,
        *,
        seed: int = 0,
        tick_seconds: float = 1.0,
        state_path: Path | None = None,
        starting_credits: int | None = None,
        world_profile: str = "classic",
    ) -> WorldHost:
        """A host for the world saved at ``state_path``, or a new one from ``seed``
        (with the ``world_profile``'s numbers: ``zoea_tui.sim.profiles``)."""
        world: World | None = None
        if state_path is not None and state_path.exists():
            world = World.from_dict(json.loads(state_path.read_text(encoding="utf-8")))
        if world is None:
            world = World(seed, starting_credits=starting_credits, world=world_profile)
        return cls(world, tick_seconds=tick_seconds, state_path=state_path)

    @property
    def simulated(self) -> bool:
        """True when time advances on demand instead of by the wall clock."""
        return self.tick_seconds == 0

    @property
    def current_tick(self) -> int:
        """The world clock."""
        return self.world.current_tick

    def tool_specs(self) -> list[dict[str, Any]]:
        """The tool catalogue: ``[{name, description, input_schema}]``."""
        return World.tool_specs()

    # -- time -----------------------------------------------------------------

    async def start(self) -> None:
        """Start the clock (nothing to start on a simulated clock)."""
        if not self.simulated and self._ticker is None:
            self._ticker = asyncio.create_task(self._tick_forever(), name="world-clock")

    async def stop(self) -> None:
        """Stop the clock and save the world when it has a state file."""
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
            self._ticker = None
        self.save()

    async def __aenter__(self) -> WorldHost:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _tick_forever(self) -> None:
        loop = asyncio.get_running_loop()
        next_at = loop.time() + self.tick_seconds
        while True:
            await asyncio.sleep(max(0.0, next_at - loop.time()))
            next_at += self.tick_seconds
            self.advance(1)
            if self.state_path is not None and self.world.current_tick % SAVE_EVERY_TICKS == 0:
                await self.save_in_background()  # a crash loses at most a few ticks of play

    def advance(self, ticks: int = 1) -> int:
        """Move the clock forward and wake everyone waiting for a tick."""
        tick = self.world.advance(ticks)
        self._ticked.set()
        self._ticked = asyncio.Event()
        return tick

    async def wait_for_tick(self, tick: int) -> None:
        """Return once the world clock has reached ``tick``."""
        if self.simulated:
            if self.world.current_tick < tick:
                self.advance(tick - self.world.current_tick)
            return
        while self.world.current_tick < tick:
            await self._ticked.wait()

    # -- calls ----------------------------------------------------------------

    async def call(self, key: str | None, tool: str, args: dict[str, Any] | None) -> dict[str, Any]:
        """Run one tool for the connection ``key``; raise :class:`GameError` on refusal.

        ``travel`` and ``jump`` return once the ship has arrived. On the simulated
        clock, a call refused only because it came too early (``action_pending``,
        ``in_transit``) is run at the tick it names instead of being refused.
        """
        self.calls += 1
        try:
            result = self._call_now(key, tool, args)
        except GameError as error:
            wait_tick = _ready_tick(error)
            if not self.simulated or wait_tick is None:
                raise self._with_wait_hint(error) from None
            await self.wait_for_tick(wait_tick)
            result = self._call_now(key, tool, args)
        if tool == "register" and self.state_path is not None:
            # Accounts must survive a crash: their passwords are in the pool.
            await self.save_in_background()
        arrival = result.get("arrival_tick")
        if tool in BLOCKING_TOOLS and isinstance(arrival, int):
            await self.wait_for_tick(arrival)
            result["arrived"] = True
            result["current_tick"] = self.world.current_tick
            result["message"] = (
                f"{result.get('message', '')} Arrived at tick {self.world.current_tick}.".strip()
            )
        return result

    def _call_now(self, key: str | None, tool: str, args: dict[str, Any] | None) -> dict[str, Any]:
        return self.world.call(key, tool, dict(args or {}))

    def _with_wait_hint(self, error: GameError) -> GameError:
        """Add ``wait_seconds`` (the real server's kind of hint) to timing errors."""
        tick = _ready_tick(error)
        if tick is not None and self.tick_seconds > 0:
            ticks = max(0, tick - self.world.current_tick)
            error.details.setdefault("wait_seconds", round(ticks * self.tick_seconds, 3))
        return error

    # -- state ----------------------------------------------------------------

    async def save_in_background(self) -> None:
        """Save without holding the event loop: the world is copied at once (pickle, a
        few ms), then turned into JSON and written in a thread (that took 100 ms and
        more on the loop as the world grew). Saves are written one at a time, in order."""
        target = self.state_path
        if target is None:
            return
        snapshot = pickle.dumps(self.world, protocol=pickle.HIGHEST_PROTOCOL)
        async with self._saving:
            await asyncio.to_thread(lambda: _write_world(pickle.loads(snapshot), target))

    def save(self, path: Path | None = None) -> Path | None:
        """Write the world atomically to ``path`` (default: ``state_path``)."""
        target = path or self.state_path
        if target is None:
            return None
        _write_world(self.world, target)
        return target


def _write_world(world: World, target: Path) -> None:
    """Write ``world`` as JSON to ``target`` atomically (a temporary file, then a rename)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".world-", suffix=".json", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(world.to_dict(), handle)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _ready_tick(error: GameError) -> int | None:
    """The tick at which a timing refusal would succeed, if it is one."""
    if error.code == "action_pending":
        tick = error.details.get("ready_tick")
    elif error.code == "in_transit":
        tick = error.details.get("arrival_tick")
    else:
        return None
    return tick if isinstance(tick, int) else None

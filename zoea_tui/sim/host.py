"""The embedded world in time: a clock, actions held to their tick, and saved state.

:class:`World` only counts ticks. :class:`WorldHost` gives them a length: with
``tick_seconds > 0`` a background task advances the world in real time and, as on
the real server, an action (a mutation) is answered once its tick has resolved
(``travel`` and ``jump`` once the ship has arrived), so a pilot's actions are one
tick apart and never refused for coming too early; only a second action sent while
the first is still waiting gets ``action_pending``. With ``tick_seconds == 0`` (the
simulated clock of ``zoea simulate``, the arena and the tests) time jumps forward
exactly when a caller has to wait, so nothing ever sleeps. Every facade (MCP in
process or over HTTP, the HTTP API) calls :meth:`WorldHost.call`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pickle
import tempfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import errors
from .engine import World
from .errors import GameError
from .tools import TOOLS_BY_NAME

#: Tools whose result says "in transit until arrival_tick": the host waits for it.
BLOCKING_TOOLS = frozenset({"travel", "jump"})
#: The world is saved this often on a real clock (and after every new account).
SAVE_EVERY_TICKS = 10
#: The event log (:attr:`WorldHost.events`) keeps this many of the latest calls.
EVENT_LOG_CAP = 10_000


@dataclass
class _Held:
    """A pilot's action waiting for its tick."""

    tool: str
    ready_tick: int


class WorldHost:
    """Runs one :class:`World` for every connected client.

    Args:
        world: the engine to run.
        tick_seconds: length of a tick; 0 means a simulated clock that advances on demand.
        state_path: where :meth:`save` writes the world (and :meth:`open` reads it).
        full_catalogue: list every command in :meth:`tool_specs`, those only commander's
            guide needs too (``zoea sim serve``); else the app's own list
            (``tools.GUIDE_TOOLS`` are answered all the same).
    """

    def __init__(
        self,
        world: World,
        *,
        tick_seconds: float = 1.0,
        state_path: Path | None = None,
        full_catalogue: bool = False,
    ) -> None:
        if tick_seconds < 0:
            raise ValueError("tick_seconds must be >= 0")
        self.world = world
        self.full_catalogue = full_catalogue
        self.tick_seconds = tick_seconds
        self.state_path = state_path
        self.calls = 0
        #: The latest calls, oldest first: what the admin API's event log shows.
        self.events: deque[dict[str, Any]] = deque(maxlen=EVENT_LOG_CAP)
        self._logged = 0  # calls logged since the start or the last reset
        self._held: dict[str, _Held] = {}  # username -> the action waiting for its tick
        self._generation = 0  # counts resets: a wait across a reset ends
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
        secret: Callable[[int], str] | None = None,
        full_catalogue: bool = False,
    ) -> WorldHost:
        """A host for the world saved at ``state_path``, or a new one from ``seed``
        (with the ``world_profile``'s numbers: ``zoea_tui.sim.profiles``); ``secret``
        makes its passwords and session ids (:class:`World`)."""
        world: World | None = None
        if state_path is not None and state_path.exists():
            world = _load_world(state_path, secret)
        if world is None:
            world = World(
                seed, starting_credits=starting_credits, world=world_profile, secret=secret
            )
        return cls(
            world,
            tick_seconds=tick_seconds,
            state_path=state_path,
            full_catalogue=full_catalogue,
        )

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
        return World.tool_specs(full=self.full_catalogue)

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
        """Return once the world clock has reached ``tick`` (or the world was reset)."""
        if self.simulated:
            if self.world.current_tick < tick:
                self.advance(tick - self.world.current_tick)
            return
        generation = self._generation
        while self.world.current_tick < tick and self._generation == generation:
            await self._ticked.wait()

    def reset(self, seed: int | None = None) -> World:
        """Start again from a new world: the same seed (or ``seed``) and settings.

        Every login ends, the event log is emptied, and calls waiting for a tick of the
        old world are answered at once. The clock keeps running.
        """
        self.world = self.world.renewed(seed)
        self._generation += 1
        self._held.clear()
        self.events.clear()
        self._logged = 0
        self._ticked.set()
        self._ticked = asyncio.Event()
        return self.world

    # -- calls ----------------------------------------------------------------

    async def call(self, key: str | None, tool: str, args: dict[str, Any] | None) -> dict[str, Any]:
        """Run one tool for the connection ``key``; raise :class:`GameError` on refusal.

        On a real clock an action is answered once its tick has resolved (``travel``
        and ``jump`` once the ship has arrived); a second action of the same pilot sent
        meanwhile is refused with ``action_pending``. On the simulated clock a call
        refused only because it came too early (``action_pending``, ``in_transit``) is
        run at the tick it names instead of being refused.
        """
        self.calls += 1
        generation = self._generation
        held = self._hold(key, tool, args)
        try:
            result = await self._run(key, tool, args, held)
        except GameError as error:
            if self._generation == generation:  # not a call into a world since reset
                self._record(key, tool, args, error)
            raise
        finally:
            if held is not None and self._held.get(held[0]) is held[1]:
                del self._held[held[0]]
        if self._generation == generation:
            self._record(key, tool, args, None)
        return result

    def _hold(
        self, key: str | None, tool: str, args: dict[str, Any] | None
    ) -> tuple[str, _Held] | None:
        """On a real clock, take the pilot's one place for an action waiting for its tick."""
        spec = TOOLS_BY_NAME.get(tool)
        if self.simulated or spec is None or not spec.mutation:
            return None
        player = self.world.player_for(key, (args or {}).get("session_id"))
        if player is None:
            return None  # the world refuses it as it should (not logged in)
        waiting = self._held.get(player.username)
        if waiting is not None:
            tick = self.world.current_tick
            error = errors.action_still_waiting(
                waiting.tool, waiting.ready_tick, max(0, waiting.ready_tick - tick)
            )
            self._record(key, tool, args, error)
            raise self._with_wait_hint(error)
        held = _Held(tool, max(player.busy_until, self.world.current_tick + 1))
        self._held[player.username] = held
        return player.username, held

    async def _run(
        self,
        key: str | None,
        tool: str,
        args: dict[str, Any] | None,
        held: tuple[str, _Held] | None,
    ) -> dict[str, Any]:
        try:
            result = self._call_now(key, tool, args)
        except GameError as error:
            wait_tick = _ready_tick(error)
            early = self.simulated or (held is not None and error.code == "action_pending")
            if not early or wait_tick is None:
                raise self._with_wait_hint(error) from None
            if held is not None:
                held[1].ready_tick = wait_tick + 1
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
        if held is not None:
            player = self.world.player_for(key, (args or {}).get("session_id"))
            if player is not None:
                held[1].ready_tick = max(player.busy_until, self.world.current_tick)
            await self.wait_for_tick(held[1].ready_tick)
            result["current_tick"] = self.world.current_tick
        return result

    def _record(
        self, key: str | None, tool: str, args: dict[str, Any] | None, error: GameError | None
    ) -> None:
        """One line of the event log: who called what, at which tick, and how it went."""
        player = self.world.player_for(key, (args or {}).get("session_id"))
        self._logged += 1
        self.events.append(
            {
                "seq": self._logged,
                "tick": self.world.current_tick,
                "player_id": player.id if player is not None else None,
                "username": player.username if player is not None else None,
                "command": tool,
                "success": error is None,
                "error_code": error.code if error is not None else None,
            }
        )

    def take_notifications(self, key: str | None) -> list[dict[str, Any]]:
        """The pending notifications of the player logged in on ``key``, now delivered.

        The HTTP API attaches them to every answer, as the real server does.
        """
        player = self.world.player_for(key)
        if player is None or not player.notifications:
            return []
        taken, player.notifications = player.notifications, []
        return [{**n, "data": dict(n["data"])} for n in taken]

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


class WorldFileError(ValueError):
    """A saved world that cannot be loaded (not JSON, not a world, unreadable): its
    message is one line naming the file, which was left as it was."""


def _load_world(path: Path, secret: Callable[[int], str] | None) -> World:
    """The world saved at ``path``, or :class:`WorldFileError`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a saved world")
        return World.from_dict(data, secret=secret)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        if isinstance(exc, KeyError | TypeError | AttributeError | IndexError):
            reason = f"not a saved world ({type(exc).__name__}: {exc})"
        raise WorldFileError(
            f"cannot load the world from {path}: {' '.join(str(reason).split())}; it was "
            "left untouched (move it away to begin a new world)"
        ) from None


def _write_world(world: World, target: Path) -> None:
    """Write ``world`` as JSON to ``target`` atomically (a temporary file, then a rename)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".world-", suffix=".json", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(world.to_dict(), handle)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if exc.filename is None:  # a write's error names no file: name the world's
            raise OSError(exc.errno, exc.strerror, str(target)) from exc
        raise
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

"""Fixtures for the embedded world: a seeded `World` and pilots that play in it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from zoea_tui.sim import World
from zoea_tui.sim.errors import GameError

SEED = 42


async def until(condition: Callable[[], bool]) -> None:
    """Let the loop run until ``condition()`` holds (bounded, never timed)."""
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the condition never held")


#: A step of a scripted play: a call (the player's key, the tool, its arguments), or a
#: number of ticks the world advances.
Step = tuple[str, str, dict[str, Any]] | int


def played(world: World, steps: list[Step]) -> list[Any]:
    """What each step gave, in order: a call's result (a refused call's error, as the
    game words it) or what advancing the ticks reported."""
    outcomes: list[Any] = []
    for step in steps:
        if isinstance(step, int):
            outcomes.append(world.advance(step))
            continue
        key, tool, args = step
        try:
            outcomes.append(world.call(key, tool, dict(args)))
        except GameError as error:
            outcomes.append(error.to_dict())
    return outcomes


@dataclass
class ServeRun:
    """A ``zoea sim serve`` process: the first three lines it printed; once stopped, its
    exit code and what it wrote to standard error."""

    lines: list[str] = field(default_factory=list)
    returncode: int | None = None
    stderr: str = ""


@contextlib.contextmanager
def sim_serve(token: str, *extra: str) -> Iterator[ServeRun]:
    """``zoea sim serve --seed 42`` on a free loopback port with the admin ``token`` (and
    the ``extra`` arguments), stopped (SIGTERM) at the end; the world it saves goes to a
    data folder of its own."""
    data = tempfile.TemporaryDirectory(prefix="zoea-serve-")
    proc = subprocess.Popen(
        [
            sys.executable,
            *("-m", "zoea_tui.cli", "sim", "serve", "--port", "0", "--seed", "42"),
            *("--tick-seconds", "0.05", "--admin-token", token, *extra),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "ZOEA_DATA_DIR": data.name},
    )
    run = ServeRun()
    try:
        assert proc.stdout is not None
        run.lines = [proc.stdout.readline() for _ in range(3)]
        yield run
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, run.stderr = proc.communicate(timeout=20)
        run.returncode = proc.returncode
        data.cleanup()


class Pilot:
    """A registered player driving the world through `World.call`, like an MCP session."""

    def __init__(self, world: World, username: str, empire: str = "solarian") -> None:
        self.world = world
        self.key = f"mcp-{username}"
        self.registration = world.call(
            self.key, "register", {"username": username, "empire": empire}
        )
        self.username = username
        self.password: str = self.registration["password"]

    def __call__(self, tool: str, **args: Any) -> dict[str, Any]:
        return self.world.call(self.key, tool, args)

    def error(self, tool: str, **args: Any) -> GameError:
        """Call a tool that must fail, and return the error."""
        with pytest.raises(GameError) as caught:
            self(tool, **args)
        return caught.value

    def wait(self) -> None:
        """Advance the clock until this pilot can act again (trips included)."""
        ready = self("get_status")["next_action_tick"]
        self.world.advance(max(0, ready - self.world.current_tick))

    def act(self, tool: str, **args: Any) -> dict[str, Any]:
        """Run an action, then advance the clock until it has fully resolved."""
        result = self(tool, **args)
        self.wait()
        return result

    def status(self) -> dict[str, Any]:
        return self("get_status")

    def cargo(self, item_id: str) -> int:
        return sum(c["quantity"] for c in self("get_cargo")["cargo"] if c["item_id"] == item_id)

    def go_to(self, poi_id: str) -> dict[str, Any]:
        """Travel to a POI of the pilot's system and wait for arrival."""
        return self.act("travel", target_poi=poi_id)

    def fill_hold(self) -> int:
        """Mine here until the hold is full; returns how many mines it took."""
        mines = 0
        while self("get_cargo")["available"] > 0:
            self.act("mine")
            mines += 1
        return mines


@pytest.fixture
def world() -> World:
    return World(seed=SEED)


@pytest.fixture
def make_pilot(world: World) -> Callable[..., Pilot]:
    def make(username: str = "Ada", empire: str = "solarian") -> Pilot:
        return Pilot(world, username, empire)

    return make


@pytest.fixture
def pilot(make_pilot: Callable[..., Pilot]) -> Pilot:
    return make_pilot("Ada")

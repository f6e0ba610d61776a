"""Game and storage faults: restarts, expiry, rate limits, a vanished server, a full disk.

| fault                        | expected outcome                                          |
|------------------------------|-----------------------------------------------------------|
| game server restarts         | sessions healed silently (reconnect + re-login); plays on |
| game sessions expire         | re-login silently; plays on                               |
| rate_limited answers         | waits the server's hint, retries; plays on                |
| game server vanishes         | errored: "game server unreachable at <its URL>" after the |
|                              | retries (1 s, 2 s on the clock); relaunch once back       |
| disk full for SQLite writes  | errored with "disk is full"; integrity ok; relaunch works |
| SIGKILL mid model/tool call  | see tests/faults/test_sigkill.py                          |
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

from zoea_tui.config import Config
from zoea_tui.game.backend import GameBackend
from zoea_tui.sim import World
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.serve import HttpWorldServer

from .conftest import RecordingClock, Watch, nothing_lost, open_swarm, until


def _config() -> Config:
    base = Config()
    return replace(base, game=replace(base.game, tick_seconds=0))


def _tool_results(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return list(
            conn.execute("SELECT tool_name, content FROM memories WHERE role = 'tool' ORDER BY id")
        )


async def test_game_server_restart_is_invisible_to_the_mysis(tmp_path: Path) -> None:
    host = WorldHost(World(5), tick_seconds=0)
    server = HttpWorldServer(host)
    await server.start()
    commander, sub = await open_swarm(tmp_path, _config(), backend=GameBackend(server.url))
    watch = Watch()
    try:
        view = await commander.create_mysis("Steady")
        await until(lambda: commander.mysis(view.id).account is not None)
        await until(lambda: len(_tool_results(tmp_path / "zoea.db")) >= 5)
        port = server.port
        await server.stop()
        host.world = World.from_dict(host.world.to_dict())  # restarted from its save
        server = HttpWorldServer(host, port=port)
        await server.start()
        seen = len(_tool_results(tmp_path / "zoea.db"))
        await until(lambda: len(_tool_results(tmp_path / "zoea.db")) >= seen + 5)
        watch.feed(sub)
        assert commander.mysis(view.id).state == "running"
        later = _tool_results(tmp_path / "zoea.db")[seen:]
        assert not any("not_authenticated" in c or "session_invalid" in c for _, c in later)
        await nothing_lost(commander, watch, tmp_path / "zoea.db")
    finally:
        await commander.shutdown(timeout=2)
        await server.stop()


async def test_expiring_game_sessions_are_renewed_silently(tmp_path: Path) -> None:
    host = WorldHost(World(6, session_timeout_ticks=1), tick_seconds=0)
    backend = GameBackend("embedded", host=host)
    commander, _sub = await open_swarm(tmp_path, _config(), backend=backend)
    try:
        view = await commander.create_mysis("Renewed")
        await until(lambda: len(_tool_results(tmp_path / "zoea.db")) >= 25, limit=30)
        results = _tool_results(tmp_path / "zoea.db")
        assert not any('"session_invalid"' in c for _, c in results)
        assert commander.mysis(view.id).state == "running"
    finally:
        await commander.shutdown(timeout=2)


class Throttled(WorldHost):
    """Answers rate_limited (with a short hint) to every third call; notes on the swarm's
    clock when each call came."""

    def __init__(self, *args: Any, clock: RecordingClock, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.clock = clock
        self.refused = 0
        #: (time on the swarm's clock, tool, refused?) of every call, in order.
        self.seen: list[tuple[float, str, bool]] = []

    async def call(self, key, tool, args):
        refuse = tool not in ("register", "login") and self.calls % 3 == 0
        self.seen.append((self.clock.now(), tool, refuse))
        if refuse:
            self.calls += 1
            self.refused += 1
            raise GameError(
                "rate_limited", "Too many requests. Try again in 0.05 seconds.", retry_after=0.05
            )
        return await super().call(key, tool, args)


async def test_rate_limits_are_waited_out(tmp_path: Path) -> None:
    clock = RecordingClock()
    host = Throttled(World(7), tick_seconds=0, clock=clock)
    commander, _sub = await open_swarm(
        tmp_path, _config(), backend=GameBackend("embedded", host=host), clock=clock
    )
    try:
        view = await commander.create_mysis("Patient")
        await until(lambda: len(_tool_results(tmp_path / "zoea.db")) >= 10)
        assert host.refused >= 2
        assert not any("rate_limited" in c for _, c in _tool_results(tmp_path / "zoea.db"))
        assert commander.mysis(view.id).state == "running"
    finally:
        await commander.shutdown(timeout=2)
    # Each refusal was waited out as the server asked, before the call was tried again.
    assert clock.sleeps.count(0.05) >= host.refused
    retries = [
        (then, again)
        for (then, tool, refused), (again, tool_again, _) in itertools.pairwise(host.seen)
        if refused and tool_again == tool
    ]
    assert len(retries) >= host.refused - 1  # the last refusal may be the last call seen
    assert all(again >= then + 0.05 for then, again in retries), retries


async def test_a_vanished_game_server_is_a_clear_error_and_relaunch_recovers(tmp_path: Path):
    host = WorldHost(World(8), tick_seconds=0)
    server = HttpWorldServer(host)
    await server.start()
    clock = RecordingClock()
    commander, sub = await open_swarm(
        tmp_path, _config(), backend=GameBackend(server.url), clock=clock
    )
    watch = Watch()
    try:
        view = await commander.create_mysis("Stranded")
        await until(lambda: commander.mysis(view.id).account is not None)
        port = server.port
        await server.stop()
        await until(lambda: commander.mysis(view.id).state == "errored", limit=60)
        error = commander.mysis(view.id).last_error
        assert error.startswith(f"game server unreachable at {server.url}: ")
        assert "unreachable" in error.removeprefix(f"game server unreachable at {server.url}")
        assert clock.sleeps[-2:] == [1.0, 2.0]  # three tries in all, then the error
        server = HttpWorldServer(host, port=port)
        await server.start()
        await commander.relaunch_mysis(view.id)
        seen = len(_tool_results(tmp_path / "zoea.db"))
        await until(lambda: len(_tool_results(tmp_path / "zoea.db")) >= seen + 3)
        watch.feed(sub)
        await nothing_lost(commander, watch, tmp_path / "zoea.db")
    finally:
        await commander.shutdown(timeout=2)
        await server.stop()


async def test_a_full_disk_stops_the_mysis_clearly_and_loses_nothing(tmp_path: Path) -> None:
    commander, sub = await open_swarm(tmp_path, _config())
    watch = Watch()
    try:
        view = await commander.create_mysis("Hoarder")
        await until(lambda: len(_tool_results(tmp_path / "zoea.db")) >= 3)
        db = commander.store.connection
        async with db.execute("PRAGMA page_count") as cur:
            pages = (await cur.fetchone())[0]
        await db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is now full
        await until(lambda: commander.mysis(view.id).state == "errored", limit=30)
        assert "full" in commander.mysis(view.id).last_error
        await db.execute("PRAGMA max_page_count = 1073741823")  # space again
        watch.feed(sub)
        await nothing_lost(commander, watch, tmp_path / "zoea.db")
        await commander.relaunch_mysis(view.id)
        seen = len(_tool_results(tmp_path / "zoea.db"))
        await until(lambda: len(_tool_results(tmp_path / "zoea.db")) >= seen + 2)
        json.dumps(commander.mysis(view.id).last_error)
    finally:
        await commander.shutdown(timeout=2)

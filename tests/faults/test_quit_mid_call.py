"""Quitting cuts the calls in flight and loses nothing (the app quits with timeout 0).

Sixteen Myses wait on a model that never answers, or on a game call that never returns;
the commander shuts down at once: each request in flight is logged as cancelled (none
left pending), the database holds every memory, the swarm's states are kept for the next
launch, and there the next requests are valid. ``bench/quit.py`` times the real app.
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_servers import Call, FakeOpenAIServer, Reply
from zoea_tui.core.validator import validate
from zoea_tui.game.backend import GameBackend
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.warm_start import WarmStart
from zoea_tui.sim import World
from zoea_tui.sim.host import WorldHost
from zoea_tui.storage import Store
from zoea_tui.ui.app import SHUTDOWN_S

from .conftest import cloud_config, open_swarm, until


async def test_quitting_with_every_call_in_flight_cuts_them_and_keeps_the_store(
    tmp_path: Path,
) -> None:
    assert SHUTDOWN_S == 0  # the app does not wait for turns to end
    async with FakeOpenAIServer() as server:
        server.default = Reply("never", stall_after=0)
        config = cloud_config(server.url, timeout=600)
        commander, _ = await open_swarm(tmp_path, config)
        # Sixteen calls in flight at once: the warm start would hold fifteen of them
        # until the first, which never ends, was answered (orchestrator/warm_start.py).
        commander.services = replace(commander.services, warm_start=WarmStart(enabled=False))
        for n in range(16):
            await commander.create_mysis(f"m{n:02d}")
        await until(lambda: len(server.chat_requests) >= 16, limit=60)
        await commander.shutdown(timeout=SHUTDOWN_S)

    with sqlite3.connect(tmp_path / "zoea.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        outcomes = [row[0] for row in conn.execute("SELECT outcome FROM requests")]
        states = {row[0] for row in conn.execute("SELECT state FROM myses")}
    assert outcomes == ["cancelled"] * 16
    assert states == {"running"}  # they resume at the next launch

    async with FakeOpenAIServer() as server:
        server.default = Reply("Back.")
        commander2: Commander
        commander2, _ = await open_swarm(tmp_path, cloud_config(server.url))
        try:
            await until(lambda: len(server.chat_requests) >= 16, limit=60)
            from zoea_tui.core.validator import validate

            assert all(not validate(r.json()["messages"]) for r in server.chat_requests)
        finally:
            await commander2.shutdown(timeout=1)


class HoldingWorld(WorldHost):
    """A world that holds every ``get_cargo`` call open (a game call in flight)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.holding = 0

    async def call(self, key: Any, tool: str, args: Any) -> Any:
        if tool == "get_cargo":
            self.holding += 1
            await asyncio.Event().wait()  # never answered
        return await super().call(key, tool, args)


def _store_after(db: Path) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        return {
            "integrity": conn.execute("PRAGMA integrity_check").fetchone()[0],
            "outcomes": sorted(row[0] for row in conn.execute("SELECT outcome FROM requests")),
            "states": {row[0] for row in conn.execute("SELECT state FROM myses")},
            "calls": [
                row[0]
                for row in conn.execute(
                    "SELECT tool_calls FROM memories WHERE role = 'assistant' ORDER BY id"
                )
            ],
            "results": conn.execute("SELECT COUNT(*) FROM memories WHERE role = 'tool'").fetchone()[
                0
            ],
        }


async def test_quitting_cuts_game_and_model_calls_in_flight_and_keeps_the_store(
    tmp_path: Path,
) -> None:
    """Eight Myses wait on a game call that never returns, eight on a model that never
    answers; the commander quits at once: the answered requests are logged as answered,
    the others as cancelled, none left pending; every answer with its tool call is kept;
    at the next launch each cut call is answered "Tool no response" and every request is
    valid."""
    world = HoldingWorld(World(3), tick_seconds=0)
    async with FakeOpenAIServer() as server:
        server.script(*[Reply("", tool_calls=[Call("get_cargo", {})]) for _ in range(8)])
        server.default = Reply("never", stall_after=0)
        config = cloud_config(server.url, timeout=600)
        backend = GameBackend("embedded", host=world)
        commander, _ = await open_swarm(tmp_path, config, backend=backend)
        for n in range(16):
            await commander.create_mysis(f"m{n:02d}")
        await until(lambda: len(server.chat_requests) >= 16 and world.holding >= 8, limit=60)
        await commander.shutdown(timeout=SHUTDOWN_S)

    after = _store_after(tmp_path / "zoea.db")
    assert after["integrity"] == "ok"
    assert after["outcomes"] == ["cancelled"] * 8 + ["ok"] * 8  # none pending
    assert after["states"] == {"running"}
    assert len(after["calls"]) == 8 and all("get_cargo" in c for c in after["calls"])
    assert after["results"] == 0  # the game calls were cut before answering

    async with FakeOpenAIServer() as server:
        server.default = Reply("Back.")
        commander2, _ = await open_swarm(tmp_path, cloud_config(server.url))
        try:
            await until(lambda: len(server.chat_requests) >= 16, limit=60)
            bodies = [r.json()["messages"] for r in server.chat_requests]
            assert all(not validate(messages) for messages in bodies)
            cut = [m for messages in bodies for m in messages if m["role"] == "tool"]
            assert len(cut) >= 8 and all("Tool no response" in m["content"] for m in cut)
        finally:
            await commander2.shutdown(timeout=1)


async def test_a_request_cut_while_it_is_being_logged_is_recorded_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write of a request's log row goes on in the database's thread when the quit
    cuts the Mysis waiting for it: the row is then recorded as cancelled, not left
    pending."""
    logging = asyncio.Event()
    real = Store.log_request

    async def slow_log(self: Store, *args: Any, **kwargs: Any) -> int:
        request_id = await real(self, *args, **kwargs)  # the row is written …
        logging.set()
        await asyncio.sleep(0.2)  # … and its id is on its way back when the quit comes
        return request_id

    monkeypatch.setattr(Store, "log_request", slow_log)
    async with FakeOpenAIServer() as server:
        server.default = Reply("never", stall_after=0)
        commander, _ = await open_swarm(tmp_path, cloud_config(server.url, timeout=600))
        await commander.create_mysis("cut")
        await until(logging.is_set, limit=60)
        await commander.shutdown(timeout=SHUTDOWN_S)
    assert _store_after(tmp_path / "zoea.db")["outcomes"] == ["cancelled"]

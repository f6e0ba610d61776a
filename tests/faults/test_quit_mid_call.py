"""Quitting cuts the calls in flight and loses nothing (the app quits with timeout 0).

Sixteen Myses wait on a model that never answers; the commander shuts down at once: each
request in flight is logged as cancelled, the database holds every memory, the swarm's
states are kept for the next launch, and there the next requests are valid.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.fakes.llm_servers import FakeOpenAIServer, Reply
from zoea_tui.orchestrator.commander import Commander
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

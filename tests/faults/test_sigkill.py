"""A process killed with SIGKILL mid-call loses nothing stored and resumes validly.

The child plays one Mysis against a loopback model server and a loopback game
server, both in this process. Each scenario holds one call open (the model's
answer stalls, or the game holds a tool call) and kills the child the moment
that server reports the call has arrived, not after a count of requests. The
memories read just before the kill must all be there, unchanged, after a
restart; the database passes its integrity check; the next request is valid.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_servers import Call, FakeOpenAIServer, Reply
from zoea_tui.core.validator import validate
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.sim import World
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.serve import HttpWorldServer

from .conftest import until
from .crash_child import crash_config

ROOT = Path(__file__).resolve().parents[2]
#: Two whole turns before the call the kill interrupts (memories to keep).
OPENING = (
    Reply("", tool_calls=[Call("get_status", {})]),
    Reply("Status checked."),
    Reply("", tool_calls=[Call("get_system", {})]),
    Reply("System seen."),
)
HELD_TOOL = "get_cargo"


class HoldingHost(WorldHost):
    """A world that holds every ``get_cargo`` call open until released."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held = asyncio.Event()
        self.release = asyncio.Event()

    async def call(self, key, tool, args):
        if tool == HELD_TOOL and not self.release.is_set():
            self.held.set()
            await self.release.wait()
        return await super().call(key, tool, args)


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        return conn.execute(sql).fetchall()


MEMORIES = "SELECT id, role, content, reasoning, tool_calls, tool_call_id FROM memories"


async def _kill_when(
    arrived: asyncio.Event, child: asyncio.subprocess.Process, db: Path
) -> list[tuple[Any, ...]]:
    """Wait for the server's signal, read the stored memories, SIGKILL the child."""
    signal_task = asyncio.ensure_future(arrived.wait())
    exit_task = asyncio.ensure_future(child.wait())
    done, _ = await asyncio.wait(
        {signal_task, exit_task}, timeout=60, return_when=asyncio.FIRST_COMPLETED
    )
    for task in (signal_task, exit_task):
        task.cancel()
    if signal_task not in done:
        stderr = (await child.stderr.read()).decode() if exit_task in done else ""
        raise AssertionError(f"the call was never in flight; child: {stderr[-2000:]}")
    before = _rows(db, MEMORIES + " ORDER BY id")
    child.send_signal(signal.SIGKILL)
    assert await child.wait() == -signal.SIGKILL
    return before


@pytest.mark.parametrize("in_flight", ["model call", "tool call"])
async def test_sigkill_mid_call_keeps_every_stored_memory(in_flight: str, tmp_path: Path) -> None:
    db = tmp_path / "zoea.db"
    host = HoldingHost(World(9), tick_seconds=0)
    async with FakeOpenAIServer() as model, HttpWorldServer(host) as game:
        held: Reply = (
            Reply("never finished", stall_after=1)
            if in_flight == "model call"
            else Reply("", tool_calls=[Call(HELD_TOOL, {})])
        )
        model.script(*OPENING, held)
        model.default = Reply("All good.")
        arrived = model.stalled if in_flight == "model call" else host.held
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.faults.crash_child",
            str(db),
            model.url,
            game.url,
            cwd=ROOT,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            before = await _kill_when(arrived, child, db)
        finally:
            if child.returncode is None:
                child.kill()
                await child.wait()
        host.release.set()

        assert len(before) >= 6  # the opening turns' memories were stored
        if in_flight == "tool call":
            # The call was stored before it ran; its result never came.
            assert HELD_TOOL in before[-1][4]
        pending = _rows(db, "SELECT outcome FROM requests ORDER BY id")
        # The request cut by the kill stays visible as such, never silently rewritten.
        assert pending[-1] == (("pending",) if in_flight == "model call" else ("ok",))

        with sqlite3.connect(db) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        commander = await Commander.open(crash_config(model.url, game.url), db_path=db)
        try:
            after = {row[0]: row for row in _rows(db, MEMORIES)}
            assert [after.get(row[0]) for row in before] == before
            (view,) = commander.myses()
            assert view.state == "running"
            assert not validate((await commander.preview(view.id)).messages)
            newer = MEMORIES + f" WHERE id > {before[-1][0]} AND content = 'All good.'"
            await until(lambda: bool(_rows(db, newer)), limit=30)  # it plays on
        finally:
            await commander.shutdown()

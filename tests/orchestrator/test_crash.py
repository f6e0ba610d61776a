"""A process killed with SIGKILL mid-turn loses nothing stored and resumes validly."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

from zoea_tui.config import Config
from zoea_tui.core.validator import validate
from zoea_tui.orchestrator.commander import Commander

from .conftest import until

CHILD = textwrap.dedent("""
    import asyncio, sys
    from dataclasses import replace
    from pathlib import Path
    from zoea_tui.config import Config
    from zoea_tui.orchestrator.commander import Commander

    async def main():
        base = Config()
        config = replace(base, game=replace(base.game, tick_seconds=0.01),
                         nudge=replace(base.nudge, idle_seconds=0.05))
        await Commander.open(config, db_path=Path(sys.argv[1]))
        await asyncio.Event().wait()

    asyncio.run(main())
""")


def _count(db: Path, sql: str) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        return conn.execute(sql).fetchone()[0]


async def test_sigkill_mid_turn_then_restart(tmp_path: Path) -> None:
    db = tmp_path / "zoea.db"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(db)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert child.poll() is None, child.stderr.read().decode()
            if db.exists():
                try:
                    if _count(db, "SELECT COUNT(*) FROM requests") >= 40:
                        break
                except sqlite3.OperationalError:
                    pass  # the schema is being created
            assert time.monotonic() < deadline, "the swarm made no requests"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGKILL

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    memories_before = _count(db, "SELECT COUNT(*) FROM memories")
    requests_before = _count(db, "SELECT COUNT(*) FROM requests")

    base = Config()
    config = replace(base, game=replace(base.game, tick_seconds=0.01),
                     nudge=replace(base.nudge, idle_seconds=0.05))
    commander = await Commander.open(config, db_path=db)
    try:
        assert [v.state for v in commander.myses()] == ["running"] * 3
        for view in commander.myses():
            assert not validate((await commander.preview(view.id)).messages)
        await until(lambda: True)
        start = requests_before
        await until(lambda: _count(db, "SELECT COUNT(*) FROM requests") > start + 6, limit=30)
        # The game sessions were lost with the process: they are healed silently
        # (re-login with the pooled accounts, which the world saved when registered).
        fresh = f"SELECT COUNT(*) FROM memories WHERE role = 'tool' AND id > {memories_before}"
        await until(lambda: _count(db, fresh + " AND content NOT LIKE '{\"error%'") >= 6,
                    limit=30)
        auth = fresh + " AND (content LIKE '%auth_failed%' OR content LIKE '%not_authenticated%')"
        assert _count(db, auth) == 0
    finally:
        await commander.shutdown()
    assert _count(db, "SELECT COUNT(*) FROM memories") >= memories_before
    # Requests cut by the kill stay visible as such, never silently rewritten.
    assert _count(db, "SELECT COUNT(*) FROM requests WHERE outcome = 'pending'") <= 3

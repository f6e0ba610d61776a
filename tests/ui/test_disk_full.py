"""A full disk under the app: the line on screen, the Myses stopped, nothing lost.

The real commander with its running starter swarm on a real SQLite file; the disk
"fills" through SQLite's own page limit (``max_page_count``), which fails a write with
SQLITE_FULL as a full disk does.
"""

from __future__ import annotations

import sqlite3

from zoea_tui.orchestrator.commander import Commander
from zoea_tui.ui.app import ZoeaApp

from .helpers import wait_for
from .test_app import SIZE, spy_notifications


async def test_a_full_disk_is_shown_and_stops_the_myses(app: ZoeaApp, commander: Commander) -> None:
    async with app.run_test(size=SIZE) as pilot:
        notes = spy_notifications(app)
        await wait_for(pilot, lambda: commander.running_count() > 0)
        before = await commander.store.fetch_one("SELECT COUNT(*) FROM memories")
        pages = (await commander.store.fetch_one("PRAGMA page_count"))[0]
        await commander.store.connection.execute(f"PRAGMA max_page_count = {pages}")
        path = commander.store.path
        line = (
            f"the disk is full: {path}; free some space, then try again (everything stored "
            "before it is kept); the Myses stop at their next write (relaunch them after)"
        )
        await wait_for(pilot, lambda: ("error", line) in notes, timeout=30)
        assert commander.store.disk_full is not None
        await wait_for(pilot, lambda: commander.running_count() == 0, timeout=30)
        assert {v.state for v in commander.myses()} == {"errored"}
        assert all("the disk is full" in (v.last_error or "") for v in commander.myses())
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT COUNT(*) FROM memories").fetchone()[0] >= before[0]
    db.close()

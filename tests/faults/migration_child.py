"""The processes the migration-kill test kills: each opens a database and dies mid-way.

Run as ``python -m tests.faults.migration_child TEMPLATE OUT``. TEMPLATE is the database
to start from (a path that does not exist: a new database). First a process opens a
copy to the end and writes every statement SQLite ran, in order, to ``OUT/statements.json``;
then, for every position k, a process opens the copy ``OUT/k.db`` and kills itself with
SIGKILL as SQLite starts its k-th statement. ``OUT/outcomes.json`` maps k to how each
process ended ("killed" is the only expected answer).

The hook is SQLite's trace callback on the store's connection, set here by wrapping
``aiosqlite.connect``: the product code knows nothing of it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import traceback
from pathlib import Path
from typing import Any

import aiosqlite

from zoea_tui.storage import Store


def _open_with_trace(path: Path, kill_at: int | None, seen: list[str]) -> None:
    """Open (and migrate) ``path``, dying at statement ``kill_at`` (None: never)."""
    real_connect = aiosqlite.connect

    def trace(statement: str) -> None:
        seen.append(statement)
        if kill_at is not None and len(seen) == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    async def connect(*args: Any, **kwargs: Any) -> aiosqlite.Connection:
        db = await real_connect(*args, **kwargs)
        await db.set_trace_callback(trace)
        return db

    async def main() -> None:
        aiosqlite.connect = connect  # type: ignore[assignment]
        store = await Store.open(path)
        await store.close()

    asyncio.run(main())


def _copy(template: Path, target: Path) -> None:
    if template.exists():
        shutil.copyfile(template, target)


def _in_child(job: Any) -> int:
    """Run ``job`` in a forked process; its wait status."""
    pid = os.fork()
    if pid == 0:
        try:
            job()
        except BaseException:
            traceback.print_exc()
            os._exit(4)
        os._exit(3)
    return os.waitpid(pid, 0)[1]


def main(template: Path, out: Path) -> None:
    """Count the statements of a full open, then kill one process at each of them."""
    seen: list[str] = []
    counted = out / "count.db"
    _copy(template, counted)

    def count() -> None:
        _open_with_trace(counted, None, seen)
        (out / "statements.json").write_text(json.dumps(seen))

    if _in_child(count) != 3 << 8:
        raise SystemExit("the counting run failed")
    total = len(json.loads((out / "statements.json").read_text()))
    outcomes: dict[int, str] = {}
    for k in range(1, total + 1):
        target = out / f"{k}.db"
        _copy(template, target)
        status = _in_child(lambda target=target, k=k: _open_with_trace(target, k, []))
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        outcomes[k] = "killed" if killed else f"status {status}"
    (out / "outcomes.json").write_text(json.dumps(outcomes))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))

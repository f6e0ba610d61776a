"""A process killed at any statement of opening and migrating leaves a whole version.

``migration_child`` opens a copy of a database once per statement SQLite runs while
opening it, and SIGKILLs itself as that statement starts. Every copy must then be
exactly the schema of some version (the migrations it has committed, nothing of the
next), keep its rows, and open and migrate to the end.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import aiosqlite
import pytest

from tests.storage.test_store import veteran
from zoea_tui.storage import Store
from zoea_tui.storage.migrations import latest_version, schema_text

ROOT = Path(__file__).resolve().parents[2]


async def _snapshot(path: Path) -> tuple[str, list[int], str]:
    """The schema text, the applied versions and the integrity verdict of a database."""
    async with aiosqlite.connect(path) as db:
        integrity = (await db.execute_fetchall("PRAGMA integrity_check"))[0][0]
        ledger = await db.execute_fetchall(
            "SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'"
        )
        versions: list[int] = []
        if list(ledger):
            rows = await db.execute_fetchall("SELECT version FROM schema_migrations ORDER BY 1")
            versions = [row[0] for row in rows]
        return await schema_text(db), versions, integrity


async def _schemas(folder: Path) -> dict[int, str]:
    """The schema of a clean database at every version, 0 (empty) to the latest."""
    schemas = {}
    for version in range(latest_version() + 1):
        path = folder / f"clean-{version}.db"
        await (await Store.open(path, migrate_up_to=version)).close()
        schemas[version] = (await _snapshot(path))[0]
    return schemas


#: The request log of the version-10 veteran, as that version wrote it.
_OLD_ITEMS = [
    {"role": "system", "kind": "system", "memory_id": "synthetic", "action": "synthetic",
     "reason": "rendered from the system prompt template", "tokens": 400},
    {"role": "user", "kind": "memory", "memory_id": 1, "action": "kept", "reason": "",
     "tokens": 9},
    {"role": "user", "kind": "memory", "memory_id": 2, "action": "kept", "reason": "",
     "tokens": 8},
]  # fmt: skip
_OLD_INPUTS = '{"settings": {"max_context_messages": 20}, "game_state": "", "account": null}'


async def _veteran_with_log(path: Path) -> None:
    """A version-10 database with a Mysis, two memories and three logged requests."""
    await veteran(path)
    old = await Store.open(path, migrate_up_to=10)
    for n in range(3):
        await old.connection.execute(
            "INSERT INTO requests (mysis_id, created_at, strategy, last_memory_id, items, "
            "estimated_tokens, inputs, digest) VALUES (1, ?, 'turn-aware', 2, ?, 417, ?, ?)",
            (n, json.dumps(_OLD_ITEMS[: n + 1]), _OLD_INPUTS if n else None, f"{n:064x}"),
        )
    await old.close()


async def _requests(path: Path) -> list[tuple[object, ...]]:
    """The veteran's requests in a form both versions share."""
    async with aiosqlite.connect(path) as db:
        rows = await db.execute_fetchall("SELECT id, created_at, last_memory_id FROM requests")
        return [tuple(row) for row in rows]


async def _rows(path: Path) -> list[tuple[object, ...]]:
    async with aiosqlite.connect(path) as db:
        return [
            tuple(row)
            for row in await db.execute_fetchall(
                "SELECT m.name, x.content FROM memories x JOIN myses m ON m.id = x.mysis_id "
                "ORDER BY x.id"
            )
        ]


@pytest.mark.parametrize("start", ["new", "version 1 with rows", "version 10 with a log"])
async def test_a_kill_at_any_statement_leaves_a_whole_version_that_opens(
    start: str, tmp_path: Path
) -> None:
    schemas = await _schemas(tmp_path)
    template = tmp_path / "template.db"
    first = 0
    if start == "version 1 with rows":
        await veteran(template)
        first = 1
    elif start == "version 10 with a log":
        await _veteran_with_log(template)
        first = 10
    out = tmp_path / "killed"
    out.mkdir()
    child = subprocess.run(
        [sys.executable, "-m", "tests.faults.migration_child", str(template), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    statements = json.loads((out / "statements.json").read_text())
    outcomes = json.loads((out / "outcomes.json").read_text())
    # Every migration's statements ran in this open, so every position was a kill point.
    assert len(statements) > 4 * (latest_version() - first)
    assert set(outcomes.values()) == {"killed"}, outcomes

    reached = set()
    for k in range(1, len(statements) + 1):
        killed = out / f"{k}.db"
        where = f"killed as statement {k} started: {statements[k - 1][:80]!r}"
        schema, versions, integrity = await _snapshot(killed)
        assert integrity == "ok", where
        version = len(versions)
        assert versions == list(range(1, version + 1)), where
        assert schema == schemas[version], f"{where}: not the schema of version {version}"
        reached.add(version)
        if first:
            assert [r[1] for r in await _rows(killed)] == [
                "remember the iron belt",
                "and the copper one",
            ], where
        if first == 10:
            assert await _requests(killed) == [(1, 0.0, 2), (2, 1.0, 2), (3, 2.0, 2)], where
        store = await Store.open(killed)
        if first == 10:
            logged = await store.list_requests()
            assert [len(r.items) for r in logged] == [1, 2, 3], where
            assert logged[2].items[2]["memory_id"] == 2, where
            assert logged[2].digest == f"{2:064x}", where
        await store.close()
        schema, versions, _ = await _snapshot(killed)
        assert versions == list(range(1, latest_version() + 1)), where
        assert schema == schemas[latest_version()], where
        if first:
            assert len(await _rows(killed)) == 2, where
    assert reached == set(range(first, latest_version() + 1))

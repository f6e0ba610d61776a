"""Versioned schema migrations, applied at open (never "delete your database")."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from ..resources import data_dir

_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered SQL file of ``store/migrations``."""

    version: int
    name: str
    sql: str


def load_migrations(folder: Path | None = None) -> list[Migration]:
    """Every migration, in version order."""
    folder = folder or data_dir("store") / "migrations"
    found = []
    for path in sorted(folder.iterdir()):
        match = _NAME.match(path.name)
        if match:
            found.append(Migration(int(match[1]), match[2], path.read_text(encoding="utf-8")))
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations in {folder} are not numbered 001, 002, …: {versions}")
    return found


async def current_version(db: aiosqlite.Connection) -> int:
    """The highest applied migration (0 for a new database)."""
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    async with db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cur:
        row = await cur.fetchone()
    return int(row[0]) if row else 0


async def migrate(db: aiosqlite.Connection, *, up_to: int | None = None) -> list[int]:
    """Apply the migrations the database lacks, each in its own transaction.

    Returns the versions applied. A database newer than this program is
    refused rather than touched.
    """
    migrations = load_migrations()
    have = await current_version(db)
    latest = migrations[-1].version if migrations else 0
    if have > latest:
        raise RuntimeError(
            f"the database is at schema version {have}, newer than this program ({latest}); "
            "upgrade Zoea Nova to open it"
        )
    applied = []
    for migration in migrations:
        if migration.version <= have or (up_to is not None and migration.version > up_to):
            continue
        script = (
            "BEGIN IMMEDIATE;\n"
            f"{migration.sql}\n"
            "INSERT INTO schema_migrations (version, name, applied_at) "
            f"VALUES ({migration.version}, '{migration.name}', {time.time()});\n"
            "COMMIT;"
        )
        try:
            await db.executescript(script)
        except Exception:
            await db.execute("ROLLBACK") if db.in_transaction else None
            raise
        applied.append(migration.version)
    return applied


async def schema_text(db: aiosqlite.Connection) -> str:
    """The schema a fully migrated database has, as ``store/schema.sql`` records it."""
    async with db.execute(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "AND name NOT LIKE '%_fts_%' ORDER BY type DESC, name"
    ) as cur:
        statements = [row[0].strip() + ";" async for row in cur]
    header = (
        "-- The schema after every migration in migrations/ (generated; do not edit).\n"
        "-- Regenerate: python -m zoea_tui.storage.schema > store/schema.sql\n\n"
    )
    return header + "\n\n".join(statements) + "\n"

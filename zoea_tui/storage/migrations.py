"""Versioned schema migrations, applied at open (never "delete your database")."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from ..resources import data_dir
from .preflight import refuse_newer
from .request_log import text_hash, unhex

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


#: The ledger of applied migrations; created inside the first migration's transaction,
#: so a database killed before that commit is still an empty one.
_CREATE_LEDGER = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
)
_LINE_COMMENT = re.compile(r"--[^\n]*")


def _hash_or_null(text: str | None) -> int | None:
    return None if text is None else text_hash(text)


async def register_functions(db: aiosqlite.Connection) -> None:
    """The SQL functions migrations may call (pure, deterministic): ``zoea_text_hash``
    (a request part's key, ``storage/request_log.py``) and ``zoea_unhex``."""
    await db.create_function("zoea_text_hash", 1, _hash_or_null, deterministic=True)
    await db.create_function("zoea_unhex", 1, unhex, deterministic=True)


def latest_version(migrations: list[Migration] | None = None) -> int:
    """The schema version this program migrates databases to."""
    migrations = load_migrations() if migrations is None else migrations
    return migrations[-1].version if migrations else 0


def statements(sql: str) -> list[str]:
    """The statements of a migration file, in order (a trigger's body stays whole)."""
    found: list[str] = []
    buffer = ""
    for piece in sql.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if _LINE_COMMENT.sub("", buffer).strip(" \t\n;"):
                found.append(buffer.strip())
            buffer = ""
    return found


async def current_version(db: aiosqlite.Connection) -> int:
    """The highest applied migration (0 for a new database); reads only."""
    ledger = await db.execute_fetchall(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    )
    if not list(ledger):
        return 0
    rows = list(
        await db.execute_fetchall("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
    )
    return int(rows[0][0]) if rows else 0


async def migrate(
    db: aiosqlite.Connection, *, up_to: int | None = None, path: Path | str = "the database"
) -> list[int]:
    """Apply the migrations the database lacks, each in its own transaction.

    A migration's statements and its ``schema_migrations`` row commit together or not
    at all: a process killed at any statement leaves the database at the version before
    it. Returns the versions applied. A database newer than this program is refused
    (:class:`StoreError` naming ``path``) rather than touched.
    """
    migrations = load_migrations()
    have = await current_version(db)
    refuse_newer(have, latest_version(migrations), path)
    applied: list[int] = []
    if have < latest_version(migrations):
        await register_functions(db)
    for migration in migrations:
        if migration.version <= have or (up_to is not None and migration.version > up_to):
            continue
        # Statement by statement under one explicit transaction: executescript() would
        # commit whatever was pending first, and hides where a failure happened.
        await db.execute("BEGIN IMMEDIATE")
        try:
            await db.execute(_CREATE_LEDGER)
            for statement in statements(migration.sql):
                await db.execute(statement)
            await db.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, time.time()),
            )
            await db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                await asyncio.shield(db.execute("ROLLBACK"))
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

"""The SQLite store: myses, memories, broadcasts, requests, search, behind one front.

One :class:`Store` per process, opened by the factory and closed in one
place. Every read a composition needs is at most two indexed queries,
whatever the length of the history.

:class:`Store` is made of parts, one per kind of data and its tables: :mod:`.swarm` (Myses and
broadcasts), :mod:`.accounts`, :mod:`.memories`, :mod:`.turns`, :mod:`.requests` (the
request log and its retention) and :mod:`.arena_runs`, on :mod:`.core` (the connection
and its write lock); what they keep is in :mod:`.records`. Callers use :class:`Store`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Unpack

import aiosqlite

from .accounts import AccountsTables
from .arena_runs import ArenaTables
from .core import StoreCore
from .errors import StoreError, folder_error, store_error
from .memories import MemoriesTables
from .migrations import latest_version, migrate
from .preflight import examine
from .requests import RequestsTables
from .search import (
    MemorySearchOptions,
    SearchHit,
    SearchOptions,
    search_broadcasts,
    search_memories,
)
from .turns import TurnsTables

__all__ = ["Store"]


async def _probe_write_lock(db: aiosqlite.Connection) -> None:
    """Fail now, not at the first write, if the file is read-only or another program
    holds its write lock: take the lock, write a page, and roll it back."""
    rows = list(await db.execute_fetchall("PRAGMA user_version"))
    await db.execute("BEGIN IMMEDIATE")
    try:
        await db.execute(f"PRAGMA user_version = {int(rows[0][0])}")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            await db.execute("ROLLBACK")
        raise
    await db.execute("ROLLBACK")


class Store(MemoriesTables, AccountsTables, TurnsTables, RequestsTables, ArenaTables, StoreCore):
    """Async repository over one SQLite file."""

    def __init__(self, db: aiosqlite.Connection, path: Path) -> None:
        super().__init__(db, path)
        #: A second connection for reads that must not wait behind the swarm's writes.
        self._reader: Store | None = None
        self._reader_lock = asyncio.Lock()
        self._closed = False

    @classmethod
    async def open(
        cls, path: str | Path, *, migrate_up_to: int | None = None, busy_timeout: float = 5.0
    ) -> Store:
        """Open (creating if needed) and migrate the database at ``path``.

        The file is examined first without writing (:func:`~.preflight.examine`): a file
        that is not Zoea's, is damaged or is newer than this program is refused with
        every byte kept. Every failure to open is a one-line :class:`StoreError`;
        ``busy_timeout``: seconds to wait for another program's lock.
        """
        path = Path(path)
        await asyncio.to_thread(examine, path, latest_version(), busy_timeout=busy_timeout)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise folder_error(path, exc) from None
        try:
            db = await aiosqlite.connect(path, isolation_level=None)
        except sqlite3.Error as exc:
            mapped = store_error(exc, path)
            if mapped is None:
                raise
            raise mapped from exc
        try:
            await db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            await db.execute("PRAGMA journal_mode = WAL")
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute("PRAGMA synchronous = NORMAL")
            await migrate(db, up_to=migrate_up_to, path=path)
            await _probe_write_lock(db)
        except sqlite3.Error as exc:
            mapped = store_error(exc, path)  # before the close, which removes the -wal
            await db.close()
            if mapped is None:
                raise
            raise mapped from exc
        except BaseException:
            await db.close()
            raise
        return cls(db, path)

    async def close(self) -> None:
        """Close the connection, and the reader's (idempotent).

        No reader is opened after this: each connection runs in a thread of its own
        that, left open, would keep the process alive after the program has ended.
        """
        async with self._reader_lock:  # a reader being opened now is closed here
            self._closed = True
            if self._reader is not None:
                await self._reader.close()
        with contextlib.suppress(ValueError):
            await self._db.close()

    async def reader(self) -> Store:
        """The same database over a second, read-only connection (opened once).

        aiosqlite runs one connection's statements one after another in its thread, so
        a page the commander asks for would wait behind every write the swarm has queued
        (over 300 ms with 16 Myses playing). WAL lets this connection read while those
        writes go on; it sees every committed write. Only reads may go through it.
        """
        async with self._reader_lock:
            if self._closed:
                raise StoreError(f"{self.path}: the database is closed")
            if self._reader is None:
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                db = await aiosqlite.connect(uri, uri=True, isolation_level=None)
                try:
                    await db.execute("PRAGMA busy_timeout = 5000")
                    await db.execute("PRAGMA query_only = ON")
                except Exception:
                    await db.close()
                    raise
                self._reader = Store(db, self.path)
            return self._reader

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- search --------------------------------------------------------------

    async def search_memories(
        self, mysis_id: int, query: str, **options: Unpack[MemorySearchOptions]
    ) -> list[SearchHit]:
        """Ranked, case-insensitive substring search of one Mysis's memories
        (``storage/search.py``; ``exact``: the whole query, case-sensitive).

        ``field`` is ``content`` or ``reasoning``; each hit carries the start of
        that field (at most ``text_limit`` characters) and its whole length.
        """
        field = options.get("field", "content")
        if field not in ("content", "reasoning"):
            raise StoreError(f"cannot search {field!r}")
        return await search_memories(self.fetch_all, mysis_id, query, **options)

    async def search_broadcasts(
        self, query: str, **options: Unpack[SearchOptions]
    ) -> list[SearchHit]:
        """Ranked substring search of every broadcast (with the start of each)."""
        return await search_broadcasts(self.fetch_all, query, **options)

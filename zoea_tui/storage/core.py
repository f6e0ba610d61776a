"""The store's connection and its rules: one writer at a time, transactions, reads in one trip.

:class:`StoreCore` is what every part of the store (``swarm``, ``accounts``,
``memories``, ``turns``, ``requests``, ``arena``) stands on; :class:`~.store.Store`
is made of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import aiosqlite

from ..core.types import Memory
from .errors import DiskFull, store_error


class StoreCore:
    """One SQLite connection, its write lock, and the caches the rooms keep."""

    def __init__(self, db: aiosqlite.Connection, path: Path) -> None:
        self._db = db
        self.path = path
        # One connection serves every task: writes take turns, so one task's statement
        # never lands inside (or is rolled back with) another task's transaction.
        self._lock = asyncio.Lock()
        #: Per Mysis: (latest summary id, newest id read, memories after the summary).
        self._since: dict[int, tuple[int, int, tuple[Memory, ...]]] = {}
        #: Request parts this store wrote or found, by text (settings, item shapes).
        self._part_ids: dict[str, int] = {}
        #: Item shapes read, by id (an id is never reused, so this never goes stale).
        self._shape_texts: dict[int, str] = {}
        #: Requests up to these ids were already thinned (None: by age; else per Mysis).
        self._thinned_upto: dict[int | None, int] = {}
        #: The first write that found the disk full, if one did (every later one would).
        self.disk_full: DiskFull | None = None
        self._on_disk_full: list[Callable[[DiskFull], None]] = []

    def on_disk_full(self, callback: Callable[[DiskFull], None]) -> None:
        """Call ``callback`` once, when a write first finds the disk full (at once if
        one already did): the swarm stops there, rather than fail write after write."""
        if self.disk_full is not None:
            callback(self.disk_full)
        else:
            self._on_disk_full.append(callback)

    def _disk_was_full(self, error: DiskFull) -> None:
        if self.disk_full is not None:
            return
        self.disk_full = error
        callbacks, self._on_disk_full = self._on_disk_full, []
        for callback in callbacks:
            callback(error)

    @contextlib.asynccontextmanager
    async def _writing(self) -> AsyncIterator[None]:
        """The write lock; the file's own failures (locked by another program, read-only,
        disk full, damaged) leave as one-line :class:`StoreError`, others as they are."""
        async with self._lock:
            with self._file_errors():
                yield

    @contextlib.contextmanager
    def _file_errors(self) -> Iterator[None]:
        """A failure of SQLite on this file leaves as a one-line :class:`StoreError` for
        the file's own failures (a full disk told once to :meth:`on_disk_full`'s
        callbacks), as itself for the others (a constraint, a mistake)."""
        try:
            yield
        except sqlite3.Error as exc:
            mapped = store_error(exc, self.path)
            if mapped is None:
                raise
            if isinstance(mapped, DiskFull):
                self._disk_was_full(mapped)
            raise mapped from exc

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[None]:
        """All or nothing, and alone: BEGIN IMMEDIATE … COMMIT under the write lock."""
        async with self._writing():
            try:
                await self._db.execute("BEGIN IMMEDIATE")
                yield
            except BaseException:
                await self._rollback()
                raise
            try:
                await self._db.execute("COMMIT")
            except BaseException:
                await self._rollback()
                raise

    async def _rollback(self) -> None:
        """End the open transaction, if any, whatever interrupted it.

        The statement queues behind what the connection's thread still has to run, so a
        BEGIN whose await was cancelled is rolled back too (a cancelled task once left a
        transaction open and every later write failed). SQLite may already have rolled
        back (a full disk does; a COMMIT may have gone through): that ROLLBACK's error
        would hide the one that matters, so it is ignored.
        """
        with contextlib.suppress(sqlite3.Error):
            await asyncio.shield(self._db.execute("ROLLBACK"))

    @property
    def connection(self) -> aiosqlite.Connection:
        """The raw connection (for tests and maintenance commands)."""
        return self._db

    async def fetch_all(
        self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] = ()
    ) -> list[sqlite3.Row]:
        """Every row of a query, in one trip to the connection's thread.

        aiosqlite makes a trip of ``execute``, of each fetch and of the cursor's close,
        and the way back of each waits its turn on the event loop: with a busy swarm,
        three trips for one query took several milliseconds of waiting.
        """
        with self._file_errors():  # a damaged page met by a read: one line, as a write's
            return list(await self._db.execute_fetchall(sql, parameters))

    async def fetch_one(
        self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] = ()
    ) -> sqlite3.Row | None:
        """The first row of a query of one row at most (one trip), or None."""
        rows = await self.fetch_all(sql, parameters)
        return rows[0] if rows else None

    async def checkpoint(self) -> bool:
        """Empty the WAL into the file and truncate it; False when another connection
        is reading or writing and it could not be emptied whole."""
        async with self._writing():
            row = await self.fetch_one("PRAGMA wal_checkpoint(TRUNCATE)")
        return row is not None and row[0] == 0

    async def vacuum(self) -> bool:
        """Rebuild the file without its free pages and empty the WAL into it (the file
        then takes only what its rows need). Run it alone with the file
        (:meth:`checkpoint` tells): beside a reader the rebuilt copy waits in the WAL
        until the reader lets go. Returns whether the WAL was emptied."""
        async with self._writing():
            await self._db.execute("VACUUM")
        return await self.checkpoint()

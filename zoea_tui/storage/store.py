"""The SQLite store: myses, memories, broadcasts, requests, search.

One :class:`Store` per process, opened by the factory and closed in one
place. Every read a composition needs is at most two indexed queries,
whatever the length of the history.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite

from ..core.cache import serialize
from ..core.composition import ComposeSettings, Composition, History
from ..core.prompts import SYSTEM_PROMPT_TEMPLATE
from ..core.tokens import count_tokens
from ..core.types import Memory, ToolCall, Turn, tool_calls_from_json, tool_calls_to_json
from ..core.window import stepped_window
from .arena import ArenaBatch, ArenaRunRecord
from .errors import ANOTHER_FILE, StoreError, store_error
from .migrations import latest_version, migrate
from .preflight import examine
from .request_log import (
    REQUEST_SELECT,
    chunks,
    compact,
    decode_items,
    facts_text,
    inputs_text,
    item_shape,
    memory_ids_text,
    referenced_parts_sql,
    shape_ids,
    text_hash,
)
from .search import SEARCH_TEXT_LIMIT, SearchHit, search_broadcasts, search_memories

#: Most memories loaded after the latest summary by the ``summarize`` strategy;
#: far more than any threshold lets accumulate, but a fixed bound on the read.
SUMMARIZE_SCAN_LIMIT = 2000

_MEMORY_COLUMNS = (
    "id, mysis_id, role, source, sender_id, content, reasoning, tool_calls, "
    "tool_call_id, tool_name, created_at, game_tick, tokens, seq"
)
_TURN_COLUMNS = (
    "id, mysis_id, first_memory_id, kind, nudge_level, text, created_at, game_tick, state"
)
#: A turn row in the shape of a memory row, so it can ride in the history's one query.
_TURN_AS_MEMORY = (
    "t.id, t.mysis_id, t.kind, NULL, NULL, t.text, t.state, NULL, NULL, NULL, "
    "t.created_at, t.game_tick, t.nudge_level, t.first_memory_id"
)
#: Most turn starts loaded with one history (turns inside the loaded memories).
TURN_SCAN_LIMIT = 2000
#: Most request parts a store remembers by text before it forgets them all.
PART_CACHE = 4096
#: Requests thinned in one write (the swarm's writes go on between two).
THIN_BATCH = 2000


_ACCOUNT_COLUMNS = "id, server, username, password, empire, mysis_id"


@dataclass(frozen=True, slots=True)
class Account:
    """A game account of the pool. ``password`` never leaves the router."""

    id: int
    server: str
    username: str
    password: str = field(repr=False)
    empire: str | None = None
    mysis_id: int | None = None


@dataclass(frozen=True, slots=True)
class MysisRecord:
    """A Mysis as stored."""

    id: int
    name: str
    provider: str
    model: str
    strategy: str
    state: str
    last_error: str | None
    system_prompt: str | None
    account: str | None
    created_at: float
    updated_at: float

    @property
    def system_template(self) -> str:
        """The Mysis's own system prompt template, or the built-in one."""
        return self.system_prompt or SYSTEM_PROMPT_TEMPLATE


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A memory to be stored (the store assigns id, time and token estimate)."""

    role: str
    source: str
    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    sender_id: str | None = None
    game_tick: int | None = None
    created_at: float | None = None


@dataclass(frozen=True, slots=True)
class Broadcast:
    """A broadcast as stored (sender None: the commander)."""

    id: int
    sender_id: str | None
    content: str
    created_at: float
    game_tick: int | None = None


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """One logged LLM call."""

    id: int
    mysis_id: int
    created_at: float
    strategy: str
    last_memory_id: int | None
    nudge_level: int
    #: The composition's items (``Item.to_dict`` without the tokens, which a
    #: recomposition counts again; ``memory_id`` None when thinned).
    items: list[dict[str, Any]]
    estimated_tokens: int
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    outcome: str
    error: str | None
    tools_tokens: int = 0
    #: The turn the request belongs to (None in logs older than the turns table).
    turn_id: int | None = None
    #: Prompt tokens the server said it served from its prompt cache.
    cached_tokens: int | None = None
    #: JSON: the settings, game state and latest broadcast the composition saw
    #: (migration 008; None in older logs).
    inputs: str | None = None
    #: SHA-256 of the messages as sent (``core.cache.serialize``); None in older logs.
    digest: str | None = None
    #: The class of the failure (``providers.base.FailureKind``); None if it did not fail.
    error_kind: str | None = None
    #: Whether the answer came streamed (None: not an HTTP provider, or an older log).
    streamed: bool | None = None
    #: Thinned by the retention policy (``[storage] request_log``): its item memory ids,
    #: facts and digest are gone; it is still recomposed, but cannot be checked.
    thinned: bool = False

    def recorded_inputs(self) -> dict[str, Any]:
        """The recorded composition inputs (empty for requests logged before them)."""
        return json.loads(self.inputs) if self.inputs else {}


def messages_digest(messages: Sequence[dict[str, Any]]) -> str:
    """SHA-256 of messages in their canonical serialization (what the log checks)."""
    return hashlib.sha256(serialize(messages).encode("utf-8")).hexdigest()


def settings_text(settings: ComposeSettings) -> str:
    """The part text of the composition settings a request was composed with (its nudge
    level and tool-schema tokens have their own columns)."""
    knobs = asdict(settings)
    knobs.pop("nudge_level", None)
    knobs.pop("tools_tokens", None)
    return compact(knobs)


def _memory(row: Sequence[Any]) -> Memory:
    return Memory(
        id=row[0],
        mysis_id=row[1],
        role=row[2],
        source=row[3],
        sender_id=row[4],
        content=row[5],
        reasoning=row[6],
        tool_calls=tool_calls_from_json(row[7]),
        tool_call_id=row[8],
        tool_name=row[9],
        created_at=row[10],
        game_tick=row[11],
        tokens=row[12],
        seq=row[13],
    )


def _turn(row: Sequence[Any]) -> Turn:
    return Turn(
        id=row[0],
        mysis_id=row[1],
        first_memory_id=row[2],
        kind=row[3],
        nudge_level=row[4],
        text=row[5],
        created_at=row[6],
        game_tick=row[7],
        state=row[8],
    )


def _turn_from_memory_row(row: Sequence[Any]) -> Turn:
    """A turn that rode in the history query in a memory row's shape."""
    return Turn(
        id=row[0],
        mysis_id=row[1],
        kind=row[2],
        text=row[5],
        state=row[6],
        created_at=row[10],
        game_tick=row[11],
        nudge_level=row[12],
        first_memory_id=row[13],
    )


def request_from_row(row: Sequence[Any], shapes: Mapping[int, str]) -> RequestRecord:
    """A row of :data:`~.request_log.REQUEST_SELECT` as its record (``shapes``: the text
    of every item shape it names)."""
    (
        request_id, mysis_id, created_at, strategy, last_memory_id, nudge_level,
        item_list, memory_ids, estimated, prompt, completion, latency, outcome, error,
        tools_tokens, turn_id, cached, settings, facts, digest, error_kind, streamed,
    ) = row  # fmt: skip
    items = decode_items([shapes[i] for i in shape_ids(item_list)], memory_ids, last_memory_id)
    return RequestRecord(
        id=request_id,
        mysis_id=mysis_id,
        created_at=created_at,
        strategy=strategy,
        last_memory_id=last_memory_id,
        nudge_level=nudge_level,
        items=items,
        estimated_tokens=estimated,
        prompt_tokens=prompt,
        completion_tokens=completion,
        latency_ms=latency,
        outcome=outcome,
        error=error,
        tools_tokens=tools_tokens,
        turn_id=turn_id,
        cached_tokens=cached,
        inputs=inputs_text(settings, facts),
        digest=digest.hex() if digest is not None else None,
        error_kind=error_kind,
        streamed=None if streamed is None else bool(streamed),  # SQLite keeps 0 or 1
        thinned=memory_ids is None,
    )


def _folder_error(path: Path, exc: OSError) -> StoreError:
    """Why the folder of ``path`` cannot be made, in one line."""
    in_the_way = next((p for p in path.parents if p.exists()), None)
    if in_the_way is not None and not in_the_way.is_dir():
        reason = f"{in_the_way} is a file, not a folder"
    else:
        reason = " ".join((exc.strerror or str(exc)).split())
    return StoreError(
        f"cannot create the folder {path.parent} for {path}: {reason}; {ANOTHER_FILE}"
    )


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


class Store:
    """Async repository over one SQLite file."""

    def __init__(self, db: aiosqlite.Connection, path: Path) -> None:
        self._db = db
        self.path = path
        # One connection serves every task: writes take turns, so one task's statement
        # never lands inside (or is rolled back with) another task's transaction.
        self._lock = asyncio.Lock()
        #: A second connection for reads that must not wait behind the swarm's writes.
        self._reader: Store | None = None
        self._reader_lock = asyncio.Lock()
        #: Per Mysis: (latest summary id, newest id read, memories after the summary).
        self._since: dict[int, tuple[int, int, tuple[Memory, ...]]] = {}
        #: Request parts this store wrote or found, by text (settings, item shapes).
        self._part_ids: dict[str, int] = {}
        #: Item shapes read, by id (an id is never reused, so this never goes stale).
        self._shape_texts: dict[int, str] = {}
        #: Requests up to these ids were already thinned (None: by age; else per Mysis).
        self._thinned_upto: dict[int | None, int] = {}

    @contextlib.asynccontextmanager
    async def _writing(self) -> AsyncIterator[None]:
        """The write lock; the file's own failures (locked by another program, read-only,
        disk full, damaged) leave as one-line :class:`StoreError`, others as they are."""
        async with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                mapped = store_error(exc, self.path)
                if mapped is None:
                    raise
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
            raise _folder_error(path, exc) from None
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
            await db.close()
            mapped = store_error(exc, path)
            if mapped is None:
                raise
            raise mapped from exc
        except BaseException:
            await db.close()
            raise
        return cls(db, path)

    async def close(self) -> None:
        """Close the connection, and the reader's (idempotent)."""
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
        return list(await self._db.execute_fetchall(sql, parameters))

    async def fetch_one(
        self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] = ()
    ) -> sqlite3.Row | None:
        """The first row of a query of one row at most (one trip), or None."""
        rows = await self.fetch_all(sql, parameters)
        return rows[0] if rows else None

    # -- myses ---------------------------------------------------------------

    async def create_mysis(
        self,
        name: str,
        *,
        provider: str = "autopilot",
        model: str = "",
        strategy: str = "turn-aware",
        system_prompt: str | None = None,
    ) -> MysisRecord:
        """Create a Mysis; names are unique."""
        now = time.time()
        try:
            async with (
                self._writing(),
                self._db.execute(
                    "INSERT INTO myses (name, provider, model, strategy, system_prompt, created_at,"
                    " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (name, provider, model, strategy, system_prompt, now, now),
                ) as cur,
            ):
                row = await cur.fetchone()
        except aiosqlite.IntegrityError:
            raise StoreError(f"a Mysis named {name!r} already exists") from None
        assert row is not None
        return await self.get_mysis(row[0])

    async def get_mysis(self, mysis_id: int) -> MysisRecord:
        """The Mysis with this id."""
        row = await self.fetch_one("SELECT * FROM myses WHERE id = ?", (mysis_id,))
        if row is None:
            raise StoreError(f"no Mysis with id {mysis_id}")
        return MysisRecord(*row)

    async def find_mysis(self, name: str) -> MysisRecord | None:
        """The Mysis with this name, if any."""
        row = await self.fetch_one("SELECT * FROM myses WHERE name = ?", (name,))
        return MysisRecord(*row) if row else None

    async def list_myses(self) -> list[MysisRecord]:
        """Every Mysis, oldest first."""
        return [
            MysisRecord(*row) for row in await self.fetch_all("SELECT * FROM myses ORDER BY id")
        ]

    async def update_mysis(self, mysis_id: int, **fields: Any) -> MysisRecord:
        """Change some fields of a Mysis (provider, model, strategy, state…)."""
        allowed = {
            "provider",
            "model",
            "strategy",
            "state",
            "last_error",
            "system_prompt",
            "account",
        }
        unknown = set(fields) - allowed
        if unknown:
            raise StoreError(f"cannot update {sorted(unknown)}")
        if fields:
            assignments = ", ".join(f"{key} = ?" for key in fields)
            async with self._writing():
                await self._db.execute(
                    f"UPDATE myses SET {assignments}, updated_at = ? WHERE id = ?",
                    (*fields.values(), time.time(), mysis_id),
                )
        return await self.get_mysis(mysis_id)

    async def delete_mysis(self, mysis_id: int) -> None:
        """Delete a Mysis with its memories and request log."""
        self._since.pop(mysis_id, None)
        async with self._writing():
            await self._db.execute("DELETE FROM myses WHERE id = ?", (mysis_id,))

    # -- accounts ------------------------------------------------------------

    async def add_account(
        self,
        server: str,
        username: str,
        password: str,
        *,
        empire: str | None = None,
        mysis_id: int | None = None,
    ) -> Account:
        """Add an account to the pool (or update its password), optionally assigned.

        Assigning it releases whatever account the Mysis held on that server.
        """
        now = time.time()
        async with self._transaction():
            if mysis_id is not None:
                await self._db.execute(
                    "UPDATE accounts SET mysis_id = NULL WHERE server = ? AND mysis_id = ? "
                    "AND username != ?",
                    (server, mysis_id, username),
                )
            await self._db.execute(
                "INSERT INTO accounts (server, username, password, empire, mysis_id, "
                "created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (server, username) DO UPDATE SET password = excluded.password, "
                "empire = COALESCE(excluded.empire, empire), "
                "mysis_id = COALESCE(excluded.mysis_id, mysis_id), last_used_at = ?",
                (server, username, password, empire, mysis_id, now, now, now),
            )
            if mysis_id is not None:
                await self._db.execute(
                    "UPDATE myses SET account = ?, updated_at = ? WHERE id = ?",
                    (username, now, mysis_id),
                )
        account = await self.find_account(server, username)
        assert account is not None
        return account

    async def find_account(self, server: str, username: str) -> Account | None:
        """The pooled account with this name on this server."""
        row = await self.fetch_one(
            f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE server = ? AND username = ?",
            (server, username),
        )
        return Account(*row) if row else None

    async def account_for(self, mysis_id: int, server: str) -> Account | None:
        """The account assigned to a Mysis on a server, if any."""
        row = await self.fetch_one(
            f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE server = ? AND mysis_id = ?",
            (server, mysis_id),
        )
        return Account(*row) if row else None

    async def claim_account(self, mysis_id: int, server: str) -> Account | None:
        """The Mysis's account, else the oldest free one of the pool, now assigned to it."""
        current = await self.account_for(mysis_id, server)
        if current is not None:
            return current
        row = await self.fetch_one(
            "SELECT username FROM accounts WHERE server = ? AND mysis_id IS NULL "
            "ORDER BY id LIMIT 1",
            (server,),
        )
        if row is None:
            return None
        now = time.time()
        async with self._transaction():
            await self._db.execute(
                "UPDATE accounts SET mysis_id = ?, last_used_at = ? "
                "WHERE server = ? AND username = ? AND mysis_id IS NULL",
                (mysis_id, now, server, row[0]),
            )
            await self._db.execute(
                "UPDATE myses SET account = ?, updated_at = ? WHERE id = ?", (row[0], now, mysis_id)
            )
        return await self.account_for(mysis_id, server)

    async def release_accounts(self, mysis_id: int) -> None:
        """Return the Mysis's accounts to the pool."""
        async with self._transaction():
            await self._db.execute(
                "UPDATE accounts SET mysis_id = NULL WHERE mysis_id = ?", (mysis_id,)
            )
            await self._db.execute("UPDATE myses SET account = NULL WHERE id = ?", (mysis_id,))

    async def list_accounts(self, server: str | None = None) -> list[Account]:
        """The pool, oldest first (all servers unless one is named)."""
        sql = f"SELECT {_ACCOUNT_COLUMNS} FROM accounts"
        params: tuple[Any, ...] = ()
        if server is not None:
            sql, params = sql + " WHERE server = ?", (server,)
        return [Account(*row) for row in await self.fetch_all(sql + " ORDER BY id", params)]

    # -- memories ------------------------------------------------------------

    async def add_memory(self, mysis_id: int, memory: NewMemory) -> Memory:
        """Append one memory and return it as stored."""
        return (await self.add_memories(mysis_id, [memory]))[0]

    async def add_memories(self, mysis_id: int, memories: Iterable[NewMemory]) -> list[Memory]:
        """Append memories in one transaction: all of them or none."""
        now = time.time()
        rows = [(mysis_id, *self._row(m, now)) for m in memories]
        stored: list[Memory] = []
        async with self._transaction():
            seq = await self._last_seq(mysis_id)
            for row in rows:
                seq += 1
                result = await self.fetch_one(
                    "INSERT INTO memories (mysis_id, role, source, sender_id, content, "
                    "reasoning, tool_calls, tool_call_id, tool_name, created_at, game_tick, "
                    f"tokens, seq) VALUES ({', '.join('?' * 13)}) RETURNING {_MEMORY_COLUMNS}",
                    (*row, seq),
                )
                assert result is not None
                stored.append(_memory(result))
        return stored

    async def import_conversation(
        self, name: str, memories: Sequence[NewMemory], *, system_prompt: str | None = None
    ) -> tuple[MysisRecord, int]:
        """Create the Mysis if missing and append ``memories``: all or nothing.

        Returns the Mysis and how many memories were stored.
        """
        now = time.time()
        async with self._transaction():
            row = await self.fetch_one("SELECT id FROM myses WHERE name = ?", (name,))
            if row is None:
                row = await self.fetch_one(
                    "INSERT INTO myses (name, system_prompt, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?) RETURNING id",
                    (name, system_prompt, now, now),
                )
            elif system_prompt is not None:
                await self._db.execute(
                    "UPDATE myses SET system_prompt = ?, updated_at = ? WHERE id = ?",
                    (system_prompt, now, row[0]),
                )
            assert row is not None
            mysis_id = int(row[0])
            seq = await self._last_seq(mysis_id)
            await self._db.executemany(
                "INSERT INTO memories (mysis_id, role, source, sender_id, content, reasoning, "
                "tool_calls, tool_call_id, tool_name, created_at, game_tick, tokens, seq) "
                f"VALUES ({', '.join('?' * 13)})",
                [(mysis_id, *self._row(m, now), seq + n) for n, m in enumerate(memories, start=1)],
            )
        return await self.get_mysis(mysis_id), len(memories)

    async def _last_seq(self, mysis_id: int) -> int:
        """The running count of the Mysis's newest memory (0 when it has none)."""
        row = await self.fetch_one(
            "SELECT seq FROM memories WHERE mysis_id = ? ORDER BY id DESC LIMIT 1", (mysis_id,)
        )
        return int(row[0]) if row else 0

    @staticmethod
    def _row(m: NewMemory, now: float) -> tuple[Any, ...]:
        return (
            m.role,
            m.source,
            m.sender_id,
            m.content,
            m.reasoning,
            tool_calls_to_json(m.tool_calls),
            m.tool_call_id,
            m.tool_name,
            m.created_at if m.created_at is not None else now,
            m.game_tick,
            count_tokens(m.content),
        )

    async def iter_memories(self, mysis_id: int, batch: int = 500) -> AsyncIterator[Memory]:
        """Every memory of a Mysis, oldest first, read in batches."""
        after = 0
        while True:
            rows = await self.fetch_all(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = ? AND id > ? "
                "ORDER BY id LIMIT ?",
                (mysis_id, after, batch),
            )
            if not rows:
                return
            for row in rows:
                yield _memory(row)
            after = rows[-1][0]

    async def count_memories(self, mysis_id: int) -> int:
        """How many memories a Mysis has."""
        row = await self.fetch_one("SELECT COUNT(*) FROM memories WHERE mysis_id = ?", (mysis_id,))
        return int(row[0]) if row else 0

    async def recent_memories(
        self, mysis_id: int, limit: int = 200, before_id: int | None = None
    ) -> list[Memory]:
        """The newest ``limit`` memories (older than ``before_id``), oldest first."""
        rows = await self.fetch_all(
            f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = ? AND id < ? "
            "ORDER BY id DESC LIMIT ?",
            (mysis_id, before_id if before_id is not None else 2**62, limit),
        )
        return [_memory(row) for row in reversed(rows)]

    async def latest_memory_id(self, mysis_id: int) -> int | None:
        """The id of the newest memory of a Mysis."""
        row = await self.fetch_one("SELECT MAX(id) FROM memories WHERE mysis_id = ?", (mysis_id,))
        return row[0] if row else None

    async def load_history(
        self,
        mysis_id: int,
        settings: ComposeSettings,
        *,
        strategy: str = "turn-aware",
        up_to_id: int | None = None,
        game_state: str = "",
        turn: Turn | None = None,
    ) -> History:
        """What one composition needs, in two indexed queries.

        The first reads the Mysis and the latest broadcast it received; the
        second reads the scan window (cut in steps, ``core/window.py``), the
        latest prompt source, the latest summary, the current turn with its
        prompt, the turns that began inside the window (and, for ``summarize``,
        what came after the summary). ``up_to_id`` recomposes the past: only
        memories up to it are seen. ``turn`` is the current turn when the
        caller knows it (a running turn, the preview of the next one, a logged
        request's); else the latest recorded turn is.
        """
        row = await self.fetch_one(
            "SELECT m.*, (SELECT b.content FROM broadcasts b "
            "  WHERE b.sender_id IS NULL OR b.sender_id != CAST(m.id AS TEXT) "
            "  ORDER BY b.id DESC LIMIT 1) FROM myses m WHERE m.id = ?",
            (mysis_id,),
        )
        if row is None:
            raise StoreError(f"no Mysis with id {mysis_id}")
        mysis = MysisRecord(*row[:11])
        latest_broadcast = row[11]

        limit = max(settings.max_context_messages, 1)
        margin = max(settings.window_margin, 1)
        upper = up_to_id if up_to_id is not None else 2**62
        latest_turn = (
            "(SELECT first_memory_id FROM turns WHERE mysis_id = :m "
            "AND first_memory_id <= :u + 1 ORDER BY id DESC LIMIT 1)"
        )
        parts = [
            f"SELECT 'w', * FROM (SELECT {_MEMORY_COLUMNS} FROM memories "
            "WHERE mysis_id = :m AND id <= :u ORDER BY id DESC LIMIT :n)",
            f"SELECT 'p', * FROM (SELECT {_MEMORY_COLUMNS} FROM memories "
            "WHERE mysis_id = :m AND id <= :u AND role = 'user' "
            "AND source IN ('direct', 'broadcast') ORDER BY id DESC LIMIT 1)",
            f"SELECT 's', * FROM (SELECT {_MEMORY_COLUMNS} FROM memories "
            "WHERE mysis_id = :m AND id <= :u AND source = 'summary' "
            "ORDER BY id DESC LIMIT 1)",
            f"SELECT 'q', * FROM (SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = :m "
            "AND id <= :u AND id >= "
            + (":tp" if turn is not None else latest_turn)
            + " ORDER BY id LIMIT 1)",
            # One upper bound: given two (``id <= :u AND id < turn``), SQLite walks down
            # from the first and tests the other on every row, which read every memory
            # of a Mysis with no turn recorded (``id < NULL``): 20 ms at 100 000.
            f"SELECT 'h', * FROM (SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = :m "
            "AND id < MIN(:u + 1, COALESCE("
            + (":tp" if turn is not None else latest_turn)
            + ", 0)) ORDER BY id DESC LIMIT :hn)",
            f"SELECT 'T', * FROM (SELECT {_TURN_AS_MEMORY} FROM turns t "
            "WHERE t.mysis_id = :m AND t.first_memory_id <= :u + 1 AND t.id <= :tid "
            "AND t.first_memory_id >= :lo ORDER BY t.id DESC LIMIT :tn)",
        ]
        if turn is None:
            parts.append(
                f"SELECT 'c', * FROM (SELECT {_TURN_AS_MEMORY} FROM turns t "
                "WHERE t.mysis_id = :m AND t.first_memory_id <= :u + 1 "
                "ORDER BY t.id DESC LIMIT 1)"
            )
        # ``summarize`` needs everything after the latest summary. Live compositions
        # keep what they read and fetch only the newer rows (replays read it all).
        cached = self._since.get(mysis_id) if up_to_id is None else None
        after = cached[1] if cached is not None else 0
        summary_id = (
            "COALESCE((SELECT MAX(id) FROM memories WHERE mysis_id = :m "
            "AND id <= :u AND source = 'summary'), 0)"
        )
        if strategy == "summarize":
            parts.append(
                f"SELECT 'a', * FROM (SELECT {_MEMORY_COLUMNS} FROM memories "
                f"WHERE mysis_id = :m AND id <= :u AND id > MAX({summary_id}, :after) "
                "ORDER BY id DESC LIMIT :a)"
            )
            lower = summary_id
        else:
            lower = (
                "COALESCE((SELECT MIN(id) FROM (SELECT id FROM memories "
                "WHERE mysis_id = :m AND id <= :u ORDER BY id DESC LIMIT :n)), 0)"
            )
        sql = " UNION ALL ".join(parts).replace(":lo", lower)
        params = {
            "m": mysis_id,
            "u": upper,
            "n": limit + margin + 1,
            "hn": limit,
            "a": SUMMARIZE_SCAN_LIMIT,
            "after": after,
            "tn": TURN_SCAN_LIMIT,
            "tp": turn.first_memory_id if turn is not None else 0,
            "tid": turn.id if turn is not None and turn.id is not None else 2**62,
        }
        newest: list[Memory] = []
        since: list[Memory] = []
        turns: list[Turn] = []
        prompt = summary = turn_first = None
        before_turn: list[Memory] = []
        for r in await self.fetch_all(sql, params):
            tag = r[0]
            if tag == "T":
                turns.append(_turn_from_memory_row(r[1:]))
                continue
            if tag == "c":
                turn = _turn_from_memory_row(r[1:])
                continue
            memory = _memory(r[1:])
            if tag == "w":
                newest.append(memory)
            elif tag == "p":
                prompt = memory
            elif tag == "s":
                summary = memory
            elif tag == "q":
                turn_first = memory
            elif tag == "h":
                before_turn.append(memory)
            else:
                since.append(memory)
        newest.reverse()
        since.reverse()
        turns.reverse()
        if strategy == "summarize":
            since = self._since_summary(mysis_id, summary, since, cached, up_to_id)
        window, before = stepped_window(newest, limit, margin)
        return History(
            mysis_id=mysis.id,
            mysis_name=mysis.name,
            window=tuple(window),
            system_template=mysis.system_template,
            account=mysis.account,
            game_state=game_state,
            latest_broadcast=latest_broadcast,
            latest_prompt=prompt,
            latest_summary=summary,
            since_summary=tuple(since) if strategy == "summarize" else None,
            before_window_id=before,
            turn=turn,
            turn_first=turn_first,
            turn_memories=tuple(
                m for m in newest if turn is not None and m.id >= turn.first_memory_id
            ),
            before_turn=tuple(reversed(before_turn)),
            turns=tuple(sorted(turns, key=lambda t: t.first_memory_id)),
        )

    def _since_summary(
        self,
        mysis_id: int,
        summary: Memory | None,
        fresh: list[Memory],
        cached: tuple[int, int, tuple[Memory, ...]] | None,
        up_to_id: int | None,
    ) -> list[Memory]:
        """Join the cached rows after the latest summary with the newly read ones."""
        summary_id = summary.id if summary is not None else 0
        if cached is not None and cached[0] == summary_id and len(fresh) < SUMMARIZE_SCAN_LIMIT:
            rows = [*cached[2], *fresh][-SUMMARIZE_SCAN_LIMIT:]
        else:
            rows = fresh
        if up_to_id is None:
            last = rows[-1].id if rows else max(summary_id, cached[1] if cached else 0)
            self._since[mysis_id] = (summary_id, last, tuple(rows))
        return rows

    # -- turns ----------------------------------------------------------------

    async def begin_turn(
        self,
        mysis_id: int,
        kind: str,
        first_memory_id: int,
        *,
        nudge_level: int = 0,
        text: str | None = None,
        game_tick: int | None = None,
    ) -> Turn:
        """Record the start of a turn (``text``: the nudge or start text the model gets)."""
        now = time.time()
        async with (
            self._writing(),
            self._db.execute(
                f"INSERT INTO turns (mysis_id, first_memory_id, kind, nudge_level, text, "
                f"created_at, game_tick) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING {_TURN_COLUMNS}",
                (mysis_id, first_memory_id, kind, nudge_level, text, now, game_tick),
            ) as cur,
        ):
            row = await cur.fetchone()
        assert row is not None
        return _turn(row)

    async def set_turn_state(self, turn_id: int, state: str) -> None:
        """Record the volatile facts the turn's first request carried after its opening."""
        async with self._writing():
            await self._db.execute(
                "UPDATE turns SET state = ? WHERE id = ? AND state IS NULL", (state, turn_id)
            )

    async def get_turn(self, turn_id: int) -> Turn | None:
        """The turn with this id."""
        row = await self.fetch_one(f"SELECT {_TURN_COLUMNS} FROM turns WHERE id = ?", (turn_id,))
        return _turn(row) if row else None

    async def latest_turn(self, mysis_id: int) -> Turn | None:
        """The newest recorded turn of a Mysis."""
        row = await self.fetch_one(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE mysis_id = ? ORDER BY id DESC LIMIT 1",
            (mysis_id,),
        )
        return _turn(row) if row else None

    async def list_turns(self, mysis_id: int, *, after_id: int = 0, limit: int = 500) -> list[Turn]:
        """Recorded turns of a Mysis that began after memory ``after_id``, oldest first."""
        return [
            _turn(row)
            for row in await self.fetch_all(
                f"SELECT {_TURN_COLUMNS} FROM turns WHERE mysis_id = ? AND first_memory_id > ? "
                "ORDER BY first_memory_id, id LIMIT ?",
                (mysis_id, after_id, limit),
            )
        ]

    async def last_sent_memory_id(self, mysis_id: int) -> int:
        """The newest memory any logged request of the Mysis had seen (0: none)."""
        row = await self.fetch_one(
            "SELECT last_memory_id FROM requests WHERE mysis_id = ? "
            "AND last_memory_id IS NOT NULL ORDER BY id DESC LIMIT 1",
            (mysis_id,),
        )
        return int(row[0]) if row and row[0] is not None else 0

    async def first_prompt_after(self, mysis_id: int, after_id: int) -> Memory | None:
        """The oldest prompt source (direct or broadcast) newer than memory ``after_id``."""
        row = await self.fetch_one(
            f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = ? AND id > ? "
            "AND role = 'user' AND source IN ('direct', 'broadcast') ORDER BY id LIMIT 1",
            (mysis_id, after_id),
        )
        return _memory(row) if row else None

    # -- broadcasts ----------------------------------------------------------

    async def add_broadcast(
        self, content: str, sender_id: str | None = None, game_tick: int | None = None
    ) -> Broadcast:
        """Record a broadcast (the per-recipient memories are stored separately)."""
        now = time.time()
        async with (
            self._writing(),
            self._db.execute(
                "INSERT INTO broadcasts (sender_id, content, created_at, game_tick) "
                "VALUES (?, ?, ?, ?) RETURNING id",
                (sender_id, content, now, game_tick),
            ) as cur,
        ):
            row = await cur.fetchone()
        assert row is not None
        return Broadcast(row[0], sender_id, content, now, game_tick)

    async def recent_broadcasts(self, limit: int = 20) -> list[Broadcast]:
        """The newest broadcasts, oldest first."""
        rows = await self.fetch_all(
            "SELECT id, sender_id, content, created_at, game_tick FROM broadcasts "
            "ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [Broadcast(*row) for row in reversed(rows)]

    # -- search --------------------------------------------------------------

    async def search_memories(
        self,
        mysis_id: int,
        query: str,
        *,
        limit: int = 20,
        field: str = "content",
        text_limit: int = SEARCH_TEXT_LIMIT,
        exact: bool = False,
    ) -> list[SearchHit]:
        """Ranked, case-insensitive substring search of one Mysis's memories
        (``storage/search.py``; ``exact``: the whole query, case-sensitive).

        ``field`` is ``content`` or ``reasoning``; each hit carries the start of
        that field (at most ``text_limit`` characters) and its whole length.
        """
        if field not in ("content", "reasoning"):
            raise StoreError(f"cannot search {field!r}")
        return await search_memories(
            self.fetch_all,
            mysis_id,
            query,
            limit=limit,
            field=field,
            text_limit=text_limit,
            exact=exact,
        )

    async def search_broadcasts(
        self,
        query: str,
        *,
        limit: int = 20,
        text_limit: int = SEARCH_TEXT_LIMIT,
        exact: bool = False,
    ) -> list[SearchHit]:
        """Ranked substring search of every broadcast (with the start of each)."""
        return await search_broadcasts(
            self.fetch_all, query, limit=limit, text_limit=text_limit, exact=exact
        )

    async def get_memory(self, mysis_id: int, memory_id: int) -> Memory | None:
        """One memory of this Mysis, whole (None: no such memory, or another's)."""
        row = await self.fetch_one(
            f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE id = ? AND mysis_id = ?",
            (memory_id, mysis_id),
        )
        return _memory(row) if row else None

    # -- request log ---------------------------------------------------------

    async def log_request(
        self,
        mysis_id: int,
        composition: Composition,
        *,
        last_memory_id: int | None,
        nudge_level: int = 0,
        outcome: str = "pending",
        tools_tokens: int = 0,
        turn_id: int | None = None,
        settings: ComposeSettings | None = None,
        turn_state: str | None = None,
    ) -> int:
        """Record a composed request; returns its id for :meth:`finish_request`.

        With ``settings``, what a recomposition needs beyond the history is kept too:
        the settings, and the facts (game state, latest broadcast, account) unless the
        request carried only its turn's recorded state (``turn_state``: the state
        recorded with turn ``turn_id``). What repeats is stored once
        (``storage/request_log.py``).
        """
        facts = None
        if settings is not None and not (
            turn_id is not None
            and composition.state_text is not None
            and composition.state_text == turn_state
        ):
            facts = facts_text(
                composition.game_state, composition.latest_broadcast, composition.account
            )
        row = (
            mysis_id,
            time.time(),
            composition.strategy,
            last_memory_id,
            nudge_level,
            composition.tokens,
            outcome,
            tools_tokens,
            turn_id,
            memory_ids_text(composition.items, last_memory_id),
            bytes.fromhex(messages_digest(composition.messages)),
        )
        shapes = [item_shape(i) for i in composition.items]
        async with self._writing():
            for attempt in (1, 2):
                try:
                    return await self._insert_request(
                        row, shapes, settings_text(settings) if settings else None, facts
                    )
                except sqlite3.IntegrityError:
                    # A part this store knew was removed since (``zoea vacuum`` run beside
                    # the app, after a Mysis was deleted): look every part up again.
                    self._part_ids.clear()
                    if attempt == 2:
                        raise
        raise AssertionError("unreachable")

    async def _insert_request(
        self, row: tuple[Any, ...], shapes: list[str], settings: str | None, facts: str | None
    ) -> int:
        """Insert a request row with its parts (under the write lock)."""
        ids = [await self._part(shape, keep=True) for shape in shapes]
        items_id = await self._part(compact(ids), keep=True)
        settings_id = await self._part(settings, keep=True) if settings is not None else None
        facts_id = await self._part(facts, keep=False) if facts is not None else None
        inserted = await self.fetch_one(
            "INSERT INTO requests (mysis_id, created_at, strategy, last_memory_id, nudge_level,"
            " estimated_tokens, outcome, tools_tokens, turn_id, memory_ids, digest,"
            " items_id, settings_id, facts_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (*row, items_id, settings_id, facts_id),
        )
        assert inserted is not None
        return int(inserted[0])

    async def _part(self, text: str, *, keep: bool) -> int:
        """The id of a request part, stored now if it is new (under the write lock).

        ``keep``: remember it (settings and item shapes repeat; facts seldom do)."""
        known = self._part_ids.get(text)
        if known is not None:
            return known
        key = text_hash(text)
        row = await self.fetch_one(
            "SELECT id FROM request_parts WHERE hash = ? AND text = ? LIMIT 1", (key, text)
        )
        if row is None:
            row = await self.fetch_one(
                "INSERT INTO request_parts (hash, text) VALUES (?, ?) RETURNING id", (key, text)
            )
            assert row is not None
        if keep:
            if len(self._part_ids) >= PART_CACHE:
                self._part_ids.clear()
            self._part_ids[text] = int(row[0])
        return int(row[0])

    async def finish_request(
        self,
        request_id: int,
        *,
        outcome: str,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        latency_ms: float | None = None,
        error: str | None = None,
        cached_tokens: int | None = None,
        error_kind: str | None = None,
        streamed: bool | None = None,
    ) -> None:
        """Record how a logged request ended (``cached_tokens``: as the server reported;
        ``error_kind``: the class of its failure; ``streamed``: how the answer came).

        The latency is kept to the millisecond (SQLite then stores it in 2-3 bytes, not 8).
        """
        async with self._writing():
            await self._db.execute(
                "UPDATE requests SET outcome = ?, prompt_tokens = ?, completion_tokens = ?, "
                "latency_ms = ?, error = ?, cached_tokens = ?, error_kind = ?, streamed = ? "
                "WHERE id = ?",
                (
                    outcome,
                    prompt_tokens,
                    completion_tokens,
                    None if latency_ms is None else float(round(latency_ms)),
                    error,
                    cached_tokens,
                    error_kind,
                    streamed,
                    request_id,
                ),
            )

    async def list_requests(self, mysis_id: int | None = None) -> list[RequestRecord]:
        """Logged requests, oldest first (of one Mysis, or all)."""
        sql = REQUEST_SELECT
        params: tuple[Any, ...] = ()
        if mysis_id is not None:
            sql += " WHERE r.mysis_id = ?"
            params = (mysis_id,)
        return await self.request_records(await self.fetch_all(sql + " ORDER BY r.id", params))

    async def request_records(self, rows: Sequence[Sequence[Any]]) -> list[RequestRecord]:
        """Rows of :data:`~.request_log.REQUEST_SELECT` as records, their item shapes
        read once (a part's id always names the same text: ids are never reused)."""
        wanted = {i for row in rows for i in shape_ids(row[6])} - self._shape_texts.keys()
        if len(self._shape_texts) + len(wanted) > PART_CACHE:
            self._shape_texts = {}
            wanted = {i for row in rows for i in shape_ids(row[6])}
        for batch in chunks(sorted(wanted)):
            marks = ", ".join("?" * len(batch))
            for part_id, text in await self.fetch_all(
                f"SELECT id, text FROM request_parts WHERE id IN ({marks})", batch
            ):
                self._shape_texts[part_id] = text
        return [request_from_row(row, self._shape_texts) for row in rows]

    # -- retention (``[storage] request_log``) --------------------------------------

    async def thin_requests(
        self,
        *,
        older_than: float | None = None,
        keep_per_mysis: int | None = None,
        batch: int = THIN_BATCH,
    ) -> int:
        """Thin the requests no longer kept in full: those logged before ``older_than``
        (a ``time.time()``), or all but the newest ``keep_per_mysis`` of each Mysis.

        A thinned request keeps its figures, settings and item shapes and loses its
        memory ids, facts and digest (``storage/request_log.py``); memories are never
        touched. Done in batches of ``batch`` requests, each its own short write, so the
        swarm's writes go on in between. Returns how many requests were thinned.
        """
        thinned = 0
        if older_than is not None:
            thinned += await self._thin_before(older_than, batch)
        if keep_per_mysis is not None:
            for (mysis_id,) in await self.fetch_all("SELECT id FROM myses ORDER BY id"):
                thinned += await self._thin_mysis(mysis_id, max(keep_per_mysis, 1), batch)
        return thinned

    async def _thin_range(self, where: str, params: Sequence[Any]) -> int:
        async with self._writing():
            cursor = await self._db.execute(
                "UPDATE requests SET memory_ids = NULL, facts_id = NULL, digest = NULL "
                f"WHERE {where} AND memory_ids IS NOT NULL",
                params,
            )
            return max(cursor.rowcount, 0)

    async def _thin_before(self, cutoff: float, batch: int) -> int:
        """Thin requests in id order up to the first one logged at ``cutoff`` or later."""
        after, thinned = self._thinned_upto.get(None, 0), 0
        while True:
            rows = await self.fetch_all(
                "SELECT id, created_at FROM requests WHERE id > ? ORDER BY id LIMIT ?",
                (after, batch),
            )
            old = list(itertools.takewhile(lambda row: row[1] < cutoff, rows))
            if old:
                thinned += await self._thin_range("id > ? AND id <= ?", (after, old[-1][0]))
                after = self._thinned_upto[None] = old[-1][0]
            if len(old) < batch:
                return thinned
            await asyncio.sleep(0)

    async def _thin_mysis(self, mysis_id: int, keep: int, batch: int) -> int:
        """Thin a Mysis's requests older than its newest ``keep``."""
        edge = await self.fetch_one(
            "SELECT id FROM requests WHERE mysis_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
            (mysis_id, keep),
        )
        if edge is None:
            return 0
        after, thinned = self._thinned_upto.get(mysis_id, 0), 0
        while after < edge[0]:
            rows = await self.fetch_all(
                "SELECT id FROM requests WHERE mysis_id = ? AND id > ? AND id <= ? "
                "ORDER BY id LIMIT ?",
                (mysis_id, after, edge[0], batch),
            )
            if not rows:
                break
            thinned += await self._thin_range(
                "mysis_id = ? AND id > ? AND id <= ?", (mysis_id, after, rows[-1][0])
            )
            after = self._thinned_upto[mysis_id] = rows[-1][0]
            await asyncio.sleep(0)
        return thinned

    async def drop_unused_parts(self) -> int:
        """Delete the request parts no request refers to any more (after thinning, or a
        Mysis deleted with its log); returns how many. A store writing beside this one
        looks its parts up again when one it knew is gone (:meth:`log_request`)."""
        async with self._writing():
            cursor = await self._db.execute(
                f"DELETE FROM request_parts WHERE id NOT IN ({referenced_parts_sql()})"
            )
            self._part_ids.clear()
            return max(cursor.rowcount, 0)

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

    # -- arena results (migration 007) ---------------------------------------------------

    async def add_arena_batch(
        self, report: dict[str, Any], *, seed: int, ticks: int | None = None
    ) -> int:
        """Store a finished arena report (the ``zoea arena --json`` contract) and each of
        its runs at once; returns the batch id."""
        batch_id = await self.begin_arena_batch(
            report["provider"], report["runs"], seed=seed, ticks=ticks
        )
        for cell in report["cells"]:
            for run in cell["runs"]:
                await self.add_arena_run(batch_id, cell["scenario"], cell["strategy"], run)
        await self.finish_arena_batch(batch_id, report)
        return batch_id

    async def begin_arena_batch(
        self, provider: str, runs: int, *, seed: int, ticks: int | None = None
    ) -> int:
        """Open a batch before its first run is played, so each run is stored the moment
        it ends (:meth:`add_arena_run`); its report is ``{}`` until
        :meth:`finish_arena_batch`. Returns the batch id."""
        async with self._transaction():
            row = await self.fetch_one(
                "INSERT INTO arena_batches (created_at, provider, runs, seed, ticks, report) "
                "VALUES (?, ?, ?, ?, ?, '{}') RETURNING id",
                (time.time(), provider, runs, seed, ticks),
            )
        assert row is not None
        return int(row[0])

    async def add_arena_run(
        self, batch_id: int, scenario: str, strategy: str, run: dict[str, Any]
    ) -> None:
        """Store one finished run (``RunResult.to_json``) of a batch, committed at once."""
        async with self._transaction():
            await self._db.execute(
                "INSERT INTO arena_runs (batch_id, scenario, strategy, seed, score, passed, "
                "metrics, tokens_in, tokens_out, uncached_tokens, requests, invalid_requests) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    batch_id,
                    scenario,
                    strategy,
                    int(run["metrics"].get("seed", 0)),
                    run["score"],
                    int(run["pass"]),
                    json.dumps(
                        {**run["metrics"], "errored": run.get("errored", False)}
                        | ({"error": run["error"]} if run.get("error") else {}),
                        ensure_ascii=False,
                    ),
                    run["tokens_in"],
                    run["tokens_out"],
                    run["uncached_tokens"],
                    run["requests"],
                    run["invalid_requests"],
                ),
            )

    async def finish_arena_batch(self, batch_id: int, report: dict[str, Any]) -> None:
        """Record a batch's whole report once every run is stored."""
        async with self._transaction():
            await self._db.execute(
                "UPDATE arena_batches SET report = ? WHERE id = ?",
                (json.dumps(report, ensure_ascii=False), batch_id),
            )

    async def list_arena_batches(self, limit: int = 50) -> list[ArenaBatch]:
        """Stored arena batches, newest first."""
        rows = await self.fetch_all(
            "SELECT id, created_at, provider, runs, seed, ticks, report FROM arena_batches "
            "ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [ArenaBatch(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6])) for r in rows]

    async def get_arena_batch(self, batch_id: int) -> ArenaBatch | None:
        """One stored arena batch, or None."""
        row = await self.fetch_one(
            "SELECT id, created_at, provider, runs, seed, ticks, report FROM arena_batches "
            "WHERE id = ?",
            (batch_id,),
        )
        return (
            ArenaBatch(row[0], row[1], row[2], row[3], row[4], row[5], json.loads(row[6]))
            if row
            else None
        )

    async def list_arena_runs(
        self,
        *,
        scenario: str | None = None,
        strategy: str | None = None,
        provider: str | None = None,
        batch_id: int | None = None,
    ) -> list[ArenaRunRecord]:
        """Stored runs, oldest first, optionally of one scenario id, strategy, provider or
        batch."""
        sql = (
            "SELECT r.batch_id, b.created_at, b.provider, r.scenario, r.strategy, r.seed, "
            "r.score, r.passed, r.metrics, r.tokens_in, r.tokens_out, r.uncached_tokens, "
            "r.requests, r.invalid_requests FROM arena_runs r "
            "JOIN arena_batches b ON b.id = r.batch_id WHERE 1 = 1"
        )
        params: list[Any] = []
        for column, value in (
            ("r.scenario", scenario),
            ("r.strategy", strategy),
            ("b.provider", provider),
            ("r.batch_id", batch_id),
        ):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        rows = await self.fetch_all(sql + " ORDER BY r.id", params)
        return [
            ArenaRunRecord(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                r[6],
                bool(r[7]),
                json.loads(r[8]),
                r[9],
                r[10],
                r[11],
                r[12],
                r[13],
            )
            for r in rows
        ]

"""A Mysis's memories and the history a composition reads: a part of :class:`~.store.Store`."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any

from ..core.composition import ComposeSettings, History
from ..core.tokens import count_tokens
from ..core.types import Memory, NewMemory, Turn, tool_calls_to_json
from ..core.window import stepped_window
from .errors import StoreError
from .records import (
    _MEMORY_COLUMNS,
    _MEMORY_FIELDS,
    NO_END,
    MysisRecord,
    _memory,
)
from .swarm import SwarmTables

#: Most memories loaded after the latest summary by the ``summarize`` strategy;
#: far more than any threshold lets accumulate, but a fixed bound on the read.
SUMMARIZE_SCAN_LIMIT = 2000

#: The SQL of an order: the commander's word, a direct message or a broadcast no Mysis sent.
_ORDER = "role = 'user' AND (source = 'direct' OR (source = 'broadcast' AND sender_id IS NULL))"

#: Memories an import writes between two progress reports (all in one transaction).
IMPORT_BATCH = 2000

#: A turn row in the shape of a memory row, so it can ride in the history's one query:
#: the memory column each field of the turn rides in (the other columns are NULL).
_TURN_RIDES_IN = {
    "id": "id",
    "mysis_id": "mysis_id",
    "kind": "role",
    "text": "content",
    "state": "reasoning",
    "created_at": "created_at",
    "game_tick": "game_tick",
    "nudge_level": "tokens",
    "first_memory_id": "seq",
}
_RIDERS = {column: turn_field for turn_field, column in _TURN_RIDES_IN.items()}
_TURN_AS_MEMORY = ", ".join(
    f"t.{_RIDERS[column]}" if column in _RIDERS else "NULL" for column in _MEMORY_FIELDS
)
#: Most turn starts loaded with one history (turns inside the loaded memories).
TURN_SCAN_LIMIT = 2000


def _turn_from_memory_row(row: Sequence[Any]) -> Turn:
    """A turn that rode in the history query in a memory row's shape."""
    columns = dict(zip(_MEMORY_FIELDS, row, strict=True))
    return Turn(**{field: columns[column] for field, column in _TURN_RIDES_IN.items()})


class MemoriesTables(SwarmTables):
    """Memories: added in order, imported, counted, and read back as one history."""

    async def get_memory(self, mysis_id: int, memory_id: int) -> Memory | None:
        """One memory of this Mysis, whole (None: no such memory, or another's)."""
        row = await self.fetch_one(
            f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE id = ? AND mysis_id = ?",
            (memory_id, mysis_id),
        )
        return _memory(row) if row else None

    async def add_memory(self, mysis_id: int, memory: NewMemory) -> Memory:
        """Append one memory and return it as stored."""
        return (await self.add_memories(mysis_id, [memory]))[0]

    async def add_memories(self, mysis_id: int, memories: Iterable[NewMemory]) -> list[Memory]:
        """Append memories in one transaction: all of them or none."""
        async with self._transaction():
            return await self._append(mysis_id, memories)

    async def add_answer(
        self, mysis_id: int, answer: NewMemory, *, composed_upto: int | None
    ) -> Memory | None:
        """Append a model's answer to the request composed up to memory ``composed_upto``,
        unless an order came after that memory: None then, and nothing is stored.

        An order is the commander's word (a direct message, or a broadcast no Mysis
        sent). The answer was written without it; stored after it, it would read as the
        order's answer. The check and the append are one transaction, so an order is
        stored either before the answer (which is then dropped) or after it.
        """
        return await self._append_unless(mysis_id, answer, composed_upto, _ORDER)

    async def add_summary(
        self, mysis_id: int, summary: NewMemory, *, composed_upto: int | None
    ) -> Memory | None:
        """Append a summary of the history up to memory ``composed_upto``, unless any
        memory came after it: None then, and nothing is stored. Stored after a prompt it
        never saw, the summary would hide it (the ``summarize`` strategy sends what
        follows the latest summary)."""
        return await self._append_unless(mysis_id, summary, composed_upto, "1")

    async def _append_unless(
        self, mysis_id: int, memory: NewMemory, composed_upto: int | None, newer: str
    ) -> Memory | None:
        """Append ``memory`` unless a memory after ``composed_upto`` matches the SQL
        condition ``newer``: the check and the append in one transaction."""
        async with self._transaction():
            found = await self.fetch_one(
                f"SELECT 1 FROM memories WHERE mysis_id = ? AND id > ? AND ({newer}) LIMIT 1",
                (mysis_id, composed_upto or 0),
            )
            if found is not None:
                return None
            return (await self._append(mysis_id, [memory]))[0]

    async def _append(self, mysis_id: int, memories: Iterable[NewMemory]) -> list[Memory]:
        """Insert ``memories`` after the Mysis's newest (inside a transaction)."""
        now = time.time()
        rows = [(mysis_id, *self._row(m, now)) for m in memories]
        stored: list[Memory] = []
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
        self,
        name: str,
        memories: Sequence[NewMemory],
        *,
        system_prompt: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> tuple[MysisRecord, int]:
        """Create the Mysis if missing and append ``memories``: all or nothing.

        Returns the Mysis and how many memories were stored. ``on_progress`` is told
        ``(memories written, memories)`` as the rows go in, :data:`IMPORT_BATCH` at a time
        (one transaction still: a failure stores none of them).
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
            for start in range(0, len(memories), IMPORT_BATCH):
                batch = memories[start : start + IMPORT_BATCH]
                await self._db.executemany(
                    "INSERT INTO memories (mysis_id, role, source, sender_id, content, "
                    "reasoning, tool_calls, tool_call_id, tool_name, created_at, game_tick, "
                    f"tokens, seq) VALUES ({', '.join('?' * 13)})",
                    [
                        (mysis_id, *self._row(m, now), seq + n)
                        for n, m in enumerate(batch, start=start + 1)
                    ],
                )
                if on_progress is not None:
                    on_progress(start + len(batch), len(memories))
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
            (mysis_id, before_id if before_id is not None else NO_END, limit),
        )
        return [_memory(row) for row in reversed(rows)]

    async def recent_tool_results(self, mysis_id: int, limit: int = 200) -> list[Memory]:
        """The newest ``limit`` tool results of a Mysis (what its game state was read
        from), oldest first."""
        rows = await self.fetch_all(
            f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = ? AND role = 'tool' "
            "AND tool_name IS NOT NULL ORDER BY id DESC LIMIT ?",
            (mysis_id, limit),
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
        upper = up_to_id if up_to_id is not None else NO_END
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
            "tid": turn.id if turn is not None and turn.id is not None else NO_END,
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
            recent=tuple(newest[-limit:]),
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

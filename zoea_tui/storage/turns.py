"""The turns of a Mysis (migration 006 on): a part of :class:`~.store.Store`."""

from __future__ import annotations

import time

from ..core.types import Memory, Turn
from .core import StoreCore
from .records import (
    _MEMORY_COLUMNS,
    _TURN_COLUMNS,
    _memory,
    _turn,
)


class TurnsTables(StoreCore):
    """Turns: begun, set, listed, and what was last sent."""

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

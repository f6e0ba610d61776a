"""The Myses of the swarm and its broadcasts: a part of :class:`~.store.Store`."""

from __future__ import annotations

import time
from typing import Any

import aiosqlite

from .core import StoreCore
from .errors import StoreError
from .records import (
    Broadcast,
    MysisRecord,
)


class SwarmTables(StoreCore):
    """Myses (create, find, update, delete) and broadcasts."""

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

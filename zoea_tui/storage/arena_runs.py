"""Stored arena batches and runs (migration 007): a part of :class:`~.store.Store`."""

from __future__ import annotations

import json
import time
from typing import Any

from .arena import ArenaBatch, ArenaRunRecord
from .core import StoreCore


class ArenaTables(StoreCore):
    """Arena batches and their runs."""

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
                batch_id=r[0],
                created_at=r[1],
                provider=r[2],
            )
            for r in rows
        ]

"""The log of LLM requests and its retention (``[storage] request_log``): a part of the
store (:class:`~.store.Store`).

How one request is written (its parts stored once, found by hash) is :mod:`.request_log`.
"""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from ..core.composition import ComposeSettings, Composition
from .core import StoreCore
from .records import (
    RequestRecord,
    messages_digest,
    request_from_row,
    settings_text,
)
from .request_log import (
    REQUEST_SELECT,
    chunks,
    compact,
    facts_text,
    item_shape,
    memory_ids_text,
    referenced_parts_sql,
    shape_ids,
    text_hash,
)

#: Most request parts a store remembers by text before it forgets them all.
PART_CACHE = 4096
#: Requests thinned in one write (the swarm's writes go on between two).
THIN_BATCH = 2000


#: The error of a request found pending at launch (:meth:`RequestsTables.cancel_pending_requests`).
CUT_BY_QUIT = "cut by a quit: no answer was recorded before the app closed"


class RequestsTables(StoreCore):
    """Requests: logged, finished, listed, thinned."""

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
        cache_write_tokens: int | None = None,
    ) -> None:
        """Record how a logged request ended (``cached_tokens`` and
        ``cache_write_tokens``: the prompt tokens the server said it read from its cache
        and wrote to it; ``error_kind``: the class of its failure; ``streamed``: how the
        answer came).

        The latency is kept to the millisecond (SQLite then stores it in 2-3 bytes, not 8).
        """
        async with self._writing():
            await self._db.execute(
                "UPDATE requests SET outcome = ?, prompt_tokens = ?, completion_tokens = ?, "
                "latency_ms = ?, error = ?, cached_tokens = ?, error_kind = ?, streamed = ?, "
                "cache_write_tokens = ? WHERE id = ?",
                (
                    outcome,
                    prompt_tokens,
                    completion_tokens,
                    None if latency_ms is None else float(round(latency_ms)),
                    error,
                    cached_tokens,
                    error_kind,
                    streamed,
                    cache_write_tokens,
                    request_id,
                ),
            )

    async def cancel_pending_requests(self) -> int:
        """Record every request still pending as cancelled; returns how many.

        For the commander's launch: no call of an earlier run is still in flight, so a
        request it left pending (the process ended before its outcome was written) was
        cut by the quit, and shows as such instead of "pending" for good.
        """
        async with self._writing():
            cursor = await self._db.execute(
                "UPDATE requests SET outcome = 'cancelled', error = ? WHERE outcome = 'pending'",
                (CUT_BY_QUIT,),
            )
            return max(cursor.rowcount, 0)

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

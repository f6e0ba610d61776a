"""What the commander keeps of the request log (``[storage] request_log``), and
``zoea vacuum``: the retention applied, the space reclaimed and counted.

The swarm applies the policy when it opens and again every :data:`EVERY_TURNS` turns
(:class:`RetentionKeeper`); ``zoea vacuum`` applies it, drops the request parts nothing
refers to any more, rebuilds the file and says how many bytes that gave back. Memories
are never dropped, whatever the policy.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from ..config import RequestLogRetention
from ..config.paths import database_bytes
from ..storage import Store, StoreError

log = logging.getLogger(__name__)

#: Turns the swarm plays (all Myses together) between two applications of the policy.
EVERY_TURNS = 500
DAY_S = 86_400.0


async def apply_retention(
    store: Store, policy: RequestLogRetention, *, now: float | None = None
) -> int:
    """Thin the requests ``policy`` no longer keeps in full; how many were thinned."""
    if policy.keeps_all:
        return 0
    older_than = None
    if policy.days is not None:
        older_than = (time.time() if now is None else now) - policy.days * DAY_S
    return await store.thin_requests(older_than=older_than, keep_per_mysis=policy.requests)


@dataclass(frozen=True, slots=True)
class VacuumReport:
    """What ``zoea vacuum`` did."""

    path: Path
    policy: RequestLogRetention
    thinned: int
    parts_dropped: int
    bytes_before: int
    bytes_after: int

    @property
    def reclaimed(self) -> int:
        """Bytes given back to the disk (never negative)."""
        return max(self.bytes_before - self.bytes_after, 0)

    def to_json(self) -> dict[str, object]:
        """The report as ``zoea vacuum --json`` prints it."""
        return {
            "db": str(self.path),
            "request_log": self.policy.spec(),
            "thinned_requests": self.thinned,
            "parts_dropped": self.parts_dropped,
            "bytes_before": self.bytes_before,
            "bytes_after": self.bytes_after,
            "bytes_reclaimed": self.reclaimed,
        }


async def vacuum(
    store: Store, policy: RequestLogRetention, *, bytes_before: int | None = None
) -> VacuumReport:
    """Apply ``policy``, drop the request parts nothing refers to, and rebuild the file.

    Only with the file to itself (:class:`StoreError` otherwise, in one line: beside
    another program's reads the rebuilt copy would wait in the WAL, doubling the file).
    ``bytes_before``: the size on disk before the store was opened (opening may have
    migrated it), else its size now."""
    before = database_bytes(store.path) if bytes_before is None else bytes_before
    if not await store.checkpoint():
        raise StoreError(f"{store.path} {IN_USE}; nothing was changed")
    thinned = await apply_retention(store, policy)
    dropped = await store.drop_unused_parts()
    if not await store.checkpoint():
        raise StoreError(
            f"{store.path} {IN_USE}; {thinned:,} requests were thinned, the file was not rebuilt"
        )
    await store.vacuum()
    return VacuumReport(store.path, policy, thinned, dropped, before, database_bytes(store.path))


#: Why vacuum would not rebuild the file, and what to do. The app and Zoea's writing
#: commands are refused before this, naming themselves (``storage/lock.py``): what is
#: left is a reader, Zoea's (``export``, ``context``, ``replay``) or another program's.
IN_USE = "is being read by another program: let it finish, then run zoea vacuum again"


class RetentionKeeper:
    """Applies the policy in the background: at once, then every :data:`EVERY_TURNS`
    turns of the swarm; one pass at a time, stopped by :meth:`close`."""

    def __init__(self, store: Store, policy: RequestLogRetention) -> None:
        self.store = store
        self.policy = policy
        self.turns = 0
        self.thinned = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin a pass unless one is under way (nothing to do for ``"all"``)."""
        if self.policy.keeps_all or (self._task is not None and not self._task.done()):
            return
        self._task = asyncio.create_task(self._pass(), name="request-log-retention")

    def turn_finished(self) -> None:
        """Count a finished turn; every :data:`EVERY_TURNS`, begin a pass."""
        self.turns += 1
        if self.turns % EVERY_TURNS == 0:
            self.start()

    async def _pass(self) -> None:
        try:
            self.thinned += await apply_retention(self.store, self.policy)
        except Exception:  # the log keeps growing in full; the swarm plays on
            log.exception("applying [storage] request_log failed")

    async def settled(self) -> None:
        """Wait for the pass under way, if any, to end."""
        if self._task is not None and not self._task.done():
            await asyncio.wait([self._task])

    async def close(self) -> None:
        """Stop a pass under way (a batch already written stays written)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

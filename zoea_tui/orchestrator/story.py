"""The story port: what the UI reads of a Mysis's past (``Commander.story``).

Pages of memories by id, the turn starts among them, search, and the request log with
each request recomposed as it was sent. Every call is one or two indexed queries
(``storage/story.py``) or one recomposition (``orchestrator/requests.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.composition import ComposeSettings
from ..core.types import Memory, Turn
from ..providers.base import ProviderSettings
from ..storage import Store
from ..storage import story as queries
from ..storage.store import MysisRecord
from ..storage.story import PAGE, RequestSummary, StoryBounds, StoryHit
from .requests import RequestInspection, inspect_request

SettingsFor = Callable[[MysisRecord], tuple[ComposeSettings, ProviderSettings]]


class StoryPort:
    """Read-only access to the whole story of every Mysis, in pages (through the store's
    reader connection, so a page never waits behind the swarm's writes)."""

    def __init__(self, store: Store, settings_for: SettingsFor) -> None:
        self._store = store
        self._settings_for = settings_for

    async def bounds(self, mysis_id: int) -> StoryBounds:
        """The first and newest memory of a Mysis and how many it has."""
        return await queries.story_bounds(await self._store.reader(), mysis_id)

    async def page(
        self,
        mysis_id: int,
        *,
        before_id: int | None = None,
        after_id: int | None = None,
        limit: int = PAGE,
    ) -> list[Memory]:
        """A page of memories, oldest first (see ``storage.story.memory_page``)."""
        return await queries.memory_page(
            await self._store.reader(),
            mysis_id,
            before_id=before_id,
            after_id=after_id,
            limit=limit,
        )

    async def around(
        self, mysis_id: int, memory_id: int, *, before: int = PAGE // 2, after: int = PAGE // 2
    ) -> list[Memory]:
        """A page with ``memory_id`` in its middle, oldest first."""
        return await queries.memories_around(
            await self._store.reader(), mysis_id, memory_id, before=before, after=after
        )

    async def turns(self, mysis_id: int, after_id: int, up_to_id: int) -> list[Turn]:
        """The turns that began among memories ``after_id < id <= up_to_id`` (and right
        after ``up_to_id``), oldest first."""
        return await queries.turns_between(await self._store.reader(), mysis_id, after_id, up_to_id)

    async def search(self, mysis_id: int, query: str, *, limit: int = 50) -> list[StoryHit]:
        """The Mysis's memories and the broadcasts matching ``query``, best first."""
        return await queries.search_story(await self._store.reader(), mysis_id, query, limit=limit)

    async def broadcast_memory(self, mysis_id: int, broadcast_id: int) -> int | None:
        """The memory that delivered a broadcast to the Mysis (None: it never did)."""
        return await queries.broadcast_memory(await self._store.reader(), mysis_id, broadcast_id)

    async def requests(
        self, mysis_id: int, *, before_id: int | None = None, limit: int = PAGE
    ) -> list[RequestSummary]:
        """The requests the Mysis sent, newest first."""
        return await queries.request_page(
            await self._store.reader(), mysis_id, before_id=before_id, limit=limit
        )

    async def inspect(self, mysis_id: int, request_id: int) -> RequestInspection | None:
        """One request recomposed as sent, its answer, and its diff from the one before."""
        record = await (await self._store.reader()).get_mysis(mysis_id)
        settings, _ = self._settings_for(record)
        return await inspect_request(await self._store.reader(), request_id, settings)

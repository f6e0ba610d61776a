"""The story port: what the UI reads of a Mysis's past (``Commander.story``).

Pages of memories by id with the turn starts among them, search, and the request log with
each request recomposed as it was sent. Every call is a few indexed queries asked at once
(``storage/story.py``) or one recomposition (``orchestrator/requests.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Unpack

from ..core.composition import ComposeSettings
from ..providers.base import ProviderSettings
from ..storage import MysisRecord, Store
from ..storage import story as queries
from ..storage.story import PAGE, PageWhere, RequestSummary, StoryHit, StoryPage
from .requests import RequestInspection, inspect_request

SettingsFor = Callable[[MysisRecord], tuple[ComposeSettings, ProviderSettings]]


class StoryPort:
    """Read-only access to the whole story of every Mysis, in pages (through the store's
    reader connection, so a page never waits behind the swarm's writes)."""

    def __init__(self, store: Store, settings_for: SettingsFor) -> None:
        self._store = store
        self._settings_for = settings_for

    async def read_page(self, mysis_id: int, **where: Unpack[PageWhere]) -> StoryPage:
        """A page with its turns and the story's bounds, asked at once (see
        ``storage.story.story_page``): around memory ``at``, before or after a memory,
        else the newest."""
        return await queries.story_page(await self._store.reader(), mysis_id, **where)

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

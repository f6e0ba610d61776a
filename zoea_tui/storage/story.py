"""The whole story of a Mysis, read in pages: what the focus view, its search and the
request inspector show.

Every query here walks an index (``idx_memories_mysis``, ``idx_turns_mysis``,
``idx_requests_mysis``, the search index) and reads at most one page, so it costs the
same on a Mysis with a thousand memories and on one with a million
(``tests/storage/test_story.py`` checks the query plans).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from ..core.types import Memory, Turn
from .records import (
    _MEMORY_COLUMNS,
    _TURN_COLUMNS,
    NO_END,
    LoggedTokens,
    RequestRecord,
    _memory,
    _turn,
)
from .request_log import ITEM_COUNT, REQUEST_SELECT
from .search import Found, Query, find_broadcasts, find_memories
from .store import Store

#: Memories in one page of the conversation.
PAGE = 50
#: Marks around each matched word in a search snippet (control characters, which
#: ``ui/sanitize.clean`` removes from the text itself, so they cannot be forged).
HIT_OPEN = "\x02"
HIT_CLOSE = "\x03"
#: The most turns read with one page.
TURNS_PER_PAGE = 1000


class PageWhere(TypedDict, total=False):
    """Which page of a story to read, all optional (:func:`story_page`'s keywords: it owns
    the defaults, the newest page); the callers that read on its behalf pass them through."""

    #: The page that ends just before this memory.
    before_id: int | None
    #: The page that begins just after this memory.
    after_id: int | None
    #: The page around this memory (half the page each side).
    at: int | None
    #: Memories in the page.
    limit: int


@dataclass(frozen=True, slots=True)
class StoryBounds:
    """The first and newest memory of a Mysis and how many it has (0: none yet)."""

    first_id: int | None
    last_id: int | None
    count: int


@dataclass(frozen=True, slots=True)
class StoryPage:
    """A page of a Mysis's story: its memories oldest first, the turns that began among
    them, and the bounds of the whole story (whether the page reaches either end)."""

    memories: list[Memory]
    turns: list[Turn]
    bounds: StoryBounds

    @property
    def at_start(self) -> bool:
        """The page holds the Mysis's first memory (or the story is empty)."""
        return not self.memories or self.memories[0].id == self.bounds.first_id

    @property
    def at_end(self) -> bool:
        """The page holds the Mysis's newest memory (or the story is empty)."""
        return not self.memories or self.memories[-1].id == self.bounds.last_id


@dataclass(frozen=True, slots=True)
class StoryHit:
    """One search result: a memory of the Mysis or a broadcast.

    ``snippet`` is the matched text with each hit between :data:`HIT_OPEN` and
    :data:`HIT_CLOSE` (untrusted: show it as plain text).
    """

    kind: str  # "memory" or "broadcast"
    id: int
    role: str
    source: str
    tool_name: str | None
    snippet: str
    created_at: float
    game_tick: int | None
    sender_id: str | None = None
    rank: float = 0.0


@dataclass(frozen=True, slots=True)
class RequestSummary(LoggedTokens):
    """A logged request as the inspector lists it (without its item list)."""

    id: int
    mysis_id: int
    created_at: float
    strategy: str
    messages: int
    estimated_tokens: int
    prompt_tokens: int | None
    cached_tokens: int | None
    latency_ms: float | None
    outcome: str
    error: str | None
    turn_id: int | None
    last_memory_id: int | None
    #: The class of the failure (``providers.base.FailureKind``); None if it did not fail.
    error_kind: str | None = None
    #: Whether the answer came streamed (SQLite's 0 or 1; None: no HTTP provider).
    streamed: int | None = None
    #: Prompt tokens the server said it wrote to its cache (None: not reported).
    cache_write_tokens: int | None = None


def _rows(rows: Sequence[Sequence[Any]]) -> list[Memory]:
    return [_memory(r) for r in rows]


async def memory_page(
    store: Store,
    mysis_id: int,
    *,
    before_id: int | None = None,
    after_id: int | None = None,
    limit: int = PAGE,
) -> list[Memory]:
    """Up to ``limit`` memories, oldest first: the newest ones older than ``before_id``,
    else the oldest ones newer than ``after_id`` (``after_id=0``: from memory #1), else
    the newest of all."""
    if after_id is not None and before_id is None:
        return _rows(
            await store.fetch_all(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = ? AND id > ? "
                "ORDER BY id LIMIT ?",
                (mysis_id, after_id, limit),
            )
        )
    rows = await store.fetch_all(
        f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = ? AND id < ? "
        "ORDER BY id DESC LIMIT ?",
        (mysis_id, before_id if before_id is not None else NO_END, limit),
    )
    return _rows(rows[::-1])


async def memories_around(
    store: Store, mysis_id: int, memory_id: int, *, before: int = PAGE // 2, after: int = PAGE // 2
) -> list[Memory]:
    """The memory ``memory_id`` with up to ``before`` older and ``after`` newer ones,
    oldest first (one query, two index walks)."""
    rows = await store.fetch_all(
        f"SELECT * FROM (SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = :m "
        "AND id <= :id ORDER BY id DESC LIMIT :b) UNION ALL "
        f"SELECT * FROM (SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = :m "
        "AND id > :id ORDER BY id LIMIT :a)",
        {"m": mysis_id, "id": memory_id, "b": before + 1, "a": after},
    )
    return sorted(_rows(rows), key=lambda m: m.id)


async def story_bounds(store: Store, mysis_id: int) -> StoryBounds:
    """The first and newest memory ids and the count (the newest memory's ``seq``)."""
    row = await store.fetch_one(
        "SELECT (SELECT id FROM memories WHERE mysis_id = :m ORDER BY id LIMIT 1), "
        "(SELECT id FROM memories WHERE mysis_id = :m ORDER BY id DESC LIMIT 1), "
        "(SELECT seq FROM memories WHERE mysis_id = :m ORDER BY id DESC LIMIT 1)",
        {"m": mysis_id},
    )
    assert row is not None
    return StoryBounds(row[0], row[1], int(row[2] or 0))


async def story_page(
    store: Store,
    mysis_id: int,
    *,
    before_id: int | None = None,
    after_id: int | None = None,
    at: int | None = None,
    limit: int = PAGE,
) -> StoryPage:
    """A page of the Mysis's story: around memory ``at`` (:func:`memories_around`, half
    the page each side), else as :func:`memory_page` reads it; with the turns begun
    among its memories (:func:`turns_between` from the memory before the page to its
    newest, or to the end when it holds the newest) and the story's bounds.

    The three queries are asked at once: the connection's thread runs them back to back
    and none waits for another's answer to come back through the event loop. So the
    turns' query finds the page's edges itself, by the same index walks as the page's.
    """
    newest = "(SELECT id FROM memories WHERE mysis_id = :m ORDER BY id DESC LIMIT 1)"
    if at is not None:
        before = after = limit // 2
        memories = memories_around(store, mysis_id, at, before=before, after=after)
        params = {"m": mysis_id, "x": at, "skip": before + 1, "last": after - 1}
        below = "id <= :x ORDER BY id DESC LIMIT 1 OFFSET :skip"
        top = "id > :x ORDER BY id LIMIT 1 OFFSET :last" if after else "id = :x"
    elif after_id is not None and before_id is None:
        memories = memory_page(store, mysis_id, after_id=after_id, limit=limit)
        params = {"m": mysis_id, "x": after_id, "last": limit - 1}
        below = "id <= :x ORDER BY id DESC LIMIT 1"
        top = "id > :x ORDER BY id LIMIT 1 OFFSET :last"
    else:
        memories = memory_page(store, mysis_id, before_id=before_id, limit=limit)
        x = before_id if before_id is not None else NO_END
        params = {"m": mysis_id, "x": x, "skip": limit}
        below = "id < :x ORDER BY id DESC LIMIT 1 OFFSET :skip"
        top = "id < :x ORDER BY id DESC LIMIT 1"
    # From the memory before the page (none: from the start) to one past its newest
    # memory (a nudge turn begins there), or to the end when that is the Mysis's newest.
    turns = store.fetch_all(
        f"SELECT {_TURN_COLUMNS} FROM turns WHERE mysis_id = :m "
        f"AND first_memory_id > COALESCE((SELECT id FROM memories WHERE mysis_id = :m "
        f"AND {below}), 0) "
        f"AND first_memory_id <= COALESCE(NULLIF((SELECT id FROM memories "
        f"WHERE mysis_id = :m AND {top}), {newest}) + 1, :no_end) "
        "ORDER BY first_memory_id, id LIMIT :limit",
        {**params, "no_end": NO_END, "limit": TURNS_PER_PAGE},
    )
    page, turn_rows, bounds = await asyncio.gather(memories, turns, story_bounds(store, mysis_id))
    return StoryPage(page, [_turn(r) for r in turn_rows], bounds)


async def turns_between(
    store: Store, mysis_id: int, after_id: int, up_to_id: int, limit: int = TURNS_PER_PAGE
) -> list[Turn]:
    """Recorded turns that began in memories ``after_id < first <= up_to_id + 1``,
    oldest first (a nudge turn begins one past the newest memory of its time)."""
    return [
        _turn(r)
        for r in await store.fetch_all(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE mysis_id = ? AND first_memory_id > ? "
            "AND first_memory_id <= ? ORDER BY first_memory_id, id LIMIT ?",
            (mysis_id, after_id, up_to_id + 1, limit),
        )
    ]


async def search_story(
    store: Store, mysis_id: int, query: str, *, limit: int = 50
) -> list[StoryHit]:
    """The Mysis's memories (content and reasoning) and the broadcasts that hold every
    word of ``query`` (as a substring, in any case), best first, each with a
    highlighted snippet.

    The same search as the Myses' tools (``storage/search.py``, one index): a common
    word is ranked among the newest :data:`~.search.SEARCH_SCOPE` memories holding
    its trigrams, and older ones are read only while the hits are fewer than
    ``limit``, so an old hit is never lost."""
    asked = Query.of(query)
    if asked is None:
        return []
    limit = min(max(limit, 1), 200)
    # Both asked at once: the database's thread answers them back to back.
    memories, broadcasts = await asyncio.gather(
        find_memories(store.fetch_all, mysis_id, asked, limit, ("content", "reasoning")),
        find_broadcasts(store.fetch_all, asked, limit),
    )
    hits = [_memory_hit(asked, f) for f in memories]
    hits += [_broadcast_hit(asked, f) for f in broadcasts]
    hits.sort(key=lambda h: h.rank)
    return hits[:limit]


def _broadcast_hit(asked: Query, found: Found) -> StoryHit:
    """A broadcast that holds the query."""
    row = found.row
    snippet = asked.cut(found.text, _MARKS)
    return StoryHit(
        "broadcast", row[0], "user", "broadcast", None, snippet, row[1], row[2], row[3],
        -found.score,
    )  # fmt: skip


#: The marks of a story hit's snippet.
_MARKS = (HIT_OPEN, HIT_CLOSE)


def _memory_hit(asked: Query, found: Found) -> StoryHit:
    """A memory that holds the query, its snippet cut from the content if the longest
    word is there, else from the reasoning."""
    row = found.row
    content, reasoning = row[7] or "", row[8] or ""
    text = content if asked.finds(content) >= 0 or not reasoning else reasoning
    return StoryHit(
        "memory", row[0], row[1], row[2], row[3],
        asked.cut(text, _MARKS), row[4], row[5], row[6], -found.score,
    )  # fmt: skip


async def broadcast_memory(store: Store, mysis_id: int, broadcast_id: int) -> int | None:
    """The memory that delivered broadcast ``broadcast_id`` to the Mysis (None: it never
    reached this Mysis)."""
    row = await store.fetch_one(
        "SELECT m.id FROM broadcasts b JOIN memories m ON m.mysis_id = ? "
        "AND m.role = 'user' AND m.source = 'broadcast' AND m.content = b.content "
        "AND m.created_at >= b.created_at - 1 WHERE b.id = ? ORDER BY m.id LIMIT 1",
        (mysis_id, broadcast_id),
    )
    return int(row[0]) if row else None


# -- the request log ---------------------------------------------------------------------

_SUMMARY_COLUMNS = (
    f"r.id, r.mysis_id, r.created_at, r.strategy, {ITEM_COUNT}, "
    "r.estimated_tokens, r.prompt_tokens, r.cached_tokens, r.latency_ms, r.outcome, "
    "r.error, r.turn_id, r.last_memory_id, r.error_kind, r.streamed, r.cache_write_tokens"
)


async def request_page(
    store: Store, mysis_id: int, *, before_id: int | None = None, limit: int = PAGE
) -> list[RequestSummary]:
    """The Mysis's logged requests, newest first (older than ``before_id``)."""
    return [
        RequestSummary(*r)
        for r in await store.fetch_all(
            f"SELECT {_SUMMARY_COLUMNS} FROM requests r WHERE r.mysis_id = ? AND r.id < ? "
            "ORDER BY r.id DESC LIMIT ?",
            (mysis_id, before_id if before_id is not None else NO_END, limit),
        )
    ]


async def get_request(store: Store, request_id: int) -> RequestRecord | None:
    """One logged request, whole."""
    rows = await store.fetch_all(f"{REQUEST_SELECT} WHERE r.id = ?", (request_id,))
    return (await store.request_records(rows))[0] if rows else None


async def previous_request(store: Store, request: RequestRecord) -> RequestRecord | None:
    """The request the same Mysis logged just before ``request``."""
    rows = await store.fetch_all(
        f"{REQUEST_SELECT} WHERE r.mysis_id = ? AND r.id < ? ORDER BY r.id DESC LIMIT 1",
        (request.mysis_id, request.id),
    )
    return (await store.request_records(rows))[0] if rows else None


async def answer_of(store: Store, request: RequestRecord) -> Memory | None:
    """The assistant memory a request produced (None: it failed, or nothing was stored).

    A request's answer is the first assistant memory after the newest memory it saw.
    """
    if request.outcome != "ok":
        return None
    row = await store.fetch_one(
        f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE mysis_id = ? AND id > ? "
        "AND role = 'assistant' ORDER BY id LIMIT 1",
        (request.mysis_id, request.last_memory_id or 0),
    )
    return _memory(row) if row else None

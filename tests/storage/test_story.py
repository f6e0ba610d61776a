"""The story queries: pages by id, turns, search with highlights, the request log; and
their query plans, which must walk indexes whatever the history's length."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest

from zoea_tui.core.composition import Composition, Item
from zoea_tui.storage import NewMemory, Store, StoreError, search, story


async def _mysis_with(store: Store, name: str, n: int) -> int:
    mysis = await store.create_mysis(name)
    await store.add_memories(
        mysis.id,
        [
            NewMemory(
                "user" if i % 3 == 0 else "assistant",
                "direct" if i % 3 == 0 else "llm",
                f"memory {i} of {name}" + (" iron ore at the belt" if i % 7 == 0 else ""),
            )
            for i in range(1, n + 1)
        ],
    )
    return mysis.id


def _composition(n: int) -> Composition:
    items = tuple(Item("user", "memory", "kept", 5, memory_id=i) for i in range(n))
    return Composition(
        "turn-aware", tuple({"role": "user", "content": "x"} for _ in items), items, (), 5 * n
    )


async def test_pages_walk_back_to_the_first_memory(store: Store) -> None:
    ada = await _mysis_with(store, "Ada", 120)
    await _mysis_with(store, "Brin", 30)
    newest = await story.memory_page(store, ada, limit=50)
    assert [m.seq for m in newest] == list(range(71, 121))
    older = await story.memory_page(store, ada, before_id=newest[0].id, limit=50)
    assert [m.seq for m in older] == list(range(21, 71))
    first = await story.memory_page(store, ada, after_id=0, limit=50)
    assert first[0].seq == 1 and first[-1].seq == 50
    bounds = await story.story_bounds(store, ada)
    assert (bounds.first_id, bounds.last_id, bounds.count) == (first[0].id, newest[-1].id, 120)


async def test_page_around_a_memory_holds_it_in_the_middle(store: Store) -> None:
    ada = await _mysis_with(store, "Ada", 100)
    page = await story.memories_around(store, ada, 50, before=5, after=5)
    assert [m.id for m in page] == list(range(45, 56))


async def test_turns_between_includes_a_nudge_one_past_the_page(store: Store) -> None:
    ada = await _mysis_with(store, "Ada", 10)
    await store.begin_turn(ada, "nudge", 11, nudge_level=2, text="You need to respond.")
    await store.begin_turn(ada, "direct", 4)
    turns = await story.turns_between(store, ada, 0, 10)
    assert [(t.kind, t.first_memory_id) for t in turns] == [("direct", 4), ("nudge", 11)]
    assert await story.turns_between(store, ada, 4, 9) == []


async def _interleaved_story(store: Store) -> tuple[int, list[int]]:
    """Ada's 40 memories among Brin's (in runs of 1-4), with turns begun at many of
    Ada's memories, between them and one past the newest: Ada's id and memory ids."""
    rng = random.Random(7)
    ada, brin = await store.create_mysis("Ada"), await store.create_mysis("Brin")
    ids: list[int] = []
    while len(ids) < 40:
        for mysis, n in ((ada, rng.randint(1, 4)), (brin, rng.randint(1, 4))):
            added = await store.add_memories(
                mysis.id, [NewMemory("assistant", "llm", f"{mysis.name}") for _ in range(n)]
            )
            if mysis is ada:
                ids += [m.id for m in added]
    # A nudge turn begins one past the newest memory of its time: maybe Brin's id.
    past = [i + 1 for i in rng.sample(ids, 8)] + [ids[-1] + 1, ids[-1] + 1]
    for first in sorted(rng.sample(ids, 15) + past):
        await store.begin_turn(ada.id, "nudge", first)
    return ada.id, ids


def _turns_as_the_view_read_them(turns: list[int], ids: list[int], page: list[int]) -> list[int]:
    """What the focus view read before a page came in one trip: from the memory before
    the page (none at the start) to one past its newest, or every later turn when the
    page holds the newest memory."""
    lower = 0 if page[0] == ids[0] else max(i for i in ids if i < page[0])
    upper = 2**62 if page[-1] == ids[-1] else page[-1]
    return [t for t in turns if lower < t <= upper + 1]


async def test_a_page_read_in_one_trip_has_the_turns_the_view_read_in_three(
    store: Store,
) -> None:
    ada, ids = await _interleaved_story(store)
    turns = [t.first_memory_id for t in await story.turns_between(store, ada, 0, 2**62)]
    assert len(turns) == 25
    checked = 0
    for limit in (1, 2, 3, 7, 50):
        asks: list[dict[str, int | None]] = [{}]
        asks += [{"before_id": i} for i in ids[1:]] + [{"after_id": i} for i in [0, *ids[:-1]]]
        asks += [{"at": i} for i in ids]
        for ask in asks:
            page = await story.story_page(store, ada, limit=limit, **ask)
            shown = [m.id for m in page.memories]
            assert shown and set(shown) <= set(ids), ask
            assert [t.first_memory_id for t in page.turns] == _turns_as_the_view_read_them(
                turns, ids, shown
            ), (limit, ask)
            assert page.at_start == (shown[0] == ids[0]) and page.at_end == (shown[-1] == ids[-1])
            checked += 1
    assert checked == 5 * 120


async def test_the_page_oracle_rejects_turns_cut_at_the_wrong_edge(store: Store) -> None:
    ada, ids = await _interleaved_story(store)
    turns = [t.first_memory_id for t in await story.turns_between(store, ada, 0, 2**62)]
    caught: set[str] = set()
    for before_id in ids[1:]:
        page = await story.story_page(store, ada, before_id=before_id, limit=3)
        shown = [m.id for m in page.memories]
        wanted = _turns_as_the_view_read_them(turns, ids, shown)
        if shown[0] == ids[0] or shown[-1] == ids[-1]:
            continue
        from_its_first = [t for t in turns if shown[0] <= t <= shown[-1] + 1]
        to_its_newest = [t for t in turns if t in wanted and t <= shown[-1]]
        caught |= {"from its first"} if from_its_first != wanted else set()
        caught |= {"to its newest"} if to_its_newest != wanted else set()
    assert caught == {"from its first", "to its newest"}


async def test_a_page_asks_its_three_queries_before_any_answer_comes_back(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada = await _mysis_with(store, "Ada", 60)
    await store.begin_turn(ada, "direct", 4)
    asked: list[str] = []
    answer = asyncio.Event()
    fetch_all = store.fetch_all

    async def held(sql: str, parameters: Any = ()) -> Any:
        asked.append(sql)
        await answer.wait()
        return await fetch_all(sql, parameters)

    monkeypatch.setattr(store, "fetch_all", held)
    reading = asyncio.ensure_future(story.story_page(store, ada, after_id=0, limit=10))
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(asked) == 3  # the page, its turns and the bounds: none waits for another
    answer.set()
    page = await reading
    assert [m.seq for m in page.memories] == list(range(1, 11)) and page.at_start
    assert [t.first_memory_id for t in page.turns] == [4] and page.bounds.count == 60


async def test_an_empty_story_has_an_empty_page_with_every_turn(store: Store) -> None:
    mysis = await store.create_mysis("Nova")
    await store.begin_turn(mysis.id, "nudge", 1)
    page = await story.story_page(store, mysis.id)
    assert page.memories == [] and page.at_start and page.at_end
    assert [t.first_memory_id for t in page.turns] == [1]


async def test_search_ranks_memories_and_broadcasts_with_marked_hits(store: Store) -> None:
    ada = await _mysis_with(store, "Ada", 30)
    await _mysis_with(store, "Brin", 30)
    await store.add_broadcast("All pilots: iron ore sells high [b]now[/b]")
    hits = await story.search_story(store, ada, "iron")
    kinds = {h.kind for h in hits}
    assert kinds == {"memory", "broadcast"}
    assert all("Brin" not in h.snippet for h in hits)
    assert all(f"{story.HIT_OPEN}iron{story.HIT_CLOSE}" in h.snippet for h in hits)
    assert [h.rank for h in hits] == sorted(h.rank for h in hits)
    assert await story.search_story(store, ada, "  ()[]  ") == []


async def test_requests_newest_first_with_answer_and_previous(store: Store) -> None:
    ada = await _mysis_with(store, "Ada", 6)
    first = await store.log_request(ada, _composition(3), last_memory_id=3)
    await store.finish_request(
        first,
        outcome="ok",
        prompt_tokens=10,
        latency_ms=5.0,
        cached_tokens=4,
        cache_write_tokens=3,
    )
    second = await store.log_request(ada, _composition(5), last_memory_id=5)
    await store.finish_request(second, outcome="error", error="HTTP 503")
    page = await story.request_page(store, ada)
    assert [r.id for r in page] == [second, first]
    assert (page[1].messages, page[1].cached_tokens, page[1].outcome) == (3, 4, "ok")
    assert (page[1].cache_write_tokens, page[0].cache_write_tokens) == (3, None)
    record = await story.get_request(store, second)
    assert record is not None
    previous = await story.previous_request(store, record)
    assert previous is not None and previous.id == first
    answer = await story.answer_of(store, previous)
    assert answer is not None and answer.role == "assistant" and answer.id > 3
    assert await story.answer_of(store, record) is None


_FULL_SCAN = re.compile(r"SCAN (memories|requests|turns|broadcasts)\b(?! USING)")


async def test_story_queries_use_indexes(store: Store) -> None:
    """Every statement the story runs is planned on an index: no full scan of memories,
    requests, turns or broadcasts, and no sort except of the ranked search hits."""
    ada = await _mysis_with(store, "Ada", 200)
    await store.begin_turn(ada, "direct", 4)
    await store.add_broadcast("iron for everyone")
    request = await store.log_request(ada, _composition(2), last_memory_id=50)
    await store.finish_request(request, outcome="ok")
    statements: list[str] = []
    await store.connection.set_trace_callback(statements.append)
    await story.memory_page(store, ada)
    await story.memory_page(store, ada, before_id=100)
    await story.memory_page(store, ada, after_id=0)
    await story.memories_around(store, ada, 120)
    await story.story_bounds(store, ada)
    await story.turns_between(store, ada, 0, 200)
    for ask in ({}, {"before_id": 100}, {"after_id": 0}, {"after_id": 120}, {"at": 120}):
        await story.story_page(store, ada, **ask)
    await story.search_story(store, ada, "iron ore")
    await story.request_page(store, ada)
    record = await story.get_request(store, request)
    assert record is not None
    await story.previous_request(store, record)
    await story.answer_of(store, record)
    await store.connection.set_trace_callback(None)
    assert len(statements) >= 12
    for sql in statements:
        if not sql.lstrip().upper().startswith("SELECT"):
            continue
        async with store.connection.execute(f"EXPLAIN QUERY PLAN {sql}") as cur:
            plan = [row[3] for row in await cur.fetchall()]
        text = "\n".join(plan)
        assert not _FULL_SCAN.search(text), f"{sql}\n{text}"
        if "_fts" not in sql:
            assert "TEMP B-TREE" not in text or "UNION" in sql, f"{sql}\n{text}"


async def test_the_reader_reads_while_a_write_transaction_is_open(store: Store) -> None:
    """Pages go through a second connection: a write held open on the first (as the
    swarm's queued writes are) does not hold them up, and they see every commit."""
    ada = await _mysis_with(store, "Ada", 10)
    reader = await store.reader()
    assert reader is await store.reader()  # opened once
    async with store._transaction():  # the writer's connection is busy until the end
        await store.connection.execute("UPDATE myses SET name = 'Ada2' WHERE id = ?", (ada,))
        page = await asyncio.wait_for(story.memory_page(reader, ada, limit=50), 5)
        assert [m.seq for m in page] == list(range(1, 11))
        assert (await reader.get_mysis(ada)).name == "Ada"  # not committed yet
    assert (await reader.get_mysis(ada)).name == "Ada2"


async def test_the_reader_refuses_writes(store: Store) -> None:
    reader = await store.reader()
    with pytest.raises(StoreError, match="read-only"):
        await reader.create_mysis("Nobody")
    assert [m.name for m in await store.list_myses()] == []


async def test_a_common_word_is_ranked_among_its_newest_matches(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "SEARCH_SCOPE", 10)
    ada = await _mysis_with(store, "Ada", 140)  # "iron" in 20 memories: 7, 14, ... 140
    hits = await story.search_story(store, ada, "iron", limit=5)
    assert len(hits) == 5
    newest_ten = (await story.memory_page(store, ada, limit=70))[0].id  # memory 71 on
    assert all(h.id >= newest_ten for h in hits)  # ranked among the 10 newest matches
    # Too few of the Mysis's hits among the newest matches: every match is ranked.
    brin = await _mysis_with(store, "Brin", 140)  # now the newest 10 matches are Brin's
    hits = await story.search_story(store, ada, "iron", limit=5)
    assert len(hits) == 5 and all(h.kind == "memory" for h in hits)
    assert brin != ada


async def test_each_read_is_one_trip_to_the_database_thread(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aiosqlite sends every call to its thread through ``_execute``; a read with a cursor
    took three trips (execute, fetch, close), each waiting its turn on the loop back."""
    ada = await _mysis_with(store, "Ada", 60)
    trips: list[object] = []
    execute = store.connection._execute

    async def counted(fn: object, *args: object, **kwargs: object) -> object:
        trips.append(fn)
        return await execute(fn, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store.connection, "_execute", counted)
    reads = {
        "page": story.memory_page(store, ada, limit=50),
        "bounds": story.story_bounds(store, ada),
        "turns": story.turns_between(store, ada, 0, 2**62),
        "around": story.memories_around(store, ada, 30),
        "mysis": store.get_mysis(ada),
        "recent": store.recent_memories(ada, limit=20),
    }
    for name, read in reads.items():
        trips.clear()
        assert await read is not None
        assert len(trips) == 1, name
    # A search with hits enough: its memories and the broadcasts, asked together.
    trips.clear()
    assert len(await story.search_story(store, ada, "memory", limit=5)) == 5
    assert len(trips) == 2

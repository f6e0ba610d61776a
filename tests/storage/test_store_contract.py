"""What the store gives back, exactly: search hits field by field, pages before an id,
thinning counted and bounded, a deleted Mysis forgotten (each found missing by the
fourth mutation run, docs/MUTATION.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.storage.test_story import _composition
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.storage import NewMemory, Store, StoreError, story
from zoea_tui.storage.errors import ANOTHER_FILE


async def test_a_story_hit_carries_every_field_of_its_memory_or_broadcast(store: Store) -> None:
    ada = (await store.create_mysis("Ada")).id
    said, thought, result = await store.add_memories(
        ada,
        [
            NewMemory("assistant", "llm", "iron first", reasoning="then ore", game_tick=4),
            NewMemory("assistant", "llm", "", reasoning="the iron vein", game_tick=5),
            NewMemory(
                "tool", "tool", "mined iron", tool_call_id="c", tool_name="mine", sender_id="7"
            ),
        ],
    )
    sent = await store.add_broadcast("iron at the belt", sender_id="3", game_tick=9)
    hits = {(h.kind, h.id): h for h in await story.search_story(store, ada, "iron")}
    mark = f"{story.HIT_OPEN}iron{story.HIT_CLOSE}"

    def fields(hit: story.StoryHit) -> tuple:
        return (
            hit.role,
            hit.source,
            hit.tool_name,
            hit.snippet,
            hit.created_at,
            hit.game_tick,
            hit.sender_id,
        )

    assert fields(hits["memory", said.id]) == (
        "assistant", "llm", None, f"{mark} first", said.created_at, 4, None
    )  # fmt: skip
    assert fields(hits["memory", thought.id]) == (
        "assistant", "llm", None, f"the {mark} vein", thought.created_at, 5, None
    )  # fmt: skip
    assert fields(hits["memory", result.id]) == (
        "tool", "tool", "mine", f"mined {mark}", result.created_at, None, "7"
    )  # fmt: skip
    assert fields(hits["broadcast", sent.id]) == (
        "user", "broadcast", None, f"{mark} at the belt", sent.created_at, 9, "3"
    )  # fmt: skip


async def test_hits_that_rank_alike_come_newest_first(store: Store) -> None:
    ada = (await store.create_mysis("Ada")).id
    older, newer = await store.add_memories(
        ada, [NewMemory("user", "direct", "iron ore"), NewMemory("user", "direct", "iron ore")]
    )
    hits = await story.search_story(store, ada, "iron")
    assert [h.id for h in hits] == [newer.id, older.id]


async def test_pages_of_memories_and_requests_start_before_the_id_given(store: Store) -> None:
    ada = (await store.create_mysis("Ada")).id
    made = await store.add_memories(ada, [NewMemory("user", "direct", f"m{i}") for i in range(5)])
    ids = [m.id for m in made]
    assert [m.id for m in await store.recent_memories(ada, before_id=ids[3])] == ids[:3]
    read: list[int] = []
    async for memory in store.iter_memories(ada, batch=2):
        read.append(memory.id)
        if len(read) > len(ids):
            break  # read twice: it would never end
    assert read == ids
    first = await store.log_request(ada, _composition(2), last_memory_id=ids[1])
    second = await store.log_request(ada, _composition(3), last_memory_id=ids[2])
    assert [r.id for r in await story.request_page(store, ada, before_id=second)] == [first]


async def test_what_is_not_there_is_none(store: Store) -> None:
    ada = await store.create_mysis("Ada")
    assert await store.find_mysis("nobody") is None
    assert await store.latest_turn(ada.id) is None


async def test_a_deleted_mysis_leaves_nothing_to_the_next_one_given_its_id(store: Store) -> None:
    """SQLite gives a deleted Mysis's id to the next one made: the history the store kept
    of the first for ``summarize`` must not become the second's."""
    first = await store.create_mysis("Ada")
    await store.add_memories(first.id, [NewMemory("user", "direct", f"old {i}") for i in range(3)])
    settings = ComposeSettings()
    before = await store.load_history(first.id, settings, strategy="summarize")
    assert before.since_summary is not None and len(before.since_summary) == 3
    await store.delete_mysis(first.id)
    second = await store.create_mysis("Brin")
    assert second.id == first.id, "the premise: the id is given again"
    (new,) = await store.add_memories(second.id, [NewMemory("user", "direct", "new")])
    after = await store.load_history(second.id, settings, strategy="summarize")
    assert after.since_summary == (new,)


async def _requests(store: Store, per_mysis: int) -> tuple[int, int]:
    """Two Myses with ``per_mysis`` logged requests each, interleaved, request ``n``
    logged at time ``10 n``."""
    ada = (await store.create_mysis("Ada")).id
    brin = (await store.create_mysis("Brin")).id
    for _ in range(per_mysis):
        for mysis in (ada, brin):
            await store.log_request(mysis, _composition(2), last_memory_id=None)
    async with store._writing():
        await store.connection.execute("UPDATE requests SET created_at = id * 10")
    return ada, brin


async def _kept_in_full(store: Store) -> list[tuple[int, int]]:
    rows = await store.fetch_all(
        "SELECT mysis_id, id FROM requests WHERE memory_ids IS NOT NULL ORDER BY id"
    )
    return [(int(m), int(i)) for m, i in rows]


async def test_thinning_by_age_stops_at_the_first_request_not_older_in_batches(
    store: Store,
) -> None:
    await _requests(store, 3)  # requests 1..6, logged at 10..60
    assert await store.thin_requests(older_than=20.0, batch=3) == 1
    assert [i for _, i in await _kept_in_full(store)] == [2, 3, 4, 5, 6], "20 is not older"
    assert await store.thin_requests(older_than=60.0, batch=3) == 4
    assert [i for _, i in await _kept_in_full(store)] == [6]
    assert await store.thin_requests(older_than=60.0, batch=3) == 0


async def test_thinning_keeps_each_myses_newest_and_counts_every_one_thinned(
    store: Store,
) -> None:
    ada, brin = await _requests(store, 4)  # Ada: 1, 3, 5, 7; Brin: 2, 4, 6, 8
    assert await store.thin_requests(keep_per_mysis=1, batch=1) == 6
    assert await _kept_in_full(store) == [(ada, 7), (brin, 8)]
    assert await store.thin_requests(keep_per_mysis=1, batch=1) == 0


async def test_a_request_thinned_by_age_is_not_counted_again_by_number(store: Store) -> None:
    await _requests(store, 2)
    assert await store.thin_requests(older_than=1000.0) == 4
    assert await store.thin_requests(keep_per_mysis=1) == 0


async def test_a_name_too_long_is_one_line_naming_it(tmp_path: Path) -> None:
    """The file system refuses to look at the path at all (it raised ``OSError`` out of
    ``Store.open`` before: a traceback for ``zoea --db``)."""
    path = tmp_path / ("d" * 300) / "zoea.db"
    with pytest.raises(StoreError) as caught:
        await Store.open(path)
    assert str(caught.value) == f"cannot use {path}: File name too long; {ANOTHER_FILE}"


async def test_a_folder_that_cannot_be_made_says_why_in_the_systems_words() -> None:
    """The nearest folder that exists (``/proc``) is no file in the way: the system's
    reason is given."""
    path = Path("/proc/zoea-nova-test/zoea.db")
    with pytest.raises(StoreError) as caught:
        await Store.open(path)
    assert str(caught.value) == (
        f"cannot create the folder {path.parent} for {path}: No such file or directory; "
        f"{ANOTHER_FILE}"
    )


async def test_the_account_pool_claims_keeps_and_releases_by_server(store: Store) -> None:
    ada = (await store.create_mysis("Ada")).id
    brin = (await store.create_mysis("Brin")).id
    assert await store.find_account("s", "nobody") is None
    assert await store.claim_account(ada, "s") is None, "nothing free"
    for server, name in (("s", "free1"), ("s", "free2"), ("t", "other")):
        await store.add_account(server, name, f"pw-{name}-0123456789")
    claimed = await store.claim_account(ada, "s")
    assert claimed is not None and (claimed.username, claimed.mysis_id) == ("free1", ada)
    again = await store.claim_account(ada, "s")
    assert again is not None and again.username == "free1", "its own account first"
    mine = await store.account_for(ada, "s")
    assert mine is not None and mine.username == "free1"
    assert (await store.get_mysis(ada)).account == "free1"
    assert await store.account_for(ada, "t") is None
    other = await store.claim_account(brin, "t")
    assert other is not None and other.username == "other"
    # Assigning another account of the same server releases the one held there.
    own = await store.add_account("s", "own", "pw-own-0123456789", mysis_id=ada)
    assert own.mysis_id == ada and (await store.get_mysis(ada)).account == "own"
    released = await store.find_account("s", "free1")
    assert released is not None and released.mysis_id is None
    assert [a.username for a in await store.list_accounts("s")] == ["free1", "free2", "own"]
    assert [a.username for a in await store.list_accounts()] == [
        "free1", "free2", "other", "own"
    ]  # fmt: skip


async def test_a_turn_a_broadcast_and_the_last_sent_memory_read_back(store: Store) -> None:
    ada = (await store.create_mysis("Ada")).id
    assert await store.get_turn(1) is None
    assert await store.last_sent_memory_id(ada) == 0
    turn = await store.begin_turn(ada, "nudge", 1)
    got = await store.get_turn(turn.id)
    assert got is not None and (got.id, got.mysis_id) == (turn.id, ada)
    sent = await store.add_broadcast("regroup", sender_id="3", game_tick=9)
    assert (sent.sender_id, sent.content, sent.game_tick) == ("3", "regroup", 9)
    assert await store.recent_broadcasts(1) == [sent]
    await store.log_request(ada, _composition(2), last_memory_id=7)
    await store.log_request(ada, _composition(2), last_memory_id=None)
    assert await store.last_sent_memory_id(ada) == 7


async def test_a_part_is_stored_once_however_often_and_wherever_it_is_logged(
    tmp_path: Path,
) -> None:
    path = tmp_path / "zoea.db"
    async with await Store.open(path) as first:
        ada = (await first.create_mysis("Ada")).id
        for _ in range(2):
            await first.log_request(ada, _composition(3), last_memory_id=None)
        parts = await first.fetch_all("SELECT COUNT(*) FROM request_parts")
        logged = await first.list_requests()
        assert logged[0].items == logged[1].items
    async with await Store.open(path) as second:
        await second.log_request(ada, _composition(3), last_memory_id=None)
        assert await second.fetch_all("SELECT COUNT(*) FROM request_parts") == parts
        again = await second.list_requests()
        assert again[-1].items == logged[0].items


async def test_a_history_carries_its_turns_whole_and_splits_at_the_current_one(
    store: Store,
) -> None:
    """The turns ride in the history's one query in a memory's shape: each comes back
    whole, the current one (given or the latest) splits the window."""
    ada = (await store.create_mysis("Ada", system_prompt="You are Ada.")).id
    await store.add_account("s", "ada-1", "pw-ada-0123456789", mysis_id=ada)
    m1, m2 = await store.add_memories(
        ada, [NewMemory("user", "direct", "mine"), NewMemory("assistant", "llm", "ok")]
    )
    first = await store.begin_turn(ada, "direct", m1.id)
    second = await store.begin_turn(
        ada, "nudge", m2.id + 1, nudge_level=2, text="Go on.", game_tick=5
    )
    await store.set_turn_state(second.id, "Hold: 3 ore")
    m3, m4 = await store.add_memories(
        ada, [NewMemory("assistant", "llm", "mining"), NewMemory("user", "direct", "sell")]
    )
    stored = [await store.get_turn(first.id), await store.get_turn(second.id)]
    assert stored[1] is not None
    assert (stored[1].mysis_id, stored[1].kind, stored[1].nudge_level) == (ada, "nudge", 2)
    assert (stored[1].text, stored[1].state, stored[1].game_tick) == (
        "Go on.", "Hold: 3 ore", 5
    )  # fmt: skip
    assert await store.list_turns(ada) == stored
    settings = ComposeSettings()
    latest = await store.load_history(ada, settings)
    assert latest.turn == stored[1] and list(latest.turns) == stored
    assert (latest.turn_first, latest.before_turn) == (m3, (m1, m2))
    assert latest.turn_memories == (m3, m4)
    assert (latest.mysis_id, latest.mysis_name, latest.account) == (ada, "Ada", "ada-1")
    mysis = await store.get_mysis(ada)
    assert latest.system_template == mysis.system_template == "You are Ada."
    second_given = await store.load_history(ada, settings, turn=stored[1])
    assert (second_given.turn_first, second_given.before_turn) == (m3, (m1, m2))
    summarized = await store.load_history(ada, settings, strategy="summarize")
    assert summarized.since_summary == (m1, m2, m3, m4), "read past the turn rows"
    given = await store.load_history(ada, settings, turn=stored[0])
    assert given.turn == stored[0] and list(given.turns) == stored[:1]
    assert (given.turn_first, given.before_turn) == (m1, ())
    assert await store.first_prompt_after(ada, m1.id) == m4
    assert await store.latest_memory_id(ada) == m4.id


async def test_how_a_request_ended_reads_back_field_by_field(store: Store) -> None:
    ada = (await store.create_mysis("Ada")).id
    failed = await store.log_request(ada, _composition(2), last_memory_id=None)
    await store.finish_request(
        failed,
        outcome="error",
        error="HTTP 503",
        error_kind="unavailable",
        cached_tokens=4,
        latency_ms=12.6,
        streamed=False,
    )
    done = await store.log_request(ada, _composition(2), last_memory_id=None)
    await store.finish_request(
        done, outcome="ok", streamed=True, cached_tokens=900, cache_write_tokens=120
    )
    first, second = await store.list_requests(ada)
    assert (first.error, first.error_kind, first.cached_tokens) == ("HTTP 503", "unavailable", 4)
    assert (first.cache_write_tokens, second.cached_tokens, second.cache_write_tokens) == (
        None,
        900,
        120,
    )
    assert (first.latency_ms, first.streamed, second.streamed) == (13.0, False, True)
    assert second.latency_ms is None and second.error is None


async def test_an_empty_story_counts_0_and_a_missing_request_is_none(store: Store) -> None:
    ada = (await store.create_mysis("Ada")).id
    assert await story.story_bounds(store, ada) == story.StoryBounds(None, None, 0)
    assert await story.get_request(store, 1) is None


async def test_a_mysis_field_that_does_not_exist_is_refused(store: Store) -> None:
    ada = (await store.create_mysis("Ada")).id
    with pytest.raises(StoreError, match=r"^cannot update \[.colour.\]$"):
        await store.update_mysis(ada, colour="red")


async def test_a_story_search_gives_1_to_200_hits(store: Store) -> None:
    ada = (await store.create_mysis("Ada")).id
    await store.add_memories(ada, [NewMemory("user", "direct", f"iron {i}") for i in range(205)])
    assert len(await story.search_story(store, ada, "iron", limit=0)) == 1
    assert len(await story.search_story(store, ada, "iron", limit=500)) == 200


async def test_an_imported_conversation_is_dated_and_a_new_request_is_pending(
    store: Store,
) -> None:
    mysis, count = await store.import_conversation(
        "Ada", [NewMemory("user", "direct", "hi"), NewMemory("assistant", "llm", "hello")]
    )
    assert count == 2 and mysis.created_at is not None
    assert all(m.created_at is not None for m in await store.recent_memories(mysis.id))
    await store.log_request(mysis.id, _composition(2), last_memory_id=None)
    [request] = await store.list_requests(mysis.id)
    assert (request.outcome, request.streamed) == ("pending", None)


async def test_the_first_memory_of_a_database_is_in_the_history_since_the_summary(
    store: Store,
) -> None:
    """A ``summarize`` history read before there was any memory remembers that it read
    nothing, not that it read up to memory 1."""
    ada = (await store.create_mysis("Ada")).id
    settings = ComposeSettings()
    empty = await store.load_history(ada, settings, strategy="summarize")
    assert empty.since_summary == ()
    (first,) = await store.add_memories(ada, [NewMemory("user", "direct", "hi")])
    assert first.id == 1, "the premise: the database's first memory"
    again = await store.load_history(ada, settings, strategy="summarize")
    assert again.since_summary == (first,)


async def test_an_import_into_a_mysis_goes_on_after_its_memories(store: Store) -> None:
    first, _ = await store.import_conversation("Ada", [NewMemory("user", "direct", "a")])
    again, count = await store.import_conversation(
        "Ada", [NewMemory("user", "direct", "b"), NewMemory("user", "direct", "c")]
    )
    assert again.id == first.id and count == 2
    assert [(m.seq, m.content) for m in await store.recent_memories(first.id)] == [
        (1, "a"), (2, "b"), (3, "c")
    ]  # fmt: skip


async def test_an_answered_request_whose_answer_is_not_stored_yet_has_none(
    store: Store,
) -> None:
    ada = (await store.create_mysis("Ada")).id
    (only,) = await store.add_memories(ada, [NewMemory("user", "direct", "mine")])
    request_id = await store.log_request(ada, _composition(1), last_memory_id=only.id)
    await store.finish_request(request_id, outcome="ok")
    record = await story.get_request(store, request_id)
    assert record is not None and await story.answer_of(store, record) is None


async def test_every_field_of_a_memory_reads_back_whole_through_every_read(
    store: Store,
) -> None:
    """What is written is what every read gives back, field by field (``tokens`` and
    ``seq`` too, which equality leaves out): the store's own reads, a composition's
    history, and a conversation imported in one statement."""
    from dataclasses import asdict

    from zoea_tui.core.tokens import count_tokens
    from zoea_tui.core.types import Memory, ToolCall

    ada = (await store.create_mysis("Ada")).id
    await store.create_mysis("Bo")  # a second Mysis: ids and counts stay Ada's own
    call = ToolCall(id="c1", name="mine", arguments='{"belt": "Ä"}')
    written = [
        NewMemory("user", "direct", "mine the belt", sender_id="commander", game_tick=3,
                  created_at=1_700_000_000.5),
        NewMemory("assistant", "llm", "on it", reasoning="iron sells", tool_calls=(call,),
                  game_tick=4, created_at=1_700_000_001.0),
        NewMemory("tool", "tool", '{"ore": 12}', tool_call_id="c1", tool_name="mine",
                  game_tick=5, created_at=1_700_000_002.0),
    ]  # fmt: skip
    stored = await store.add_memories(ada, written)
    expected = [
        asdict(
            Memory(
                **{k: getattr(new, k) for k in NewMemory.__dataclass_fields__},
                id=got.id,
                mysis_id=ada,
                tokens=count_tokens(new.content),
                seq=n,
            )
        )
        for n, (new, got) in enumerate(zip(written, stored, strict=True), start=1)
    ]
    assert all(e["tokens"] > 0 for e in expected)

    def whole(memories: list[Memory] | tuple[Memory, ...]) -> list[dict[str, object]]:
        return [asdict(m) for m in memories]

    assert whole(stored) == expected
    assert whole(await store.recent_memories(ada)) == expected
    assert whole([m async for m in store.iter_memories(ada)]) == expected
    assert whole([await store.get_memory(ada, e["id"]) for e in expected]) == expected  # type: ignore[misc]
    history = await store.load_history(ada, ComposeSettings(max_context_messages=20))
    assert whole(history.window) == expected

    bo, count = await store.import_conversation("Bo", written)
    assert count == 3
    imported = whole(await store.recent_memories(bo.id))
    assert [{**m, "id": 0, "mysis_id": 0} for m in imported] == [
        {**e, "id": 0, "mysis_id": 0} for e in expected
    ]

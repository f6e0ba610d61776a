"""The SQLite store on real files: migrations, history loads, search, atomic import."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
from pathlib import Path

import aiosqlite
import pytest

from tests.helpers import history_of
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.strategies import STRATEGIES
from zoea_tui.core.types import ToolCall
from zoea_tui.resources import data_dir
from zoea_tui.storage import NewMemory, Store, StoreError
from zoea_tui.storage.migrations import load_migrations, schema_text


async def veteran(path: Path) -> int:
    """A version-1 database at ``path`` with a Mysis, two memories and a broadcast; the
    Mysis's id."""
    old = await Store.open(path, migrate_up_to=1)
    mysis = await old.create_mysis("veteran")
    for text in ("remember the iron belt", "and the copper one"):
        # Written as a version-1 program would: the columns of that schema only.
        await old.connection.execute(
            "INSERT INTO memories (mysis_id, role, source, content, created_at, tokens) "
            "VALUES (?, 'user', 'direct', ?, 0, 5)",
            (mysis.id, text),
        )
    await old.add_broadcast("all hands: sell copper")
    await old.close()
    return mysis.id


async def test_migrating_an_old_database_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    mysis_id = await veteran(path)

    store = await Store.open(path)
    async with store:
        async with store.connection.execute("SELECT MAX(version) FROM schema_migrations") as c:
            assert (await c.fetchone())[0] == len(load_migrations())
        assert [m.name for m in await store.list_myses()] == ["veteran"]
        # Rows stored before the turns migration get their running count.
        assert [m.seq for m in await store.recent_memories(mysis_id)] == [1, 2]
        hits = await store.search_memories(mysis_id, "IRON")
        assert [h.snippet for h in hits] == ["remember the [iron] belt"]
        assert (await store.search_broadcasts("copper"))[0].snippet == "all hands: sell [copper]"


async def test_schema_sql_matches_the_migrations(store: Store) -> None:
    recorded = (data_dir("store") / "schema.sql").read_text(encoding="utf-8")
    assert await schema_text(store.connection) == recorded, (
        "store/schema.sql is stale: python -m zoea_tui.storage.schema > store/schema.sql"
    )


async def test_a_database_newer_than_the_program_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    (await Store.open(path)).connection  # noqa: B018 - create it
    async with aiosqlite.connect(path) as db:
        await db.execute("INSERT INTO schema_migrations VALUES (999, 'future', 0)")
        await db.commit()
    with pytest.raises(StoreError, match="newer than this program"):
        await Store.open(path)


async def test_store_uses_wal_foreign_keys_and_busy_timeout(store: Store) -> None:
    for pragma, expected in (("journal_mode", "wal"), ("foreign_keys", 1), ("busy_timeout", 5000)):
        async with store.connection.execute(f"PRAGMA {pragma}") as cur:
            assert (await cur.fetchone())[0] == expected


async def test_mysis_names_are_unique(store: Store) -> None:
    await store.create_mysis("alpha")
    with pytest.raises(StoreError, match="already exists"):
        await store.create_mysis("alpha")


async def test_tool_calls_round_trip_as_json_even_with_delimiters(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    call = ToolCall("id:with|pipes", "captains_log_add", json.dumps({"entry": "a|b:c"}))
    stored = await store.add_memory(mysis.id, NewMemory("assistant", "llm", tool_calls=(call,)))
    loaded = [m async for m in store.iter_memories(mysis.id)]
    assert loaded == [stored] and loaded[0].tool_calls == (call,)


async def test_an_answer_is_dropped_when_an_order_came_after_its_request(store: Store) -> None:
    """``add_answer``: the answer to a request composed up to a memory is stored unless an
    order (the commander's direct message or broadcast) came after that memory; a
    Mysis's broadcast is news, not an order."""
    mysis = await store.create_mysis("Ada")
    start = await store.add_memory(mysis.id, NewMemory("user", "direct", "mine"))
    answer = NewMemory("assistant", "llm", "Mining.")
    stored = await store.add_answer(mysis.id, answer, composed_upto=start.id)
    assert stored is not None and stored.content == "Mining."
    news = NewMemory("user", "broadcast", "iron at Sol", sender_id="7")
    heard = await store.add_memory(mysis.id, news)
    assert await store.add_answer(mysis.id, answer, composed_upto=stored.id) is not None
    for order in (
        NewMemory("user", "direct", "report"),
        NewMemory("user", "broadcast", "report"),
    ):
        upto = await store.latest_memory_id(mysis.id)
        await store.add_memory(mysis.id, order)
        before = await store.count_memories(mysis.id)
        assert await store.add_answer(mysis.id, answer, composed_upto=upto) is None
        assert await store.count_memories(mysis.id) == before, "nothing is stored"
    assert upto is not None and heard.id < upto


async def test_a_summary_is_dropped_when_any_memory_came_after_its_history(
    store: Store,
) -> None:
    """``add_summary``: a summary of the history up to a memory is stored unless any
    memory came after it (a Mysis's broadcast too: the summary never saw it)."""
    mysis = await store.create_mysis("Ada")
    said = await store.add_memory(mysis.id, NewMemory("assistant", "llm", "Mining."))
    summary = NewMemory("user", "summary", "Summary: mining at Sol.")
    await store.add_memory(mysis.id, NewMemory("user", "broadcast", "iron", sender_id="7"))
    before = await store.count_memories(mysis.id)
    assert await store.add_summary(mysis.id, summary, composed_upto=said.id) is None
    assert await store.count_memories(mysis.id) == before, "nothing is stored"
    upto = await store.latest_memory_id(mysis.id)
    stored = await store.add_summary(mysis.id, summary, composed_upto=upto)
    assert stored is not None and stored.source == "summary"


async def test_history_load_takes_two_indexed_queries_whatever_the_length(
    store: Store,
) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memories(
        mysis.id,
        [NewMemory("user", "direct", "go")]
        + [NewMemory("assistant", "llm", f"step {n}") for n in range(500)],
    )
    statements: list[str] = []
    await store.connection.set_trace_callback(statements.append)
    await store.load_history(mysis.id, ComposeSettings(), strategy="turn-aware")
    await store.connection.set_trace_callback(None)
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) == 2
    async with store.connection.execute(f"EXPLAIN QUERY PLAN {selects[1]}") as cur:
        plan = " ".join([str(row[3]) async for row in cur])
    assert "SCAN memories" not in plan and "idx_memories" in plan


async def _load_steps(store: Store, mysis_id: int, strategy: str) -> int:
    """SQLite VM steps (in thousands) one history load takes."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    await store.connection.set_progress_handler(count, 1000)
    await store.load_history(mysis_id, ComposeSettings(), strategy=strategy)
    await store.connection.set_progress_handler(None, 1000)
    return steps


async def _write_short_and_long_story(path: Path) -> None:
    store = await Store.open(path)
    async with store:
        short, long = await store.create_mysis("short"), await store.create_mysis("long")
        steps = [NewMemory("assistant", "llm", f"step {n}") for n in range(20_000)]
        recent = [NewMemory("user", "summary", "so far"), *steps[:100]]
        go = NewMemory("user", "direct", "go")
        await store.add_memories(short.id, [go, *steps[:200], *recent])
        await store.add_memories(long.id, [go, *steps, *recent])


@pytest.fixture(scope="module")
def short_and_long_story(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A closed database file holding the Myses "short" (301 memories) and "long" (20 101),
    written once for the module (20 000 inserts take seconds); each test opens a copy."""
    path = tmp_path_factory.mktemp("stories") / "stories.db"
    asyncio.run(_write_short_and_long_story(path))
    assert not path.with_name(path.name + "-wal").exists()  # closed whole: the file is all
    return path


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
async def test_history_load_reads_as_much_for_a_long_story_as_for_a_short_one(
    short_and_long_story: Path, tmp_path: Path, strategy: str
) -> None:
    # Imported stories have no turns recorded: a bound of ``id < NULL`` once made
    # SQLite walk every memory of the Mysis (plans alone did not show it).
    copy = tmp_path / "zoea.db"
    shutil.copyfile(short_and_long_story, copy)
    store = await Store.open(copy)
    async with store:
        short, long = await store.find_mysis("short"), await store.find_mysis("long")
        assert short is not None and long is not None
        short_steps = await _load_steps(store, short.id, strategy)
        long_steps = await _load_steps(store, long.id, strategy)
    assert long_steps <= short_steps * 2 + 5, (short_steps, long_steps)


async def test_loaded_history_matches_the_reference_builder(store: Store) -> None:
    mysis = await store.create_mysis("test")  # the reference's name (the state message tells it)
    memories = [NewMemory("user", "direct", "old order")]
    for n in range(30):
        memories.append(NewMemory("assistant", "llm", tool_calls=(ToolCall(f"c{n}", "mine"),)))
        memories.append(
            NewMemory("tool", "tool", f'{{"n": {n}}}', tool_call_id=f"c{n}", tool_name="mine")
        )
    memories.append(NewMemory("user", "summary", "summary of it all"))
    memories.append(NewMemory("user", "broadcast", "newest order"))
    stored = await store.add_memories(mysis.id, memories)
    for strategy in ("turn-aware", "summarize"):
        settings = ComposeSettings(max_context_messages=7)
        loaded = await store.load_history(mysis.id, settings, strategy=strategy)
        reference = history_of(stored, settings, strategy=strategy)
        assert loaded.window == reference.window
        assert loaded.latest_prompt == reference.latest_prompt
        assert loaded.latest_summary == reference.latest_summary
        assert loaded.since_summary == reference.since_summary
        assert loaded.before_window_id == reference.before_window_id
        assert (
            compose(loaded, strategy, settings).messages[1:]
            == compose(reference, strategy, settings).messages[1:]
        )


async def test_history_up_to_an_id_recomposes_the_past(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    first = await store.add_memory(mysis.id, NewMemory("user", "direct", "first"))
    await store.add_memory(mysis.id, NewMemory("user", "direct", "second"))
    past = await store.load_history(mysis.id, ComposeSettings(), up_to_id=first.id)
    assert [m.content for m in past.window] == ["first"]
    assert past.latest_prompt == first


async def test_latest_broadcast_reaches_the_history(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_broadcast("regroup at Sol")
    history = await store.load_history(mysis.id, ComposeSettings())
    assert history.latest_broadcast == "regroup at Sol"
    composition = compose(history, "turn-aware", ComposeSettings())
    assert "regroup at Sol" not in composition.messages[0]["content"]
    assert "regroup at Sol" in composition.messages[-1]["content"]


async def test_search_is_ranked_case_insensitive_and_bound_to_the_mysis(store: Store) -> None:
    alpha = await store.create_mysis("alpha")
    beta = await store.create_mysis("beta")
    await store.add_memory(alpha.id, NewMemory("user", "direct", "Iron ore at Main Belt"))
    await store.add_memory(beta.id, NewMemory("user", "direct", "iron ore elsewhere"))
    await store.add_memory(
        alpha.id, NewMemory("assistant", "llm", "ok", reasoning="the belt is rich in IRON")
    )
    hits = await store.search_memories(alpha.id, "iron belt")
    assert [h.memory_id for h in hits] == [1], "content only, this Mysis only"
    assert [
        h.snippet for h in await store.search_memories(alpha.id, "rich", field="reasoning")
    ] == ["the belt is [rich] in IRON"]
    assert await store.search_memories(alpha.id, '"( * :^') == [], "syntax is not FTS syntax"
    assert len(await store.search_memories(alpha.id, 'ore")(*')) == 1


async def test_search_hits_carry_the_start_of_their_text_its_length_and_tick(
    store: Store,
) -> None:
    mysis = await store.create_mysis("alpha")
    long = "iron " + "ore " * 3000
    memory = await store.add_memory(
        mysis.id,
        NewMemory(
            "tool",
            "tool",
            long,
            tool_call_id="c1",
            tool_name="get_cargo",
            game_tick=42,
            reasoning="short thought about iron",
        ),
    )
    [hit] = await store.search_memories(mysis.id, "iron", text_limit=100)
    assert (hit.memory_id, hit.role, hit.source, hit.tool_name, hit.game_tick) == (
        memory.id,
        "tool",
        "tool",
        "get_cargo",
        42,
    )
    assert hit.text == long[:100] and hit.text_chars == len(long)
    assert hit.created_at == memory.created_at
    [thought] = await store.search_memories(mysis.id, "thought", field="reasoning")
    assert thought.text == "short thought about iron" and thought.text_chars == 24
    broadcast = await store.add_broadcast("all hands: sell copper", sender_id="7", game_tick=5)
    [sent] = await store.search_broadcasts("copper", text_limit=9)
    assert (sent.memory_id, sent.text, sent.text_chars, sent.game_tick, sent.extra) == (
        broadcast.id,
        "all hands",
        22,
        5,
        {"sender_id": "7"},
    )


async def test_get_memory_is_one_lookup_by_id_bound_to_the_mysis(store: Store) -> None:
    alpha = await store.create_mysis("alpha")
    beta = await store.create_mysis("beta")
    call = ToolCall("c1", "captains_log_add", json.dumps({"entry": "ore at belt"}))
    stored = await store.add_memory(
        alpha.id,
        NewMemory("assistant", "llm", "logging", reasoning="why", tool_calls=(call,), game_tick=3),
    )
    statements: list[str] = []
    await store.connection.set_trace_callback(statements.append)
    loaded = await store.get_memory(alpha.id, stored.id)
    await store.connection.set_trace_callback(None)
    assert loaded == stored and loaded.tool_calls == (call,)
    [select] = statements
    async with store.connection.execute(
        f"EXPLAIN QUERY PLAN {select}".replace("?", str(stored.id), 1).replace(
            "?", str(alpha.id), 1
        )
    ) as cur:
        plan = " ".join([str(row[3]) async for row in cur])
    assert "INTEGER PRIMARY KEY" in plan and "SCAN" not in plan
    assert await store.get_memory(beta.id, stored.id) is None, "another Mysis's memory"
    assert await store.get_memory(alpha.id, 999_999) is None


async def test_deleting_a_mysis_removes_its_memories_and_index(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("user", "direct", "unique-word"))
    await store.delete_mysis(mysis.id)
    async with store.connection.execute("SELECT COUNT(*) FROM memories") as cur:
        assert (await cur.fetchone())[0] == 0
    async with store.connection.execute(
        "SELECT COUNT(*) FROM memories_search_fts WHERE memories_search_fts MATCH 'uni'"
    ) as cur:
        assert (await cur.fetchone())[0] == 0


async def test_request_log_records_items_and_outcome(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    memory = await store.add_memory(mysis.id, NewMemory("user", "direct", "go"))
    history = await store.load_history(mysis.id, ComposeSettings())
    composition = compose(history, "turn-aware", ComposeSettings())
    request_id = await store.log_request(mysis.id, composition, last_memory_id=memory.id)
    await store.finish_request(
        request_id, outcome="ok", prompt_tokens=321, completion_tokens=9, latency_ms=12.5
    )
    [record] = await store.list_requests(mysis.id)
    # Each item's tokens are counted again by a recomposition; the rest is kept.
    assert record.items == [
        {k: v for k, v in i.to_dict().items() if k != "tokens"} for i in composition.items
    ]
    assert (record.outcome, record.prompt_tokens, record.estimated_tokens) == (
        "ok",
        321,
        composition.tokens,
    )


async def test_summarize_loads_reuse_what_they_read_and_stay_exact(tmp_path: Path) -> None:
    """Live loads fetch only newer rows; they always equal a fresh, uncached load."""
    live = await Store.open(tmp_path / "zoea.db")
    settings = ComposeSettings()
    try:
        mysis = await live.create_mysis("Keeper", strategy="summarize")
        other = await live.create_mysis("Other")
        for step in range(60):
            await live.add_memory(mysis.id, NewMemory("user", "direct", f"order {step}"))
            await live.add_memory(other.id, NewMemory("user", "direct", f"noise {step}"))
            if step % 17 == 16:
                await live.add_memory(mysis.id, NewMemory("user", "summary", f"summary {step}"))
            cached = await live.load_history(mysis.id, settings, strategy="summarize")
            fresh_store = await Store.open(tmp_path / "zoea.db")
            try:
                fresh = await fresh_store.load_history(mysis.id, settings, strategy="summarize")
                past = await live.load_history(
                    mysis.id, settings, strategy="summarize", up_to_id=cached.window[0].id
                )
            finally:
                await fresh_store.close()
            assert [m.id for m in cached.since_summary] == [m.id for m in fresh.since_summary]
            assert cached.latest_summary == fresh.latest_summary
            assert all(m.id <= cached.window[0].id for m in past.since_summary)
    finally:
        await live.close()


async def test_a_write_cancelled_at_any_point_leaves_no_transaction_open(store: Store) -> None:
    """A task cancelled while its BEGIN, statements or COMMIT are in flight must not
    leave the shared connection inside a transaction (every later write would fail
    with "cannot start a transaction within a transaction")."""
    mysis = await store.create_mysis("cancelled")
    for steps in range(12):
        task = asyncio.create_task(
            store.add_memory(mysis.id, NewMemory("user", "direct", f"m{steps}"))
        )
        for _ in range(steps):
            await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        stored = await store.add_memory(mysis.id, NewMemory("user", "direct", "after"))
        assert stored.content == "after"
    assert not store.connection.in_transaction


async def test_a_turn_keeps_when_it_began_and_at_which_tick(store: Store) -> None:
    mysis = await store.create_mysis("Ada")
    first = await store.add_memory(mysis.id, NewMemory("user", "direct", "mine"))
    begun = await store.begin_turn(mysis.id, "direct", first.id, game_tick=42)
    latest = await store.latest_turn(mysis.id)
    assert latest is not None and latest == begun
    assert latest.game_tick == 42 and latest.created_at >= first.created_at
    assert latest.created_at != 42


async def test_the_reader_sees_the_same_file_and_never_writes(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    await store.create_mysis("Ada")
    reader = await store.reader()
    assert [m.name for m in await reader.list_myses()] == ["Ada"]
    with pytest.raises(StoreError, match="read-only"):
        await reader.create_mysis("Bo")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("file:")]

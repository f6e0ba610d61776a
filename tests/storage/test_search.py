"""The Myses' search on a real database: substrings (migration 012's trigram index),
ranked, case-insensitive, with the seeds' exact match as an option."""

from __future__ import annotations

from pathlib import Path

from zoea_tui.storage import NewMemory, Store, story
from zoea_tui.storage.search import query_terms, snippet


async def _texts(store: Store, mysis_id: int, query: str, **kw: object) -> list[str]:
    hits = await store.search_memories(mysis_id, query, **kw)  # type: ignore[arg-type]
    return [h.text for h in hits]


async def test_a_part_of_a_word_finds_the_word_in_any_case(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    for text in ("Iron ore at Main Belt", "ironclad hauler", "copper only"):
        await store.add_memory(mysis.id, NewMemory("user", "direct", text))
    assert sorted(await _texts(store, mysis.id, "ron")) == [
        "Iron ore at Main Belt",
        "ironclad hauler",
    ]
    assert await _texts(store, mysis.id, "RON BELT") == ["Iron ore at Main Belt"]
    assert await _texts(store, mysis.id, "op") == ["copper only"], "two letters scan"
    assert await _texts(store, mysis.id, "or be") == ["Iron ore at Main Belt"]
    assert await _texts(store, mysis.id, "zinc") == []


async def test_hits_are_ranked_by_how_well_they_match(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(
        mysis.id,
        NewMemory("user", "direct", "a long report on many things " * 20 + "and iron once"),
    )
    await store.add_memory(mysis.id, NewMemory("user", "direct", "iron, iron and more iron"))
    texts = await _texts(store, mysis.id, "iron")
    assert texts[0] == "iron, iron and more iron"


async def test_exact_wants_the_whole_query_with_its_case(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    for text in ("Iron ore", "iron ore", "ore, then Iron"):
        await store.add_memory(mysis.id, NewMemory("user", "direct", text))
    assert await _texts(store, mysis.id, "Iron ore", exact=True) == ["Iron ore"]
    assert sorted(await _texts(store, mysis.id, "Ir", exact=True)) == ["Iron ore", "ore, then Iron"]
    assert len(await _texts(store, mysis.id, "Iron ore")) == 3, "the default ignores case"


async def test_the_snippet_centres_a_match_beyond_the_text_read(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    text = "filler " * 1000 + "the Vega belt is rich" + " tail" * 200
    await store.add_memory(mysis.id, NewMemory("user", "direct", text))
    [hit] = await store.search_memories(mysis.id, "vega", text_limit=100)
    assert hit.text == text[:100] and hit.text_chars == len(text)
    assert hit.snippet.startswith("… ") and hit.snippet.endswith(" …")
    assert "the [Vega] belt is rich" in hit.snippet


async def test_reasoning_hits_carry_the_content_and_calls(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(
        mysis.id, NewMemory("assistant", "llm", "Selling now.", reasoning="the hold is full")
    )
    [hit] = await store.search_memories(mysis.id, "HOLD", field="reasoning")
    assert hit.text == "the hold is full" and hit.snippet == "the [hold] is full"
    assert hit.extra == {"content": "Selling now.", "content_chars": 12, "calls": []}


async def test_broadcasts_are_found_by_parts_of_words(store: Store) -> None:
    await store.add_broadcast("Enemy spotted near Sol")
    [hit] = await store.search_broadcasts("NEM")
    assert hit.text == "Enemy spotted near Sol" and hit.snippet == "E[nem]y spotted near Sol"
    assert await store.search_broadcasts("enemy", exact=True) == []


async def test_rows_stored_before_migration_10_are_found(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = await Store.open(path, migrate_up_to=9)
    mysis = await old.create_mysis("veteran")
    await old.add_memory(mysis.id, NewMemory("user", "direct", "remember the ironclad"))
    await old.add_broadcast("all hands: copper")
    await old.close()
    store = await Store.open(path)
    async with store:
        assert await _texts(store, mysis.id, "clad") == ["remember the ironclad"]
        assert [h.text for h in await store.search_broadcasts("oppe")] == ["all hands: copper"]
        later = await store.add_memory(mysis.id, NewMemory("user", "direct", "gold rush"))
        assert [h.memory_id for h in await store.search_memories(mysis.id, "old")] == [later.id]


def test_query_words_and_snippet_marks() -> None:
    assert query_terms('"( * :^') == []
    assert query_terms("Iron iron ORE_1 ore_1") == ["Iron", "ORE_1"]
    assert snippet("the iron ironclad", 1, 17, ["iron"], False) == "the [iron] [iron]clad"
    assert snippet("the Iron iron", 5, 40, ["Iron"], True) == "… the [Iron] iron …"


async def test_a_row_with_every_trigram_but_not_the_word_is_no_hit(store: Store) -> None:
    """The index only says which rows hold each trigram of a word ("iro", "ron"): a row
    holding them apart is a candidate the check of its text turns down."""
    mysis = await store.create_mysis("alpha")
    for text in ("ron met iro", "an iron bar"):
        await store.add_memory(mysis.id, NewMemory("user", "direct", text))
    await store.add_broadcast("ron met iro")
    assert await _texts(store, mysis.id, "iron") == ["an iron bar"]
    assert sorted(await _texts(store, mysis.id, "ron iro")) == ["an iron bar", "ron met iro"]
    assert await store.search_broadcasts("iron") == []
    hits = await story.search_story(store, mysis.id, "iron")
    assert [h.kind for h in hits] == ["memory"]
    assert hits[0].snippet == f"an {story.HIT_OPEN}iron{story.HIT_CLOSE} bar"


async def test_case_is_ignored_beyond_ascii(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("user", "direct", "ÉMILE sold the ÄRZE"))
    assert await _texts(store, mysis.id, "émile ärze") == ["ÉMILE sold the ÄRZE"]
    assert await _texts(store, mysis.id, "émile", exact=True) == []


async def test_the_commanders_search_finds_parts_of_words_in_content_and_reasoning(
    store: Store,
) -> None:
    """The commander's "/" asks the same index as the Myses' tools: a part of a word,
    in any case, in the content or the reasoning, and words of one or two letters."""
    mysis = await store.create_mysis("alpha")
    said = await store.add_memory(mysis.id, NewMemory("user", "direct", "Ironclad at Vega"))
    thought = await store.add_memory(
        mysis.id, NewMemory("assistant", "llm", "Selling.", reasoning="the hold holds IRON")
    )
    hits = await story.search_story(store, mysis.id, "RON")
    assert sorted(h.id for h in hits) == [said.id, thought.id]
    by_id = {h.id: h.snippet for h in hits}
    assert by_id[thought.id] == f"the hold holds I{story.HIT_OPEN}RON{story.HIT_CLOSE}"
    assert [h.id for h in await story.search_story(store, mysis.id, "at")] == [said.id]
    # Two words, one in the content and one in the reasoning: the memory holds both.
    assert [h.id for h in await story.search_story(store, mysis.id, "sell hold")] == [thought.id]


async def test_the_commanders_hits_are_ranked_memories_and_broadcasts_together(
    store: Store,
) -> None:
    mysis = await store.create_mysis("alpha")
    once = await store.add_memory(
        mysis.id, NewMemory("user", "direct", "a long report on many things " * 20 + "iron")
    )
    thrice = await store.add_memory(
        mysis.id, NewMemory("user", "direct", "iron, iron and more iron")
    )
    told = await store.add_broadcast("iron prices up, iron everywhere")
    hits = await story.search_story(store, mysis.id, "iron")
    assert [(h.kind, h.id) for h in hits] == [
        ("memory", thrice.id),
        ("broadcast", told.id),
        ("memory", once.id),
    ]


async def test_a_database_from_before_migration_12_migrates_and_searches(
    tmp_path: Path,
) -> None:
    """Migration 012 drops 002's word indexes and 010's trigram indexes for one smaller
    index, built from the rows already stored; every search finds them, and rows added
    after it too."""
    path = tmp_path / "old.db"
    old = await Store.open(path, migrate_up_to=11)
    mysis = await old.create_mysis("veteran")
    kept = await old.add_memory(
        mysis.id, NewMemory("assistant", "llm", "Mining.", reasoning="the IRONCLAD waits")
    )
    await old.add_broadcast("all hands: copper")
    await old.close()
    store = await Store.open(path)
    async with store:
        tables = {
            r[0]
            for r in await store.fetch_all(
                "SELECT name FROM sqlite_master WHERE name LIKE '%fts'", ()
            )
        }
        assert tables == {"memories_search_fts", "broadcasts_search_fts"}
        [hit] = await store.search_memories(mysis.id, "clad", field="reasoning")
        assert hit.memory_id == kept.id and hit.snippet == "the IRON[CLAD] waits"
        assert [h.text for h in await store.search_broadcasts("oppe")] == ["all hands: copper"]
        assert [h.id for h in await story.search_story(store, mysis.id, "ironc")] == [kept.id]
        later = await store.add_memory(mysis.id, NewMemory("user", "direct", "gold rush"))
        assert [h.memory_id for h in await store.search_memories(mysis.id, "old")] == [later.id]

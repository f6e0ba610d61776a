"""The Myses' search on a real database: substrings (migration 012's trigram index),
ranked, case-insensitive, with the seeds' exact match as an option."""

from __future__ import annotations

from pathlib import Path

import pytest

from zoea_tui.storage import NewMemory, Store, StoreError, story
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


async def test_a_field_other_than_content_or_reasoning_is_refused(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("tool", "tool", "ore", tool_name="mine"))
    with pytest.raises(StoreError, match="cannot search 'tool_name'"):
        await store.search_memories(mysis.id, "mine", field="tool_name")


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


async def test_a_broadcast_hit_says_what_it_is_who_sent_it_and_when(store: Store) -> None:
    sent = await store.add_broadcast("Enemy spotted near Sol", sender_id="m7", game_tick=42)
    [hit] = await store.search_broadcasts("spotted")
    assert (hit.memory_id, hit.role, hit.source, hit.tool_name) == (
        sent.id,
        "user",
        "broadcast",
        None,
    )
    assert hit.created_at == sent.created_at and hit.game_tick == 42
    assert hit.extra == {"sender_id": "m7"} and hit.text_chars == 22
    [hit] = await store.search_broadcasts("spotted", text_limit=0)
    assert hit.text == "" and hit.snippet == "Enemy [spotted] near Sol"


async def test_text_limit_0_reads_none_of_a_memory(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("user", "direct", "iron ore"))
    [hit] = await store.search_memories(mysis.id, "iron", text_limit=0)
    assert hit.text == "" and hit.text_chars == 8 and hit.snippet == "[iron] ore"


async def test_an_exact_broadcast_search_marks_and_centres_only_its_case(store: Store) -> None:
    await store.add_broadcast("iron " + "filler " * 60 + "Iron at Vega")
    [hit] = await store.search_broadcasts("Iron", exact=True)
    assert hit.snippet.endswith("[Iron] at Vega") and "[iron]" not in hit.snippet
    await store.add_broadcast("Iron and iron")
    hits = await store.search_broadcasts("Iron", exact=True)
    assert {h.text: h.snippet for h in hits}["Iron and iron"] == "[Iron] and iron"


async def test_a_match_far_into_a_broadcast_in_another_case_is_centred(store: Store) -> None:
    await store.add_broadcast("filler " * 60 + "IRON at Vega")
    [hit] = await store.search_broadcasts("iron")
    assert hit.snippet.startswith("… ") and hit.snippet.endswith("[IRON] at Vega")


async def test_a_broadcast_search_with_several_short_words_filters_by_each(store: Store) -> None:
    await store.add_broadcast("iron at Vega by noon")
    await store.add_broadcast("iron at Sol")
    assert [h.text for h in await store.search_broadcasts("iron at by")] == ["iron at Vega by noon"]
    assert [h.text for h in await store.search_broadcasts("at by")] == ["iron at Vega by noon"]


async def test_an_underscore_in_a_short_word_is_an_underscore(store: Store) -> None:
    """A short word is matched with LIKE: its ``_`` must not match any character."""
    mysis = await store.create_mysis("alpha")
    for text in ("a_b", "axb"):
        await store.add_memory(mysis.id, NewMemory("user", "direct", text))
        await store.add_broadcast(text)
    assert await _texts(store, mysis.id, "a_") == ["a_b"]
    assert [h.text for h in await store.search_broadcasts("a_")] == ["a_b"]


async def test_the_limit_is_kept_between_1_and_100(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    for n in range(101):
        await store.add_broadcast(f"ore {n}")
        await store.add_memory(mysis.id, NewMemory("user", "direct", f"ore {n}"))
    assert len(await store.search_broadcasts("ore", limit=0)) == 1
    assert len(await store.search_broadcasts("ore", limit=1000)) == 100
    assert len(await store.search_memories(mysis.id, "ore", limit=0)) == 1
    assert len(await store.search_memories(mysis.id, "ore", limit=1000)) == 100
    assert len(await store.search_broadcasts("ore")) == 20, "20 unless asked"
    assert len(await store.search_memories(mysis.id, "ore")) == 20, "20 unless asked"


async def test_a_reasoning_hit_names_the_calls_of_its_memory(store: Store) -> None:
    from zoea_tui.core.types import ToolCall

    mysis = await store.create_mysis("alpha")
    calls = (ToolCall("c1", "sell", "{}"), ToolCall("c2", "undock", "{}"))
    await store.add_memory(
        mysis.id,
        NewMemory("assistant", "llm", "", reasoning="the hold is full", tool_calls=calls),
    )
    [hit] = await store.search_memories(mysis.id, "hold", field="reasoning")
    assert hit.extra["calls"] == ["sell", "undock"]
    [hit] = await store.search_memories(mysis.id, "hold", field="reasoning", exact=True)
    assert hit.snippet == "the [hold] is full"


async def test_a_memory_hit_says_what_it_is(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    kept = await store.add_memory(
        mysis.id, NewMemory("user", "broadcast", "Iron and iron", sender_id="m2")
    )
    [hit] = await store.search_memories(mysis.id, "Iron", exact=True)
    assert (hit.memory_id, hit.role, hit.source) == (kept.id, "user", "broadcast")
    assert hit.snippet == "[Iron] and iron" and hit.extra == {}


async def test_an_exact_search_may_hold_double_quotes(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("user", "direct", 'she said "sell" twice'))
    await store.add_broadcast('she said "sell" twice')
    assert await _texts(store, mysis.id, 'said "sell"', exact=True) == ['she said "sell" twice']
    await store.add_memory(mysis.id, NewMemory("user", "direct", 'then "x(y" at Sol'))
    assert await _texts(store, mysis.id, '"x(y"', exact=True) == ['then "x(y" at Sol']
    hits = await store.search_broadcasts('said "sell"', exact=True)
    assert [h.snippet for h in hits] == ['she [said "sell"] twice']


async def test_the_better_match_comes_first_even_when_it_is_older(store: Store) -> None:
    """Ranked by bm25, not newest first: the better match was stored first."""
    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("user", "direct", "iron, iron and more iron"))
    await store.add_memory(
        mysis.id,
        NewMemory("user", "direct", "a long report on many things " * 20 + "and iron once"),
    )
    for exact in (False, True):
        texts = await _texts(store, mysis.id, "iron", exact=exact)
        assert texts[0] == "iron, iron and more iron", exact


async def test_the_snippet_centres_the_longest_word_of_the_query(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(
        mysis.id, NewMemory("user", "direct", "vega " + "filler " * 60 + "ironclad")
    )
    [hit] = await store.search_memories(mysis.id, "vega ironclad")
    assert hit.snippet.startswith("… ") and hit.snippet.endswith("[ironclad]")


async def test_the_snippet_marks_every_word_and_joins_touching_marks(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("user", "direct", "ironclad and belt"))
    [hit] = await store.search_memories(mysis.id, "iron clad belt")
    assert hit.snippet == "[ironclad] and [belt]"


async def test_the_snippet_says_exactly_when_text_is_cut(store: Store) -> None:
    """220 characters are shown from 60 before the match: one more either side is cut."""
    texts = {
        "not cut": "iron" + "o" * 216,  # 220 characters, the match first
        "cut after": "iron" + "o" * 217,  # 221
        "cut before": "x" * 61 + "iron",  # the match at 62: the window starts at 2
        "not cut before": "x" * 60 + "iron",  # the match at 61: the window starts at 1
    }
    snippets = {}
    for name, text in texts.items():
        other = await store.create_mysis(name.replace(" ", "-"))
        await store.add_memory(other.id, NewMemory("user", "direct", text))
        [hit] = await store.search_memories(other.id, "iron")
        snippets[name] = hit.snippet
    assert not snippets["not cut"].endswith("…") and snippets["cut after"].endswith(" …")
    assert snippets["cut before"].startswith("… ")
    assert not snippets["not cut before"].startswith("…")


async def test_an_exact_memory_search_centres_its_own_case(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    await store.add_memory(
        mysis.id, NewMemory("user", "direct", "iron " + "filler " * 60 + "Iron at Vega")
    )
    [hit] = await store.search_memories(mysis.id, "Iron", exact=True)
    assert hit.snippet.endswith("[Iron] at Vega") and "[iron]" not in hit.snippet

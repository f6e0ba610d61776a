"""Edges of the store that the fourth mutation run left untested (docs/MUTATION.md):
the search's scope of 2 000 candidates, where a snippet and a page are centred, the
count ``zoea vacuum`` reports, and the exception a request that cannot be logged raises.
Each on a real SQLite file."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from tests.storage.test_request_log import _logged
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.storage import NewMemory, Store, StoreError, story
from zoea_tui.storage.search import SEARCH_SCOPE, Query


async def _candidates(store: Store, mysis_id: int, n: int) -> None:
    """``n`` memories the index offers for "Vega" that an exact search refuses."""
    await store.add_memories(mysis_id, [NewMemory("user", "direct", f"vega {i}") for i in range(n)])


async def test_a_hit_older_than_a_full_scope_of_candidates_is_found(store: Store) -> None:
    """The newest 2 000 candidates hold no hit: the search reads on, below them."""
    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("user", "direct", "Vega belt"))
    await _candidates(store, mysis.id, SEARCH_SCOPE)
    [hit] = await store.search_memories(mysis.id, "Vega", exact=True)
    assert hit.text == "Vega belt"


async def test_the_search_stops_at_the_scope_that_holds_enough_hits(store: Store) -> None:
    """Candidates are read newest first, 2 000 at a time, and no further once a batch
    gives the hits asked for: a better match older than them is not looked at."""
    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("user", "direct", "Vega Vega Vega"))
    await _candidates(store, mysis.id, SEARCH_SCOPE - 1)
    await store.add_memory(mysis.id, NewMemory("user", "direct", "Vega, and a long way on"))
    [hit] = await store.search_memories(mysis.id, "Vega", exact=True, limit=1)
    assert hit.text == "Vega, and a long way on"
    hits = await store.search_memories(mysis.id, "Vega", exact=True, limit=2)
    assert [h.text for h in hits] == ["Vega Vega Vega", "Vega, and a long way on"]


async def test_a_snippet_is_cut_around_the_first_match(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    text = "Vega first. " + "filler " * 100 + "Vega last."
    await store.add_memory(mysis.id, NewMemory("user", "direct", text))
    [hit] = await store.search_memories(mysis.id, "vega")
    assert hit.snippet.startswith("[Vega] first. filler")


async def test_a_page_around_a_memory_has_half_of_it_on_each_side(store: Store) -> None:
    ada = await store.create_mysis("Ada")
    await store.add_memories(ada.id, [NewMemory("user", "direct", f"m{i}") for i in range(40)])
    page = await story.story_page(store, ada.id, at=20, limit=10)
    assert [m.id for m in page.memories] == list(range(15, 26))


async def test_vacuum_counts_the_parts_it_drops_and_0_when_none(tmp_path: Path) -> None:
    async with await Store.open(tmp_path / "zoea.db") as store:
        assert await store.drop_unused_parts() == 0
        _, request_id = await _logged(store, last_memory_id=None, settings=ComposeSettings())
        assert await store.drop_unused_parts() == 0, "every part is used"
        await store.connection.execute("DELETE FROM requests WHERE id = ?", (request_id,))
        assert await store.drop_unused_parts() > 0
        assert await store.drop_unused_parts() == 0


async def test_a_request_the_database_refuses_twice_raises_the_databases_error(
    store: Store,
) -> None:
    """The retry after a vanished part is made once: a second refusal is SQLite's own
    ``IntegrityError``, as the first was, and nothing is logged."""
    await store.connection.execute(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON requests "
        "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
    )
    with pytest.raises(sqlite3.IntegrityError, match="refused by the test"):
        await _logged(store, last_memory_id=None, settings=ComposeSettings())
    assert await store.list_requests() == []


@pytest.mark.parametrize(("size", "margin"), [(1, 0), (1, 1), (3, 1), (3, 2), (4, 3)])
async def test_a_historys_window_is_the_stepped_window_of_all_its_memories(
    store: Store, size: int, margin: int
) -> None:
    """Read from the newest ``size + margin`` memories and one more, the window and the
    memory before it are those of the whole history, at every length (a size under 1
    counts as 1, a margin under 1 as 1)."""
    from dataclasses import replace

    from zoea_tui.core.window import stepped_window

    settings = replace(ComposeSettings(), max_context_messages=size, window_margin=margin)
    mysis = await store.create_mysis("alpha")
    for n in range(1, 13):
        await store.add_memory(mysis.id, NewMemory("user", "direct", f"m{n}"))
        everything = [m async for m in store.iter_memories(mysis.id)]
        window, before = stepped_window(everything, max(size, 1), max(margin, 1))
        history = await store.load_history(mysis.id, settings)
        assert [m.id for m in history.window] == [m.id for m in window], n
        assert history.before_window_id == before, n


@pytest.mark.parametrize(
    "text",
    ["iron ore", "Iron, ore, iron and more ore" * 3, "ore " * 40 + "iron", "x" * 600 + " iron ore"],
)
def test_a_hits_score_is_the_bm25_sum_its_docstring_gives(text: str) -> None:
    """tf·(k1+1)/(tf+k1·(1-b+b·length/usual)) summed over the words, k1 1.2, b 0.75,
    usual 250 characters: the order of hits is this number's."""
    query = Query.of("iron ore")
    assert query is not None
    norm = 1.2 * (1 - 0.75 + 0.75 * len(text) / 250)
    tfs = [text.lower().count(word) for word in ("iron", "ore")]
    expected = sum(tf * 2.2 / (tf + norm) for tf in tfs)
    assert query.score(text) == pytest.approx(expected, rel=1e-12)


async def test_hits_rank_by_occurrences_then_by_shortness(store: Store) -> None:
    mysis = await store.create_mysis("alpha")
    texts = ["iron " + "x" * 300, "iron iron " + "x" * 300, "iron", "iron iron"]
    for text in texts:
        await store.add_memory(mysis.id, NewMemory("user", "direct", text))
    hits = await store.search_memories(mysis.id, "iron")
    assert [h.text for h in hits] == ["iron iron", "iron", texts[1], texts[0]]


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (5, "t1, t2, t3, t4, t5"),
        (6, "t1, t2, t3, t4, t5, …"),
        (7, "t1, t2, t3, t4, t5, …"),
    ],
)
async def test_another_programs_database_is_named_by_its_first_five_tables(
    tmp_path: Path, count: int, shown: str
) -> None:
    from zoea_tui.storage import StoreError

    path = tmp_path / "theirs.db"
    with sqlite3.connect(path) as db:
        for n in range(count, 0, -1):
            db.execute(f"CREATE TABLE t{n} (x)")
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError) as refused:
        await Store.open(path)
    assert f"{path} is another program's SQLite database (tables: {shown}), not Zoea's" in str(
        refused.value
    )
    assert path.read_bytes() == before


def test_a_migration_file_is_split_into_its_statements_and_nothing_else() -> None:
    """Comments, blank lines and empty statements between them are no statements; a
    trigger's body, with its own semicolons, stays one."""
    from zoea_tui.storage.migrations import statements

    sql = (
        "-- the ledger\n"
        "CREATE TABLE a (x); ;\n"
        "\n"
        "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n"
        "  INSERT INTO a VALUES (1);\n"
        "  DELETE FROM a;\n"
        "END;\n"
        "-- a note at the end\n"
    )
    assert statements(sql) == [
        "-- the ledger\nCREATE TABLE a (x);",
        "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n  INSERT INTO a VALUES (1);\n"
        "  DELETE FROM a;\nEND;",
    ]


async def test_migrate_applies_what_a_database_lacks_and_names_the_file_it_refuses(
    tmp_path: Path,
) -> None:
    import aiosqlite

    from zoea_tui.storage.migrations import latest_version, load_migrations, migrate

    path = tmp_path / "zoea.db"
    async with aiosqlite.connect(path) as db:
        assert await migrate(db, up_to=3) == [1, 2, 3]
        rest = [m.version for m in load_migrations() if m.version > 3]
        assert await migrate(db) == rest and rest[-1] == latest_version()
        assert await migrate(db) == []
        newer = latest_version() + 1
        await db.execute("INSERT INTO schema_migrations VALUES (?, 'future', 0)", (newer,))
        await db.commit()
        with pytest.raises(StoreError) as caught:
            await migrate(db, path=path)
    assert str(caught.value) == (
        f"{path} is at schema version {newer}, newer than this program's "
        f"({latest_version()}); it was left untouched: upgrade Zoea Nova to open it"
    )


def _connection_threads() -> list[str]:
    """The threads aiosqlite runs open connections in (each keeps the process alive)."""
    return [t.name for t in threading.enumerate() if "_connection_worker_thread" in t.name]


async def test_no_reader_opens_after_the_store_is_closed(tmp_path: Path) -> None:
    """A read asked for while the store closes (a screen refreshing as the app quits)
    is refused in one line, and leaves no connection open: its thread, never closed,
    would keep the process alive after the app has ended."""
    before = _connection_threads()
    store = await Store.open(tmp_path / "zoea.db")
    # The reader asked for in the same moment as the close: whichever runs first, no
    # connection stays open.
    opened, closed = await asyncio.gather(store.reader(), store.close(), return_exceptions=True)
    assert closed is None
    assert isinstance(opened, Store | StoreError), opened
    with pytest.raises(StoreError, match="the database is closed"):
        await store.reader()
    for _ in range(100):  # a closed connection's thread ends a moment after the close
        if _connection_threads() == before:
            break
        await asyncio.sleep(0.01)
    assert _connection_threads() == before

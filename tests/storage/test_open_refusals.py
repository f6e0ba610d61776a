"""Store.open looks before it touches: files it refuses keep every byte.

Each refusal is one :class:`StoreError` line naming the file and what to do, and the
folder holds the same files after as before (no ``-wal``, ``-shm`` or ``-journal``).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import aiosqlite
import pytest

from zoea_tui.storage import NewMemory, Store, StoreError
from zoea_tui.storage.migrations import latest_version, migrate
from zoea_tui.storage.preflight import examine


def _folder(path: Path) -> dict[str, bytes]:
    """Every file of the database's folder, with its bytes."""
    return {p.name: p.read_bytes() for p in sorted(path.parent.iterdir()) if p.is_file()}


async def _refused(path: Path, *needles: str) -> str:
    """Open ``path``, expect a one-line refusal mentioning ``needles``; nothing changes."""
    before = _folder(path)
    with pytest.raises(StoreError) as caught:
        await Store.open(path)
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    for needle in needles:
        assert needle in message
    assert _folder(path) == before, "a refused file was changed"
    return message


def _foreign_rollback(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("INSERT INTO recipes (name) VALUES ('soup')")
    db.close()


def _foreign_wal(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, taken REAL)")
    db.execute("INSERT INTO photos (taken) VALUES (1.5)")
    db.close()


def _rails(path: Path) -> None:
    """Another program's own ``schema_migrations`` (one text column, as Rails has)."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE schema_migrations (version TEXT PRIMARY KEY)")
        db.execute("INSERT INTO schema_migrations VALUES ('20240101120000')")
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY)")
    db.close()


def _random_bytes(path: Path) -> None:
    path.write_bytes(random.Random(7).randbytes(8192))


def _garbage_after_header(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + random.Random(8).randbytes(8192))


def _text(path: Path) -> None:
    path.write_text("name,score\nada,3\n", encoding="utf-8")


def _only_a_view(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE VIEW answer AS SELECT 42")
    db.close()


FOREIGN: dict[str, tuple[Callable[[Path], None], tuple[str, ...]]] = {
    "another program's database": (_foreign_rollback, ("another program", "recipes", "--db")),
    "another program's WAL database": (_foreign_wal, ("another program", "photos", "--db")),
    "another program's schema_migrations": (_rails, ("another program", "users", "--db")),
    "another program's database of views": (
        _only_a_view,
        ("another program's SQLite database (tables: none), not Zoea's", "--db"),
    ),
    "random bytes": (_random_bytes, ("not a SQLite database", "--db")),
    "a SQLite header over garbage": (_garbage_after_header, ("damaged", "--db")),
    "a text file": (_text, ("not a SQLite database", "--db")),
}


@pytest.mark.parametrize("case", list(FOREIGN))
async def test_a_file_that_is_not_zoeas_is_refused_untouched(case: str, tmp_path: Path) -> None:
    make, needles = FOREIGN[case]
    path = tmp_path / "their.db"
    make(path)
    message = await _refused(path, "left untouched", *needles)
    assert "upgrade" not in message


async def _zoea_db(path: Path) -> None:
    """A Zoea database with one Mysis and one memory, closed cleanly."""
    async with await Store.open(path) as store:
        mysis = await store.create_mysis("Ada")
        await store.add_memory(mysis.id, NewMemory(role="user", source="direct", content="hi"))


def _damaged(path: Path, reason: str) -> str:
    return (
        f"{path} is damaged ({reason}); it was left untouched: restore it from a backup or "
        "choose another file with --db"
    )


async def test_a_truncated_zoea_database_is_refused_untouched(tmp_path: Path) -> None:
    whole = tmp_path / "whole.db"
    await _zoea_db(whole)
    data = whole.read_bytes()
    for cut in (50, len(data) // 2, len(data) - 1):
        path = tmp_path / f"cut-{cut}" / "zoea.db"
        path.parent.mkdir()
        path.write_bytes(data[:cut])
        reason = (
            f"truncated: {cut} bytes" if cut < 100 else f"truncated: {cut} of {len(data)} bytes"
        )
        assert await _refused(path) == _damaged(path, reason)


async def test_a_truncated_database_of_64_kib_pages_is_refused_untouched(tmp_path: Path) -> None:
    """The header writes a page size of 65 536 as 1."""
    whole = tmp_path / "big-pages.db"
    with sqlite3.connect(whole) as db:
        db.execute("PRAGMA page_size = 65536")
        db.execute("CREATE TABLE t (a)")
        db.executemany("INSERT INTO t VALUES (?)", [("x" * 1000,)] * 200)
    db.close()
    data = whole.read_bytes()
    assert data[16:18] == b"\x00\x01" and len(data) >= 3 * 65536
    path = tmp_path / "cut" / "zoea.db"
    path.parent.mkdir()
    path.write_bytes(data[: len(data) - 65536])
    assert await _refused(path) == _damaged(
        path, f"truncated: {len(data) - 65536} of {len(data)} bytes"
    )


async def test_a_page_count_is_read_from_all_four_bytes_of_the_header(tmp_path: Path) -> None:
    """A header that counts 2**24 pages more than the file holds (its top byte set) says
    the file is truncated, as SQLite would find it: the count is a 4-byte number."""
    path = tmp_path / "zoea.db"
    await _zoea_db(path)
    data = bytearray(path.read_bytes())
    assert data[24:28] == data[92:96], "the count is valid: written with the counter"
    pages = int.from_bytes(data[28:32], "big") + 2**24
    data[28:32] = pages.to_bytes(4, "big")
    path.write_bytes(bytes(data))
    page_size = int.from_bytes(data[16:18], "big")
    assert await _refused(path) == _damaged(
        path, f"truncated: {len(data)} of {pages * page_size} bytes"
    )


async def test_a_database_whose_ledger_cannot_be_read_is_refused_untouched(
    tmp_path: Path,
) -> None:
    path = tmp_path / "zoea.db"
    with sqlite3.connect(path) as db:  # a view of that name, over a table long gone
        db.execute("CREATE TABLE gone (version, name, applied_at)")
        db.execute("CREATE VIEW schema_migrations AS SELECT * FROM gone")
        db.execute("DROP TABLE gone")
    db.close()
    assert await _refused(path) == _damaged(path, "no such table: main.gone")


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="Linux's /proc")
def test_a_file_that_cannot_be_read_is_one_line_naming_why() -> None:
    path = Path("/proc/self/mem")  # opens, and every read of it fails
    with pytest.raises(StoreError) as caught:
        examine(path, latest_version())
    assert str(caught.value) == (
        f"cannot use {path}: Input/output error; choose another file with --db"
    )


async def _set_version(path: Path, version: int) -> None:
    """Make a migrated database claim ``version`` as its newest migration."""
    async with aiosqlite.connect(path) as db:
        await db.execute("DELETE FROM schema_migrations WHERE version > ?", (version,))
        await db.execute(
            "INSERT OR IGNORE INTO schema_migrations VALUES (?, 'from the future', 0)",
            (version,),
        )
        await db.commit()


async def test_the_newer_boundary_is_exact(tmp_path: Path) -> None:
    """The latest version opens; one more is refused untouched, at open and by migrate."""
    latest = latest_version()
    at_latest = tmp_path / "latest" / "zoea.db"
    at_latest.parent.mkdir()
    await _zoea_db(at_latest)
    await _set_version(at_latest, latest)
    async with await Store.open(at_latest) as store:
        assert [m.name for m in await store.list_myses()] == ["Ada"]
        assert await migrate(store.connection) == []

    newer = tmp_path / "newer" / "zoea.db"
    newer.parent.mkdir()
    await _zoea_db(newer)
    await _set_version(newer, latest + 1)
    message = await _refused(newer, "left untouched", "upgrade Zoea Nova")
    assert f"schema version {latest + 1}, newer than this program's ({latest})" in message
    async with aiosqlite.connect(newer) as db:
        with pytest.raises(StoreError, match="newer than this program"):
            await migrate(db)


async def test_a_newer_database_left_open_by_a_crash_is_refused(tmp_path: Path) -> None:
    """With its -wal still beside it (SQLite must read it), the refusal writes nothing."""
    path = tmp_path / "zoea.db"
    await _zoea_db(path)
    await _set_version(path, latest_version() + 3)
    holder = sqlite3.connect(path, isolation_level=None)  # keeps the -wal and -shm there
    try:
        holder.execute("INSERT INTO myses (name, created_at, updated_at) VALUES ('Bo', 0, 0)")
        assert (tmp_path / "zoea.db-wal").exists()
        with pytest.raises(StoreError, match="newer than this program"):
            await Store.open(path)
        assert [r[0] for r in holder.execute("SELECT name FROM myses ORDER BY id")] == [
            "Ada",
            "Bo",
        ]
    finally:
        holder.close()


async def test_empty_and_missing_files_become_new_databases(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    blank = tmp_path / "blank.db"
    sqlite3.connect(blank).execute("PRAGMA user_version = 0").connection.close()
    missing = tmp_path / "deep" / "er" / "new.db"
    for path in (empty, blank, missing):
        async with await Store.open(path) as store:
            await store.create_mysis("Ada")
        async with await Store.open(path) as store:
            assert [m.name for m in await store.list_myses()] == ["Ada"]


async def test_a_folder_is_not_a_database(tmp_path: Path) -> None:
    folder = tmp_path / "zoea.db"
    folder.mkdir()
    with pytest.raises(StoreError, match="is a folder") as caught:
        await Store.open(folder)
    assert "\n" not in str(caught.value)
    assert list(folder.iterdir()) == []


async def test_a_data_folder_under_a_file_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n", encoding="utf-8")
    path = blocker / "data" / "zoea.db"
    with pytest.raises(StoreError) as caught:
        await Store.open(path)
    message = str(caught.value)
    assert "\n" not in message
    assert f"cannot create the folder {path.parent} for {path}" in message
    assert f"{blocker} is a file, not a folder" in message
    assert blocker.read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("kind", ["a device", "a pipe"])
async def test_a_file_that_is_not_regular_is_refused_before_sqlite_meets_it(
    kind: str, tmp_path: Path
) -> None:
    """SQLite called /dev/null a "disk I/O error" and told the user to check the disk."""
    import os

    if kind == "a pipe":
        path = tmp_path / "zoea.db"
        os.mkfifo(path)
    else:
        path = Path("/dev/null")
    with pytest.raises(StoreError) as caught:
        await Store.open(path)
    assert str(caught.value) == (
        f"{path} is not a regular file (a device, a pipe or a socket); "
        "choose another file with --db"
    )
    if kind == "a pipe":
        assert sorted(p.name for p in tmp_path.iterdir()) == ["zoea.db"]


def _copied_while_open(path: Path, change: Callable[[sqlite3.Connection], None]) -> Path:
    """A copy of ``path`` and its -wal taken while a program had it open and had made
    ``change`` (not yet checkpointed): the change lives only in the copy's -wal, and
    no -shm comes with it."""
    import shutil

    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        change(db)
        copy = path.parent / "copy" / path.name
        copy.parent.mkdir()
        shutil.copyfile(path, copy)
        shutil.copyfile(f"{path}-wal", f"{copy}-wal")
    finally:
        db.close()
    assert sorted(p.name for p in copy.parent.iterdir()) == [path.name, f"{path.name}-wal"]
    return copy


async def test_a_copy_whose_tables_wait_in_its_wal_is_read_whole_and_left_untouched(
    tmp_path: Path,
) -> None:
    """Another program's database and a newer Zoea's, each copied while open: what
    decides the refusal is in the -wal, which is read (from a copy of the two, so that
    reading makes no -shm beside the user's file)."""
    foreign = tmp_path / "their.db"
    foreign.touch()
    copy = _copied_while_open(foreign, lambda db: db.execute("CREATE TABLE photos (id)"))
    await _refused(copy, "another program's SQLite database (tables: photos)")

    newer = tmp_path / "newer" / "zoea.db"
    newer.parent.mkdir()
    await _zoea_db(newer)
    version = latest_version() + 1
    copy = _copied_while_open(
        newer,
        lambda db: db.execute("INSERT INTO schema_migrations VALUES (?, 'future', 0)", (version,)),
    )
    await _refused(copy, f"schema version {version}, newer than this program's")


async def test_a_zoea_copy_whose_last_writes_wait_in_its_wal_opens_with_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "zoea.db"
    await _zoea_db(path)
    copy = _copied_while_open(
        path,
        lambda db: db.execute(
            "INSERT INTO myses (name, created_at, updated_at) VALUES ('Bo', 0, 0)"
        ),
    )
    async with await Store.open(copy) as store:
        assert [m.name for m in await store.list_myses()] == ["Ada", "Bo"]


async def test_a_database_open_elsewhere_is_read_with_what_its_wal_holds(tmp_path: Path) -> None:
    """Another program has the database open (its -wal and -shm beside it) and has just
    made it newer: read under SQLite's locks, the -wal counts, and the refusal comes
    before anything is written."""
    path = tmp_path / "zoea.db"
    await _zoea_db(path)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("PRAGMA wal_autocheckpoint = 0")
        version = latest_version() + 1
        holder.execute("INSERT INTO schema_migrations VALUES (?, 'future', 0)", (version,))
        assert (tmp_path / "zoea.db-shm").exists() and (tmp_path / "zoea.db-wal").exists()
        with pytest.raises(StoreError) as caught:
            await examine_async(path)
        assert f"schema version {version}, newer than this program's" in str(caught.value)
    finally:
        holder.close()


async def examine_async(path: Path) -> int:
    import asyncio

    return await asyncio.to_thread(examine, path, latest_version())


async def test_examine_with_pages_finds_damage_behind_a_sound_header(tmp_path: Path) -> None:
    """``pages=True`` (the commands that write) reads every page: damaged pages that the
    header and the schema do not show are refused, untouched; a sound file passes."""
    path = tmp_path / "zoea.db"
    async with await Store.open(path) as store:
        mysis = await store.create_mysis("Ada")
        for n in range(400):
            await store.add_memory(mysis.id, NewMemory("user", "direct", f"line {n} " * 40))
    assert examine(path, latest_version(), pages=True) == latest_version()
    with sqlite3.connect(path) as conn:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        count = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    with path.open("r+b") as file:
        file.seek((count // 2) * size)
        file.write(b"\xff" * size)
    before = _folder(path)
    assert examine(path, latest_version()) == latest_version()  # the header reads well
    with pytest.raises(StoreError, match=r"is damaged .*left untouched"):
        examine(path, latest_version(), pages=True)
    assert _folder(path) == before

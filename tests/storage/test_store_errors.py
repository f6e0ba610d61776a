"""SQLite's failures on the file become one-line StoreErrors; the store's own stay typed.

The errors are real ones, provoked from SQLite on real files; then the same failures
met by a store in use (another program's lock, a full disk) leave it as StoreError
with nothing half-written.
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from zoea_tui.storage import NewMemory, Store, StoreError
from zoea_tui.storage.errors import store_error


def _locked(path: Path) -> None:
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (a)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        sqlite3.connect(path, timeout=0, isolation_level=None).execute("BEGIN IMMEDIATE")
    finally:
        holder.close()


def _read_only(path: Path) -> None:
    sqlite3.connect(path).execute("CREATE TABLE t (a)").connection.close()
    sqlite3.connect(f"file:{path}?mode=ro", uri=True).execute("INSERT INTO t VALUES (1)")


def _cannot_open(path: Path) -> None:
    sqlite3.connect(path.parent / "no such folder" / path.name)


def _full(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE t (a)")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    db.execute("INSERT INTO t VALUES (zeroblob(100000))")


def _not_a_database(path: Path) -> None:
    path.write_text("just some notes\n", encoding="utf-8")
    sqlite3.connect(path).execute("SELECT * FROM sqlite_master")


def _malformed(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE t (a)")
    db.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 200)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    with path.open("r+b") as file:  # the table's root page, over with garbage
        file.seek(page_size)
        file.write(b"\xff" * page_size)
    sqlite3.connect(path).execute("SELECT COUNT(*) FROM t").fetchall()


#: Each failure and the whole line it becomes ({path}: the database's path).
MAPPED: dict[str, tuple[Callable[[Path], None], str]] = {
    "locked": (
        _locked,
        "{path} is locked by another program (another Zoea?); close it or wait for it to "
        "finish, then try again",
    ),
    "read-only": (
        _read_only,
        "cannot write {path}: the file or its folder is read-only; make both writable or "
        "choose another file with --db",
    ),
    "cannot open": (
        _cannot_open,
        "cannot open {path}: its folder is missing or cannot be written; make the folder "
        "writable or choose another file with --db",
    ),
    "full": (
        _full,
        "the disk is full: {path}; free some space, then try again (everything stored "
        "before it is kept)",
    ),
    "not a database": (
        _not_a_database,
        "{path} is damaged (file is not a database): restore it from a backup or choose "
        "another file with --db",
    ),
    "malformed": (
        _malformed,
        "{path} is damaged (database disk image is malformed): restore it from a backup or "
        "choose another file with --db",
    ),
}


@pytest.mark.parametrize("case", list(MAPPED))
def test_sqlites_failures_on_the_file_are_one_line(case: str, tmp_path: Path) -> None:
    provoke, line = MAPPED[case]
    path = tmp_path / "zoea.db"
    with pytest.raises(sqlite3.Error) as caught:
        provoke(path)
    error = store_error(caught.value, path)
    assert isinstance(error, StoreError), caught.value
    assert str(error) == line.format(path=path)


def test_a_failure_met_while_looking_says_the_file_was_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "zoea.db"
    with pytest.raises(sqlite3.Error) as caught:
        _not_a_database(path)
    assert str(store_error(caught.value, path, untouched=True)) == (
        f"{path} is damaged (file is not a database); it was left untouched: restore it "
        "from a backup or choose another file with --db"
    )


def test_a_disk_error_and_the_file_systems_refusals_are_one_line(tmp_path: Path) -> None:
    path = tmp_path / "zoea.db"
    io_error = sqlite3.OperationalError("disk I/O\nerror")
    io_error.sqlite_errorcode = sqlite3.SQLITE_IOERR_READ
    assert str(store_error(io_error, path)) == (
        f"cannot read or write {path}: disk I/O error; check the disk"
    )
    for code in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):  # no room, ulimit -f, a quota
        no_space = OSError(code, "No space left\non device")
        assert str(store_error(no_space, path)).startswith(f"the disk is full: {path}; ")
    denied = OSError(errno.EACCES, "Permission\ndenied")
    assert str(store_error(denied, path)) == (
        f"cannot use {path}: Permission denied; choose another file with --db"
    )
    assert str(store_error(OSError("the words  it said"), path)) == (
        f"cannot use {path}: the words it said; choose another file with --db"
    )
    # An error SQLite did not raise (no result code) is not about the file.
    assert store_error(sqlite3.ProgrammingError("a mistake"), path) is None


def test_mistakes_and_constraints_keep_their_own_type(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "zoea.db")
    db.execute("CREATE TABLE t (a UNIQUE)")
    db.execute("INSERT INTO t VALUES (1)")
    for sql in ("INSERT INTO t VALUES (1)", "SELECT fullname FROM t", "SELEC 1"):
        with pytest.raises(sqlite3.Error) as caught:
            db.execute(sql)
        assert store_error(caught.value, tmp_path / "zoea.db") is None, sql


async def test_writes_under_another_programs_lock_are_store_errors_and_atomic(
    tmp_path: Path,
) -> None:
    path = tmp_path / "zoea.db"
    store = await Store.open(path, busy_timeout=0.05)
    async with store:
        ada = await store.create_mysis("Ada")
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            memories = [NewMemory(role="user", source="direct", content="hello")] * 3
            for write in (
                lambda: store.create_mysis("Bo"),
                lambda: store.import_conversation("Cy", memories),
                lambda: store.add_memory(ada.id, memories[0]),
                lambda: store.update_mysis(ada.id, state="running"),
                lambda: store.add_broadcast("all hands"),
            ):
                with pytest.raises(StoreError, match="is locked by another program"):
                    await write()
            # Reads still go on (WAL), and they see nothing of the refused writes.
            assert [m.name for m in await store.list_myses()] == ["Ada"]
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        await store.add_memory(ada.id, NewMemory(role="user", source="direct", content="ok"))
        assert await store.count_memories(ada.id) == 1
        assert (await store.get_mysis(ada.id)).state == "idle"


async def test_opening_under_another_programs_lock_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "zoea.db"
    await (await Store.open(path)).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match=f"^{path} is locked by another program"):
            await Store.open(path, busy_timeout=0.05)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    await (await Store.open(path)).close()


async def test_a_full_disk_in_use_is_a_store_error_that_loses_nothing(store: Store) -> None:
    ada = await store.create_mysis("Ada")
    await store.add_memory(ada.id, NewMemory(role="user", source="direct", content="kept"))
    pages = (await store.fetch_one("PRAGMA page_count"))[0]
    await store.connection.execute(f"PRAGMA max_page_count = {pages}")
    big = [NewMemory(role="user", source="direct", content="x" * 20000)] * 5
    with pytest.raises(StoreError, match="the disk is full"):
        await store.add_memories(ada.id, big)
    await store.connection.execute("PRAGMA max_page_count = 1073741823")
    assert [m.content for m in await store.recent_memories(ada.id)] == ["kept"]

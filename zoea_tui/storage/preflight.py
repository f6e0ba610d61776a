"""Look before touching: what lies at a database path, found without writing a byte.

:meth:`Store.open` asks :func:`examine` before it sets a journal mode, creates a table
or migrates: a file that is not Zoea's, is damaged, or comes from a newer Zoea is
refused with every byte as it was (and no ``-wal`` or ``-shm`` file beside it). A copy
taken while the app ran (a ``-wal`` and no ``-shm``) is read from a copy of the two in the
temporary folder, so that reading makes no ``-shm`` beside it; a database another program
has open is read under SQLite's own locks (a ``-shm`` left by a crash may be rebuilt:
it is SQLite's index of the ``-wal``, not data).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

from .errors import ANOTHER_FILE, StoreError, damaged, store_error

#: The first 16 bytes of every SQLite database file.
SQLITE_MAGIC = b"SQLite format 3\x00"
#: The database header's length (https://sqlite.org/fileformat.html#the_database_header).
HEADER_SIZE = 100
#: The columns of Zoea's ``schema_migrations`` (another program's table of that name differs).
MIGRATION_COLUMNS = ("version", "name", "applied_at")
#: Check access with the effective ids and capabilities, as the open itself will.
_EFFECTIVE = os.access in os.supports_effective_ids


def refuse_newer(have: int, latest: int, path: Path | str) -> None:
    """Refuse a database whose schema is newer than this program's migrations."""
    if have > latest:
        raise StoreError(
            f"{path} is at schema version {have}, newer than this program's ({latest}); "
            "it was left untouched: upgrade Zoea Nova to open it"
        )


def examine(path: Path, latest: int, *, busy_timeout: float = 5.0, pages: bool = False) -> int:
    """The schema version of the Zoea database at ``path``: 0 if it is new or empty.

    Nothing is written, not even a journal. Raises :class:`StoreError` for a folder,
    a file that is not a SQLite database or is damaged, another program's database,
    a database newer than this program (``latest``), one locked past ``busy_timeout``
    seconds, and a file or folder this process may not write. With ``pages``, every
    page is read too (SQLite's ``quick_check``, about a second per 150 MB): damaged
    pages behind a sound header are found before a command that writes begins, not
    halfway through its work.
    """
    try:
        version = _version(path, latest, busy_timeout, pages)
        _check_writable(path)
    except OSError as exc:  # asking about the path failed: a name too long, a loop of links
        raise _mapped(exc, path) from None
    return version


def _check_writable(path: Path) -> None:
    """Refuse a read-only file, or a read-only folder where SQLite must create files.

    Asked of the kernel (``access``), not found by trying: SQLite opens a read-only
    file without a word and would leave its ``-wal`` and ``-shm`` behind.
    """
    if path.exists() and not os.access(path, os.W_OK, effective_ids=_EFFECTIVE):
        raise StoreError(
            f"cannot write {path}: the file is read-only; make it writable or {ANOTHER_FILE}"
        )
    folder = path.resolve().parent
    beside = [_beside(path, suffix) for suffix in ("-wal", "-shm")]
    needs_folder = not path.exists() or not all(p.exists() for p in beside)
    if (
        needs_folder
        and folder.is_dir()
        and not os.access(folder, os.W_OK, effective_ids=_EFFECTIVE)
    ):
        raise StoreError(
            f"cannot write {path}: its folder {folder} is read-only; "
            f"make the folder writable or {ANOTHER_FILE}"
        )


def _version(path: Path, latest: int, busy_timeout: float, pages: bool) -> int:
    """The schema version at ``path`` (0: new or empty), or the refusal of the file."""
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a database file; {ANOTHER_FILE}")
    if not path.exists():
        return 0
    if not path.is_file():  # SQLite would fail on it later as "disk I/O error"
        raise StoreError(
            f"{path} is not a regular file (a device, a pipe or a socket); {ANOTHER_FILE}"
        )
    try:
        with path.open("rb") as file:
            header = file.read(HEADER_SIZE)
        size = path.stat().st_size
    except OSError as exc:
        raise _mapped(exc, path) from None
    wal = _beside(path, "-wal")
    pending = wal.exists()  # committed pages may wait there: SQLite must read it too
    if not header and not pending:
        return 0  # SQLite makes an empty file a new database
    if header and not header.startswith(SQLITE_MAGIC):
        raise StoreError(f"{path} is not a SQLite database; it was left untouched: {ANOTHER_FILE}")
    if header and not pending:
        _check_length(path, header, size)
    # A WAL database nobody has open (no -wal): read it as immutable, or opening it
    # would create its -wal and -shm files. A -wal with no -shm beside it (a copy taken
    # while the app ran; nobody has it open, or the -shm would be there): read a copy of
    # the two, or reading it would make the -shm. Otherwise SQLite's own locks apply.
    immutable = len(header) > 18 and header[18] == 2 and not pending
    if pending and not _beside(path, "-shm").exists():
        try:
            with tempfile.TemporaryDirectory(prefix="zoea-look-") as folder:
                copy = Path(folder) / "copy.db"
                shutil.copyfile(path, copy)
                shutil.copyfile(wal, _beside(copy, "-wal"))
                return _ledger(
                    path, copy, latest, immutable=False, busy_timeout=busy_timeout, pages=pages
                )
        except OSError:
            pass  # no room for a copy: read it in place (its -shm is made)
    return _ledger(path, path, latest, immutable=immutable, busy_timeout=busy_timeout, pages=pages)


def _ledger(
    path: Path, read: Path, latest: int, *, immutable: bool, busy_timeout: float, pages: bool
) -> int:
    """The schema version in the database file ``read`` (``path``, or a copy of it),
    read only (``pages``: every page read); refusals name ``path``."""
    uri = f"{read.resolve().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=busy_timeout)) as db:
            objects = db.execute("SELECT type, name FROM sqlite_master").fetchall()
            if not objects:
                return 0
            columns = tuple(row[1] for row in db.execute("PRAGMA table_info(schema_migrations)"))
            if columns != MIGRATION_COLUMNS:
                tables = sorted(name for kind, name in objects if kind == "table")
                shown = ", ".join(tables[:5]) + (", …" if len(tables) > 5 else "")
                raise StoreError(
                    f"{path} is another program's SQLite database (tables: {shown or 'none'}), "
                    f"not Zoea's; it was left untouched: {ANOTHER_FILE}"
                )
            row = db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
            if pages:
                _check_pages(db, path)
    except sqlite3.Error as exc:
        raise _mapped(exc, path) from None
    have = row[0] if row and row[0] is not None else 0
    if not isinstance(have, int):
        raise damaged(path, f"schema version {have!r} is not a number", untouched=True)
    refuse_newer(have, latest, path)
    return have


def _check_pages(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a database SQLite's ``quick_check`` finds damaged (its first finding said)."""
    found = db.execute("PRAGMA quick_check(1)").fetchone()
    if found is not None and found[0] != "ok":
        finding = " ".join(str(found[0]).replace("*** in database main ***", "").split())
        raise damaged(path, f"database disk image is malformed: {finding}", untouched=True)


def _beside(path: Path, suffix: str) -> Path:
    """SQLite's file beside the database (named after a symlink's target, as SQLite does)."""
    real = path.resolve()
    return real.with_name(real.name + suffix)


def _check_length(path: Path, header: bytes, size: int) -> None:
    """Refuse a file shorter than its header says (a truncated copy or download)."""
    if len(header) < HEADER_SIZE:
        raise damaged(path, f"truncated: {size} bytes", untouched=True)
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The page count is valid only when written by the same change as the counter.
    if header[24:28] == header[92:96] and size < pages * page_size:
        raise damaged(path, f"truncated: {size} of {pages * page_size} bytes", untouched=True)


def _mapped(exc: sqlite3.Error | OSError, path: Path) -> StoreError:
    """A failure met while looking, as the one-line error of an untouched file."""
    return store_error(exc, path, untouched=True) or damaged(
        path, " ".join(str(exc).split()), untouched=True
    )

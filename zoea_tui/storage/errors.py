"""The store's one error, and what SQLite's own failures mean to the user."""

from __future__ import annotations

import errno
import os
import resource
import sqlite3
from pathlib import Path

#: What the user can do about a file Zoea cannot use (the CLI and the app take ``--db``).
ANOTHER_FILE = "choose another file with --db"


class StoreError(Exception):
    """A store operation that cannot be done (unknown Mysis, duplicate name, unusable file…).

    Its message is one line a user can act on: the CLI prints it after ``zoea CMD:``.
    """


class DiskFull(StoreError):
    """The disk under a file is full (or the file reached the size this process may
    write, ``ulimit -f``): the command ends, and what was stored before is kept.

    Its message begins ``the disk is full: <path>``, the one line every command ends
    with on a full disk, whichever file met it (the database, the world file, a log,
    the arena's output).
    """

    def __init__(self, path: Path | str) -> None:
        super().__init__(
            f"the disk is full: {path}; free some space, then try again "
            "(everything stored before it is kept)"
        )
        self.path = Path(path)


#: The errors of a write that found no room: no space, a file at ``ulimit -f``, a quota.
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
#: SQLite's extended codes of a failed write (its "disk I/O error"): SQLite says
#: SQLITE_FULL only for ENOSPC, and an EFBIG (``ulimit -f``) as one of these.
_WRITE_IOERRS = frozenset(
    {
        sqlite3.SQLITE_IOERR_WRITE,
        sqlite3.SQLITE_IOERR_FSYNC,
        sqlite3.SQLITE_IOERR_TRUNCATE,
        sqlite3.SQLITE_IOERR_SHMSIZE,
        sqlite3.SQLITE_IOERR_SHMMAP,
    }
)
#: Free bytes under which a failed write is put down to a full disk.
_NEARLY_FULL = 1 << 20
#: SQLite's largest page: a file this close to ``ulimit -f`` has reached it.
_LARGEST_PAGE = 65536


def full_disk(exc: BaseException, path: Path | str) -> DiskFull | None:
    """The :class:`DiskFull` of ``path`` when ``exc`` is a write that found no room:
    ``ENOSPC``, ``EFBIG`` (``ulimit -f``), ``EDQUOT``, SQLite's "database or disk is
    full", or SQLite's "disk I/O error" of a write on a disk (or a file size limit)
    found full. None for any other failure."""
    if isinstance(exc, OSError):
        return DiskFull(path) if exc.errno in FULL_ERRNOS else None
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(exc, sqlite3.Error) or code is None:
        return None
    if code & 0xFF == sqlite3.SQLITE_FULL:
        return DiskFull(path)
    if code in _WRITE_IOERRS and _no_room(Path(path)):
        return DiskFull(path)
    return None


def _no_room(path: Path) -> bool:
    """Whether the disk under ``path`` is (nearly) full, or one of the database's files
    has reached this process's file size limit (``ulimit -f``)."""
    try:
        real = path.resolve()
        disk = os.statvfs(real.parent)
    except OSError:
        return False
    if disk.f_bavail * disk.f_frsize < _NEARLY_FULL:
        return True
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit == resource.RLIM_INFINITY:
        return False
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            if real.with_name(real.name + suffix).stat().st_size + _LARGEST_PAGE >= limit:
                return True
        except OSError:
            continue
    return False


def _one_line(text: str) -> str:
    return " ".join(text.split())


def store_error(
    exc: sqlite3.Error | OSError, path: Path, *, untouched: bool = False
) -> StoreError | None:
    """What a failure of SQLite or of the file system on ``path`` means, as one line.

    None for the failures that are not about the file, the disk or another program
    (a constraint, a mistake in a statement): those keep their own type. ``untouched``:
    the failure came while looking at the file, before anything was written.
    """
    full = full_disk(exc, path)
    if full is not None:
        return full
    if isinstance(exc, OSError):
        reason = _one_line(exc.strerror or str(exc))
        return StoreError(f"cannot use {path}: {reason}; {ANOTHER_FILE}")
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return None
    words = _one_line(str(exc))
    primary = code & 0xFF  # the extended code's low byte is the primary result code
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreError(
            f"{path} is locked by another program (another Zoea?); "
            "close it or wait for it to finish, then try again"
        )
    if primary == sqlite3.SQLITE_READONLY:
        return StoreError(
            f"cannot write {path}: the file or its folder is read-only; "
            f"make both writable or {ANOTHER_FILE}"
        )
    if primary == sqlite3.SQLITE_CANTOPEN:
        return StoreError(
            f"cannot open {path}: its folder is missing or cannot be written; "
            f"make the folder writable or {ANOTHER_FILE}"
        )
    if primary == sqlite3.SQLITE_IOERR:
        return StoreError(f"cannot read or write {path}: {words}; check the disk")
    if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return damaged(path, words, untouched=untouched)
    return None


def folder_error(path: Path, exc: OSError) -> StoreError:
    """Why the folder of ``path`` cannot be made, in one line."""
    full = full_disk(exc, path.parent)
    if full is not None:
        return full
    in_the_way = next((p for p in path.parents if p.exists()), None)
    if in_the_way is not None and not in_the_way.is_dir():
        reason = f"{in_the_way} is a file, not a folder"
    else:
        reason = _one_line(exc.strerror or str(exc))
    return StoreError(
        f"cannot create the folder {path.parent} for {path}: {reason}; {ANOTHER_FILE}"
    )


def damaged(path: Path, reason: str, *, untouched: bool = False) -> StoreError:
    """A file that is not a usable SQLite database (``untouched``: refused at open)."""
    left = "; it was left untouched:" if untouched else ":"
    return StoreError(
        f"{path} is damaged ({reason}){left} restore it from a backup or {ANOTHER_FILE}"
    )

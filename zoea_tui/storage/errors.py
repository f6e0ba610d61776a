"""The store's one error, and what SQLite's own failures mean to the user."""

from __future__ import annotations

import sqlite3
from pathlib import Path

#: What the user can do about a file Zoea cannot use (the CLI and the app take ``--db``).
ANOTHER_FILE = "choose another file with --db"


class StoreError(Exception):
    """A store operation that cannot be done (unknown Mysis, duplicate name, unusable file…).

    Its message is one line a user can act on: the CLI prints it after ``zoea CMD:``.
    """


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
    if primary == sqlite3.SQLITE_FULL:
        return StoreError(f"cannot write {path}: the disk is full; free some space and try again")
    if primary == sqlite3.SQLITE_IOERR:
        return StoreError(f"cannot read or write {path}: {words}; check the disk")
    if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return damaged(path, words, untouched=untouched)
    return None


def damaged(path: Path, reason: str, *, untouched: bool = False) -> StoreError:
    """A file that is not a usable SQLite database (``untouched``: refused at open)."""
    left = "; it was left untouched:" if untouched else ":"
    return StoreError(
        f"{path} is damaged ({reason}){left} restore it from a backup or {ANOTHER_FILE}"
    )

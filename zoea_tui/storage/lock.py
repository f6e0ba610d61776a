"""One writer per database: the lock a process holds on ``<db>.lock`` for its lifetime.

The app and every command that flies Myses or writes (``simulate``, ``arena``,
``import``, ``vacuum``) take it before they open the database, and keep it until they
end; a second one is refused in one line naming the process that holds it (its pid and
command line), before it touches anything. Read-only commands (``context``, ``export``,
``replay``) do not take it and work beside the holder. The lock covers the world file
beside the database (``<db>.world.json``) too: only the holder plays or saves that world.

Why ``fcntl.flock`` on a file of its own, and not a pid file or SQLite's locks:

* The kernel releases a ``flock`` when the process that holds it ends, however it ends
  (``kill -9``, a crash, a power cut's reboot): a lock left by a killed process is free
  at once, with no pid to check against a recycled one and no timeout to guess.
* SQLite's own locks last one transaction: two processes writing turns in turns each
  get them, and both fly ``sim-01`` (the bug this fixes).
* The file holds the holder's pid and command line, written after the lock is taken,
  for the refusal to name; it is read only when the lock is refused, never trusted to
  decide anything.

The lock file is removed when the holder lets go. A process that opened the file just
before it was removed would lock a file nobody else sees; so after locking, the holder
checks that the path still names the file it locked, and tries again if not.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shlex
import sys
from pathlib import Path
from types import TracebackType

from .errors import ANOTHER_FILE, StoreError, folder_error, full_disk

#: The longest account of a holder read from its lock file (a command line can be long).
_HOLDER_LIMIT = 600


def lock_path(db: Path) -> Path:
    """The lock file of the database at ``db``: ``<db>.lock`` beside the file a symlink
    names (as SQLite names its ``-wal``), so two names of one file share one lock."""
    real = db.resolve()
    return real.with_name(real.name + ".lock")


def this_command() -> str:
    """This process's command line, as the refusal of a second one shows it."""
    argv = list(sys.argv)
    if argv and argv[0].endswith(("/cli.py", "__main__.py")):
        argv[0] = "zoea"  # ``python -m zoea_tui.cli``
    elif argv:
        argv[0] = Path(argv[0]).name
    return shlex.join(argv)


class DatabaseLock:
    """The exclusive lock of one database, held until :meth:`release` (or the process ends).

    Take it with :meth:`take`; use it as a context manager.
    """

    def __init__(self, db: Path, path: Path, fd: int) -> None:
        self.db = db
        #: The lock file (``<db>.lock``).
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def take(cls, db: Path, *, command: str | None = None) -> DatabaseLock:
        """Lock ``db`` for this process, or raise :class:`StoreError` naming the holder.

        The folder of ``db`` is made if missing (the database will be created there).
        ``command``: what the refusal of a second process says this one is (default:
        this process's command line).
        """
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise folder_error(db, exc) from None
        path = lock_path(db)
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise _lock_error(db, path, exc) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(fd)
                os.close(fd)
                raise StoreError(_in_use(db, holder)) from None
            except OSError as exc:
                os.close(fd)
                raise _lock_error(db, path, exc) from None
            if _same_file(fd, path):
                break
            os.close(fd)  # the holder removed it as we opened it: lock the new one
        lock = cls(db, path, fd)
        try:
            lock._write_holder(command if command is not None else this_command())
        except OSError as exc:
            lock.release()
            raise _lock_error(db, path, exc) from None
        return lock

    def _write_holder(self, command: str) -> None:
        assert self._fd is not None
        text = f"{os.getpid()}\n{' '.join(command.split())}\n".encode("utf-8", "replace")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, text, 0)

    @property
    def held(self) -> bool:
        """Whether this process still holds the lock."""
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file and let go (idempotent)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if _same_file(fd, self.path):
                with contextlib.suppress(OSError):
                    self.path.unlink()
        finally:
            os.close(fd)  # the kernel lets go of the lock with the last descriptor

    def __enter__(self) -> DatabaseLock:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _read_holder(fd: int) -> str:
    """The holder as "pid N (command line)", as far as its lock file tells."""
    try:
        text = os.pread(fd, _HOLDER_LIMIT, 0).decode("utf-8", "replace")
    except OSError:
        text = ""
    pid, _, command = text.partition("\n")
    pid, command = pid.strip(), " ".join(command.split())
    if not pid.isdigit():  # it locked the file and has not written it yet
        return "another Zoea process"
    return f"pid {pid} ({command})" if command else f"pid {pid}"


def _in_use(db: Path, holder: str) -> str:
    return (
        f"{db} is in use by {holder}: one program writes a database at a time; "
        f"wait for it to end or stop it, or {ANOTHER_FILE}"
    )


def _lock_error(db: Path, path: Path, exc: OSError) -> StoreError:
    """Why the lock file could not be made or written, in one line."""
    full = full_disk(exc, path)
    if full is not None:
        return full
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return StoreError(
            f"cannot write {db}: its folder {path.parent} is read-only "
            f"(the lock file {path.name} cannot be made); make the folder writable or "
            f"{ANOTHER_FILE}"
        )
    reason = " ".join((exc.strerror or str(exc)).split())
    return StoreError(f"cannot lock {db} ({path}): {reason}; {ANOTHER_FILE}")

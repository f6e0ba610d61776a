"""One writer per database: a second app or writing command is refused in one line.

Real processes: a ``zoea simulate`` flies its Myses on a database (and its world
file); a second ``simulate``, the app, ``import``, ``vacuum`` and ``arena`` on the same
database are refused in one line naming the first (pid, command), exit 2, with every
byte as it was; ``context``, ``export`` and ``replay`` read beside it. Killed with
SIGKILL, the first leaves a lock the next one takes over.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from zoea_tui.storage import StoreError
from zoea_tui.storage.lock import DatabaseLock, lock_path

from .test_unusable_database import EXAMPLE, ROOT, one_line, zoea

#: A run long enough to be there while the test looks at it (it is killed at the end).
LONG = ("simulate", "--myses", "1", "--turns", "1000000", "--db")


def _start(db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "zoea_tui.cli", *LONG, str(db)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _playing(db: Path, process: subprocess.Popen[str], limit: float = 60.0) -> None:
    """Wait (bounded) until ``process`` holds the lock and has stored a memory."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        try:
            holder = lock_path(db).read_text(encoding="utf-8")
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                stored = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
            conn.close()
        except (OSError, sqlite3.Error):
            holder, stored = "", 0
        if holder.startswith(f"{process.pid}\n") and stored:
            return
        time.sleep(0.1)
    raise AssertionError("the first simulate never began to play")


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A ``zoea simulate`` playing on ``tmp_path/zoea.db``, killed at the end."""
    db = tmp_path / "zoea.db"
    process = _start(db)
    try:
        _playing(db, process)
        yield db, process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def _stop(process: subprocess.Popen[str], limit: float = 30.0) -> None:
    """Stop ``process`` and return once it is stopped: SIGSTOP takes effect when the
    process next returns from the kernel, so a write or rename under way when it is sent
    still lands (a CI run saw the world's snapshot renamed into place after the signal)."""
    os.kill(process.pid, signal.SIGSTOP)
    stat = Path(f"/proc/{process.pid}/stat")
    deadline = time.monotonic() + limit
    # The state is the field after the command's name, which is in parentheses.
    while stat.read_text().rsplit(")", 1)[1].split()[0] != "T":
        assert time.monotonic() < deadline, "the first writer never stopped"
        time.sleep(0.01)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


WRITERS: dict[str, tuple[str, ...]] = {
    "simulate": ("simulate", "--myses", "1", "--turns", "1", "--db"),
    "import": ("import", "--mysis", "Bo", str(EXAMPLE), "--db"),
    "vacuum": ("vacuum", "--db"),
    "arena": ("arena", "--scenario", "s1", "--provider", "autopilot", "--ticks", "4", "--db"),
}


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_second_writer_is_refused_naming_the_first_and_touches_nothing(
    command: str, holder: tuple[Path, subprocess.Popen[str]]
) -> None:
    db, first = holder
    _stop(first)  # its files hold still; its lock stays held
    try:
        before = _files(db.parent)
        line = one_line(zoea(*WRITERS[command], db), command)
        after = _files(db.parent)
    finally:
        os.kill(first.pid, signal.SIGCONT)
    assert line == (
        f"zoea {command}: {db} is in use by pid {first.pid} (zoea simulate --myses 1 "
        f"--turns 1000000 --db {db}): one program writes a database at a time; wait for "
        "it to end or stop it, or choose another file with --db"
    )
    assert after == before


def test_the_app_is_refused_beside_simulate(holder: tuple[Path, subprocess.Popen[str]]) -> None:
    db, first = holder
    done = subprocess.run(
        [sys.executable, "-m", "zoea_tui.cli", "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr == (
        f"zoea: {db} is in use by pid {first.pid} (zoea simulate --myses 1 --turns 1000000 "
        f"--db {db}): one program writes a database at a time; wait for it to end or stop "
        "it, or choose another file with --db\n"
    )


def test_read_only_commands_work_beside_the_writer(
    holder: tuple[Path, subprocess.Popen[str]],
) -> None:
    db, _ = holder
    for args in (
        ("export", "--mysis", "sim-01", "--db", db),
        ("context", "--mysis", "sim-01", "--db", db),
        ("replay", "--strategy", "sliding-window", "--db", db),
    ):
        done = zoea(*args)
        assert (done.returncode, done.stderr) == (0, ""), args
        assert done.stdout


def test_a_lock_left_by_a_killed_process_is_taken_over(
    holder: tuple[Path, subprocess.Popen[str]],
) -> None:
    db, first = holder
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert lock_path(db).read_text(encoding="utf-8").startswith(f"{first.pid}\n")  # left
    done = zoea(*WRITERS["simulate"], db)
    assert (done.returncode, done.stderr) == (0, "")
    assert not lock_path(db).exists()  # let go at its end
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_simulate_is_refused_beside_a_holder_of_the_lock(tmp_path: Path) -> None:
    """The other way round: this process holds the lock (as the app does, for its
    lifetime); simulate names it, and lets the database be."""
    db = tmp_path / "zoea.db"
    with DatabaseLock.take(db, command="zoea --db zoea.db") as lock:
        line = one_line(zoea(*WRITERS["simulate"], db), "simulate")
        assert f"{db} is in use by pid {os.getpid()} (zoea --db zoea.db): " in line
        assert not db.exists()
        assert lock.held
    assert not lock_path(db).exists()
    with DatabaseLock.take(db):  # free again
        pass


def test_a_second_lock_in_one_process_is_refused_too(tmp_path: Path) -> None:
    db = tmp_path / "zoea.db"
    with DatabaseLock.take(db), pytest.raises(StoreError, match="is in use by pid"):
        DatabaseLock.take(db)


def test_two_names_of_one_database_share_its_lock(tmp_path: Path) -> None:
    db = tmp_path / "zoea.db"
    db.touch()
    (tmp_path / "other.db").symlink_to(db)
    with DatabaseLock.take(db), pytest.raises(StoreError, match="is in use"):
        DatabaseLock.take(tmp_path / "other.db")

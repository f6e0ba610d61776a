"""A full disk: every command ends in one line, "the disk is full: <path>", exit 2.

Real processes on real files. The disk fills two ways: ``RLIMIT_FSIZE`` (``ulimit -f``:
a write past the limit fails with ``EFBIG``, SIGXFSZ ignored as a shell's ``ulimit``
leaves it) always works; a small tmpfs (``ENOSPC``) where this process may mount one.
The subprocess timeout is the hang detector (a process that hung on its store's thread
ran until killed), not a measure of speed.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_runner import ZOEA, python

ROOT = Path(__file__).resolve().parents[2]
#: Room for the schema and some turns, not for 200 turns of two Myses.
LIMIT = 2_000_000
#: Long enough for any machine; a process that hangs would run until it.
HANG = 120


def _limited(limit: int) -> None:
    """In the child before exec: files may not grow past ``limit`` bytes."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def zoea(*args: str | Path, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI (``limit``: under ``ulimit -f`` of that many bytes)."""
    return _python(*ZOEA[1:], *args, limit=limit)


def _python(*args: str | Path, limit: int | None) -> subprocess.CompletedProcess[str]:
    """Run Python with ``args`` (``limit``: under ``ulimit -f`` of that many bytes)."""
    limited = (lambda: _limited(limit)) if limit is not None else None
    return python(*args, cwd=ROOT, preexec_fn=limited, timeout=HANG)


def _full_line(done: subprocess.CompletedProcess[str], command: str, path: Path) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert done.stderr.startswith(f"zoea {command}: the disk is full: {path}; "), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr[-3000:]


def _kept(db: Path) -> int:
    """Integrity holds; the number of memories stored before the disk filled."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        count: int = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
    conn.close()
    return count


SIMULATE = ("simulate", "--myses", "2", "--turns", "200", "--db")


def test_simulate_under_ulimit_f_ends_in_one_line_and_keeps_what_it_stored(
    tmp_path: Path,
) -> None:
    """It hung (the store's thread kept the process alive) or exited 0 with "disk I/O
    error" counted as provider failures; now: one line, exit 2, the turns it stored."""
    db = tmp_path / "x.db"
    _full_line(zoea(*SIMULATE, db, limit=LIMIT), "simulate", db)
    assert _kept(db) > 0
    again = zoea("export", "--mysis", "sim-01", "--db", db)  # and it reads back
    assert again.returncode == 0, again.stderr
    assert all(json.loads(line) for line in again.stdout.splitlines())


def test_a_database_that_cannot_hold_its_schema_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    _full_line(zoea(*SIMULATE, db, limit=100_000), "simulate", db)


def test_import_under_ulimit_f_is_one_line_and_imports_nothing(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    assert (
        zoea(
            "import", "--mysis", "Ada", ROOT / "examples" / "conversation.jsonl", "--db", db
        ).returncode
        == 0
    )
    big = tmp_path / "big.jsonl"
    line = json.dumps({"role": "user", "content": "x" * 50_000})
    big.write_text("\n".join([line] * 100) + "\n", encoding="utf-8")
    before = _kept(db)
    size = db.stat().st_size
    _full_line(
        zoea("import", "--mysis", "Bo", big, "--db", db, limit=size + 1_000_000), "import", db
    )
    assert _kept(db) == before  # all or nothing


def test_the_world_file_on_a_full_disk_names_itself(tmp_path: Path) -> None:
    """The world's save fails with the world file's name, which the one line shows."""
    world = tmp_path / "x.db.world.json"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from zoea_tui.sim.host import WorldHost\n"
        "from zoea_tui.storage.errors import full_disk\n"
        f"host = WorldHost.open(seed=1, state_path=Path({str(world)!r}))\n"
        "try:\n"
        "    host.save()\n"
        "except OSError as exc:\n"
        "    print(full_disk(exc, exc.filename))\n"
    )
    done = _python("-c", code, limit=4096)
    assert done.stdout.startswith(f"the disk is full: {world}; "), (done.stdout, done.stderr)
    assert not world.exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no temporary file left behind


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MB tmpfs: a disk that really fills (ENOSPC)."""
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_simulate_on_a_full_tmpfs_ends_in_one_line(small_disk: Path) -> None:
    db = small_disk / "x.db"
    done = zoea(*SIMULATE, db)
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr.count("\n") == 1, done.stderr[-3000:]
    assert done.stderr.startswith("zoea simulate: the disk is full: "), done.stderr
    os.sync()
    assert _kept(db) >= 0


def test_arena_output_on_a_full_disk_says_so_and_where_the_runs_are(
    small_disk: Path, tmp_path: Path
) -> None:
    fd = os.open(small_disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:  # the disk full to its last byte
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    out, db = small_disk / "out", tmp_path / "arena.db"
    done = zoea(
        *("arena", "--scenario", "s1", "--provider", "autopilot", "--ticks", "8"),
        *("--runs", "1", "--db", db, "--out", out, "--json"),
    )
    assert done.returncode == 2, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"zoea arena: the disk is full: {out}"), last
    assert last.endswith(f"; every run is stored in {db} as batch #1"), last
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM arena_runs").fetchone()[0] == 1
    conn.close()


def test_a_full_log_falls_silent_rather_than_write_tracebacks_on_the_screen(
    tmp_path: Path,
) -> None:
    """Python's logging prints "--- Logging error ---" and a traceback to standard error
    for every record it cannot write: over the app's screen, on a full disk."""
    code = (
        "import logging\n"
        "from pathlib import Path\n"
        "from zoea_tui.logs import setup_logging\n"
        f"setup_logging(Path({str(tmp_path)!r}))\n"
        "for n in range(2000):\n"
        "    logging.getLogger('zoea').info('a line of the log %d %s', n, 'x' * 100)\n"
        "print('done')\n"
    )
    done = _python("-c", code, limit=20_000)
    assert (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")
    assert (tmp_path / "zoea.log").stat().st_size <= 20_000

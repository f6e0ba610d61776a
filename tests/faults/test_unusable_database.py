"""The CLI on a database it cannot use: one line, exit 2, and the file as it was.

Real processes on real files: another program's database, a damaged one, one from a
newer Zoea, one locked by another process (a second SQLite connection holding
``BEGIN EXCLUSIVE``), a read-only file or folder, and a data folder under a file.

Tests run as root here, and root writes through any ``chmod``. The read-only cases
therefore run the CLI without the capabilities that let root ignore file modes
(``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``, dropped from the child's bounding set):
the kernel then refuses its writes as it would a user's.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import random
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests import cli_runner
from zoea_tui.storage import NewMemory, Store
from zoea_tui.storage.migrations import latest_version

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "conversation.jsonl"
_PR_CAPBSET_DROP = 24
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2


def _without_root_overrides() -> None:
    """In the child before exec: file modes bind root too (a no-op for other users)."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot drop CAP_DAC_* to test read-only files")


def zoea(*args: str | Path, plain_user: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the CLI (``plain_user``: bound by file modes even as root)."""
    return cli_runner.zoea(
        *args, cwd=ROOT, preexec_fn=_without_root_overrides if plain_user else None
    )


def one_line(done: subprocess.CompletedProcess[str], command: str) -> str:
    """The run failed with exit 2 and a single ``zoea COMMAND: …`` line (the app,
    ``command`` "zoea": ``zoea: …``); that line."""
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-3000:]
    prefix = "zoea: " if command == "zoea" else f"zoea {command}: "
    assert lines[0].startswith(prefix), lines[0]
    return lines[0]


def _folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.parent.iterdir()) if p.is_file()}


def _zoea_db(path: Path, *, version_bump: int = 0) -> Path:
    """A cleanly closed Zoea database with the Mysis "Ada" (claiming latest + bump)."""

    async def make() -> None:
        async with await Store.open(path) as store:
            mysis = await store.create_mysis("Ada")
            await store.add_memory(mysis.id, NewMemory(role="user", source="direct", content="hi"))
            if version_bump:
                await store.connection.execute(
                    "INSERT INTO schema_migrations VALUES (?, 'future', 0)",
                    (latest_version() + version_bump,),
                )

    asyncio.run(make())
    return path


def _foreign(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)")
    db.close()
    return path


def _corrupt(path: Path) -> Path:
    path.write_bytes(b"SQLite format 3\x00" + random.Random(3).randbytes(16384))
    return path


def _truncated(path: Path) -> Path:
    data = _zoea_db(path).read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


SIMULATE = ("simulate", "--myses", "1", "--turns", "1", "--db")
COMMANDS: dict[str, tuple[str, ...]] = {
    "simulate": SIMULATE,
    "context": ("context", "--mysis", "Ada", "--db"),
    "export": ("export", "--mysis", "Ada", "--db"),
    "import": ("import", "--mysis", "Bo", str(EXAMPLE), "--db"),
}
REFUSED: dict[str, tuple[Callable[[Path], Path], str]] = {
    "another program's database": (_foreign, "another program's SQLite database"),
    "a newer Zoea's database": (lambda p: _zoea_db(p, version_bump=1), "upgrade Zoea Nova"),
    "a damaged file": (_corrupt, "is damaged"),
    "a truncated database": (_truncated, "truncated"),
}


#: Every case through simulate and context (the commands found to touch such files),
#: and the other two commands on the cases they meet most.
REFUSALS = [(case, command) for case in REFUSED for command in ("simulate", "context")] + [
    ("another program's database", "export"),
    ("another program's database", "import"),
    ("a newer Zoea's database", "import"),
]


@pytest.mark.parametrize(("case", "command"), REFUSALS)
def test_a_file_zoea_must_not_touch_is_refused_in_one_line_byte_for_byte(
    case: str, command: str, tmp_path: Path
) -> None:
    make, words = REFUSED[case]
    path = make(tmp_path / "zoea.db")
    before = _folder(path)
    line = one_line(zoea(*COMMANDS[command], path), command)
    assert str(path) in line and words in line and "left untouched" in line
    assert _folder(path) == before


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    """A Zoea database whose write lock another connection holds (BEGIN EXCLUSIVE)."""
    path = _zoea_db(tmp_path / "zoea.db")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield path
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.mark.parametrize("command", ["simulate", "import"])
def test_a_locked_database_is_one_line_and_nothing_is_written(command: str, locked: Path) -> None:
    line = one_line(zoea(*COMMANDS[command], locked), command)
    assert f"{locked} is locked by another program" in line
    with sqlite3.connect(f"file:{locked}?mode=ro", uri=True) as db:
        assert [r[0] for r in db.execute("SELECT name FROM myses")] == ["Ada"]
        assert db.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 1
    db.close()


@pytest.mark.parametrize("command", ["simulate", "import"])
def test_a_read_only_file_is_one_line(command: str, tmp_path: Path) -> None:
    path = _zoea_db(tmp_path / "zoea.db")
    data = path.read_bytes()
    path.chmod(0o444)
    line = one_line(zoea(*COMMANDS[command], path, plain_user=True), command)
    assert f"cannot write {path}: the file is read-only" in line
    assert path.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zoea.db"]  # no -wal, no -shm


@pytest.mark.parametrize("command", ["simulate", "import"])
def test_a_read_only_folder_is_one_line(command: str, tmp_path: Path) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    path = _zoea_db(folder / "zoea.db")
    data = path.read_bytes()
    new = folder / "new.db"
    folder.chmod(0o555)
    try:
        for target in (path, new):
            line = one_line(zoea(*COMMANDS[command], target, plain_user=True), command)
            assert f"cannot write {target}: its folder {folder} is read-only" in line
    finally:
        folder.chmod(0o755)
    assert path.read_bytes() == data
    assert sorted(p.name for p in folder.iterdir()) == ["zoea.db"]


def test_a_database_open_elsewhere_in_a_read_only_folder_is_used(tmp_path: Path) -> None:
    """With its -wal and -shm already beside it (another program has it open), SQLite
    creates nothing in the folder: the folder's mode does not matter, only the files'."""
    folder = tmp_path / "shelf"
    folder.mkdir()
    path = _zoea_db(folder / "zoea.db")
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("PRAGMA journal_mode = WAL")
        holder.execute("SELECT COUNT(*) FROM myses").fetchone()  # the -shm is made
        assert {p.name for p in folder.iterdir()} == {"zoea.db", "zoea.db-wal", "zoea.db-shm"}
        folder.chmod(0o555)
        try:
            done = zoea(*COMMANDS["export"], path, plain_user=True)
        finally:
            folder.chmod(0o755)
    finally:
        holder.close()
    assert (done.returncode, done.stderr) == (0, "")
    assert '"content": "hi"' in done.stdout


def test_an_unreadable_file_is_one_line(tmp_path: Path) -> None:
    path = _zoea_db(tmp_path / "zoea.db")
    path.chmod(0)
    line = one_line(zoea(*COMMANDS["context"], path, plain_user=True), "context")
    assert f"cannot use {path}: Permission denied" in line


@pytest.mark.parametrize("command", ["simulate", "import"])
def test_a_data_folder_under_a_file_is_one_line(command: str, tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n", encoding="utf-8")
    path = blocker / "data" / "zoea.db"
    line = one_line(zoea(*COMMANDS[command], path), command)
    assert f"{blocker} is a file, not a folder" in line
    assert blocker.read_text(encoding="utf-8") == "mine\n"

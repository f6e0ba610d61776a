"""Every file refused in one line before it is touched: commands × kinds of bad file.

Real processes on real files: a database with damaged pages (its header sound, so only
a read finds them), a zero-byte file, a broken world file beside the database, and flags
that are wrong. Each case: exit 2, one line ``zoea CMD: …`` saying what is wrong, and
every file in the folder byte for byte as it was (no database made, none grown).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from .test_unusable_database import EXAMPLE, one_line, zoea


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database a short simulate wrote (Myses, memories, requests, turns)."""
    db = tmp_path_factory.mktemp("played") / "zoea.db"
    done = zoea("simulate", "--myses", "2", "--turns", "8", "--db", db)
    assert done.returncode == 0, done.stderr
    return db


def _damaged(played: Path, db: Path) -> None:
    """A copy whose later pages are overwritten: the header and schema read well."""
    shutil.copyfile(played, db)
    with sqlite3.connect(db) as conn:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        count = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    with db.open("r+b") as file:
        for page in range(count // 3, count - 1):
            file.seek(page * size)
            file.write(b"\xff" * size)


def _zero(played: Path, db: Path) -> None:
    db.write_bytes(b"")


def _broken_world(played: Path, db: Path) -> None:
    shutil.copyfile(played, db)
    db.with_name(db.name + ".world.json").write_text('{"broken', encoding="utf-8")


KINDS: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "damaged pages": (_damaged, "is damaged (database disk image is malformed)"),
    "a zero-byte file": (_zero, "holds no Zoea database (it is empty): nothing to read"),
    "a broken world file": (_broken_world, "cannot load the world from"),
}
COMMANDS: dict[str, tuple[str, ...]] = {
    "export": ("export", "--mysis", "sim-01", "--db"),
    "context": ("context", "--mysis", "sim-01", "--db"),
    "replay": ("replay", "--strategy", "sliding-window", "--db"),
    "vacuum": ("vacuum", "--db"),
    "simulate": ("simulate", "--myses", "1", "--turns", "1", "--db"),
}
#: What each command is refused for (a zero-byte file is a new database to a writer;
#: only simulate reads the world file).
CASES = [
    *(
        (kind, command)
        for kind in ("damaged pages", "a zero-byte file")
        for command in ("export", "context", "replay", "vacuum")
    ),
    ("a broken world file", "simulate"),
]


def _folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()}


@pytest.mark.parametrize(("kind", "command"), CASES)
def test_a_bad_file_is_refused_in_one_line_byte_for_byte(
    kind: str, command: str, played: Path, tmp_path: Path
) -> None:
    make, words = KINDS[kind]
    db = tmp_path / "zoea.db"
    make(played, db)
    before = _folder(tmp_path)
    line = one_line(zoea(*COMMANDS[command], db), command)
    assert str(db) in line and words in line, line
    assert _folder(tmp_path) == before


ARENA = ("arena", "--ticks", "4")


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (("--scenario", "s1"), "--provider is required"),
        (("--scenario", "s9", "--provider", "autopilot"), "unknown scenario 's9'"),
        (("--scenario", "s1", "--provider", "nope"), "unknown provider 'nope'"),
        (("--resume", "3"), "no arena batch #3: database "),
    ],
)
def test_arena_checks_its_flags_before_it_makes_the_database(
    flags: tuple[str, ...], words: str, tmp_path: Path
) -> None:
    db = tmp_path / "arena.db"
    line = one_line(zoea(*ARENA, *flags, "--db", db), "arena")
    assert words in line, line
    assert list(tmp_path.iterdir()) == []


def test_import_of_a_bad_conversation_makes_no_database(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "wizard", "content": "x"}\n', encoding="utf-8")
    db = tmp_path / "zoea.db"
    one_line(zoea("import", "--mysis", "Ada", bad, "--db", db), "import")
    assert not db.exists()
    assert EXAMPLE.exists()

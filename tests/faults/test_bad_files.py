"""Every file refused in one line before it is touched: commands × kinds of bad file.

Real processes on real files. The commands: every one that takes a database (the app
itself, ``simulate``, ``arena``, ``import``, ``export``, ``context``, ``replay``,
``vacuum``), ``sim serve --state``, ``import``'s conversation file and ``probe
--config``. The kinds: a database with damaged pages (its header and schema sound, so
only reading its pages finds them), a zero-byte file, a PNG, another program's SQLite
database, a broken world file where the command reads one, a configuration that does not
parse. Each cell: exit 2, one line ``zoea CMD: …`` saying what is wrong, and every file
in the folder byte for byte as it was, with nothing new beside it (no ``-wal``, ``-shm``,
``.lock``, log or world file). Flags are checked before anything is made, too.
"""

from __future__ import annotations

import contextlib
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


#: The first bytes of a PNG image: a file that is not Zoea's.
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4


def _damaged(played: Path, db: Path) -> Path:
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
    return db


def _zero(played: Path, db: Path) -> Path:
    db.write_bytes(b"")
    return db


def _png(played: Path, db: Path) -> Path:
    db.write_bytes(PNG)
    return db


def _foreign(played: Path, db: Path) -> Path:
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO recipes (name) VALUES ('bread')")
    return db


def _broken_world(played: Path, db: Path) -> Path:
    """The played database, and a broken world where the command reads it: beside the
    database (``<db>.world.json``, simulate's) and in its folder (``world.json``, the
    app's, whose data folder is the database's)."""
    shutil.copyfile(played, db)
    for world in (db.with_name(db.name + ".world.json"), db.with_name("world.json")):
        world.write_text('{"broken', encoding="utf-8")
    return db


def _broken_config(played: Path, db: Path) -> Path:
    """The played database, and a configuration that does not parse beside it."""
    shutil.copyfile(played, db)
    db.with_name("broken.toml").write_text("[swarm\nstrategy = 'x'\n", encoding="utf-8")
    return db


def _state_as(make: Callable[[Path, Path], Path]) -> Callable[[Path, Path], Path]:
    """A bad state file for ``sim serve --state``, made as ``make`` makes a database."""

    def state(played: Path, db: Path) -> Path:
        return make(played, db.with_name("world.json"))

    return state


def _broken_state(played: Path, db: Path) -> Path:
    state = db.with_name("world.json")
    state.write_text('{"broken', encoding="utf-8")
    return state


KINDS: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "damaged pages": (_damaged, "is damaged (database disk image is malformed"),
    "a zero-byte file": (_zero, "(it is empty)"),
    "a PNG": (_png, "is not a SQLite database"),
    "another program's database": (_foreign, "is another program's SQLite database"),
    "a broken world file": (_broken_world, "cannot load the world from"),
    "a broken config": (_broken_config, "broken.toml"),
}
#: Every command that takes a database (the app itself is "zoea").
DATABASE_COMMANDS: dict[str, tuple[str, ...]] = {
    "zoea": (),
    "simulate": ("simulate", "--myses", "1", "--turns", "1"),
    "arena": ("arena", "--scenario", "s1", "--provider", "autopilot", "--ticks", "4"),
    "import": ("import", "--mysis", "Bo", str(EXAMPLE)),
    "export": ("export", "--mysis", "sim-01"),
    "context": ("context", "--mysis", "sim-01"),
    "replay": ("replay", "--strategy", "sliding-window"),
    "vacuum": ("vacuum",),
}
#: The commands that read a world file: simulate (``<db>.world.json``) and the app (its
#: data folder's ``world.json``); the arena plays fresh worlds, the others none.
READS_THE_WORLD = ("zoea", "simulate")
CASES = [
    (kind, command)
    for kind in KINDS
    for command in DATABASE_COMMANDS
    if kind != "a broken world file" or command in READS_THE_WORLD
]


def _folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()}


def _command_line(command: str, db: Path, kind: str) -> list[str | Path]:
    config = ["--config", db.with_name("broken.toml")] if kind == "a broken config" else []
    if command == "zoea":
        return [*config, "--db", db]
    return [*DATABASE_COMMANDS[command], *config, "--db", db]


@pytest.mark.parametrize(("kind", "command"), CASES)
def test_a_bad_file_is_refused_in_one_line_byte_for_byte(
    kind: str, command: str, played: Path, tmp_path: Path
) -> None:
    make, words = KINDS[kind]
    db = make(played, tmp_path / "zoea.db")
    before = _folder(tmp_path)
    line = one_line(zoea(*_command_line(command, db, kind)), command)
    assert words in line, line
    if kind not in ("a broken config", "a broken world file"):
        assert str(db) in line, line
    # Not a byte changed, and nothing new beside it: no -wal, -shm, .lock, log or world.
    assert _folder(tmp_path) == before


STATES: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "a broken world file": (_broken_state, "cannot load the world from"),
    "a zero-byte file": (_state_as(_zero), "cannot load the world from"),
    "a PNG": (_state_as(_png), "cannot load the world from"),
}


@pytest.mark.parametrize("kind", list(STATES))
def test_sim_serve_refuses_a_bad_state_file_byte_for_byte(
    kind: str, played: Path, tmp_path: Path
) -> None:
    make, words = STATES[kind]
    state = make(played, tmp_path / "zoea.db")
    before = _folder(tmp_path)
    line = one_line(zoea("sim", "serve", "--port", "0", "--state", state), "sim")
    assert words in line and str(state) in line, line
    assert _folder(tmp_path) == before


@pytest.mark.parametrize("kind", ["a zero-byte file", "a PNG"])
def test_import_refuses_a_conversation_that_is_no_jsonl_and_makes_no_database(
    kind: str, played: Path, tmp_path: Path
) -> None:
    conversation = KINDS[kind][0](played, tmp_path / "talk.jsonl")
    before = _folder(tmp_path)
    line = one_line(
        zoea("import", "--mysis", "Ada", conversation, "--db", tmp_path / "zoea.db"), "import"
    )
    assert str(conversation) in line, line
    assert _folder(tmp_path) == before


def test_probe_refuses_a_broken_config_in_one_line(played: Path, tmp_path: Path) -> None:
    _broken_config(played, tmp_path / "zoea.db")
    before = _folder(tmp_path)
    config = tmp_path / "broken.toml"
    line = one_line(zoea("probe", "http://127.0.0.1:9/v1", "--config", config), "probe")
    assert "broken.toml" in line, line
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

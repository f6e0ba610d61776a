"""The command line never lets a model's control characters reach the terminal.

A model's answer once set the terminal's title and cleared the screen through
``zoea context``. Every human-readable output now shows control characters escaped
(whether or not stdout is a terminal); ``--json`` stays exact.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from zoea_tui.core.terminal_text import clean, escaped

HOSTILE = "Mined ore.\x1b]0;pwned\x07\x1b[2J\x1b[H done \u202eevil\x9b31m \x00nul"


def zoea(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zoea_tui.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    conversation = tmp_path / "c.jsonl"
    lines = [
        {"role": "user", "content": "report"},
        {"role": "assistant", "content": HOSTILE},
    ]
    conversation.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    db = tmp_path / "z.db"
    done = zoea("import", "--db", db, "--mysis", "scout", conversation)
    assert done.returncode == 0, done.stderr
    return db


def test_context_shows_control_characters_escaped(hostile_db: Path) -> None:
    done = zoea("context", "--db", hostile_db, "--mysis", "scout")
    assert done.returncode == 0, done.stderr
    for raw in ("\x1b", "\x07", "\u202e", "\x9b", "\x00"):
        assert raw not in done.stdout, repr(raw)
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in done.stdout
    assert "\\u202eevil\\x9b31m" in done.stdout


def test_context_json_stays_exact(hostile_db: Path) -> None:
    done = zoea("context", "--db", hostile_db, "--mysis", "scout", "--json")
    messages = json.loads(done.stdout)["messages"]
    # Exact but for the NUL, which the store keeps as U+FFFD (SQLite's text cannot hold it).
    assert any(m.get("content") == HOSTILE.replace("\x00", "\ufffd") for m in messages)


def test_errors_escape_what_the_user_typed(tmp_path: Path) -> None:
    done = zoea("export", "--db", tmp_path / "missing\x1b[2J.db", "--mysis", "x")
    assert done.returncode == 2
    assert "\x1b" not in done.stderr and "missing\\x1b[2J.db" in done.stderr


def test_escaped_keeps_text_and_shows_every_control() -> None:
    assert escaped("tab\tand\nnewline") == "tab\tand\nnewline"
    assert escaped("a\r\nb\rc") == "a\nb\\x0dc"
    assert escaped("\x1b[31mred") == "\\x1b[31mred"
    assert escaped("\ufeffbom \u2066iso") == "\\ufeffbom \\u2066iso"
    # The same characters the TUI drops.
    assert clean(HOSTILE) == "Mined ore. done evil nul"

"""The command line never lets a model's control characters reach the terminal.

A model's answer once set the terminal's title and cleared the screen through
``zoea context``. Every human-readable output now shows control characters escaped
(whether or not stdout is a terminal); JSON and JSONL output writes the same characters
as ``\\uXXXX`` escapes, which read back exact (issue 42, item 6).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.cli_runner import zoea
from zoea_tui.arena.report import to_json
from zoea_tui.core.terminal_text import STEERING, clean, escaped, json_escaped

HOSTILE = "Mined ore.\x1b]0;pwned\x07\x1b[2J\x1b[H done \u202eevil\x9b31m \x00nul"
#: C1's CSI, DEL, a right-to-left override and a left-to-right isolate.
STEER = "csi\x9b2J del\x7f rlo\u202e lri\u2066 end"
_RAW = re.compile(STEERING)


def raw_steering(text: str) -> list[str]:
    """The characters in ``text`` that could steer a terminal, as they are found."""
    return _RAW.findall(text)


def imported(conversation: Path, lines: list[dict[str, str]], db: Path) -> Path:
    """``db`` with the conversation ``lines`` imported (``zoea import``) as Mysis scout."""
    conversation.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    done = zoea("import", "--db", db, "--mysis", "scout", conversation)
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    lines = [
        {"role": "user", "content": "report"},
        {"role": "assistant", "content": HOSTILE},
    ]
    return imported(tmp_path / "c.jsonl", lines, tmp_path / "z.db")


def test_context_shows_control_characters_escaped(hostile_db: Path) -> None:
    done = zoea("context", "--db", hostile_db, "--mysis", "scout")
    assert done.returncode == 0, done.stderr
    for raw in ("\x1b", "\x07", "\u202e", "\x9b", "\x00"):
        assert raw not in done.stdout, repr(raw)
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in done.stdout
    assert "\\u202eevil\\x9b31m" in done.stdout


def test_context_json_is_exact_and_escapes_what_could_steer(hostile_db: Path) -> None:
    done = zoea("context", "--db", hostile_db, "--mysis", "scout", "--json")
    assert done.returncode == 0, done.stderr
    assert raw_steering(done.stdout) == []
    messages = json.loads(done.stdout)["messages"]
    assert any(m.get("content") == HOSTILE for m in messages)  # the NUL included


@pytest.fixture
def steering_db(tmp_path: Path) -> Path:
    lines = [
        {"role": "user", "content": STEER, "reasoning": STEER},
        {"role": "assistant", "content": STEER},
    ]
    return imported(tmp_path / "s.jsonl", lines, tmp_path / "s.db")


@pytest.mark.parametrize("command", [("context", "--json"), ("export",)])
def test_json_output_writes_c1_del_and_bidi_escaped(
    steering_db: Path, command: tuple[str, ...]
) -> None:
    done = zoea(*command, "--db", steering_db, "--mysis", "scout")
    assert done.returncode == 0, done.stderr
    assert raw_steering(done.stdout) == []
    assert "csi\\u009b2J del\\u007f rlo\\u202e lri\\u2066 end" in done.stdout
    documents = (
        [json.loads(done.stdout)]
        if command[0] == "context"
        else [json.loads(line) for line in done.stdout.splitlines()]
    )
    assert STEER in json.dumps(documents, ensure_ascii=False)  # read back exact


def test_nul_round_trips_through_import_and_export(tmp_path: Path) -> None:
    lines = [
        {"role": "user", "content": "before\x00after\x00", "game_tick": 1},
        {"role": "assistant", "content": "ok\x00", "reasoning": "think\x00"},
    ]
    conversation = tmp_path / "nul.jsonl"
    conversation.write_text("".join(json.dumps(line) + "\n" for line in lines))
    db = tmp_path / "nul.db"
    assert zoea("import", "--db", db, "--mysis", "scout", conversation).returncode == 0
    done = zoea("export", "--db", db, "--mysis", "scout")
    assert done.returncode == 0, done.stderr
    assert "\x00" not in done.stdout
    assert [json.loads(line) for line in done.stdout.splitlines()] == lines


_ANY_TEXT = st.text(st.characters(codec="utf-8"))
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_ANY_TEXT, inner, max_size=4),
    max_leaves=12,
)


@given(_VALUES, st.sampled_from([None, 2]))
def test_escaped_json_reads_back_equal_with_nothing_raw(value: object, indent: int | None) -> None:
    document = json_escaped(json.dumps(value, ensure_ascii=False, indent=indent))
    assert raw_steering(document) == []
    assert json.loads(document) == value


def test_the_check_rejects_json_written_raw() -> None:
    plain = json.dumps({"content": STEER}, ensure_ascii=False)
    assert raw_steering(plain) == ["\x9b", "\x7f", "\u202e", "\u2066"]
    assert raw_steering(json_escaped(plain)) == []


def test_errors_escape_what_the_user_typed(tmp_path: Path) -> None:
    done = zoea("export", "--db", tmp_path / "missing\x1b[2J.db", "--mysis", "x")
    assert done.returncode == 2
    assert "\x1b" not in done.stderr and "missing\\x1b[2J.db" in done.stderr


def test_escaped_keeps_text_and_shows_every_control() -> None:
    assert escaped("tab\tand\nnewline") == "tab\tand\nnewline"
    assert escaped("a\r\nb\rc") == "a\nb\\x0dc"
    assert escaped("\x1b[31mred") == "\\x1b[31mred"
    assert escaped("\ufeffbom \u2066iso") == "\\ufeffbom \\u2066iso"
    assert escaped("marks \u200e\u200f\u061c") == "marks \\u200e\\u200f\\u061c"
    # The same characters the TUI drops.
    assert clean(HOSTILE) == "Mined ore. done evil nul"


def test_the_arena_report_written_to_its_file_escapes_what_could_steer() -> None:
    document = to_json({"provider": STEER, "runs": [{"error": STEER}]})
    assert raw_steering(document) == []
    assert json.loads(document) == {"provider": STEER, "runs": [{"error": STEER}]}

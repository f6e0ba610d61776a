"""Every command works in a locale that cannot show its characters.

Run with an ASCII locale (``LC_ALL=C`` with Python's locale coercion and UTF-8 mode
off, as on a machine without a UTF-8 locale), ``zoea context`` ended with "unexpected
UnicodeEncodeError", exit 1, at its first ``·``. Now the command line's own symbols are
written in ASCII, any other character as its escape, ``--json`` as JSON's ``\\u``
escapes (the same document read back), and ``--out`` files in UTF-8.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.cli_runner import openai_config, zoea_bytes
from zoea_tui.cli_parsing import emit_json, holds_unicode

WORDS = "Erz: Ä · ≥ 🚀 done"
ASCII_LOCALE = {"LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}


def zoea(*args: str | Path, ascii_locale: bool = True) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **(ASCII_LOCALE if ascii_locale else {"PYTHONUTF8": "1"})}
    return zoea_bytes(*args, env=env)


def test_the_locale_of_these_tests_cannot_write_the_characters() -> None:
    """The condition the tests below need, so that they cannot pass vacuously."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.stdout.encoding)"],
        capture_output=True,
        env={**os.environ, **ASCII_LOCALE},
        text=True,
        check=True,
    )
    assert done.stdout.strip().lower() in ("ascii", "ansi_x3.4-1968")


@pytest.fixture
def played(tmp_path: Path) -> Path:
    conversation = tmp_path / "c.jsonl"
    lines = [{"role": "user", "content": "report"}, {"role": "assistant", "content": WORDS}]
    text = "\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n"
    conversation.write_text(text, encoding="utf-8")  # characters as they are, not escaped
    db = tmp_path / "z.db"
    done = zoea("import", "--db", db, "--mysis", "scout", conversation)
    assert done.returncode == 0, done.stderr
    return db


def test_context_shows_its_symbols_in_ascii_and_foreign_characters_escaped(played: Path) -> None:
    done = zoea("context", "--db", played, "--mysis", "scout")
    assert (done.returncode, done.stderr) == (0, b"")
    out = done.stdout.decode("ascii")  # every byte ASCII
    first = out.splitlines()[0]
    assert first.startswith("Mysis scout | strategy turn-aware | ") and first.endswith(" | valid")
    assert "\n-- assistant | #2 | kept" in out
    assert "Erz: \\xc4 | >= \\U0001f680 done" in out


def test_json_and_export_read_back_as_in_a_utf8_locale(played: Path) -> None:
    for command in (("context", "--json"), ("export",)):
        args = (command[0], "--db", played, "--mysis", "scout", *command[1:])
        plain, utf8 = zoea(*args), zoea(*args, ascii_locale=False)
        assert (plain.returncode, plain.stderr) == (0, b""), plain.stderr
        assert plain.stdout.isascii() and not utf8.stdout.isascii()
        if command[0] == "context":  # one indented document
            read = [json.loads(plain.stdout.decode("ascii"))]
            assert read == [json.loads(utf8.stdout)]
        else:  # a document a line
            read = [json.loads(x) for x in plain.stdout.decode("ascii").splitlines()]
            assert read == [json.loads(x) for x in utf8.stdout.decode("utf-8").splitlines()]
        assert WORDS in json.dumps(read, ensure_ascii=False)


def test_the_arena_writes_its_files_in_utf8_whatever_the_locale(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = zoea(
        *("arena", "--scenario", "s1", "--provider", "autopilot", "--strategy", "turn-aware"),
        *("--budget", "ticks", "--ticks", "4", "--runs", "1", "--db", tmp_path / "a.db"),
        *("--out", out),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.isascii() and b">=20" in done.stdout and b"----" in done.stdout
    board = (out / "leaderboard.md").read_bytes()
    assert not board.isascii(), "the board holds characters beyond ASCII"
    board.decode("utf-8")
    json.loads((out / "arena.json").read_text(encoding="utf-8"))


def _ascii_stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")


@given(
    st.recursive(
        st.text() | st.integers() | st.none(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)
    )
)
def test_json_written_to_a_stream_that_holds_only_ascii_reads_back_the_same(data: object) -> None:
    stream = _ascii_stream()
    emit_json(json.dumps(data, ensure_ascii=False, indent=2), stream)
    stream.flush()
    written = stream.buffer.getvalue()  # type: ignore[attr-defined]
    assert written.endswith(b"\n") and json.loads(written.decode("ascii")) == data


def test_the_read_back_check_rejects_json_escaped_the_way_text_is() -> None:
    """The check above fails for JSON written with Python's escapes (``\\xc4``), which
    is what the human lines get: not JSON any more."""
    text = json.dumps({"ore": "Ä"}, ensure_ascii=False)
    escaped = text.encode("ascii", "backslashreplace").decode("ascii")
    with pytest.raises(json.JSONDecodeError):
        json.loads(escaped)


def test_only_a_utf_encoding_is_taken_to_hold_every_character() -> None:
    assert holds_unicode(io.TextIOWrapper(io.BytesIO(), encoding="UTF-8"))
    assert holds_unicode(io.TextIOWrapper(io.BytesIO(), encoding="utf_16"))
    assert not holds_unicode(_ascii_stream())
    assert not holds_unicode(io.TextIOWrapper(io.BytesIO(), encoding="latin-1"))


def test_the_command_center_in_such_a_locale_says_how_to_start_it_and_makes_nothing(
    tmp_path: Path,
) -> None:
    """It drew every line and border as escapes (``\\u2554\\u2550…``); Textual needs a
    terminal that shows its characters."""
    data = tmp_path / "data"
    done = zoea("--data-dir", data)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == (
        b"zoea: the terminal's encoding (ascii) cannot show the command center's characters;"
        b" start it in a UTF-8 locale (LANG=C.UTF-8, for one)\n"
    )
    assert not data.exists()


def test_a_servers_words_beyond_ascii_reach_arena_json_in_utf8(tmp_path: Path) -> None:
    """The one way a character beyond ASCII enters ``arena.json``: a run's error in the
    server's words. Written in the locale's encoding it ended the command after play."""
    from tests.fakes.llm_servers import FakeOpenAIServer, HttpError

    refusal = "clé refusée"
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = HttpError(401, refusal)
        config = openai_config(tmp_path / "config.toml", "scripted", server.url)
        out = tmp_path / "out"
        done = zoea(
            *("--config", config, "arena", "--scenario", "s1", "--provider", "scripted"),
            *("--ticks", "2", "--no-baseline", "--db", tmp_path / "a.db", "--out", out),
        )
    assert done.returncode == 3, done.stderr  # the provider answered none of its requests
    last = done.stderr.decode("ascii").splitlines()[-1]  # every line in ASCII
    assert last.startswith("zoea arena: the provider answered none of its requests")
    assert "cl\\xe9 refus\\xe9e" in last
    written = (out / "arena.json").read_bytes()
    assert refusal.encode("utf-8") in written
    report = json.loads(written.decode("utf-8"))
    assert refusal in report["cells"][0]["runs"][0]["error"]


def test_a_name_typed_beyond_what_the_locale_reads_is_refused_before_anything_is_made(
    tmp_path: Path,
) -> None:
    """Typed in UTF-8 under an ASCII locale, ``--mysis Jürgen`` reached SQLite as lone
    surrogates: "unexpected UnicodeEncodeError", exit 1, after the database was made."""
    db = tmp_path / "z.db"
    example = Path(__file__).resolve().parents[2] / "examples" / "conversation.jsonl"
    done = zoea("import", "--db", db, "--mysis", "Jürgen", example)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == (
        b"zoea import: argument --mysis: b'J\\xc3\\xbcrgen' is not text in the locale's "
        b"encoding (ascii); start zoea in a UTF-8 locale (LANG=C.UTF-8, for one)\n"
    )
    assert not db.exists()

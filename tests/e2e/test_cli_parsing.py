"""How every command reads its flags: numbers within their bounds, one line per mistake."""

from __future__ import annotations

import argparse
import errno
import io
import sys

import pytest

from zoea_tui.cli import _parser
from zoea_tui.cli_parsing import (
    SQLITE_INT_MAX,
    OneLineParser,
    OutputError,
    emit_json,
    fit_streams,
    flush_output,
    holds_unicode,
    int_flag,
    say,
    seed_flag,
    text_flag,
    written,
)


def test_a_number_flag_takes_both_of_its_bounds_and_nothing_beyond() -> None:
    flag = int_flag(1, 16)
    assert flag("1") == 1 and flag("16") == 16 and flag(" 7 ") == 7
    for text, words in (
        ("0", "expected a number from 1 to 16, got 0"),
        ("17", "expected a number from 1 to 16, got 17"),
        ("four", "expected a whole number, got 'four'"),
        ("1.5", "expected a whole number, got '1.5'"),
    ):
        with pytest.raises(argparse.ArgumentTypeError, match=words):
            flag(text)
    assert seed_flag("0") == 0 and seed_flag(str(SQLITE_INT_MAX)) == SQLITE_INT_MAX
    with pytest.raises(argparse.ArgumentTypeError):
        seed_flag(str(SQLITE_INT_MAX + 1))


def test_unknown_flags_are_named_together_in_one_line(capsys: pytest.CaptureFixture[str]):
    parser = OneLineParser(prog="zoea replay")
    parser.add_argument("--db")
    with pytest.raises(SystemExit) as caught:
        parser.parse_args(["--db", "x.db", "--fast", "--loud"])
    assert caught.value.code == 2
    assert capsys.readouterr().err == "zoea replay: unrecognized arguments: --fast --loud\n"


def test_a_line_is_said_with_its_controls_escaped_and_no_secret(
    capsys: pytest.CaptureFixture[str],
) -> None:
    say('model said \x1b]0;title\x07 {"password": "hunter22"}')
    out = capsys.readouterr().out
    assert out == 'model said \\x1b]0;title\\x07 {"password": "[password stored by Zoea Nova]"}\n'


def test_a_world_seed_is_0_unless_given() -> None:
    parser = _parser()
    for args in (["simulate"], ["sim", "serve"], ["arena", "--scenario", "s1"]):
        assert parser.parse_args(args).seed == 0, args
    assert parser.parse_args(["simulate", "--seed", "9"]).seed == 9


class _Refusing(io.StringIO):
    def __init__(self, error: OSError) -> None:
        super().__init__()
        self.error = error
        self.name = "report.txt"

    def write(self, text: str) -> int:
        raise self.error


def test_a_write_that_fails_is_an_output_error_naming_why_and_a_gone_reader_is_not() -> None:
    full = _Refusing(OSError(errno.ENOSPC, "No space left on device"))
    with pytest.raises(OutputError) as caught:
        written(full, "x")
    assert str(caught.value) == (
        "cannot write to report.txt: No space left on device; "
        "free some space or send the output elsewhere"
    )
    with pytest.raises(BrokenPipeError):
        written(_Refusing(BrokenPipeError(errno.EPIPE, "Broken pipe")), "x")
    with pytest.raises(OutputError) as caught:
        written(None, "x")
    assert str(caught.value) == (
        "cannot write to standard output: it is closed; nothing was done "
        "(run the command with its output open)"
    )


def test_standard_output_is_named_as_such_and_a_nameless_stream_as_the_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    full = OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(sys, "stdout", _Refusing(full))
    with pytest.raises(OutputError) as caught:
        say("hello")
    assert str(caught.value).startswith("cannot write to standard output: No space left")

    class Nameless(io.TextIOBase):
        def write(self, text: str) -> int:
            raise full

    with pytest.raises(OutputError) as caught:
        written(Nameless(), "x")
    assert str(caught.value).startswith("cannot write to the output: No space left")


class _FailingFlush(io.StringIO):
    def flush(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_flush_says_a_failure_and_is_quiet_without_an_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdout", _FailingFlush())
    with pytest.raises(OutputError, match=r"^cannot write to standard output: No space"):
        flush_output()
    monkeypatch.setattr(sys, "stdout", None)
    flush_output()  # nothing was written: nothing to say


def _stream(encoding: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict")


def test_only_streams_that_cannot_hold_every_character_are_fitted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain, utf8 = _stream("ascii"), _stream("utf-8")
    for out, err in ((plain, utf8), (utf8, plain)):
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        out.reconfigure(errors="strict")
        err.reconfigure(errors="strict")
        fit_streams()
        assert (plain.errors, utf8.errors) == ("zoea-plain", "strict")
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # no reconfigure: left alone
    fit_streams()
    monkeypatch.setattr(sys, "stdout", None)  # closed (``>&-``): left for main to say
    fit_streams()
    plain.write("Mysis a · strategy → ≥ Ä\n──→Äé\n")
    plain.flush()
    assert plain.buffer.getvalue() == (  # type: ignore[attr-defined]
        b"Mysis a | strategy -> >= \\xc4\n--->\\xc4\\xe9\n"  # a run of several at once
    )


def test_a_stream_in_memory_holds_every_character_and_a_byte_stream_its_encodings() -> None:
    assert holds_unicode(io.StringIO())  # no encoding: characters are kept as they are
    assert holds_unicode(_stream("utf_8")) and holds_unicode(_stream("UTF-16"))
    assert not holds_unicode(_stream("ascii")) and not holds_unicode(_stream("latin-1"))
    assert not holds_unicode(_stream("cp1252"))


def test_json_goes_to_standard_output_unless_given_a_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    emit_json('{"ore": "Ä"}')
    assert out.getvalue() == '{"ore": "Ä"}\n'
    other = io.StringIO()
    emit_json("[]", other)
    assert (out.getvalue(), other.getvalue()) == ('{"ore": "Ä"}\n', "[]\n")
    plain = _stream("ascii")
    emit_json('{"ore": "Ä🚀"}', plain)
    plain.flush()
    assert plain.buffer.getvalue() == b'{"ore": "\\u00c4\\ud83d\\ude80"}\n'  # type: ignore[attr-defined]


def test_a_text_flag_takes_any_text_and_refuses_bytes_the_locale_could_not_read() -> None:
    assert text_flag("Jürgen 🚀") == "Jürgen 🚀"
    undecoded = b"J\xc3\xbcrgen".decode("ascii", "surrogateescape")
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        text_flag(undecoded)
    assert str(caught.value).startswith("b'J\\xc3\\xbcrgen' is not text in the locale's encoding")

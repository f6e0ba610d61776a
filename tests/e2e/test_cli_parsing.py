"""How every command reads its flags: numbers within their bounds, one line per mistake."""

from __future__ import annotations

import argparse
import errno
import io

import pytest

from zoea_tui.cli import _parser
from zoea_tui.cli_parsing import (
    SQLITE_INT_MAX,
    OneLineParser,
    OutputError,
    int_flag,
    say,
    seed_flag,
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
    with pytest.raises(OutputError, match="it is closed; nothing was done"):
        written(None, "x")

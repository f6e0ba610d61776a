"""How every command reads its flags: numbers within their bounds, one line per mistake."""

from __future__ import annotations

import argparse

import pytest

from zoea_tui.cli import _parser
from zoea_tui.cli_parsing import SQLITE_INT_MAX, OneLineParser, int_flag, say, seed_flag


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

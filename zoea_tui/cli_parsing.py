"""How every ``zoea`` command reads its flags: one line for a mistake, exit 2.

argparse prints its usage and then the error (two lines and more); every command of
``zoea`` says a bad flag in one line instead, ``zoea CMD: what is wrong``, like every
other refusal (docs/ARCHITECTURE.md, 'Command line'). Number flags refuse values the
program and SQLite cannot hold.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TextIO

from .core.redaction import mask_text
from .core.terminal_text import escaped


class UsageError(Exception):
    """Bad input from the user: ``zoea`` reports it on one line, exit code 2."""


def add_config_flag(parser: argparse.ArgumentParser) -> None:
    """A command's own ``--config FILE``. Unset, it leaves the namespace alone, so a
    ``zoea --config FILE`` given before the command is not reset to None."""
    parser.add_argument(
        "--config", type=Path, default=argparse.SUPPRESS, help="configuration file (TOML)"
    )


#: The largest integer SQLite stores (a signed 64-bit INTEGER).
SQLITE_INT_MAX = 2**63 - 1


class OneLineParser(argparse.ArgumentParser):
    """Reports a bad flag on one line (``zoea CMD: …``) and exits 2."""

    def error(self, message: str) -> NoReturn:
        say(f"{self.prog}: {message}", sys.stderr)
        raise SystemExit(2)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        # A subcommand reports its own unknown flags (the top level would print usage).
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def int_flag(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``lo`` to ``hi``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected a number from {lo} to {hi}, got {value}")
        return value

    parse.__name__ = "int"
    return parse


#: A world seed: any integer SQLite can store, from 0.
seed_flag = int_flag(0, SQLITE_INT_MAX)


def say(text: str, out: TextIO | None = None) -> None:
    """Print a human-readable line of a command: model, tool and user text in it shows
    its control characters escaped, whether or not ``out`` is a terminal, and no
    secret's value (``--json`` output never comes here: it stays exact)."""
    print(mask_text(escaped(text)), file=out if out is not None else sys.stdout)

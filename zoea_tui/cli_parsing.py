"""How every ``zoea`` command reads its flags: one line for a mistake, exit 2.

argparse prints its usage and then the error (two lines and more); every command of
``zoea`` says a bad flag in one line instead, ``zoea CMD: what is wrong``, like every
other refusal (docs/ARCHITECTURE.md, 'Command line'). Number flags refuse values the
program and SQLite cannot hold.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, TextIO

from .core.redaction import mask_text
from .core.terminal_text import escaped, json_escaped


class UsageError(Exception):
    """Bad input from the user: ``zoea`` reports it on one line, exit code 2."""


class OutputError(Exception):
    """A command's output could not be written (a full disk, a closed stream): one line,
    exit 2. A reader that went away (``BrokenPipeError``) is no error of the command's."""


#: What a standard output closed before the command began (``>&-``) gets said.
_CLOSED = (
    "cannot write to standard output: it is closed; nothing was done "
    "(run the command with its output open)"
)


def require_output() -> None:
    """Refuse, before any work, a standard output Python found closed when it started:
    nothing the command did could be said."""
    if sys.stdout is None:
        raise OutputError(_CLOSED)


def written(out: TextIO | None, text: str) -> None:
    """``out.write(text)``; a failure other than a reader gone is an :class:`OutputError`
    (``out`` None: a standard output found closed)."""
    if out is None:
        raise OutputError(_CLOSED)
    with _writing_to(out):
        out.write(text)


def flush_output() -> None:
    """Write what standard output still buffers, so a failure shows while it can be said."""
    if sys.stdout is None:
        return  # nothing was written to it: had anything been, it was said
    with _writing_to(sys.stdout):
        sys.stdout.flush()


@contextlib.contextmanager
def _writing_to(out: TextIO) -> Iterator[None]:
    """A write's ``OSError`` as the command's one-line :class:`OutputError`; a reader that
    went away (``BrokenPipeError``) goes on to ``main``, which ends quietly."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        where = "standard output" if out is sys.stdout else getattr(out, "name", "the output")
        raise OutputError(
            f"cannot write to {where}: {exc.strerror or exc}; "
            "free some space or send the output elsewhere"
        ) from None


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


def text_flag(text: str) -> str:
    """An argparse ``type``: text, not bytes the locale could not read. Python keeps such
    bytes as lone surrogates, which neither SQLite nor a UTF-8 file takes (a name typed
    in UTF-8 under an ASCII locale ended ``import`` with "surrogates not allowed")."""
    if any("\udc80" <= c <= "\udcff" for c in text):
        raise argparse.ArgumentTypeError(
            f"{text.encode('utf-8', 'surrogateescape')!r} is not text in the locale's "
            f"encoding ({sys.getfilesystemencoding()}); start zoea in a UTF-8 locale "
            "(LANG=C.UTF-8, for one)"
        )
    return text


#: A world seed: any integer SQLite can store, from 0.
seed_flag = int_flag(0, SQLITE_INT_MAX)


#: The command line's own typography, in ASCII for a locale that cannot show it.
_PLAIN = str.maketrans({"·": "|", "─": "-", "→": "->", "≥": ">=", "≤": "<=", "×": "x", "…": "..."})


def _plain_or_escaped(error: UnicodeError) -> tuple[str, int]:
    """A codec error handler: ``_PLAIN``'s ASCII for our symbols, an escape for the rest."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    shown = [
        plain if (plain := c.translate(_PLAIN)) != c else ascii(c)[1:-1]
        for c in error.object[error.start : error.end]
    ]
    return "".join(shown), error.end


codecs.register_error("zoea-plain", _plain_or_escaped)


def fit_streams() -> None:
    """Let standard output and error hold any text in any locale: where their encoding
    cannot write a character (an ASCII or Latin-1 locale), the command line's own
    symbols are written in ASCII (``·`` as ``|``, ``→`` as ``->``) and any other
    character as its escape (``\\xc4``), instead of the command ending with
    ``UnicodeEncodeError``."""
    for stream in (sys.stdout, sys.stderr):
        if not holds_unicode(stream) and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="zoea-plain")


def holds_unicode(stream: TextIO) -> bool:
    """Whether ``stream`` writes every character as itself: a UTF encoding, or none at
    all (a text stream in memory)."""
    encoding = getattr(stream, "encoding", None)
    return encoding is None or codecs.lookup(encoding).name.startswith("utf")


def emit_json(text: str, out: TextIO | None = None) -> None:
    """Write a JSON document (and a newline), exact in any locale and unable to steer a
    terminal: a character that could (a control, a bidirectional override), and where
    the output's encoding cannot hold a character, that one too, is written as JSON's
    ``\\u`` escape (what ``ensure_ascii`` does), which reads back as the same character."""
    out = out if out is not None else sys.stdout
    written(out, json_escaped(text, ascii_only=not holds_unicode(out)) + "\n")


def say(text: str, out: TextIO | None = None) -> None:
    """Print a human-readable line of a command: model, tool and user text in it shows
    its control characters escaped, whether or not ``out`` is a terminal, and no
    secret's value (``--json`` output never comes here: it stays exact)."""
    written(out if out is not None else sys.stdout, mask_text(escaped(text)) + "\n")


def look_at_database(path: Path, *, writes: bool = True) -> int:
    """The schema version of the database at ``path`` (0: none yet), looked at before a
    command opens or creates anything, without writing a byte: a file that is not Zoea's,
    is damaged or newer is refused in one line (:class:`StoreError`). A command that
    ``writes`` refuses a zero-byte file too (opening it would make it a new database,
    176 KB of schema, over a file that was perhaps meant to be another; a reader finds
    nothing to read in it, version 0) and reads every page first (damaged pages found
    before it begins, not halfway); a reader meets them as it reads, and writes
    nothing."""
    from .storage.migrations import latest_version
    from .storage.preflight import examine  # a refusal is a one-line StoreError

    version = examine(path, latest_version(), pages=writes)
    if writes and version == 0 and path.is_file() and path.stat().st_size == 0:
        raise UsageError(
            f"{path} holds no Zoea database (it is empty): it was left untouched; remove it "
            "to begin a new database there, or choose another file with --db"
        )
    return version


def writable_folder(folder: Path, *, advice: str) -> None:
    """Refuse, in one line ending with ``advice``, a ``folder`` zoea could not make or
    write in (its nearest existing ancestor a file, or not writable), before anything is
    made in it."""
    import os

    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        reason = f"{existing} is a file, not a folder"
    elif existing is None or not os.access(existing, os.W_OK | os.X_OK):
        reason = f"zoea cannot write in {existing}"
    else:
        return
    raise UsageError(f"cannot use the folder {folder}: {reason}; {advice}")


def look_at_world(path: Path) -> None:
    """Refuse a saved world at ``path`` that is not even a JSON object (a broken or empty
    file, an image), before anything is opened or created; the world's own load
    (``sim/host.py``) says the rest, and the app would say it only once on screen."""
    if not path.is_file():
        return
    try:
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict):
            raise ValueError("not a saved world")
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise UsageError(
            f"cannot load the world from {path}: {' '.join(str(reason).split())}; it was "
            "left untouched (move it away to begin a new world)"
        ) from None

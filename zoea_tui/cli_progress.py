"""How a long command shows its progress: on standard error, never on standard output.

``simulate``, ``replay``, ``arena`` and ``import`` can run for minutes. Each opens one
:class:`Progress` and tells it how far it is; standard output, which may be JSON a script
reads, never changes. On a terminal the progress is Rich's bar (it disappears when the
command ends, before the command's own lines); elsewhere (a pipe, a file, a CI log) it is
a plain line every few seconds, from a thread of its own, so that a command busy on the
event loop (``import`` checking a large file) is still heard from. A command that ends
within the interval says nothing.

``$ZOEA_PROGRESS_SECONDS`` sets the interval of the plain lines (default 5); ``0`` turns
the progress off, the bar too.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any, TextIO

from .cli_parsing import OutputError, UsageError, holds_unicode, say
from .core.durations import duration_text

ENV_INTERVAL = "ZOEA_PROGRESS_SECONDS"
#: Seconds between two plain lines when ``$ZOEA_PROGRESS_SECONDS`` is unset.
DEFAULT_INTERVAL = 5.0


def interval_setting(env: Mapping[str, str] = os.environ) -> float:
    """The seconds between two plain progress lines (0: no progress at all); a value that
    is not a number of seconds from 0 is a :class:`UsageError` naming the variable."""
    text = env.get(ENV_INTERVAL, "").strip()
    if not text:
        return DEFAULT_INTERVAL
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise UsageError(
            f"${ENV_INTERVAL} must be a number of seconds from 0 (0: no progress), got {text!r}"
        )
    return value


class Progress:
    """The progress of one command: ``done`` of ``total`` ``unit`` and a short note.

    Use it as a context manager around the work; :meth:`update` from the work (any
    thread). ``stream`` defaults to standard error as it is when the progress starts.
    """

    def __init__(
        self,
        command: str,
        total: int,
        unit: str,
        *,
        stream: TextIO | None = None,
        interval: float | None = None,
    ) -> None:
        self.command = command
        self.unit = unit
        self._stream = stream
        self._interval = interval_setting() if interval is None else interval
        # One tuple, replaced whole: the plain lines' thread reads it without a lock.
        self._state: tuple[float, int, str] = (0.0, max(0, total), "")
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bar: Any = None  # rich.progress.Progress on a terminal
        self._bar_task: Any = None

    # -- what the work says -------------------------------------------------------------

    def update(self, done: float, *, total: int | None = None, note: str | None = None) -> None:
        """``done`` of the total so far (a fraction counts: a run half played is 0.5);
        ``total`` changes the total (known only once a file is read), ``note`` the note."""
        _, old_total, old_note = self._state
        total = old_total if total is None else max(0, total)
        note = old_note if note is None else note
        self._state = (min(max(0.0, done), float(total)), total, note)
        if self._bar is not None:
            self._bar.update(
                self._bar_task, completed=self._state[0], total=total or None, note=note
            )

    def line(self) -> str:
        """The plain line of the progress now, e.g. ``zoea simulate: 120/200 turns (60 %)
        · 1 min 02 s, about 41 s left · 3 512 requests``."""
        done, total, note = self._state
        elapsed = time.monotonic() - self._started
        parts = []
        if total:  # none yet: how far it is cannot be said, only how long it has run
            parts.append(f"{int(done):,}/{total:,} {self.unit} ({100 * done / total:.0f} %)")
        timing = duration_text(elapsed)
        if 0 < done < total:
            timing += f", about {duration_text(elapsed * (total - done) / done)} left"
        parts.append(timing)
        if note:
            parts.append(note)
        return f"zoea {self.command}: " + " · ".join(parts)

    # -- showing it ---------------------------------------------------------------------

    def __enter__(self) -> Progress:
        if self._interval <= 0:
            return self
        stream = self._stream if self._stream is not None else sys.stderr
        self._stream = stream
        if stream is None:
            return self
        if _is_terminal(stream) and holds_unicode(stream):
            self._start_bar(stream)
        else:
            self._thread = threading.Thread(
                target=self._tick, name=f"zoea-{self.command}-progress", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._bar is not None:
            self._bar.stop()  # transient: the bar leaves no line behind
            self._bar = None

    def _start_bar(self, stream: TextIO) -> None:
        # Rich only here, and only on a terminal: the engine never imports it, and a
        # command writing to a pipe does not pay for the import.
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as Bar

        self._bar = Bar(
            TextColumn(f"zoea {self.command}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(self.unit),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
            console=Console(file=stream),
            transient=True,
            # The command's own lines on standard error go above the bar; standard
            # output is left alone (it may be JSON, or a file).
            redirect_stdout=False,
            redirect_stderr=True,
        )
        done, total, note = self._state
        self._bar_task = self._bar.add_task("", total=total or None, completed=done, note=note)
        self._bar.start()

    def _tick(self) -> None:
        """Every interval, the plain line; a standard error that cannot be written any
        more ends the lines, not the command."""
        while not self._stop.wait(self._interval):
            try:
                say(self.line(), self._stream)
                if self._stream is not None:
                    self._stream.flush()
            except (OSError, OutputError, ValueError):
                return


def _is_terminal(stream: TextIO) -> bool:
    """A terminal that draws a bar (``TERM=dumb`` gets the plain lines)."""
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False

"""How a long command shows its progress: on standard error, never on standard output.

``simulate``, ``replay``, ``arena`` and ``import`` can run for minutes. Each opens one
:class:`Progress` and tells it how far it is; standard output, which may be JSON a script
reads, never changes. On a terminal the progress is one line with a bar, redrawn in
place (``\r``) a few times a second, the command's own lines on standard error printed
above it, and erased when the command ends, before the command's own lines; elsewhere (a
pipe, a file, a CI log) it is a plain line every few seconds. Both come from a thread of
their own, so that a command busy on the event loop (``import`` checking a large file) is
still heard from. A command that ends within the interval says nothing.

``$ZOEA_PROGRESS_SECONDS`` sets the interval of the plain lines (default 5); ``0`` turns
the progress off, the bar too.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Mapping
from types import TracebackType
from typing import TextIO, cast

from .cli_parsing import OutputError, UsageError, holds_unicode, say
from .core.durations import duration_text

ENV_INTERVAL = "ZOEA_PROGRESS_SECONDS"
#: Seconds between two plain lines when ``$ZOEA_PROGRESS_SECONDS`` is unset.
DEFAULT_INTERVAL = 5.0
#: Seconds between two draws of the terminal's line.
REDRAW_SECONDS = 0.2
#: The bar's width in characters and its glyph: bright where done, faint (SGR 2) where
#: still to do.
BAR_WIDTH = 24
BAR = "━"
FAINT, NORMAL = "\x1b[2m", "\x1b[22m"
#: Back to the line's start and erase it (the terminal's line is drawn over itself).
ERASE = "\r\x1b[K"


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
        #: On a terminal: the standard error the command had, while its lines go above ours.
        self._terminal: _AboveTheLine | None = None

    # -- what the work says -------------------------------------------------------------

    def update(self, done: float, *, total: int | None = None, note: str | None = None) -> None:
        """``done`` of the total so far (a fraction counts: a run half played is 0.5);
        ``total`` changes the total (known only once a file is read), ``note`` the note."""
        _, old_total, old_note = self._state
        total = old_total if total is None else max(0, total)
        note = old_note if note is None else note
        self._state = (min(max(0.0, done), float(total)), total, note)
        if self._terminal is not None and total != old_total:
            self._terminal.draw()  # the bar's scale is known now: at once, not at the next draw

    def line(self) -> str:
        """The plain line of the progress now, e.g. ``zoea simulate: 120/200 turns (60 %)
        · 1 min 02 s, about 41 s left · 3 512 requests``."""
        return f"zoea {self.command}: " + self._figures()

    def bar_line(self, width: int) -> str:
        """The terminal's line now, at most ``width`` characters shown: the plain line's
        figures after a bar (``zoea replay ━━━━━━━━━━━━ 120/200 requests (60 %) · …``, the
        part still to do faint); while the total is unknown, how many so far in its place."""
        done, total, _ = self._state
        head = f"zoea {self.command} "
        if not total:
            return f"{head}{int(done):,} {self.unit} · {self._figures()}"[: max(width, 1)]
        filled = round(BAR_WIDTH * done / total)
        line = f"{head}{BAR * BAR_WIDTH} {self._figures()}"[: max(width, 1)]
        start = len(head) + filled
        if len(line) <= start:
            return line
        end = min(len(line), len(head) + BAR_WIDTH)
        return line[:start] + FAINT + line[start:end] + NORMAL + line[end:]

    def _figures(self) -> str:
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
        return " · ".join(parts)

    # -- showing it ---------------------------------------------------------------------

    def __enter__(self) -> Progress:
        if self._interval <= 0:
            return self
        stream = self._stream if self._stream is not None else sys.stderr
        self._stream = stream
        if stream is None:
            return self
        tick = self._tick
        if _is_terminal(stream) and holds_unicode(stream):
            self._terminal = _AboveTheLine(stream, self)
            if sys.stderr is stream:  # the command's own lines go above the progress
                sys.stderr = cast(TextIO, self._terminal)
            tick = self._terminal.redraw_until
        self._thread = threading.Thread(
            target=tick, args=(self._stop,), name=f"zoea-{self.command}-progress", daemon=True
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
        if self._terminal is not None:
            if sys.stderr is cast(TextIO, self._terminal):
                sys.stderr = self._terminal.stream
            self._terminal.erase()  # the line leaves nothing behind
            self._terminal = None

    def _tick(self, stop: threading.Event) -> None:
        """Every interval, the plain line; a standard error that cannot be written any
        more ends the lines, not the command."""
        while not stop.wait(self._interval):
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


class _AboveTheLine:
    """A terminal's standard error with the progress line at its bottom: the line is
    redrawn in place, and what the command writes goes above it (the line erased, the
    text written, the line drawn again once the text ends a line)."""

    def __init__(self, stream: TextIO, progress: Progress) -> None:
        self.stream = stream
        self._progress = progress
        self._lock = threading.Lock()
        self._drawn = False
        #: The command's last text did not end its line: no drawing into it.
        self._midline = False
        self._broken = False

    def redraw_until(self, stop: threading.Event) -> None:
        """Draw the line now and every :data:`REDRAW_SECONDS` until ``stop``."""
        self.draw()
        while not stop.wait(REDRAW_SECONDS):
            self.draw()

    def erase(self) -> None:
        """Take the line away (the command ends)."""
        with self._lock:
            if self._drawn:
                self._put(ERASE)
                self._drawn = False

    def draw(self) -> None:
        """Draw the line as the progress is now."""
        with self._lock:
            if self._midline:
                return
            self._put(ERASE + self._progress.bar_line(_columns(self.stream) - 1))
            self._drawn = True

    def _put(self, text: str) -> None:
        """Write to the terminal; one that cannot be written any more ends the line, not
        the command."""
        if self._broken:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self._broken = True

    # -- the text stream the command writes its own lines to ---------------------------

    def write(self, text: str) -> int:
        """The command's text, above the line."""
        with self._lock:
            if self._drawn:
                self._put(ERASE)
                self._drawn = False
            written = self.stream.write(text)
            if text:
                self._midline = not text.endswith("\n")
        self.draw()
        return written

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self.stream, name)  # encoding, isatty, fileno …


def _columns(stream: TextIO) -> int:
    """The terminal's width (``$COLUMNS`` or 80 where it says none)."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        columns = 0
    return columns or shutil.get_terminal_size().columns

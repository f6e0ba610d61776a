"""Marks for benchmarks: when a key's whole effect is on screen, and how late the loop runs.

Off unless ``ZOEA_FRAME_MARKS`` names a file or FIFO (``bench/ui.py`` makes one and runs
the real app in tmux). Then the app writes tab-separated lines to it:

- ``first <t>``: the first frame was painted;
- ``mark <t> <screen> <mysis> <cpu> <state>``: after a key, once a frame is painted with no
  finite worker left (compositions, database pages, searches) and no widget of the screen
  with a message left to handle, and a moment later still none: the key's whole effect
  is on screen. ``t`` is the end of that frame when nothing was asked to be repainted
  since, else the end of the next frame.
  ``cpu`` is the CPU time (ms) the app's process used from the key to the mark (all its
  threads: the swarm's work in that time too), a figure the machine's other load hardly
  changes; ``state`` is the screen's ``bench_state`` when it has one (a screen may say
  which page or how many search hits it shows);
- ``lag <t> <samples> <ms> <ms> …``: once a second, how many 5 ms probes ran and the
  lateness of each that woke more than 5 ms late.

Times are ``time.monotonic()``, the clock the benchmark reads too.

Instrumentation, not an override: it reads Textual's private repaint flags
(:func:`repaint_pending`) and changes nothing, so it runs with the overrides on or off and
``bench/ui.py`` measures both. Buys: every figure of ``bench/ui.py``. Checked on Textual 8.2.8.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from ..worker_groups import NOT_A_KEYS_EFFECT

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

ENV = "ZOEA_FRAME_MARKS"
#: How often a pending mark looks again while workers run.
RECHECK_S = 0.002
#: How often an unmarked key is looked at again in any case.
RESCUE_S = 0.1
PROBE_S = 0.005
#: A probe waking later than this is reported.
LATE_S = 0.005


def repaint_pending(screen: Screen[Any]) -> bool:
    """True while a repaint or a layout of ``screen`` is asked for and not yet painted.

    Read from Textual's own flags (Textual is pinned): a widget holds its request until
    it is idle, then hands it to its screen, which paints it at its next frame.
    """
    if (
        screen._dirty_widgets
        or screen._layout_required
        or screen._repaint_required
        or screen._scroll_required
    ):
        return True
    return any(
        node._repaint_required or node._layout_required or node._scroll_required
        for node in screen.walk_children(Widget)
    )


class FrameMarks:
    """Writes the marks of one app run to a file descriptor (never blocks the app)."""

    def __init__(self, app: App[Any], fd: int) -> None:
        self.app = app
        self._fd = fd
        #: The newest key, and the newest key marked.
        self._key = 0
        self._marked = 0
        #: The process's CPU time when the newest key arrived.
        self._key_cpu = 0.0
        self._probe: asyncio.Task[None] | None = None

    @classmethod
    def from_env(cls, app: App[Any]) -> FrameMarks | None:
        """Marks to the file named by ``ZOEA_FRAME_MARKS``, or None when it is not set."""
        path = os.environ.get(ENV)
        if not path:
            return None
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK)
        return cls(app, fd)

    def start(self) -> None:
        """Mark the first frame and start the loop probe."""
        self.app.call_after_refresh(self._write, "first", f"{time.monotonic():.6f}")
        self._probe = asyncio.create_task(self._lag_probe(), name="frame-marks-probe")

    def close(self) -> None:
        """Stop probing and close the file."""
        if self._probe is not None:
            self._probe.cancel()
        with contextlib.suppress(OSError):
            os.close(self._fd)

    def poke(self) -> None:
        """A key arrived: mark when its effect is complete and painted."""
        self._key += 1
        self._key_cpu = time.process_time()
        self._schedule(self._key)
        self.app.set_timer(RESCUE_S, partial(self._rescue, self._key))

    def _schedule(self, key: int) -> None:
        if key == self._key and self._marked < key:
            screen = self.app.screen
            screen.call_after_refresh(self._check, screen, key)

    def _rescue(self, key: int) -> None:
        """Look again while the key is unmarked: a screen popped before it repainted
        drops the callbacks it was holding."""
        if key == self._key and self._marked < key:
            self._schedule(key)
            self.app.set_timer(RESCUE_S, partial(self._rescue, key))

    def _busy(self, screen: Screen[Any]) -> bool:
        """Workers still running, or messages the screen's widgets have not handled yet
        (a key's effect may still be on its way, e.g. a selection message to the screen)."""
        if any(not w.is_finished and w.group not in NOT_A_KEYS_EFFECT for w in self.app.workers):
            return True
        return screen.message_queue_size > 0 or any(
            node.message_queue_size > 0 for node in screen.walk_children()
        )

    def _check(self, screen: Screen[Any], key: int, confirmed: bool = False) -> None:
        """Runs after a frame is painted."""
        if key != self._key or self._marked >= key:
            return  # a newer key, or already marked
        if screen is not self.app.screen:
            self._schedule(key)  # the key changed the screen: wait for the new one's frame
            return
        if self._busy(screen):
            self.app.set_timer(RECHECK_S, partial(self._schedule, key))
            return
        if not confirmed:
            # A message bubbling from one widget to the next is in no queue for an instant
            # (a pane's "open" on its way to the dashboard): look again a moment later.
            self.app.set_timer(RECHECK_S, partial(self._confirm, screen, key, time.monotonic()))
            return
        self._mark(screen, key, time.monotonic())

    def _confirm(self, screen: Screen[Any], key: int, painted: float) -> None:
        """A moment after the frame that ended at ``painted``, with nothing left to do then."""
        if key != self._key or self._marked >= key:
            return
        if screen is not self.app.screen or self._busy(screen):
            self._schedule(key)
            return
        if not repaint_pending(screen):
            self._mark(screen, key, painted)  # nothing came since: that frame showed it all
            return
        # Something asked for a repaint since (the key's last effect, or the swarm's):
        # the frame that paints it ends the key.
        screen.call_after_refresh(self._check, screen, key, True)

    def _mark(self, screen: Screen[Any], key: int, at: float) -> None:
        self._marked = key
        mysis = getattr(screen, "current_mysis_id", None)
        state = str(getattr(screen, "bench_state", "") or "")
        self._write(
            "mark",
            f"{at:.6f}",
            type(screen).__name__,
            "" if mysis is None else str(mysis),
            f"{(time.process_time() - self._key_cpu) * 1000:.1f}",
            state.replace("\t", " "),
        )

    async def _lag_probe(self) -> None:
        next_report = time.monotonic() + 1.0
        samples, late = 0, []
        while True:
            start = time.monotonic()
            await asyncio.sleep(PROBE_S)
            lag = time.monotonic() - start - PROBE_S
            samples += 1
            if lag > LATE_S:
                late.append(f"{lag * 1000:.1f}")
            if time.monotonic() >= next_report:
                self._write("lag", f"{time.monotonic():.6f}", str(samples), *late)
                samples, late = 0, []
                next_report += 1.0

    def _write(self, *fields: str) -> None:
        with contextlib.suppress(OSError):  # a full or closed pipe loses a mark, never a frame
            os.write(self._fd, ("\t".join(fields) + "\n").encode())

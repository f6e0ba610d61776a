"""Frame marks: a key is marked at the frame that showed its whole effect."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Static

from zoea_tui.ui.textual_compat.frame_marks import FrameMarks, repaint_pending
from zoea_tui.ui.worker_groups import AHEAD_GROUP


class Tiny(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("x")


def last_mark(path: Path) -> list[str]:
    lines = [line.split("\t") for line in path.read_text().splitlines()]
    return [fields for fields in lines if fields[0] == "mark"][-1]


async def test_a_key_ends_at_its_frame_unless_a_repaint_was_asked_for_since(
    tmp_path: Path,
) -> None:
    path = tmp_path / "marks"
    app = Tiny()
    async with app.run_test() as pilot:
        await pilot.pause()
        marks = FrameMarks(app, os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND))
        screen = app.screen
        assert not repaint_pending(screen)
        marks._key = 1
        marks._confirm(screen, 1, painted=1.0)  # nothing pending: that frame's end
        assert float(last_mark(path)[1]) == 1.0
        marks._key = 2
        app.query_one(Static).refresh()  # asked for after the frame: it may be the key's
        assert repaint_pending(screen)
        marks._confirm(screen, 2, painted=2.0)
        assert float(last_mark(path)[1]) == 1.0  # not marked yet
        await pilot.pause()
        assert float(last_mark(path)[1]) > 2.0 and not repaint_pending(screen)
        marks.close()


async def test_a_key_waits_for_the_work_it_started_not_for_work_done_ahead_of_keys(
    tmp_path: Path,
) -> None:
    app = Tiny()
    async with app.run_test() as pilot:
        await pilot.pause()
        marks = FrameMarks(app, os.open(tmp_path / "marks", os.O_WRONLY | os.O_CREAT))
        release = asyncio.Event()
        ahead = app.run_worker(release.wait(), group=AHEAD_GROUP)
        await pilot.pause()
        assert not marks._busy(app.screen)  # read ahead: part of no key's effect
        page = app.run_worker(release.wait(), group="focus-page")
        await pilot.pause()
        assert marks._busy(app.screen)  # a page read a key asked for
        release.set()
        await ahead.wait()
        await page.wait()
        assert not marks._busy(app.screen)
        marks.close()

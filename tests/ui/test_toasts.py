"""Toasts: above the status bar and the keys, never over them."""

from __future__ import annotations

from pathlib import Path

import pytest

from zoea_tui.config import Config
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.widgets.key_bar import KeyBar
from zoea_tui.ui.widgets.status_bar import StatusBar

from .helpers import opener, settle, wait_for


@pytest.mark.parametrize("view", ["dashboard", "focus"])
async def test_a_toast_never_covers_the_status_bar_or_the_keys(
    seeded_db: Path, still_config: Config, view: str
) -> None:
    """Issue 40: toasts covered the status bar and left a stray "6" of "3/16"."""
    app = ZoeaApp(opener(still_config, seeded_db))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        if view == "focus":
            await pilot.press("enter")
            await settle(pilot)
        app.say("Ada: unreachable: Could not reach http://127.0.0.1:9/v1/models " * 2, "error")
        app.say("Brin: a second word, so that two toasts stack", "warning")
        await wait_for(pilot, lambda: len(app.screen.query("Toast")) == 2, what="the toasts")
        await pilot.pause()
        status = app.screen.query_one(StatusBar).region
        keys = app.screen.query_one(KeyBar).region
        for toast in app.screen.query("Toast"):
            assert toast.region.bottom <= status.y, (toast.region, status)
            assert not toast.region.overlaps(keys)

"""Pilot test: the status bar's tick follows the world while no Mysis acts."""

from __future__ import annotations

import re
from pathlib import Path

from zoea_tui.config import Config
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.widgets.status_bar import StatusBar

from .helpers import settle, wait_for


def shown_tick(app: ZoeaApp) -> int | None:
    """The tick the dashboard's status bar shows (None for "T-")."""
    found = re.search(r"\bT(\d+)\b", app.screen.query_one(StatusBar).text().plain)
    return int(found.group(1)) if found else None


async def test_the_tick_stays_live_while_no_mysis_acts_and_stamps_a_broadcast(
    tmp_path: Path, fast_config: Config
) -> None:
    """Issue 40: the status bar's tick stopped while every Mysis waited (it moved only
    with game results). Here no Mysis runs at all: the tick still follows the world,
    and a broadcast sent then is stamped with it."""
    commander = await Commander.open(fast_config, db_path=tmp_path / "zoea.db", autostart=False)
    app = ZoeaApp(commander)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: (shown_tick(app) or 0) >= 3, what="a live tick")
            first = shown_tick(app)
            assert first is not None
            await wait_for(pilot, lambda: (shown_tick(app) or 0) >= first + 3, what="more ticks")
            await pilot.press("b", *"hold", "enter")
            while not await commander.broadcasts():
                await pilot.pause(0.05)
            sent = (await commander.broadcasts())[-1]
            assert sent.content == "hold"
            assert sent.game_tick is not None and sent.game_tick >= first + 3
            assert abs(sent.game_tick - (shown_tick(app) or 0)) <= 2
    finally:
        await commander.shutdown(timeout=0.5)

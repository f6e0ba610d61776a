"""SVG snapshots of the whole story: the paged conversation at memory #1 of a long
history, search hits, and the request inspector (fixed databases; nothing moves).

Review a changed picture in ``snapshot_report.html`` before accepting it with
``pytest tests/ui/test_story_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.pilot import Pilot

from zoea_tui.config import Config
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.search import SearchScreen

from .helpers import opener, settle, wait_for
from .story_helpers import seed_long, seed_requests

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.mark.parametrize("size", SIZES)
def test_paged_conversation_at_memory_one(
    snap_compare, tmp_path: Path, still_config: Config, utc_clock: None, size: tuple[int, int]
) -> None:
    db = tmp_path / "long.db"
    asyncio.run(seed_long(db, 5000))

    async def home(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("home")
        await settle(pilot)
        await pilot.pause(0.05)

    assert snap_compare(ZoeaApp(opener(still_config, db)), terminal_size=size, run_before=home)


@pytest.mark.parametrize("size", SIZES)
def test_search_hits(
    snap_compare, seeded_db: Path, still_config: Config, utc_clock: None, size: tuple[int, int]
) -> None:
    async def search(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("slash", *"iron")
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen)
        # Each key starts a search that cancels the one before: wait for the last one's hits.
        await wait_for(pilot, lambda: screen.shown_query == "iron", what="the hits for iron")
        await settle(pilot)

    assert snap_compare(
        ZoeaApp(opener(still_config, seeded_db)), terminal_size=size, run_before=search
    )


@pytest.mark.parametrize("size", SIZES)
def test_request_inspector(
    snap_compare, tmp_path: Path, still_config: Config, utc_clock: None, size: tuple[int, int]
) -> None:
    db = tmp_path / "requests.db"
    asyncio.run(seed_requests(db))

    async def inspect(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)

    assert snap_compare(ZoeaApp(opener(still_config, db)), terminal_size=size, run_before=inspect)

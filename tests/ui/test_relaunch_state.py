"""After a relaunch the panes show each Mysis's last known game state, read back from the
store and marked as from before the relaunch, until a fresh result comes (issue 40)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from zoea_tui.config import Config
from zoea_tui.game.state_cache import GameStateCache, StoredResult
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.ui.activity import facts_from_fields
from zoea_tui.ui.widgets.mysis_pane import RESTORED_MARK, MysisPane

from .helpers import seed, seeded_app, wait_for
from .test_panes import painted


def test_restore_replays_the_stored_results_in_order_and_skips_errors() -> None:
    cache = GameStateCache()
    cache.restore(
        "ada",
        [
            StoredResult("login", '{"player": {"username": "ada", "credits": 150}}', 11, 1.0),
            StoredResult("travel", '{"error": {"code": "cooldown", "message": "wait"}}', 12, 2.0),
            StoredResult("get_status", "not json", 12, 3.0),
            StoredResult("get_status", '{"player": {"credits": 420}}', 13, 4.0),
        ],
    )
    assert facts_from_fields(cache.state("ada")).credits == "420"
    assert cache.restored("ada")
    assert cache.summary("ada") == "", "the panes' alone: a request carries this run's state"
    cache.update("ada", "get_status", {"player": {"credits": 430}}, 20)
    assert not cache.restored("ada"), "a result of this run is no longer from before"
    assert facts_from_fields(cache.state("ada")).credits == "430"
    assert "- Credits: 430" in cache.summary("ada")


def test_nothing_usable_restores_nothing() -> None:
    cache = GameStateCache()
    cache.restore("ada", [StoredResult("travel", '{"error": "cooldown"}', 12, 2.0)])
    assert cache.state("ada") == {} and not cache.restored("ada")


async def test_a_relaunch_reads_back_the_state_the_swarm_had(
    tmp_path: Path, fast_config: Config
) -> None:
    """The autopilot plays on the embedded world; after a relaunch on the same database
    the commander holds the very facts it held before the quit, marked as restored."""
    db = tmp_path / "zoea.db"
    commander = await Commander.open(fast_config, db_path=db)
    try:
        first = commander.myses()[0].id
        deadline = time.monotonic() + 20
        while "credits" not in commander.game_fields(first):
            assert time.monotonic() < deadline, "no credits seen"
            await asyncio.sleep(0.1)
        # Stopped between calls, so what the cache holds is what the store holds.
        await commander.stop_mysis(first)
        before = commander.game_fields(first)
        assert not commander.game_state_restored(first)
    finally:
        await commander.shutdown(timeout=0.5)
    again = await Commander.open(fast_config, db_path=db, autostart=False)
    try:
        assert again.game_fields(first) == before
        assert again.game_state_restored(first)
        # The meter too: the last request's figures, as the request list shows them,
        # not 0 until this run's first request.
        newest = (await again.story.requests(first, limit=1))[0]
        shown = next(v for v in again.myses() if v.id == first).last_request
        assert shown == newest.tokens and shown.shown > 0
    finally:
        await again.shutdown(timeout=0.5)


async def test_the_pane_shows_the_last_known_state_after_a_relaunch(
    tmp_path: Path, still_config: Config
) -> None:
    """Issue 40: after a relaunch the panes said "no game state yet" until a fresh
    status came in, although the store held the last one."""
    db = tmp_path / "zoea.db"
    await seed(db)  # Ada logged in with 150 credits, then her travel was refused
    async with seeded_app(still_config, db, (200, 60)) as (pilot, app):
        pane = app.screen.query(MysisPane).first()
        await wait_for(pilot, lambda: "150" in painted(pane), what="Ada's credits")
        text = painted(pane)
        assert "¤ 150" in text and RESTORED_MARK in text
        assert "no game state yet" not in text

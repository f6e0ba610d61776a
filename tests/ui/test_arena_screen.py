"""The arena screen: reached with A, runs a scenario with a progress bar and the live
Mysis, ends on the results table, stores the batch and lists it; an SVG snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Label, ProgressBar, Select, Sparkline, Static

from zoea_tui.config import Config
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.arena import ArenaScreen
from zoea_tui.ui.screens.inspector import InspectorScreen
from zoea_tui.ui.widgets.conversation import ConversationLog

from .helpers import opener, seeded_app, settle, wait_for


async def test_arena_screen_plays_a_run_and_lists_it_among_past_runs(
    seeded_db: Path, still_config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ArenaScreen, "ticks", 15)
    async with seeded_app(still_config, seeded_db, (140, 40)) as (pilot, app):
        await pilot.press("A")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ArenaScreen)
        screen.query_one("#arena-budget", Select).value = "ticks"  # the whole 15 ticks
        screen.query_one("#arena-count", Select).value = 2  # seeds 0 and 1
        await pilot.press("ctrl+r")
        results = screen.query_one("#arena-results", DataTable)
        past = screen.query_one("#arena-past", DataTable)
        await wait_for(pilot, lambda: past.row_count == 1, what="the stored batch", timeout=60)
        assert results.row_count == 1
        row = results.get_row_at(0)
        played = str(past.get_row_at(0)[4])
        assert played == "budget ticks · world smbench · prompt arena · seeds 0–1 · 2 run(s)/cell"
        assert str(past.get_row_at(0)[5]) == "turn-aware partial: s1 " + row[2]
        status = screen.query_one("#arena-status", Label)
        composites = past.get_row_at(0)[5]
        assert str(status.render()) == f"Done · autopilot · {played} · {composites}"
        assert row[0] == "s1-bootstrap-grind" and row[1] == "turn-aware" and row[4] == "100%"
        assert str(row[6]).startswith("net ") and "unrecovered errors" in str(row[6])
        bar = screen.query_one(ProgressBar)
        assert bar.total == 15 and bar.progress == 15
        assert screen.query_one(ConversationLog).entries  # the live Mysis was shown
        assert app.commander is not None
        (batch,) = await app.commander.store.list_arena_batches()
        assert batch.provider == "autopilot" and batch.ticks == 15
        assert batch.report["budget"] == "ticks" and batch.report["runs"] == 2
        # The runs: their rows, their sparklines, and a whole conversation in the inspector.
        runs = screen.query_one("#arena-runs", DataTable)
        assert runs.row_count == 2
        assert [str(runs.get_row_at(i)[0]) for i in (0, 1)] == [
            "s1 turn-aware #0",
            "s1 turn-aware #1",
        ]
        runs.focus()
        await pilot.pause()
        tokens = screen.query_one("#arena-tokens", Sparkline)
        await wait_for(pilot, lambda: len(list(tokens.data or [])) > 0, what="the sparkline")
        label = str(screen.query_one("#arena-spark-label", Label).render())
        assert "tokens/request" in label and "prefix a cache can reuse" in label
        assert "s1 turn-aware" in str(screen.query_one("#arena-bars", Static).render())
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, InspectorScreen), what="the run's requests"
        )
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen) and inspector.story is not None
        await wait_for(pilot, lambda: len(inspector.requests) > 0, what="the requests")
        assert inspector.mysis_name.startswith("arena-s1")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to the arena")
        # Reopening the batch shows its results again.
        results.clear()
        past.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: results.row_count == 1, what="the reopened batch")
        assert str(status.render()) == f"Batch #{batch.id} · autopilot · {played} · {composites}"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ArenaScreen)


async def _arena(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("A")
    await settle(pilot)


def test_arena_snapshot(
    snap_compare, seeded_db: Path, still_config: Config, utc_clock: None
) -> None:
    app = ZoeaApp(opener(still_config, seeded_db))
    assert snap_compare(app, terminal_size=(120, 36), run_before=_arena)

"""One arena batch (``arena/batch.py``), as the arena screen plays it and ``zoea arena
--resume`` carries it on, on a real SQLite store; and the batches it refuses to resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from zoea_tui.arena.batch import Batch, BatchError, new_plan, planned_runs, resumed
from zoea_tui.config import load_config
from zoea_tui.storage import Store


async def test_a_batch_begun_by_the_screen_is_resumed_with_only_its_lost_runs(
    tmp_path: Path,
) -> None:
    config = load_config(None)
    plan = new_plan("s1", ["turn-aware"], runs=2, ticks=3, budget="ticks")
    assert planned_runs(plan) == 2
    async with await Store.open(tmp_path / "arena.db") as store:
        stored: list[tuple[int, int]] = []
        batch = await Batch.begin(store, config, plan, "autopilot")
        assert len(batch.todo) == 2 and batch.earlier == []
        played = await batch.play(
            on_stored=lambda run, cell, left, _: stored.append((run.seed, left))
        )
        assert (played.count, played.stopped) == (2, False)
        assert stored == [(0, 1), (1, 0)], "each run told once stored, with the runs left"
        assert played.report["plan"] == plan
        assert [r["metrics"]["seed"] for r in played.report["cells"][0]["runs"]] == [0, 1]

        await store.connection.execute("DELETE FROM arena_runs WHERE seed = 1")
        kept, kept_plan = await resumed(store, played.batch, store.path)
        assert (kept.provider, kept_plan) == ("autopilot", plan)
        again = await Batch.begin(store, config, kept_plan, kept.provider, batch=kept.id)
        assert [(s.id, st, seed) for s, st, seed in again.todo] == [
            ("s1-bootstrap-grind", "turn-aware", 1)
        ]
        replayed = await again.play()
        assert replayed.count == 1
        assert [r["metrics"]["seed"] for r in replayed.report["cells"][0]["runs"]] == [0, 1]
        assert replayed.report["actual"]["invocations"] == 2


async def test_resumed_refuses_a_batch_that_is_not_there_or_kept_no_plan(tmp_path: Path) -> None:
    async with await Store.open(tmp_path / "arena.db") as store:
        with pytest.raises(BatchError, match=r"^no arena batch #7 in here$"):
            await resumed(store, 7, "here")
        old = await store.begin_arena_batch("autopilot", 1, seed=0, ticks=None)
        await store.finish_arena_batch(old, {"cells": []})  # before batches kept a plan
        with pytest.raises(BatchError, match="played before batches kept their plan"):
            await resumed(store, old, "here")

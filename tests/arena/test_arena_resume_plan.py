"""``zoea arena --resume`` plays a batch as it was begun: ``--strategy all`` and
``--smbench`` come back from the stored plan, run in this process (``main([...])``) so
that mutation testing sees it (docs/MUTATION.md, the fourth run)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.arena.test_smbench_prompt import fake_checkout
from tests.cli_runner import in_process
from zoea_tui.arena.runner import ALL_STRATEGIES
from zoea_tui.config import load_config
from zoea_tui.storage import Store


def arena(capsys: pytest.CaptureFixture[str], *args: str | Path) -> dict:
    code, out, err = in_process(capsys, "arena", *args, "--json")
    assert (code, err) == (0, ""), err
    report: dict = json.loads(out)
    return report


async def _lose(db: Path, seed: int) -> None:
    async with await Store.open(db) as store:
        await store.connection.execute("DELETE FROM arena_runs WHERE seed = ?", (seed,))


def test_strategy_all_plays_every_strategy_and_a_resume_plays_them_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, out = tmp_path / "arena.db", tmp_path / "out"
    out.mkdir()  # --out may be a folder that already exists
    (out / "notes.txt").write_text("mine")
    flags = ("--scenario", "s1", "--provider", "autopilot", "--budget", "ticks")
    report = arena(capsys, *flags, "--strategy", "all", "--ticks", "3", "--db", db, "--out", out)
    assert report["plan"]["strategy"] == "all"
    assert [c["strategy"] for c in report["cells"]] == list(ALL_STRATEGIES)
    assert json.loads((out / "arena.json").read_text()) == report
    assert (out / "notes.txt").read_text() == "mine", "what was there is left"

    asyncio.run(_lose(db, 0))  # every strategy's run of seed 0
    resumed = arena(capsys, "--resume", "1", "--db", db)
    assert resumed["plan"]["strategy"] == "all"
    assert [c["strategy"] for c in resumed["cells"]] == list(ALL_STRATEGIES)
    assert resumed["actual"]["runs"] == len(ALL_STRATEGIES), "each strategy's lost run"


def test_a_resume_of_an_smbench_batch_reads_the_same_checkout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench, db = fake_checkout(tmp_path), tmp_path / "arena.db"
    report = arena(
        capsys,
        *("--scenario", "s2", "--provider", "autopilot"),  # the configured strategy
        *("--budget", "ticks", "--ticks", "3", "--runs", "2", "--smbench", bench, "--db", db),
    )
    assert (report["plan"]["smbench"], report["prompt"]) == (str(bench), "smbench")
    assert report["plan"]["strategy"] == load_config(None).swarm.strategy, "not None"

    asyncio.run(_lose(db, 1))
    resumed = arena(capsys, "--resume", "1", "--db", db)
    assert resumed["plan"] == report["plan"]
    assert resumed["prompt"] == "smbench"
    assert resumed["estimate"]["runs"] == 1  # only the lost run is played
    assert (resumed["actual"]["runs"], resumed["actual"]["invocations"]) == (2, 2)
    runs = resumed["cells"][0]["runs"]
    assert [r["metrics"]["seed"] for r in runs] == [0, 1]
    assert [r["metrics"]["prompt"] for r in runs] == ["smbench", "smbench"]

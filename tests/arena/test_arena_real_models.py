"""Made for real models: runs side by side (--jobs), a stopped batch carried on
(--resume), every run's conversation kept, the estimate before and the figures after."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.arena.test_arena_cli import killed_after_its_first_run
from tests.cli_runner import zoea
from tests.fakes.llm_servers import Call, FakeOpenAIServer, RecordedRequest, Reply
from zoea_tui.arena.estimate import Measured, cost, describe, estimate
from zoea_tui.cli import main
from zoea_tui.config import ProviderConfig
from zoea_tui.storage import Store


class SlotServer(FakeOpenAIServer):
    """A fake engine that counts the chat requests it works on at once."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0
        self.most = 0

    async def _respond(self, request: RecordedRequest, conn) -> None:  # type: ignore[no-untyped-def]
        chat = self._is_chat(request)
        if chat:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            await super()._respond(request, conn)
        finally:
            if chat:
                self.now -= 1


def _config(tmp_path: Path, server: FakeOpenAIServer, extra: str = "") -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[providers.m]\ntype = "openai"\nendpoint = "{server.url}"\nmodel = "m"\n{extra}',
        encoding="utf-8",
    )
    return config


def test_jobs_play_runs_side_by_side_and_keep_each_conversation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = SlotServer()
    server.default = Reply("", tool_calls=[Call("get_status", {})], delay=0.2)
    with server.running_in_thread():
        code = main(
            [
                *("arena", "--scenario", "s2", "--provider", "m", "--runs", "3", "--jobs", "3"),
                *("--ticks", "8", "--config", str(_config(tmp_path, server))),
                *("--db", str(tmp_path / "a.db"), "--json", "--no-baseline"),
            ]
        )
    assert code == 0
    assert server.most == 3  # three runs asked the engine at once
    report = json.loads(capsys.readouterr().out)
    runs = report["cells"][0]["runs"]
    assert [r["metrics"]["seed"] for r in runs] == [0, 1, 2]  # reported in plan order
    for run in runs:
        transcript = Path(run["metrics"]["transcript"])
        assert transcript.parent == tmp_path / "a.arena" / "batch-1" and transcript.is_file()

        async def conversation(path: Path = transcript) -> list[str]:
            async with await Store.open(path) as kept:
                (mysis,) = [m for m in await kept.list_myses() if m.name == "arena-s2"]
                # What was answered (the request the end cut short is logged cancelled).
                requests = [r for r in await kept.list_requests(mysis.id) if r.outcome == "ok"]
                roles = [m.role async for m in kept.iter_memories(mysis.id)]
                return roles + ["request"] * len(requests)

        roles = asyncio.run(conversation())
        assert roles.count("request") == run["requests"] and "tool" in roles


def test_a_stopped_batch_is_carried_on_with_resume(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    _, first = killed_after_its_first_run(
        *("--scenario", "s1", "--provider", "autopilot", "--budget", "ticks"),
        *("--ticks", "30", "--runs", "4", "--seed", "7", "--db", str(db)),
    )
    assert "score" in first  # a run has ended and is stored

    async def runs() -> list[int]:
        async with await Store.open(db) as store:
            return [r.seed for r in await store.list_arena_runs(batch_id=1)]

    before = asyncio.run(runs())
    assert 1 <= len(before) < 4
    done = zoea("arena", "--resume", "1", "--db", str(db), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["plan"]["runs"] == 4 and report["budget"] == "ticks"
    assert [r["metrics"]["seed"] for r in report["cells"][0]["runs"]] == [7, 8, 9, 10]
    assert report["estimate"]["runs"] == 4 - len(before)  # only the missing ones are played
    # ``actual`` covers the whole batch, the runs of the killed invocation too.
    # The killed invocation kept its figures as each run ended: two invocations.
    assert report["actual"]["runs"] == 4 and report["actual"]["invocations"] == 2
    assert sorted(asyncio.run(runs())) == [7, 8, 9, 10]  # none played twice


@pytest.mark.parametrize(
    "args, words",
    [
        (["--resume", "9"], "no arena batch #9"),
        (["--provider", "autopilot"], "--scenario is required"),
        (["--scenario", "s1", "--provider", "autopilot", "--jobs", "0"], "--jobs must be"),
    ],
)
def test_resume_and_jobs_refuse_what_they_cannot_do(
    tmp_path: Path, args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["arena", *args, "--db", str(tmp_path / "a.db")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and words in err


def test_a_batch_without_a_plan_cannot_be_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def old() -> None:
        async with await Store.open(tmp_path / "a.db") as store:
            await store.begin_arena_batch("autopilot", 1, seed=0)

    asyncio.run(old())
    code = main(["arena", "--resume", "1", "--db", str(tmp_path / "a.db")])
    assert code == 2 and "cannot be resumed" in capsys.readouterr().err


def test_the_estimate_before_and_the_cost_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = FakeOpenAIServer()
    server.default = Reply("", tool_calls=[Call("get_status", {})])
    prices = "price_in = 2.0\nprice_cached = 0.5\nprice_out = 8.0\n"
    with server.running_in_thread():
        config = _config(tmp_path, server, prices)
        for _ in range(2):
            code = main(
                [
                    *("arena", "--scenario", "s2", "--provider", "m", "--no-baseline"),
                    *("--config", str(config), "--db", str(tmp_path / "a.db")),
                ]
            )
            assert code == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "estimate:" in line or "actual:" in line]
    assert lines[0].startswith("zoea arena: m: estimate: 1 run(s), at most 30 requests")
    assert "guesses" in lines[0] and "$" in lines[0]
    # 30 requests of 12 prompt and 7 answer tokens (the fake engine's counts).
    assert (
        lines[1]
        == "zoea arena: m: actual: 1 run(s), 30 requests, 360 tokens in, 210 out, "
        + (lines[1].split("out, ")[1])
    )
    assert lines[1].endswith(f"${(360 * 2.0 + 210 * 8.0) / 1e6:.4f}")
    # The second batch is estimated from the first one's measured figures.
    assert "1 earlier arena run(s) of m" in lines[2] and "~360 tokens in" in lines[2]


def test_estimate_and_cost_arithmetic() -> None:
    provider = ProviderConfig("p", "openai", price_in=1.0, price_out=4.0)
    assert cost(provider, 1_000_000, 400_000, 100_000) == 1.0 + 0.4  # cached at price_in
    assert cost(ProviderConfig("q", "openai"), 10, 0, 10) is None
    claude = ProviderConfig(
        "c", "openai", price_in=3.0, price_cached=0.3, price_cache_write=3.75, price_out=15.0
    )
    # 1M prompt tokens: half read from the cache, a quarter written to it.
    assert cost(claude, 1_000_000, 500_000, 0, 250_000) == 0.75 + 0.15 + 0.9375
    measured = Measured(runs=2, requests=40, tokens_in=80_000, tokens_out=4_000, wall_s=80.0)
    figures = estimate(provider, 4, [200] * 4, budget_kind="ticks", measured=measured, jobs=2)
    assert figures["requests_at_most"] == 800 and figures["tokens_in"] == 1_600_000
    assert figures["seconds"] == 800 * 2.0 / 2
    assert figures["cost_usd"] == pytest.approx(1.6 + 0.32)
    assert describe(figures, before=True).startswith("estimate: 4 run(s), at most 800 requests")


def test_the_estimate_learns_from_measured_runs_and_says_how_sure_it_is() -> None:
    """Issue 43: "~30 min" for a batch that took 3 (the bound of 30 requests a run at the
    measured seconds a request), and 13 500 tokens out for 2 122."""
    from types import SimpleNamespace

    provider = ProviderConfig("p", "openai")

    def stored(requests: int, seconds: float, budget: str = "smbench") -> SimpleNamespace:
        metrics = {"wall_s": seconds, "ticks": 40, "budget_kind": budget}
        return SimpleNamespace(
            requests=requests, tokens_in=requests * 1_000, tokens_out=requests * 20, metrics=metrics
        )

    runs = [stored(10, 20.0), stored(14, 40.0), stored(200, 900.0, "ticks")]
    measured = Measured.of(runs, budget_kind="smbench")
    assert measured.runs == 2, "a run over the whole ticks says nothing of SMBench's budget"
    figures = estimate(provider, 3, [200] * 3, budget_kind="smbench", measured=measured)
    assert (figures["requests_at_most"], figures["requests"]) == (90, 36)
    assert (figures["tokens_in"], figures["tokens_out"]) == (36_000, 720)
    assert figures["seconds"] == 90.0 and figures["seconds_range"] == [60.0, 120.0]
    assert figures["sure"] == "rough"
    line = describe(figures, before=True)
    assert "at most 90 requests (~36 expected)" in line and "~2 min (60 s–2 min)" in line
    assert line.endswith("[2 earlier arena run(s) of p; rough: few runs measured]")
    sure = estimate(
        provider,
        1,
        [200],
        budget_kind="smbench",
        measured=Measured.of([stored(10, 20.0)] * 3, budget_kind="smbench"),
    )
    assert sure["sure"] == "measured" and sure["seconds_range"] == [20.0, 20.0]
    guess = estimate(provider, 1, [200], budget_kind="smbench", measured=Measured())
    assert guess["sure"] == "guess" and guess["seconds"] is None
    assert "(no speed measured)" in describe(guess, before=True)

"""`zoea simulate` and `zoea replay`, run as the user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_runner import zoea
from zoea_tui.core.strategies import STRATEGIES


def test_simulate_makes_progress_with_valid_requests_then_replay_compares(tmp_path: Path):
    db = tmp_path / "sim.db"
    # Turns of ten rounds, as a model's (the autopilot's own allowance is 100 rounds).
    config = tmp_path / "ten.toml"
    config.write_text("[providers.autopilot]\nmax_tool_iterations = 10\n")
    done = zoea(
        "simulate",
        "--myses",
        "3",
        "--turns",
        "12",
        "--seed",
        "3",
        "--config",
        str(config),
        "--db",
        str(db),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    # Each Mysis that played its turns stops in a task of its own; none may outlive the store.
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    for key in (
        "strategy",
        "provider",
        "myses",
        "turns",
        "requests",
        "prompt_tokens",
        "violations",
        "tool_calls",
        "tool_errors",
        "nudges",
        "errors",
        "score",
        "prefix_reuse",
        "uncached_tokens",
        "wall_s",
    ):
        assert key in report, key
    assert set(report["prefix_reuse"]) == {"median", "mean"}
    assert set(report["uncached_tokens"]) == {"total", "mean"}
    assert 0 < report["prefix_reuse"]["median"] <= 1
    assert set(report["prompt_tokens"]) == {"total", "mean", "p50", "p95", "max"}
    assert report["strategy"] == "turn-aware" and report["provider"] == "autopilot"
    assert report["violations"] == 0 and report["errors"] == 0
    assert report["requests"] >= 3 * 12
    assert report["score"]["total"]["ore_mined"] > 0
    assert report["score"]["total"]["credits_earned"] > 0

    ratios = {}
    for strategy in STRATEGIES:
        replayed = zoea("replay", "--db", str(db), "--strategy", strategy, "--json")
        assert replayed.returncode == 0, replayed.stderr
        result = json.loads(replayed.stdout)
        assert result["violations"] == 0
        assert result["requests"] >= report["requests"] - report["myses"]
        ratios[strategy] = result["ratio_to_full_history"]
        assert 0 < result["prefix_reuse"]["median"] <= 1
        assert result["uncached_tokens"]["total"] > 0
    # summarize sends everything until a summary is due (none is, in 12 turns), plus each
    # turn's state message (~100 tokens): about the full history, never much more.
    assert all(0 < r < 1 for s, r in ratios.items() if s != "summarize")
    assert 0 < ratios["summarize"] < 1.15
    assert ratios["turn-aware"] < ratios["summarize"]


def test_simulate_and_replay_refuse_bad_input_with_one_line(tmp_path: Path) -> None:
    bad = zoea("simulate", "--myses", "0", "--turns", "1")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    unknown = zoea("simulate", "--myses", "1", "--turns", "1", "--provider", "gpt-17")
    assert unknown.returncode == 2 and "unknown provider" in unknown.stderr
    config = tmp_path / "bad.toml"
    config.write_text("[swarm]\nmax_myses = 'many'\n")
    broken = zoea("simulate", "--config", str(config), "--myses", "1", "--turns", "1")
    assert broken.returncode == 2
    assert "swarm.max_myses" in broken.stderr and "bad.toml" in broken.stderr
    missing = zoea("replay", "--db", str(tmp_path / "none.db"), "--strategy", "turn-aware")
    assert missing.returncode == 2 and "does not exist" in missing.stderr

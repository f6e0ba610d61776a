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


def test_simulate_and_replay_report_what_the_requests_cost(tmp_path: Path) -> None:
    """A priced provider: ``simulate`` bills the tokens its server reported (cache reads
    at their price), ``replay`` the logged ones and the same under a strategy."""
    from tests.fakes.llm_servers import Call, FakeOpenAIServer, Reply

    server = FakeOpenAIServer()
    cached = {"prompt_tokens_details": {"cached_tokens": 8}}
    server.script(
        Reply("", tool_calls=[Call("get_status", {})], usage=(12, 7), usage_extra=cached),
        Reply("Done.", usage=(20, 3), usage_extra={"prompt_tokens_details": {"cached_tokens": 12}}),
    )
    config = tmp_path / "priced.toml"
    db = tmp_path / "sim.db"
    with server.running_in_thread():
        config.write_text(
            f'[providers.engine]\ntype = "openai"\nendpoint = "{server.url}"\nmodel = "m"\n'
            "price_in = 2.0\nprice_cached = 0.5\nprice_out = 8.0\n"
        )
        base = ("--config", str(config), "--db", str(db))
        done = zoea("simulate", "--provider", "engine", "--myses", "1", "--turns", "1", *base)
        as_json = zoea("replay", "--strategy", "turn-aware", "--json", *base)
        replayed = zoea("replay", "--strategy", "turn-aware", *base)
    assert done.returncode == 0, done.stderr
    # 32 prompt tokens (20 of them cache reads), 10 answer tokens.
    usd = ((32 - 20) * 2.0 + 20 * 0.5 + 10 * 8.0) / 1e6
    assert f"billed: 32 tokens in (20 cache reads), 10 out, ${usd:.4f}" in done.stdout
    report = json.loads(as_json.stdout)
    assert report["bill"] == {
        "requests": 2,
        "prompt_tokens": 32,
        "cached_tokens": 20,
        "cache_write_tokens": 0,
        "completion_tokens": 10,
        "cost_usd": round(usd, 6),
    }
    # The first request (before any memory) is not recomposed: the strategy's bill has one.
    assert report["strategy_bill"]["requests"] == 1 and report["strategy_bill"]["cost_usd"] > 0
    assert "as sent: 32 tokens in (20 cache reads), 10 out, $" in replayed.stdout
    assert "under turn-aware (estimated): " in replayed.stdout


def test_without_prices_simulate_reports_tokens_only(tmp_path: Path) -> None:
    from tests.fakes.llm_servers import FakeOpenAIServer, Reply

    server = FakeOpenAIServer()
    server.script(Reply("Done.", usage=(20, 3)))
    config = tmp_path / "free.toml"
    with server.running_in_thread():
        config.write_text(
            f'[providers.engine]\ntype = "openai"\nendpoint = "{server.url}"\nmodel = "m"\n'
        )
        done = zoea(
            *("simulate", "--provider", "engine", "--myses", "1", "--turns", "1"),
            *("--config", str(config), "--db", str(tmp_path / "sim.db")),
        )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if "billed:" in x)
    assert line == "  billed: 20 tokens in, 3 out" and "$" not in line

"""Autopilot benchmark: decision time on realistic composed requests, and play per strategy.

A seeded game is played by the autopilot through the test harness
(``tests/providers/autopilot_harness.py``: the real composer, the real
world) under every strategy; every composed request is kept. Each request is
then answered again ``--runs`` times, timing ``decide`` alone (reading the
messages and choosing) and the whole ``AutopilotProvider.chat`` (plus
tool-call ids, the usage estimate and stream events). Median and p95 are per
strategy, together with the request sizes and the game's outcome
(``World.score()``), so the cost of context a strategy drops is visible as
extra snapshot calls and fewer ore sold in the same number of ticks. The game
is played in turns as the orchestrator plays them (a nudge opens each, a text
ends it): rounds per turn (median, max) and the share of turns that ended
with a text before the round limit are reported per strategy.

Usage: python bench/autopilot.py [--ticks N] [--runs N] [--seed N] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.providers.autopilot_harness import TOOLS, Harness  # noqa: E402
from zoea_tui.core.composition import ComposeSettings  # noqa: E402
from zoea_tui.core.strategies import STRATEGIES  # noqa: E402
from zoea_tui.providers.autopilot import AutopilotProvider, decide, tool_names  # noqa: E402
from zoea_tui.providers.base import ChatRequest  # noqa: E402


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 4),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000, 4),
        "max_ms": round(ordered[-1] * 1000, 4),
    }


async def measure(
    strategy: str, settings: ComposeSettings, seed: int, ticks: int, runs: int
) -> dict[str, Any]:
    """Play one game, then time the autopilot on every request it was sent."""
    harness = Harness(seed=seed, strategy=strategy, settings=settings)
    await harness.play_ticks(ticks)
    requests = harness.requests
    names = tool_names(TOOLS)
    provider = AutopilotProvider()
    decide_times: list[float] = []
    chat_times: list[float] = []
    for _ in range(runs):
        for messages in requests:
            started = time.perf_counter()
            decide(messages, names)
            decide_times.append(time.perf_counter() - started)
            request = ChatRequest(messages=messages, tools=TOOLS)
            started = time.perf_counter()
            await provider.chat(request)
            chat_times.append(time.perf_counter() - started)
    sizes = [len(m) for m in requests]
    score = harness.score()
    stats = harness.stats
    rounds = stats.turn_rounds or [0]
    return {
        "requests": len(requests),
        "messages_median": statistics.median(sizes),
        "messages_max": max(sizes),
        "decide": _stats(decide_times),
        "chat": _stats(chat_times),
        "game": {
            "ticks": harness.world.current_tick,
            "turns": stats.turns,
            "rounds": stats.rounds,
            "rounds_per_turn": {"median": statistics.median(rounds), "max": max(rounds)},
            "turns_ended_by_text": stats.turns_ended_by_text,
            "text_end_share": round(stats.text_end_share, 3),
            "ore_sold": score.get("ore_sold", 0),
            "credits_earned": score.get("score", 0),
            "tool_calls": sum(stats.calls.values()),
            "snapshot_and_search_calls": stats.snapshots,
            "game_errors": stats.wasted,
            "captains_log_entries": stats.calls.get("captains_log_add", 0),
        },
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=300)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "autopilot.json")
    args = parser.parse_args()
    cases: dict[str, tuple[str, ComposeSettings]] = {
        name: (name, ComposeSettings()) for name in STRATEGIES
    }
    cases["sliding-window (4 messages)"] = (
        "sliding-window",
        ComposeSettings(max_context_messages=4),
    )
    results: dict[str, dict[str, Any]] = {}
    for label, (strategy, settings) in cases.items():
        results[label] = await measure(strategy, settings, args.seed, args.ticks, args.runs)
        row = results[label]
        print(
            f"{label:28} decide median {row['decide']['median_ms']:.3f} ms "
            f"p95 {row['decide']['p95_ms']:.3f} ms; chat median "
            f"{row['chat']['median_ms']:.3f} ms; {row['requests']} requests, "
            f"median {row['messages_median']} messages; "
            f"ore sold {row['game']['ore_sold']}; rounds per turn median "
            f"{row['game']['rounds_per_turn']['median']} max "
            f"{row['game']['rounds_per_turn']['max']}; "
            f"{row['game']['text_end_share']:.0%} of turns ended by a text"
        )
    report = {
        "benchmark": "autopilot",
        "python": platform.python_version(),
        "seed": args.seed,
        "ticks": args.ticks,
        "runs": args.runs,
        "method": "a seeded game played by the autopilot through the real composer per "
        "strategy; every composed request answered again `runs` times; 'decide' "
        "times reading + choosing, 'chat' the whole provider call (ids, usage, "
        "events); figures in ms",
        "target": "decide median <= 1 ms on a typical (~20 message) request",
        "strategies": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    asyncio.run(main())

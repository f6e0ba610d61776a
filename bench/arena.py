"""Arena benchmark: wall time of 300-tick scenarios played by the autopilot.

Each 300-tick scenario (s3, s5, s6) is played ``--runs`` times under ``turn-aware`` on
the simulated clock (world ticks cost no wall time; the autopilot answers in about
0.1 ms), timing the whole run: a fresh world, the Mysis, every request composed,
validated and answered, every tool call over in-process MCP, the scoring. The target
(issue 14) is ≤ 10 s per run. Writes the median and the maximum, per scenario and over
all, to ``bench/results/arena.json``.

Usage: python bench/arena.py [--runs N] [--seed K] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.arena.runner import play  # noqa: E402
from zoea_tui.arena.scenarios import SCENARIOS  # noqa: E402
from zoea_tui.config import Config  # noqa: E402


async def bench(runs: int, seed: int) -> dict[str, object]:
    """Play every 300-tick scenario ``runs`` times; the wall times and scores."""
    per: dict[str, dict[str, object]] = {}
    walls: list[float] = []
    for scenario in (s for s in SCENARIOS.values() if s.budget == 300):
        times, scores = [], []
        for index in range(runs):
            started = time.perf_counter()
            result = await play(
                Config(),
                scenario,
                provider="autopilot",
                strategy="turn-aware",
                seed=seed + index,
                budget_kind="ticks",  # the whole 300 ticks: the longest a run plays
            )
            times.append(time.perf_counter() - started)
            scores.append(result.score)
        walls += times
        per[scenario.id] = {
            "median_s": round(statistics.median(times), 3),
            "max_s": round(max(times), 3),
            "scores": scores,
            "ticks": scenario.budget,
        }
    return {
        "benchmark": "arena",
        "provider": "autopilot",
        "strategy": "turn-aware",
        "clock": "simulated (VirtualClock; world ticks advance on demand, no sleeping)",
        "runs_per_scenario": runs,
        "median_s": round(statistics.median(walls), 3),
        "max_s": round(max(walls), 3),
        "target_s": 10.0,
        "meets_target": max(walls) <= 10.0,
        "scenarios": per,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
    }


def main() -> None:
    """Run the benchmark and write its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "arena.json")
    args = parser.parse_args()
    report = asyncio.run(bench(args.runs, args.seed))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("median_s", "max_s", "meets_target")}))


if __name__ == "__main__":
    main()

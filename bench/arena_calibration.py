"""Arena calibration: SMBench's published runs beside the autopilot under the same budget.

For each of SMBench's five scenarios: what the published run-2 logs show (50 runs of five
models on the real server; the figures below were computed from them by
:func:`published`, and ``--logs DIR`` recomputes them from a copy of the logs), then the
autopilot's runs on the arena's worlds (``smbench``, the calibrated one, and ``classic``,
the app's) under each budget:

- ``smbench``: SMBench's own, one client turn of at most 30 model requests;
- ``requests``: the first 30 requests over as many turns as they take (what a pilot that
  keeps its one turn going plays under SMBench's budget; today's autopilot ends a turn at
  each milestone, so ``smbench`` cuts it short);
- ``ticks``: the scenario's whole 200 or 300 ticks.

Writes ``bench/results/arena_calibration.json`` and prints the Markdown table docs/ARENA.md
shows.

A finding the logs make plain: SMBench's published scores are exactly its formulas with
every outcome term at 0 (credits, final credits, systems, pirates): its scorer read no
player statistics from the server, though each log's final state shows them. The
``published score`` column is SMBench's; ``score from the logs`` is the same formula over
the logs' own final state, which is what the arena computes; ``best run's score from the
logs`` is the best single run by it (s6 98.3 with no mission completed, s2 90.4 after
nine jumps: an error-free pilot reaches the maximum of both on the real server).

Usage: python bench/arena_calibration.py [--runs N] [--seed K] [--logs DIR] [--world W]
       [--out FILE]
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.arena.runner import play  # noqa: E402
from zoea_tui.arena.scenarios import SCENARIOS  # noqa: E402
from zoea_tui.arena.scoring import COMPOSITE_SCENARIOS, aggregate, score_run  # noqa: E402
from zoea_tui.config import Config  # noqa: E402

#: The figures of SMBench's run-2 logs (``SpaceMolt/smbench`` results/run2, 10 runs per
#: scenario), as :func:`published` computes them: means and bests over the runs.
PUBLISHED: dict[str, dict[str, Any]] = {
    "s1": {
        "runs": 10,
        "published_score": 26.6,
        "score_from_logs": 28.8,
        "requests": 22.4,
        "game_calls": 31.1,
        "credits_earned": 131.6,
        "best_credits_earned": 871,
        "best_score_from_logs": 53.2,
        "best_run": {
            "run": "qwen-qwen3.5-plus-02-15--s1-bootstrap-grind-r1",
            "game_calls": 83,
            "tool_errors": 3,
            "credits_earned": 871,
        },
    },
    "s2": {
        "runs": 10,
        "published_score": 35.9,
        "score_from_logs": 47.9,
        "requests": 23.7,
        "game_calls": 20.9,
        "systems_explored": 2.4,
        "best_systems_explored": 9,
        "best_score_from_logs": 90.4,
        "best_run": {
            "run": "anthropic-claude-sonnet-4-6--s2-navigation-r2",
            "game_calls": 27,
            "tool_errors": 5,
            "systems_explored": 9,
        },
    },
    "s3": {
        "runs": 10,
        "published_score": 18.9,
        "score_from_logs": 19.2,
        "requests": 22.2,
        "game_calls": 23.2,
        "final_credits": 106.2,
        "best_final_credits": 362,
        "best_score_from_logs": 30.4,
        "best_run": {
            "run": "qwen-qwen3.5-plus-02-15--s3-trading-r2",
            "game_calls": 45,
            "tool_errors": 3,
            "final_credits": 362,
        },
    },
    "s5": {
        "runs": 10,
        "published_score": 34.6,
        "score_from_logs": 34.6,
        "requests": 21,
        "game_calls": 21.4,
        "pirates_destroyed": 0,
        "best_pirates_destroyed": 0,
        "best_score_from_logs": 47.0,
        "best_run": {
            "run": "anthropic-claude-sonnet-4-6--s5-combat-r1",
            "game_calls": 33,
            "tool_errors": 4,
            "pirates_destroyed": 0,
        },
    },
    "s6": {
        "runs": 10,
        "published_score": 67.7,
        "score_from_logs": 67.7,
        "requests": 20.9,
        "game_calls": 22.8,
        "missions_completed": 0.3,
        "best_missions_completed": 2,
        "best_score_from_logs": 98.3,
        "best_run": {
            "run": "google-gemini-3.1-pro-preview--s6-mission-runner-r2",
            "game_calls": 30,
            "tool_errors": 1,
            "missions_completed": 0,
        },
    },
}
#: The arena's worlds, in the table's order.
WORLDS = ("smbench", "classic")
#: The raw figure each scenario is about (for the table).
HEADLINE = {
    "s1": "credits_earned",
    "s2": "systems_explored",
    "s3": "final_credits",
    "s5": "pirates_destroyed",
    "s6": "missions_completed",
}


def published(logs: Path) -> dict[str, dict[str, Any]]:
    """The figures of a folder of SMBench run logs (``<model>--<scenario>-r<n>.jsonl``)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(logs.glob("*--s*-r*.jsonl")):
        scenario = path.stem.split("--", 1)[1].rsplit("-r", 1)[0]
        events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        ok = sum(e["event"] == "tool_call" for e in events)
        errors = sum(e["event"] == "tool_error" for e in events)
        end = next((e for e in events if e["event"] == "scenario_end"), {})
        final = end.get("final_state") or {}
        player = final.get("player") or {}
        stats = player.get("stats") or {}
        modules = final.get("modules") or []
        metrics: dict[str, Any] = {
            "requests": sum(e["event"] == "llm_call" for e in events),
            "game_calls": ok + errors,
            "tool_calls": ok + errors,
            "tool_errors": errors,
            "credits_earned": stats.get("credits_earned", 0),
            "final_credits": player.get("credits", 0),
            "systems_explored": stats.get("systems_explored", 0),
            "pirates_destroyed": stats.get("pirates_destroyed", 0),
            "weapons_installed": sum(m.get("type") == "weapon" for m in modules),
            "missions_completed": sum(
                e["event"] == "tool_call" and e.get("command") == "complete_mission" for e in events
            ),
        }
        key = scenario.split("-", 1)[0]
        metrics["score_from_logs"] = score_run(key, metrics)
        metrics["run"] = path.stem
        blind = {**metrics, **dict.fromkeys(("credits_earned", "final_credits"), 0)}
        blind.update(systems_explored=0, pirates_destroyed=0)
        metrics["published_score"] = score_run(key, blind)
        found.setdefault(key, []).append(metrics)
    out: dict[str, dict[str, Any]] = {}
    for key, runs in found.items():
        row: dict[str, Any] = {"runs": len(runs)}
        for name in ("published_score", "score_from_logs", "requests", "game_calls"):
            row[name] = round(statistics.mean(r[name] for r in runs), 1)
        headline = HEADLINE[key]
        row[headline] = round(statistics.mean(r[headline] for r in runs), 1)
        row[f"best_{headline}"] = max(r[headline] for r in runs)
        # The best single run on the real server, by the same formula: how near 100 a
        # pilot came there (s6 reads no outcome, so an error-free pilot reaches 100).
        best = max(runs, key=lambda r: r["score_from_logs"])
        row["best_score_from_logs"] = round(best["score_from_logs"], 1)
        row["best_run"] = {
            "run": best["run"],
            "game_calls": best["game_calls"],
            "tool_errors": best["tool_errors"],
            headline: best[headline],
        }
        out[key] = row
    return out


async def autopilot(world: str, budget: str, runs: int, seed: int) -> dict[str, Any]:
    """The autopilot's runs of each scenario under ``budget`` on ``world``."""
    out: dict[str, Any] = {}
    for key in COMPOSITE_SCENARIOS:
        results = [
            await play(
                Config(),
                SCENARIOS[key],
                provider="autopilot",
                strategy="turn-aware",
                seed=seed + index,
                budget_kind=budget,
                world=world,
            )
            for index in range(runs)
        ]
        headline = HEADLINE[key]
        scores = [r.score for r in results]
        # SMBench's aggregation (the arena's): the mean of the runs' rounded scores,
        # rounded to 0.1 half-up, as its boards and `zoea arena` show it.
        figures = aggregate(scores, [r.passed for r in results])
        out[key] = {
            "scores": scores,
            "score_mean": figures["score_mean"],
            "score_std": figures["score_std"],
            "errored": sum(r.errored for r in results),
            "score_min": min(scores),
            "score_max": max(scores),
            "saturated": all(s >= 100 for s in scores),
            "requests": round(statistics.mean(r.requests for r in results), 1),
            "game_calls": round(statistics.mean(r.metrics["game_calls"] for r in results), 1),
            headline: round(statistics.mean(float(r.metrics.get(headline, 0)) for r in results), 1),
            f"best_{headline}": max(r.metrics.get(headline, 0) for r in results),
        }
    return out


def table(report: dict[str, Any]) -> str:
    """The Markdown calibration table: a column per scenario; rows for the published runs
    (SMBench's score, the same formula over the logs' final state, the raw figure) and for
    the autopilot on each world and budget (mean score, min–max over the seeds, and the
    raw figure's mean and best); every score to 0.1, as SMBench shows it."""
    keys = list(COMPOSITE_SCENARIOS)
    head = "| | " + " | ".join(f"{k} ({HEADLINE[k].replace('_', ' ')})" for k in keys) + " |"
    lines = [head, "|---" * (len(keys) + 1) + "|"]
    pub = report["published"]
    lines.append(
        "| SMBench run 2: published score | "
        + " | ".join(f"{pub[k]['published_score']:.1f}" for k in keys)
        + " |"
    )
    lines.append(
        "| SMBench run 2: score from the logs | "
        + " | ".join(f"{pub[k]['score_from_logs']:.1f}" for k in keys)
        + " |"
    )
    lines.append(
        "| SMBench run 2: best run's score from the logs | "
        + " | ".join(f"{pub[k]['best_score_from_logs']:.1f}" for k in keys)
        + " |"
    )
    lines.append(
        "| SMBench run 2: raw mean (best) | "
        + " | ".join(f"{pub[k][HEADLINE[k]]:g} ({pub[k]['best_' + HEADLINE[k]]:g})" for k in keys)
        + " |"
    )
    for world in report["autopilot"]:
        for budget in report["budgets"]:
            rows = report["autopilot"][world][budget]
            cells = []
            for k in keys:
                row, headline = rows[k], HEADLINE[k]
                cells.append(
                    f"**{row['score_mean']:.1f}** ({row['score_min']:.1f}–{row['score_max']:.1f})"
                    f"; {row[headline]:g} ({row['best_' + headline]:g})"
                )
            lines.append(f"| autopilot: {world} world, {budget} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def bench(
    runs: int, seed: int, logs: Path | None, worlds: tuple[str, ...] = WORLDS
) -> dict[str, Any]:
    """The calibration report: the published figures and the autopilot's runs on
    ``worlds``."""
    budgets = ("smbench", "requests", "ticks")
    started = time.perf_counter()
    report: dict[str, Any] = {
        "benchmark": "arena_calibration",
        "provider": "autopilot",
        "strategy": "turn-aware",
        "runs_per_cell": runs,
        "seeds": [seed + i for i in range(runs)],
        "budgets": list(budgets),
        "published": published(logs) if logs is not None else PUBLISHED,
        "published_source": (
            f"{logs} (recomputed)" if logs is not None else "SpaceMolt/smbench results/run2"
        ),
        "autopilot": {
            world: {budget: await autopilot(world, budget, runs, seed) for budget in budgets}
            for world in worlds
        },
    }
    report["wall_s"] = round(time.perf_counter() - started, 1)
    report["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count()}
    return report


def main() -> None:
    """Run the calibration and write its JSON; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--logs", type=Path, help="a folder of SMBench run logs (*.jsonl)")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "arena_calibration.json"
    )
    parser.add_argument(
        "--world",
        action="append",
        choices=WORLDS,
        help="play only this world (repeatable; both by default)",
    )
    args = parser.parse_args()
    worlds = tuple(w for w in WORLDS if w in args.world) if args.world else WORLDS
    report = asyncio.run(bench(args.runs, args.seed, args.logs, worlds))
    report["table"] = table(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(report["table"])


if __name__ == "__main__":
    main()

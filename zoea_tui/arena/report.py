"""The arena's results: the JSON contract, the printed table, the Markdown leaderboard.

The JSON (docs/ARCHITECTURE.md, 'Command line'): ``{"provider", "runs", "cells":
[{"scenario", "strategy", "score_mean", "score_std", "pass_rate", "runs": [...]}],
"composite": {STRATEGY: score}}``; a run is :meth:`RunResult.to_json`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from . import scoring
from .runner import RunResult
from .scenarios import SCENARIOS


def build_report(provider: str, runs: int, results: Sequence[RunResult]) -> dict[str, Any]:
    """The JSON contract of a set of runs (cells in the order they were played)."""
    cells: dict[tuple[str, str], list[RunResult]] = {}
    for result in results:
        cells.setdefault((result.scenario, result.strategy), []).append(result)
    out_cells = []
    by_strategy: dict[str, list[float]] = {}
    for (scenario, strategy), group in cells.items():
        # An errored run (its provider failed) is shown, never scored: not 0 in a mean.
        scores = [r.score for r in group if not r.errored]
        mean = round(scoring.mean(scores), 2) if scores else None
        out_cells.append(
            {
                "scenario": SCENARIOS[scenario].id,
                "strategy": strategy,
                "score_mean": mean,
                "score_std": round(scoring.population_std(scores), 2),
                "pass_rate": round(scoring.pass_rate(scores), 4),
                "errored": len(group) - len(scores),
                "runs": [r.to_json() for r in group],
            }
        )
        means = by_strategy.setdefault(strategy, [])
        if mean is not None:
            means.append(mean)
    composite = {
        s: round(scoring.composite(means), 2) if means else None for s, means in by_strategy.items()
    }
    return {"provider": provider, "runs": runs, "cells": out_cells, "composite": composite}


def first_error(report: dict[str, Any]) -> str | None:
    """Why the provider answered none of a report's requests (the first errored run's
    message); None when it answered any."""
    runs = [run for cell in report["cells"] for run in cell["runs"]]
    if any(run.get("answered") for run in runs) or not runs:
        return None
    return next((run["error"] for run in runs if run.get("error")), "no answer")


def score_text(value: float | None) -> str:
    """A mean score or composite as shown: "errored" when every run behind it errored."""
    return "errored" if value is None else f"{value:.1f}"


def to_json(report: dict[str, Any]) -> str:
    """The report as ``--json`` prints it."""
    return json.dumps(report, indent=2, ensure_ascii=False)


def _grid(
    report: dict[str, Any],
) -> tuple[list[str], list[str], dict[tuple[str, str], dict[str, Any]]]:
    scenarios: list[str] = []
    strategies: list[str] = []
    grid: dict[tuple[str, str], dict[str, Any]] = {}
    for cell in report["cells"]:
        if cell["scenario"] not in scenarios:
            scenarios.append(cell["scenario"])
        if cell["strategy"] not in strategies:
            strategies.append(cell["strategy"])
        grid[(cell["scenario"], cell["strategy"])] = cell
    return scenarios, strategies, grid


def _cell_text(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "—"
    scored = [r for r in cell["runs"] if not r.get("errored")]
    errored = (
        f" ({len(cell['runs']) - len(scored)} errored)" if len(scored) < len(cell["runs"]) else ""
    )
    if not scored:
        return "errored" + errored
    levels = [r["metrics"].get("level", "none") for r in scored]
    level = max(levels, key=("none", "pass", "good", "excellent").index) if levels else "none"
    passed = f"{round(cell['pass_rate'] * 100)}%"
    std = f"±{cell['score_std']:.1f}" if len(scored) > 1 else ""
    return f"{cell['score_mean']:.1f}{std} {passed} {level}{errored}"


def table(report: dict[str, Any], baseline: dict[str, Any] | None = None) -> str:
    """A plain-text table: one row per scenario, one column per strategy (mean score,
    pass rate, best success level reached), then the composite; the autopilot's
    baseline composite first when another provider was measured."""
    scenarios, strategies, grid = _grid(report)
    header = ["scenario", *strategies]
    rows = [[s, *(_cell_text(grid.get((s, st))) for st in strategies)] for s in scenarios]
    rows.append(
        [
            f"composite ({report['provider']})",
            *(score_text(report["composite"].get(st)) for st in strategies),
        ]
    )
    if baseline is not None:
        rows.insert(
            0,
            [
                "composite (autopilot baseline)",
                *(score_text(baseline["composite"].get(st)) for st in strategies),
            ],
        )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("─" * w for w in widths))
    return "\n".join(lines)


def leaderboard(reports: Sequence[dict[str, Any]]) -> str:
    """The Markdown leaderboard: one row per provider (the autopilot baseline first when
    present) and strategy, the score of each scenario and the composite."""
    ordered = sorted(reports, key=lambda r: r["provider"] != "autopilot")
    scenarios: list[str] = []
    for report in ordered:
        for cell in report["cells"]:
            if cell["scenario"] not in scenarios:
                scenarios.append(cell["scenario"])
    lines = [
        "# Zoea Nova arena leaderboard",
        "",
        "SMBench's scenarios on the embedded world (mean score over runs, pass rate; "
        "a run passes at 20). The autopilot is the rule-based baseline.",
        "",
        "| provider | strategy | " + " | ".join(scenarios) + " | composite |",
        "|---|---|" + "---|" * len(scenarios) + "---|",
    ]
    for report in ordered:
        _, strategies, grid = _grid(report)
        for strategy in strategies:
            cells = []
            for scenario in scenarios:
                cell = grid.get((scenario, strategy))
                if cell is None:
                    cells.append("—")
                elif cell["score_mean"] is None:
                    cells.append("errored")
                else:
                    errored = f", {cell['errored']} errored" if cell.get("errored") else ""
                    cells.append(
                        f"{cell['score_mean']:.1f} ({round(cell['pass_rate'] * 100)}%{errored})"
                    )
            lines.append(
                f"| {report['provider']} | {strategy} | "
                + " | ".join(cells)
                + f" | {score_text(report['composite'].get(strategy))} |"
            )
    return "\n".join(lines) + "\n"

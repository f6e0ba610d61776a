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
        scores = [r.score for r in group]
        mean = round(scoring.mean(scores), 2)
        out_cells.append(
            {
                "scenario": SCENARIOS[scenario].id,
                "strategy": strategy,
                "score_mean": mean,
                "score_std": round(scoring.population_std(scores), 2),
                "pass_rate": round(scoring.pass_rate(scores), 4),
                "runs": [r.to_json() for r in group],
            }
        )
        by_strategy.setdefault(strategy, []).append(mean)
    composite = {s: round(scoring.composite(means), 2) for s, means in by_strategy.items()}
    return {"provider": provider, "runs": runs, "cells": out_cells, "composite": composite}


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
    levels = [r["metrics"].get("level", "none") for r in cell["runs"]]
    level = max(levels, key=("none", "pass", "good", "excellent").index) if levels else "none"
    passed = f"{round(cell['pass_rate'] * 100)}%"
    std = f"±{cell['score_std']:.1f}" if len(cell["runs"]) > 1 else ""
    return f"{cell['score_mean']:.1f}{std} {passed} {level}"


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
            *(f"{report['composite'].get(st, 0):.1f}" for st in strategies),
        ]
    )
    if baseline is not None:
        rows.insert(
            0,
            [
                "composite (autopilot baseline)",
                *(f"{baseline['composite'].get(st, 0):.1f}" for st in strategies),
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
                cells.append(
                    "—"
                    if cell is None
                    else f"{cell['score_mean']:.1f} ({round(cell['pass_rate'] * 100)}%)"
                )
            lines.append(
                f"| {report['provider']} | {strategy} | "
                + " | ".join(cells)
                + f" | {report['composite'].get(strategy, 0):.1f} |"
            )
    return "\n".join(lines) + "\n"

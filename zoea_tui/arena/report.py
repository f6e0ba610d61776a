"""The arena's results: the JSON contract, the printed table, the Markdown leaderboard.

The JSON (docs/ARCHITECTURE.md, 'Command line'): ``{"provider", "budget", "runs", "cells":
[{"scenario", "strategy", "score_mean", "score_std", "score_ci95", "pass_rate", "levels",
"errored", "runs": [...]}], "composite": {STRATEGY: score}}`` plus ``"composite_s4"`` when
s4 was played; a run is :meth:`RunResult.to_json`. The composite is SMBench's: the mean
over s1 s2 s3 s5 s6 only. ``pass_rate`` is SMBench's pass (a score of at least 20);
``levels`` counts the success levels the scored runs reached, a separate thing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.terminal_text import json_escaped
from . import scoring
from .runner import RunResult
from .scenarios import ALL_LEVELS, SCENARIOS

if TYPE_CHECKING:
    from ..storage import Store


def _levels(group: Sequence[RunResult]) -> dict[str, int]:
    """How many scored runs reached each success level (the highest one they reached)."""
    counts = dict.fromkeys(ALL_LEVELS, 0)
    for result in group:
        if not result.errored:
            level = str(result.metrics.get("level", "none"))
            counts[level if level in counts else "none"] += 1
    return counts


#: Raw figures every cell averages, beside its scenario's own.
COMMON_RAW: tuple[str, ...] = ("game_calls", "game_errors", "swarm_calls")


def _raw_means(scenario: str, group: Sequence[RunResult]) -> dict[str, float]:
    """The scenario's raw figures and the call counts, averaged over the scored runs."""
    scored = [r for r in group if not r.errored]
    if not scored:
        return {}
    keys = (*SCENARIOS[scenario].raw, *COMMON_RAW)
    return {
        k: round(scoring.mean([float(r.metrics.get(k, 0) or 0) for r in scored]), 2) for k in keys
    }


def budget_of(results: Sequence[RunResult], default: str = "smbench") -> str:
    """The budget the runs were played under (their own record of it)."""
    kinds = {str(r.metrics.get("budget_kind")) for r in results if r.metrics.get("budget_kind")}
    return kinds.pop() if len(kinds) == 1 else default


def _world_of(results: Sequence[RunResult]) -> str:
    worlds = {str(r.metrics.get("world")) for r in results if r.metrics.get("world")}
    return worlds.pop() if len(worlds) == 1 else "smbench"


#: How each budget is named in tables and leaderboards.
BUDGET_TEXT = {
    "smbench": "SMBench's: one client turn of at most 30 model requests, as every published "
    "SMBench run (within the scenario's ticks)",
    "ticks": "the scenario's whole tick budget (200 or 300 ticks), turn after turn",
}


async def store_run(
    store: Store, batch: int, provider: str, result: RunResult, budget: str
) -> dict[str, Any]:
    """Store one finished run of ``batch`` the moment it ends, so a batch stopped later
    loses none; its cell of the report is returned."""
    cell: dict[str, Any] = build_report(provider, 1, [result], budget=budget)["cells"][0]
    await store.add_arena_run(batch, cell["scenario"], cell["strategy"], cell["runs"][0])
    return cell


def build_report(
    provider: str, runs: int, results: Sequence[RunResult], *, budget: str | None = None
) -> dict[str, Any]:
    """The JSON contract of a set of runs (cells in the order they were played);
    ``budget`` defaults to what the runs record."""
    cells: dict[tuple[str, str], list[RunResult]] = {}
    for result in results:
        cells.setdefault((result.scenario, result.strategy), []).append(result)
    out_cells = []
    by_strategy: dict[str, list[float]] = {}
    social: dict[str, float | None] = {}
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
                "score_ci95": scoring.ci95(scores),
                # SMBench's pass: a score of at least 20 (not the success level "pass").
                "pass_rate": round(scoring.pass_rate(scores), 4),
                "levels": _levels(group),
                "metrics_mean": _raw_means(scenario, group),
                "errored": len(group) - len(scores),
                "runs": [r.to_json() for r in group],
            }
        )
        key = SCENARIOS[scenario].key
        if key not in scoring.COMPOSITE_SCENARIOS:
            social[strategy] = mean
            continue
        means = by_strategy.setdefault(strategy, [])
        if mean is not None:
            means.append(mean)
    composite = {
        s: round(scoring.composite(means), 2) if means else None for s, means in by_strategy.items()
    }
    report: dict[str, Any] = {
        "provider": provider,
        "budget": budget or budget_of(results),
        "world": _world_of(results),
        # Whose words told the task: the arena's own, or SMBench's checkout (--smbench).
        "prompt": "smbench"
        if any(r.metrics.get("prompt") == "smbench" for r in results)
        else "arena",
        "runs": runs,
        "cells": out_cells,
        "composite": composite,
    }
    if social:  # s4, which SMBench never runs: reported apart, never in the composite
        report["composite_s4"] = social
    return report


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
    """The report as ``--json`` prints it and ``arena.json`` holds it (no character in it
    can steer a terminal: :func:`~zoea_tui.core.terminal_text.json_escaped`)."""
    return json_escaped(json.dumps(report, indent=2, ensure_ascii=False))


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


def levels_text(levels: dict[str, int]) -> str:
    """A cell's success levels as counts, best first ("excellent 2, good 1")."""
    parts = [f"{name} {levels[name]}" for name in reversed(ALL_LEVELS) if levels.get(name)]
    return ", ".join(parts) or "—"


def _cell_text(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return "—"
    scored = [r for r in cell["runs"] if not r.get("errored")]
    errored = (
        f" ({len(cell['runs']) - len(scored)} errored)" if len(scored) < len(cell["runs"]) else ""
    )
    if not scored:
        return "errored" + errored
    ci = cell.get("score_ci95")
    spread = f" [{ci[0]:.0f}–{ci[1]:.0f}]" if ci else ""
    passed = f"≥20 {round(cell['pass_rate'] * 100)}%"
    levels = cell.get("levels") or {}
    return f"{cell['score_mean']:.1f}{spread} {passed} · {levels_text(levels)}{errored}"


def composite_scenarios(report: dict[str, Any], strategy: str | None = None) -> list[str]:
    """The scenarios of SMBench's five a composite is the mean over: those played with a
    score (of ``strategy``, else of any strategy), in SMBench's order."""
    keys = {s.id: s.key for s in SCENARIOS.values()}
    played = {
        keys.get(cell["scenario"], cell["scenario"])
        for cell in report.get("cells") or ()
        if cell.get("score_mean") is not None and strategy in (None, cell.get("strategy"))
    }
    return [key for key in scoring.COMPOSITE_SCENARIOS if key in played]


def composite_label(report: dict[str, Any]) -> str:
    """ "composite s1 s2 (provider)": the composite named by the scenarios it is over,
    never by the five SMBench plays when this run played fewer."""
    over = " ".join(composite_scenarios(report))
    return (
        f"composite {over} ({report['provider']})" if over else f"composite ({report['provider']})"
    )


def _composite_text(report: dict[str, Any], strategy: str) -> str:
    composite = report.get("composite") or {}
    return score_text(composite[strategy]) if strategy in composite else "—"


def table(report: dict[str, Any], baseline: dict[str, Any] | None = None) -> str:
    """A plain-text table: one row per scenario, one column per strategy (mean score, its
    95 % interval, the share of runs scoring at least 20, and how many runs reached each
    success level), then the composite over SMBench's five scenarios; the autopilot's
    baseline composite first when another provider was measured."""
    scenarios, strategies, grid = _grid(report)
    header = ["scenario", *strategies]
    rows = [[s, *(_cell_text(grid.get((s, st))) for st in strategies)] for s in scenarios]
    rows.append(
        [
            composite_label(report),
            *(_composite_text(report, st) for st in strategies),
        ]
    )
    if baseline is not None:
        rows.insert(
            0,
            [
                "composite (autopilot baseline)",
                *(_composite_text(baseline, st) for st in strategies),
            ],
        )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("─" * w for w in widths))
    lines.insert(0, f"budget: {budget_line(report)}")
    return "\n".join(lines)


def budget_line(report: dict[str, Any]) -> str:
    """The report's budget, named ("smbench (SMBench's: one client turn …)")."""
    kind = str(report.get("budget") or "ticks")
    return f"{kind} ({BUDGET_TEXT.get(kind, kind)})"


#: Cells of a score bar (a score of 100 fills them all).
BAR_WIDTH = 20
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(score: float | None, width: int = BAR_WIDTH) -> str:
    """A score of 0–100 as a bar of ``width`` cells, to an eighth of a cell."""
    if score is None:
        return "·" * width
    eighths = round(max(0.0, min(100.0, score)) / 100 * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    return text.ljust(width, "·")


def bars(report: dict[str, Any], width: int = BAR_WIDTH) -> list[str]:
    """Score per scenario × strategy as bars, one line each (its mean, errored if every
    run errored): ``s1 turn-aware  ██████████▌········  52.6``."""
    scenarios, strategies, grid = _grid(report)
    lines = []
    name = max((len(st) for st in strategies), default=0)
    for scenario in scenarios:
        for strategy in strategies:
            cell = grid.get((scenario, strategy))
            if cell is None:
                continue
            mean = cell["score_mean"]
            lines.append(
                f"{scenario.split('-', 1)[0]} {strategy.ljust(name)}  {bar(mean, width)}  "
                f"{score_text(mean)}"
            )
    return lines


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
        "SMBench's scenarios on the embedded world: mean score over runs, the share of "
        "runs scoring at least 20 (SMBench's pass) and the success levels the runs "
        "reached (a separate thing SMBench's scorer never reads). The composite is the "
        "mean over the scenarios of SMBench's five (s1 s2 s3 s5 s6) a row played, as "
        "SMBench's (a row that played fewer names them); s4 stands apart. The autopilot "
        "is the rule-based baseline.",
        "",
        *dict.fromkeys(f"Budget: {budget_line(r)}." for r in ordered),
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
                    levels = levels_text(cell.get("levels") or {})
                    cells.append(
                        f"{cell['score_mean']:.1f} (≥20 {round(cell['pass_rate'] * 100)}%; "
                        f"{levels}{errored})"
                    )
            over = composite_scenarios(report, strategy)
            partial = (
                f" ({' '.join(over)})"
                if over and len(over) < len(scoring.COMPOSITE_SCENARIOS)
                else ""
            )
            lines.append(
                f"| {report['provider']} | {strategy} | "
                + " | ".join(cells)
                + f" | {_composite_text(report, strategy)}{partial} |"
            )
    lines += ["", "## Score per scenario and strategy", ""]
    for report in ordered:
        lines += [f"{report['provider']}:", "", "```", *bars(report), "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"

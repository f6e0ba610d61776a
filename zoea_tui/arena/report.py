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
    from ..storage.arena_runs import ArenaTables


def _levels(group: Sequence[RunResult]) -> dict[str, int]:
    """How many runs (errored ones too) reached each success level (the highest one)."""
    counts = dict.fromkeys(ALL_LEVELS, 0)
    for result in group:
        level = str(result.metrics.get("level", "none"))
        counts[level if level in counts else "none"] += 1
    return counts


#: Raw figures every cell averages, beside its scenario's own.
COMMON_RAW: tuple[str, ...] = ("game_calls", "game_errors", "swarm_calls")


def _raw_means(scenario: str, group: Sequence[RunResult]) -> dict[str, float]:
    """The scenario's raw figures and the call counts, averaged over every run played."""
    scored = list(group)
    if not scored:
        return {}
    keys = (*SCENARIOS[scenario].raw, *COMMON_RAW)
    return {
        k: round(scoring.mean([float(r.metrics.get(k, 0) or 0) for r in scored]), 2) for k in keys
    }


def _number(metrics: dict[str, Any], key: str) -> float:
    return float(metrics.get(key) or 0)


def outcomes(group: Sequence[RunResult], score_mean: float) -> dict[str, Any]:
    """What a cell's runs achieved, beside SMBench's score (means over its runs): net
    credits (earned less spent), net credits per 100 model requests, systems reached,
    missions completed, pirates destroyed, unrecovered game errors (a failed command
    never followed by a success of the same command), tokens (in and out) and cost per
    point of the mean score (None at a score of 0, or without the provider's prices)."""
    n = len(group) or 1
    net = [
        _number(r.metrics, "credits_earned") - _number(r.metrics, "credits_spent") for r in group
    ]
    requests = sum(r.requests for r in group)
    tokens = sum(r.tokens_in + r.tokens_out for r in group) / n
    costs = [r.metrics.get("cost_usd") for r in group]
    cost = sum(float(c) for c in costs if c is not None) / n if None not in costs else None
    return {
        "net_credits": round(sum(net) / n, 1),
        "credits_per_100_requests": round(sum(net) / requests * 100, 1) if requests else None,
        "systems_reached": round(sum(_number(r.metrics, "systems_explored") for r in group) / n, 2),
        "missions_completed": round(
            sum(_number(r.metrics, "missions_completed") for r in group) / n, 2
        ),
        "pirates_destroyed": round(
            sum(_number(r.metrics, "pirates_destroyed") for r in group) / n, 2
        ),
        "unrecovered_errors": round(
            sum(_number(r.metrics, "unrecovered_errors") for r in group) / n, 2
        ),
        "tokens_per_point": round(tokens / score_mean) if score_mean > 0 else None,
        "cost_per_point": round(cost / score_mean, 6)
        if cost is not None and score_mean > 0
        else None,
    }


def outcomes_text(found: dict[str, Any]) -> str:
    """A cell's outcomes in one short line ("net +420 cr (1 400/100 req) · 3 systems …")."""
    per = found.get("credits_per_100_requests")
    parts = [
        f"net {found['net_credits']:+,.0f} cr"
        + (f" ({per:+,.0f}/100 req)" if per is not None else ""),
        f"{found['systems_reached']:g} systems",
        f"{found['missions_completed']:g} missions",
        f"{found['pirates_destroyed']:g} pirates",
        f"{found['unrecovered_errors']:g} unrecovered errors",
    ]
    if found.get("tokens_per_point") is not None:
        parts.append(f"{found['tokens_per_point']:,} tok/pt")
    if found.get("cost_per_point") is not None:
        parts.append(f"${found['cost_per_point']:.4f}/pt")
    return " · ".join(parts)


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
    store: ArenaTables, batch: int, provider: str, result: RunResult, budget: str
) -> dict[str, Any]:
    """Store one finished run of ``batch`` the moment it ends, so a batch stopped later
    loses none; its cell of the report is returned."""
    cell: dict[str, Any] = build_report(provider, 1, [result], budget=budget)["cells"][0]
    await store.add_arena_run(batch, cell["scenario"], cell["strategy"], cell["runs"][0])
    return cell


def _cell(scenario: str, strategy: str, group: Sequence[RunResult]) -> dict[str, Any]:
    """One cell of the report: SMBench's figures over every run played (errored ones
    included, as SMBench scores every run its client played), the errored runs counted,
    and, when some errored, the same figures without them (``error_free``)."""
    scores = [r.score for r in group]
    figures = scoring.aggregate(scores, [r.passed for r in group])
    clean = [r for r in group if not r.errored]
    cell: dict[str, Any] = {
        "scenario": SCENARIOS[scenario].id,
        "strategy": strategy,
        "score_mean": figures["score_mean"],
        "score_std": figures["score_std"],
        "score_ci95": scoring.ci95(scores),
        # SMBench's pass: a score of at least 20 (not the success level "pass").
        "pass_rate": figures["pass_rate"],
        "levels": _levels(group),
        "metrics_mean": _raw_means(scenario, group),
        "outcomes": outcomes(group, figures["score_mean"]),
        "errored": len(group) - len(clean),
        "runs": [r.to_json() for r in group],
    }
    if clean and len(clean) < len(group):
        # Not SMBench's figure: the same cell as if the errored runs had not been played.
        kept = scoring.aggregate([r.score for r in clean], [r.passed for r in clean])
        cell["error_free"] = {
            "score_mean": kept["score_mean"],
            "pass_rate": kept["pass_rate"],
            "runs": len(clean),
        }
    return cell


def build_report(
    provider: str, runs: int, results: Sequence[RunResult], *, budget: str | None = None
) -> dict[str, Any]:
    """The JSON contract of a set of runs (cells in the order they were played);
    ``budget`` defaults to what the runs record.

    ``composite`` holds a strategy only when it played all five of SMBench's scenarios
    (SMBench's composite, :func:`scoring.composite`); one that played fewer is in
    ``partial`` with the scenarios its mean is over. ``composite_error_free`` (when a run
    errored) is the composite over the cells' ``error_free`` means: not SMBench's."""
    cells: dict[tuple[str, str], list[RunResult]] = {}
    for result in results:
        cells.setdefault((result.scenario, result.strategy), []).append(result)
    out_cells = []
    by_strategy: dict[str, dict[str, float]] = {}
    clean_by_strategy: dict[str, dict[str, float | None]] = {}
    social: dict[str, float | None] = {}
    for (scenario, strategy), group in cells.items():
        cell = _cell(scenario, strategy, group)
        out_cells.append(cell)
        key = SCENARIOS[scenario].key
        if key not in scoring.COMPOSITE_SCENARIOS:
            social[strategy] = cell["score_mean"]
            continue
        by_strategy.setdefault(strategy, {})[key] = cell["score_mean"]
        clean = cell.get("error_free", {}).get("score_mean", cell["score_mean"])
        clean_by_strategy.setdefault(strategy, {})[key] = (
            None if cell["errored"] == len(group) else clean
        )
    composite: dict[str, float] = {}
    partial: dict[str, dict[str, Any]] = {}
    error_free: dict[str, float | None] = {}
    any_errored = any(r.errored for r in results)
    for strategy, means in by_strategy.items():
        over = [k for k in scoring.COMPOSITE_SCENARIOS if k in means]
        value = scoring.composite([means[k] for k in over])
        if len(over) == len(scoring.COMPOSITE_SCENARIOS):
            composite[strategy] = value
            if any_errored:
                kept = [v for v in clean_by_strategy[strategy].values() if v is not None]
                full = len(kept) == len(over)
                error_free[strategy] = scoring.composite(kept) if full else None
        else:
            partial[strategy] = {"scenarios": over, "score": value}
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
    if partial:  # fewer than SMBench's five: never called a composite
        report["partial"] = partial
    if error_free:
        report["composite_error_free"] = error_free
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


def all_errored(report: dict[str, Any]) -> str | None:
    """The first error when every run of a report errored (its provider failed in each,
    whatever it answered before); None when any run ended without an error."""
    runs = [run for cell in report["cells"] for run in cell["runs"]]
    if not runs or not all(run.get("errored") for run in runs):
        return None
    return next((str(run["error"]) for run in runs if run.get("error")), "errored")


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


def _cell_text(cell: dict[str, Any] | None, saturated: bool = False) -> str:
    if cell is None:
        return "—"
    ci = cell.get("score_ci95")
    spread = f" [{ci[0]:.0f}–{ci[1]:.0f}]" if ci else ""
    passed = f"≥20 {round(cell['pass_rate'] * 100)}%"
    levels = cell.get("levels") or {}
    mark = f" {SATURATED_MARK}" if saturated else ""
    return (
        f"{cell['score_mean']:.1f}{mark}{spread} {passed} · {levels_text(levels)}"
        f"{errored_text(cell)}"
    )


def errored_text(cell: dict[str, Any]) -> str:
    """ " (1 errored; without it 50.0, ≥20 100%)": a cell's errored runs, counted in its
    score as SMBench counts them, and the figure without them (not SMBench's)."""
    count = cell.get("errored") or 0
    if not count:
        return ""
    clean = cell.get("error_free")
    if clean is None:
        return f" ({count} errored: all)"
    without = "without it" if count == 1 else "without them"
    return (
        f" ({count} errored; {without} {clean['score_mean']:.1f}, "
        f"≥20 {round(clean['pass_rate'] * 100)}%)"
    )


def composite_scenarios(report: dict[str, Any], strategy: str | None = None) -> list[str]:
    """The scenarios of SMBench's five a strategy (else any strategy) played, in
    SMBench's order."""
    keys = {s.id: s.key for s in SCENARIOS.values()}
    played = {
        keys.get(cell["scenario"], cell["scenario"])
        for cell in report.get("cells") or ()
        if strategy in (None, cell.get("strategy"))
    }
    return [key for key in scoring.COMPOSITE_SCENARIOS if key in played]


def composite_label(report: dict[str, Any]) -> str:
    """The row's name: "composite s1 s2 s3 s5 s6 (provider)" only when a strategy played
    all five of SMBench's scenarios; "partial: s1 s3 (provider)" when none did (the
    scenarios its mean is over); "composite or partial" when both, each cell saying."""
    name = report["provider"]
    full = bool(report.get("composite"))
    partial = report.get("partial") or {}
    if full and not partial:
        return f"composite {' '.join(scoring.COMPOSITE_SCENARIOS)} ({name})"
    if partial and not full:
        overs = {" ".join(p["scenarios"]) for p in partial.values()}
        return f"partial: {overs.pop()} ({name})" if len(overs) == 1 else f"partial ({name})"
    return f"composite or partial ({name})" if full else f"composite ({name})"


def composite_text(report: dict[str, Any], strategy: str, *, named: bool = False) -> str:
    """A strategy's composite ("54.0"), its partial mean ("partial: s1 s3 40.0" — with
    ``named``, or when the row's label does not already say it) or "—"."""
    composite = report.get("composite") or {}
    partial = (report.get("partial") or {}).get(strategy)
    over = composite_scenarios(report, strategy)
    if strategy in composite and len(over) < len(scoring.COMPOSITE_SCENARIOS):
        # A batch stored before composites needed all five: named for what it is.
        partial = {"scenarios": over, "score": composite[strategy]}
    elif strategy in composite:
        return score_text(composite[strategy])
    if partial is None:
        return "—"
    value = score_text(partial["score"])
    if not named and composite_label(report).startswith("partial:"):
        return value
    return f"partial: {' '.join(partial['scenarios'])} {value}"


#: Beside a cell whose scenario the autopilot baseline saturates.
SATURATED_MARK = "✱"
#: A baseline mean at or above this leaves a model no room above the rule bot.
SATURATION = 95.0


def saturated(baseline: dict[str, Any] | None) -> set[str]:
    """The scenarios (ids) the baseline saturates: an error-free rule bot scores within
    ``100 - SATURATION`` of the maximum, so no model can score clearly above it."""
    if baseline is None:
        return set()
    return {c["scenario"] for c in baseline.get("cells") or () if c["score_mean"] >= SATURATION}


def separation_line(report: dict[str, Any], baseline: dict[str, Any] | None) -> str | None:
    """One line: which played scenarios can separate models under the budget played,
    read from the autopilot baseline (None without one)."""
    if baseline is None:
        return None
    scenarios, _, _ = _grid(report)
    full = saturated(baseline)
    keys = [s.split("-", 1)[0] for s in scenarios]
    room = [k for s, k in zip(scenarios, keys, strict=True) if s not in full]
    flat = [k for s, k in zip(scenarios, keys, strict=True) if s in full]
    line = f"separates models under this budget: {' '.join(room) or 'none'}"
    if flat:
        line += (
            f"; {SATURATED_MARK} saturated by the autopilot baseline (≥ {SATURATION:.0f}, "
            f"no room above a rule bot): {' '.join(flat)}"
        )
    return line


def context_line(report: dict[str, Any]) -> str:
    """World, prompt source, seeds and runs of a report ("world smbench · prompt arena
    · seeds 0–2 · 3 run(s)/cell")."""
    seeds = sorted(
        {int(r["metrics"].get("seed", 0)) for c in report.get("cells") or () for r in c["runs"]}
    )
    if not seeds:
        plan = report.get("plan") or {}
        first = int(plan.get("seed") or 0)
        seeds = list(range(first, first + int(plan.get("runs") or report.get("runs") or 1)))
    span = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}–{seeds[-1]}"
    prompt = report.get("prompt", "arena")
    source = "SMBench's client" if prompt == "smbench" else "arena"
    return (
        f"world {report.get('world', 'smbench')} · prompt {source} · {span} · "
        f"{report.get('runs', 1)} run(s)/cell"
    )


def table(report: dict[str, Any], baseline: dict[str, Any] | None = None) -> str:
    """A plain-text table: one row per scenario, one column per strategy (SMBench's mean
    score, its 95 % interval, the share of runs scoring at least 20, how many runs
    reached each success level, errored runs), then the composite (SMBench's five) or
    the partial mean; the autopilot's baseline composite first when another provider
    was measured, with a line on which scenarios it leaves room in; below, each cell's
    outcomes (what its runs achieved)."""
    scenarios, strategies, grid = _grid(report)
    full = saturated(baseline)
    header = ["scenario", *strategies]
    rows = [
        [s, *(_cell_text(grid.get((s, st)), s in full) for st in strategies)] for s in scenarios
    ]
    rows.append([composite_label(report), *(composite_text(report, st) for st in strategies)])
    clean = report.get("composite_error_free") or {}
    if clean:
        rows.append(
            [
                "composite without errored runs (not SMBench's)",
                *(score_text(clean[st]) if st in clean else "—" for st in strategies),
            ]
        )
    if baseline is not None:
        rows.insert(
            0,
            [
                "composite (autopilot baseline)",
                *(composite_text(baseline, st, named=True) for st in strategies),
            ],
        )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("─" * w for w in widths))
    lines.insert(0, context_line(report))
    lines.insert(0, f"budget: {budget_line(report)}")
    separation = separation_line(report, baseline)
    if separation is not None:
        lines.append(separation)
    lines.append("outcomes (means over each cell's runs):")
    for scenario in scenarios:
        for strategy in strategies:
            cell = grid.get((scenario, strategy))
            if cell is not None and cell.get("outcomes"):
                lines.append(
                    f"  {scenario.split('-', 1)[0]} {strategy}: {outcomes_text(cell['outcomes'])}"
                )
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
    """Score per scenario × strategy as bars, one line each, with the success levels its
    runs reached beside it (a bar never ranks a cell without them):
    ``s1 turn-aware  ██████████▌········  52.6  good 1, none 1``."""
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
                f"{score_text(mean).rjust(5)}  {levels_text(cell.get('levels') or {})}"
            )
    return lines


def leaderboard(reports: Sequence[dict[str, Any]]) -> str:
    """The Markdown leaderboard: one row per provider (the autopilot baseline first when
    present) and strategy, the score of each scenario with its levels and outcomes, and
    the composite (or the partial mean, named)."""
    ordered = sorted(reports, key=lambda r: r["provider"] != "autopilot")
    baseline = next((r for r in ordered if r["provider"] == "autopilot"), None)
    full = saturated(baseline) if len(ordered) > 1 else set()
    scenarios: list[str] = []
    for report in ordered:
        for cell in report["cells"]:
            if cell["scenario"] not in scenarios:
                scenarios.append(cell["scenario"])
    lines = [
        "# Zoea Nova arena leaderboard",
        "",
        "SMBench's scenarios on the embedded world, scored and aggregated as SMBench does "
        "(every run played counts, an errored one too; scores to 0.1): mean score over "
        "runs, the share of runs scoring at least 20 (SMBench's pass), the success "
        "levels the runs reached (a separate thing SMBench's scorer never reads) and what "
        "they achieved. The composite is the mean over SMBench's five scenarios (s1 s2 s3 "
        "s5 s6), all played; a row that played fewer shows a partial mean, named by its "
        "scenarios; s4 stands apart. The autopilot is the rule-based baseline"
        + (f"; {SATURATED_MARK} marks a scenario it saturates." if full else "."),
        "",
        *dict.fromkeys(f"Budget: {budget_line(r)}." for r in ordered),
        *dict.fromkeys(f"Played: {context_line(r)}." for r in ordered),
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
                    continue
                mark = f" {SATURATED_MARK}" if scenario in full and report is not baseline else ""
                levels = levels_text(cell.get("levels") or {})
                found = cell.get("outcomes")
                cells.append(
                    f"{cell['score_mean']:.1f}{mark} (≥20 {round(cell['pass_rate'] * 100)}%; "
                    f"{levels}{errored_text(cell)})"
                    + (f"<br>{outcomes_text(found)}" if found else "")
                )
            lines.append(
                f"| {report['provider']} | {strategy} | "
                + " | ".join(cells)
                + f" | {composite_text(report, strategy, named=True)} |"
            )
    if baseline is not None and len(ordered) > 1:
        separation = separation_line(ordered[-1], baseline)
        if separation:
            lines += ["", separation[0].upper() + separation[1:] + "."]
    lines += ["", "## Score per scenario and strategy", ""]
    for report in ordered:
        lines += [f"{report['provider']}:", "", "```", *bars(report), "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"

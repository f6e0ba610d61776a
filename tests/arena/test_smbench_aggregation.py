"""SMBench's aggregation, to the decimal: rounding, errored runs, and the published tables.

SMBench publishes no licence: its results are read from a user's checkout
(``ZOEA_SMBENCH_CHECKOUT``), never kept here. The always-run tests play the same
comparison over small synthetic runs laid out as SMBench lays out its results.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from zoea_tui.arena import scoring
from zoea_tui.arena.published import PublishedError, recompute
from zoea_tui.arena.report import build_report, composite_label, leaderboard, table
from zoea_tui.arena.runner import RunResult

#: Where a user's SMBench checkout is, for the test against its published tables.
CHECKOUT = os.environ.get("ZOEA_SMBENCH_CHECKOUT")


def test_runs_round_to_a_tenth_halves_up_as_javascript_does() -> None:
    # s2 with 4 calls, 3 errors: 25·1/4 + 25·4/20 = 11.25; Python's round gives 11.2.
    metrics = {"tool_calls": 4, "tool_errors": 3}
    assert scoring.exact_score("s2", metrics) == 11.25
    assert scoring.score_run("s2", metrics) == 11.3
    assert scoring.round1(0.25) == 0.3 and scoring.round1(-0.25) == -0.2
    assert scoring.js_round(2.5) == 3 and scoring.js_round(-2.5) == -2


def test_pass_is_judged_on_the_score_before_rounding() -> None:
    # s1, 29 calls all errors, 20 credits earned: 19.95…, shown 20.0, and it fails.
    metrics = {"tool_calls": 29, "tool_errors": 29, "credits_earned": 20}
    assert 19.9 < scoring.exact_score("s1", metrics) < 20
    assert scoring.score_run("s1", metrics) == 20.0
    assert scoring.run_passed("s1", metrics) is False


def test_aggregate_rounds_mean_std_and_pass_rate_as_smbench() -> None:
    figures = scoring.aggregate([50.0, 50.0, 16.7], [True, True, False])
    assert figures == {"score_mean": 38.9, "score_std": 15.7, "pass_rate": 0.67}
    assert scoring.aggregate([], []) == {"score_mean": 0.0, "score_std": 0.0, "pass_rate": 0.0}
    assert scoring.composite([38.9, 50.0, 12.25]) == 33.7


def _run(scenario: str, calls: int, errors: int, *, errored: bool = False) -> RunResult:
    metrics = {"tool_calls": calls, "tool_errors": errors, "level": "none"}
    return RunResult(
        scenario,
        "turn-aware",
        0,
        scoring.score_run(scenario, metrics),
        scoring.run_passed(scenario, metrics),
        metrics,
        errored=errored,
        error="server_error: 500" if errored else None,
        answered=12,
        requests=12,
    )


def test_an_errored_run_counts_as_smbench_counts_it_and_stays_visible() -> None:
    """The issue's example: a run errored at request 12 (16.7) beside two that scored 50:
    38.9 and 67 % as SMBench shows it, not 50.0 and 100 %."""
    runs = [_run("s6", 30, 30), _run("s6", 30, 30), _run("s6", 10, 10, errored=True)]
    assert [r.score for r in runs] == [50.0, 50.0, 16.7]
    report = build_report("p", 3, runs)
    (cell,) = report["cells"]
    assert (cell["score_mean"], cell["pass_rate"], cell["errored"]) == (38.9, 0.67, 1)
    assert cell["error_free"] == {"score_mean": 50.0, "pass_rate": 1.0, "runs": 2}
    assert [r["errored"] for r in cell["runs"]] == [False, False, True]
    text = table(report)
    assert "38.9" in text and "(1 errored; without it 50.0, ≥20 100%)" in text
    # A cell whose runs all errored is still scored, and stays in the composite.
    five = [_run(k, 30, 0) for k in ("s1", "s2", "s3", "s5")] + [_run("s6", 6, 0, errored=True)]
    report = build_report("p", 1, five)
    # (40 + 50 + 26.3 + 50 + 60) / 5 = 45.26
    assert report["composite"] == {"turn-aware": 45.3}
    assert report["composite_error_free"] == {"turn-aware": None}
    assert "(1 errored: all)" in table(report)


def test_the_error_free_composite_is_labelled_as_not_smbenchs() -> None:
    runs = [_run(k, 30, 0) for k in ("s1", "s2", "s3", "s5", "s6")]
    runs.append(_run("s6", 3, 3, errored=True))
    report = build_report("p", 2, runs)
    # s6: (100 + 5) / 2 = 52.5; (40 + 50 + 26.3 + 50 + 52.5) / 5 = 43.76
    assert report["composite"]["turn-aware"] == 43.8
    # without the errored run s6 is 100: (40 + 50 + 26.3 + 50 + 100) / 5 = 53.26
    assert report["composite_error_free"]["turn-aware"] == 53.3
    assert "composite without errored runs (not SMBench's)" in table(report)


def test_a_composite_only_over_all_five_else_partial_with_its_scenarios() -> None:
    # s1 40.0 and s3 26.25 → 26.3: (40 + 26.3) / 2 = 33.15 → 33.2
    two = build_report("p", 1, [_run("s1", 30, 0), _run("s3", 30, 0)])
    assert two["composite"] == {}
    assert two["partial"] == {"turn-aware": {"scenarios": ["s1", "s3"], "score": 33.2}}
    assert composite_label(two) == "partial: s1 s3 (p)"
    assert "composite" not in table(two).splitlines()[-3]
    row = next(line for line in leaderboard([two]).splitlines() if line.startswith("| p |"))
    assert row.endswith("| partial: s1 s3 33.2 |")
    five = build_report("p", 1, [_run(k, 30, 0) for k in ("s1", "s2", "s3", "s5", "s6")])
    assert composite_label(five) == "composite s1 s2 s3 s5 s6 (p)" and "partial" not in five


# -- the published tables ------------------------------------------------------------------


def _synthetic_checkout(root: Path) -> Path:
    """A results folder laid out as SMBench's, with runs of our own making: two models,
    two scenarios, two runs each; one run's transcript holds its events."""
    runs: dict[str, list[dict[str, Any]]] = {
        "s2-navigation": [
            {"tool_calls": 4, "tool_errors": 3, "systems_explored": 0},  # 11.25 → 11.3
            {"tool_calls": 20, "tool_errors": 0, "systems_explored": 3},  # 65.0
        ],
        "s6-mission-runner": [
            {"tool_calls": 30, "tool_errors": 30},  # 50.0
            {"tool_calls": 10, "tool_errors": 10},  # errored at request 12: 16.7
        ],
    }
    models = []
    for index, name in enumerate(("Model A", "Model B")):
        scenarios = {}
        for scenario, metrics in runs.items():
            key = scenario.split("-", 1)[0]
            scored = [
                {
                    "score": scoring.score_run(key, m),
                    "metrics": m,
                    "pass": scoring.run_passed(key, m),
                }
                for m in metrics
            ]
            figures = scoring.aggregate([r["score"] for r in scored], [r["pass"] for r in scored])
            scenarios[scenario] = {
                "averageScore": figures["score_mean"],
                "stdDev": figures["score_std"],
                "passRate": figures["pass_rate"],
                "runs": scored,
            }
        means = [c["averageScore"] for c in scenarios.values()]
        models.append(
            {
                "model": {"id": f"lab/model-{index}", "label": name, "category": "x"},
                "scenarios": scenarios,
                "compositeScore": scoring.composite(means),
            }
        )
    folder = root / "results" / "synth"
    (folder / "transcripts" / "lab-model-0").mkdir(parents=True)
    events = [{"event": "tool_call"}] + [{"event": "tool_error"}] * 3 + [{"event": "llm_call"}]
    (folder / "transcripts" / "lab-model-0" / "s2-navigation-r1.jsonl").write_text(
        "\n".join(json.dumps(e) for e in events) + "\n", encoding="utf-8"
    )
    (folder / "results.json").write_text(json.dumps({"models": models}), encoding="utf-8")
    md = [
        "## Leaderboard",
        "",
        "| Rank | Model | Category | Composite Score |",
        "|---|---|---|---|",
    ]
    md += [
        f"| {i + 1} | {m['model']['label']} | x | {m['compositeScore']:.1f} |"
        for i, m in enumerate(models)
    ]
    for scenario in runs:
        md += [
            "",
            f"### {scenario}",
            "",
            "| Model | Avg Score | Std Dev | Pass Rate |",
            "|-|-|-|-|",
        ]
        for m in models:
            c = m["scenarios"][scenario]
            md.append(
                f"| {m['model']['label']} | {c['averageScore']:.1f} | {c['stdDev']:.1f} | "
                f"{c['passRate'] * 100:.0f}% |"
            )
    (folder / "results.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    return folder


def test_synthetic_published_tables_are_recomputed_to_the_decimal(tmp_path: Path) -> None:
    _synthetic_checkout(tmp_path)
    comparison = recompute(tmp_path)
    assert comparison.mismatches == []
    assert comparison.runs == 8 and comparison.from_transcripts == 1
    # 8 runs × (score, pass) + 1 transcript × 2 counts + 4 cells × 3 + 2 composites
    # + results.md: 2 composites + 4 cells × 3.
    assert comparison.figures == 16 + 2 + 12 + 2 + 14


def test_the_comparison_rejects_a_table_off_by_a_tenth(tmp_path: Path) -> None:
    folder = _synthetic_checkout(tmp_path)
    data = json.loads((folder / "results.json").read_text())
    cell = data["models"][1]["scenarios"]["s6-mission-runner"]
    cell["averageScore"] = round(cell["averageScore"] + 0.1, 1)
    (folder / "results.json").write_text(json.dumps(data))
    md = (folder / "results.md").read_text().replace("| Model A | 38.2 |", "| Model A | 38.3 |")
    (folder / "results.md").write_text(md)
    found = [str(m) for m in recompute(tmp_path).mismatches]
    assert found == [
        "synth Model B s6-mission-runner mean: published 33.5, recomputed 33.4",
        "synth results.md s2-navigation Model A mean: published 38.3, recomputed 38.2",
    ]


def test_the_comparison_rejects_a_transcript_that_disagrees_with_its_run(tmp_path: Path) -> None:
    folder = _synthetic_checkout(tmp_path)
    transcript = folder / "transcripts" / "lab-model-0" / "s2-navigation-r1.jsonl"
    transcript.write_text(transcript.read_text() + json.dumps({"event": "tool_call"}) + "\n")
    found = [str(m) for m in recompute(tmp_path).mismatches]
    assert "synth Model A s2-navigation r1 tool_calls: published 4, recomputed 5" in found
    assert any("r1 score: published 11.3" in m for m in found)


def test_a_folder_without_published_results_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(PublishedError, match=r"has no results/<run>/results\.json"):
        recompute(tmp_path)


@pytest.mark.skipif(
    CHECKOUT is None or not Path(CHECKOUT).is_dir(),
    reason="no SMBench checkout: set ZOEA_SMBENCH_CHECKOUT to one (SMBench publishes no "
    "licence, so its results are not kept in this repository)",
)
def test_smbenchs_published_tables_are_recomputed_to_the_decimal() -> None:
    assert CHECKOUT is not None
    comparison = recompute(Path(CHECKOUT))
    assert comparison.runs > 0
    assert comparison.mismatches == [], comparison.summary()


# -- outcomes beside the score -------------------------------------------------------------


def test_a_cell_shows_what_its_runs_achieved_beside_the_score() -> None:
    def run(earned: int, spent: int, **figures: float) -> RunResult:
        metrics = {
            "tool_calls": 30,
            "tool_errors": 3,
            "credits_earned": earned,
            "credits_spent": spent,
            "level": "pass",
            **figures,
        }
        score = scoring.score_run("s1", metrics)
        return RunResult(
            "s1", "turn-aware", 0, score, True, metrics, tokens_in=9_000, tokens_out=1_000,
            requests=20,
        )  # fmt: skip

    runs = [
        run(600, 100, systems_explored=1, unrecovered_errors=2, cost_usd=0.02),
        run(300, 0, systems_explored=3, missions_completed=1, pirates_destroyed=1, cost_usd=0.04),
    ]
    report = build_report("p", 2, runs)
    (cell,) = report["cells"]
    mean = cell["score_mean"]
    assert cell["outcomes"] == {
        "net_credits": 400.0,  # (500 + 300) / 2
        "credits_per_100_requests": 2000.0,  # 800 over 40 requests
        "systems_reached": 2.0,
        "missions_completed": 0.5,
        "pirates_destroyed": 0.5,
        "unrecovered_errors": 1.0,
        "tokens_per_point": round(10_000 / mean),
        "cost_per_point": round(0.03 / mean, 6),
    }
    text = table(report)
    assert "s1 turn-aware: net +400 cr (+2,000/100 req) · 2 systems · 0.5 missions" in text
    # Without the provider's prices there is no cost, and it says nothing of one.
    runs[0].metrics["cost_usd"] = None
    assert build_report("p", 2, runs)["cells"][0]["outcomes"]["cost_per_point"] is None


def test_unrecovered_errors_are_failures_never_followed_by_a_success_of_the_command() -> None:
    from zoea_tui.arena.metrics import CallTally

    tally = CallTally()
    for name, error in [("mine", True), ("mine", True), ("mine", False), ("sell", True)]:
        tally.add(name, error)
    tally.add("jump", True)
    tally.add("zoea_search", True)  # the swarm's own: never scored
    assert (tally.errors, tally.unrecovered) == (4, 2)


def test_the_report_says_which_scenarios_separate_models_and_marks_saturation() -> None:
    def five(scores: dict[str, float], provider: str) -> dict[str, Any]:
        runs = []
        for key, score in scores.items():
            metrics = {"level": "none", "tool_calls": 30}
            runs.append(RunResult(key, "turn-aware", 0, score, score >= 20, metrics))
        return build_report(provider, 1, runs)

    baseline = five({"s1": 40.0, "s2": 99.0, "s3": 26.3, "s5": 50.0, "s6": 100.0}, "autopilot")
    model = five({"s1": 45.0, "s2": 80.0, "s3": 30.0, "s5": 50.0, "s6": 96.7}, "m")
    text = table(model, baseline)
    assert (
        "separates models under this budget: s1 s3 s5; ✱ saturated by the autopilot "
        "baseline (≥ 95, no room above a rule bot): s2 s6"
    ) in text
    row = next(line for line in text.splitlines() if line.startswith("s6-mission-runner"))
    assert "96.7 ✱" in row
    assert "45.0 ✱" not in text
    board = leaderboard([baseline, model])
    assert "96.7 ✱" in board and "Separates models under this budget: s1 s3 s5" in board
    # The baseline's own row carries no mark.
    assert "100.0 ✱" not in board

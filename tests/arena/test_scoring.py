"""SMBench's formulas against runs computed by hand."""

from __future__ import annotations

import math

import pytest

from zoea_tui.arena import scoring
from zoea_tui.arena.scenarios import SCENARIOS, resolve


def test_s1_hand_computed_run() -> None:
    # 40·(1500/5000) + 20·(45/50) + 20·min(50/30, 1) + 20·min((1500/50)/30, 1)
    metrics = {"credits_earned": 1500, "tool_calls": 50, "tool_errors": 5}
    assert scoring.score_run("s1", metrics) == pytest.approx(12 + 18 + 20 + 20)


def test_s2_hand_computed_run() -> None:
    # 50·(4/10) + 25·(12/16) + 25·(16/20) = 58.75, shown 58.8 (SMBench's 0.1, halves up)
    metrics = {"systems_explored": 4, "tool_calls": 16, "tool_errors": 4}
    assert scoring.exact_score("s2-navigation", metrics) == pytest.approx(20 + 18.75 + 20)
    assert scoring.score_run("s2-navigation", metrics) == 58.8


def test_s3_hand_computed_run() -> None:
    # 40·(3000/15000) + 30·(5000/20000) + 15·(18/20) + 15·(20/40)
    metrics = {"final_credits": 3000, "credits_earned": 5000, "tool_calls": 20, "tool_errors": 2}
    assert scoring.score_run("s3", metrics) == pytest.approx(8 + 7.5 + 13.5 + 7.5)


def test_s5_hand_computed_run() -> None:
    metrics = {"pirates_destroyed": 1, "tool_calls": 30, "tool_errors": 0}
    assert scoring.score_run("s5", metrics) == 66.7


def test_s4_and_s6_use_accuracy_and_activity_only() -> None:
    metrics = {"tool_calls": 10, "tool_errors": 5, "credits_earned": 10_000}
    assert scoring.score_run("s6", metrics) == 41.7
    assert scoring.score_run("s4", metrics) == 41.7


def test_s2_and_s6_give_an_error_free_pilot_the_maximum_as_on_the_real_server() -> None:
    # What docs/ARENA.md's calibration table reads from SMBench's run-2 logs of the real
    # server: Gemini 3.1 Pro's second s6 run (30 calls, 1 error, no mission completed)
    # and Claude Sonnet 4.6's second s2 run (27 calls, 5 errors, 9 systems explored).
    gemini_s6 = {"tool_calls": 30, "tool_errors": 1, "missions_completed": 0}
    claude_s2 = {"tool_calls": 27, "tool_errors": 5, "systems_explored": 9}
    assert scoring.score_run("s6", gemini_s6) == 98.3
    assert scoring.score_run("s2", claude_s2) == 90.4
    # The same pilots without an error (and, in s2, a tenth jump): the maximum.
    assert scoring.score_run("s6", {"tool_calls": 30, "tool_errors": 0}) == 100
    assert scoring.score_run("s2", {"tool_calls": 20, "systems_explored": 10}) == 100
    # Only an outcome below the mark keeps s2 under it.
    assert scoring.score_run("s2", {"tool_calls": 30, "systems_explored": 9}) == 95


def test_terms_are_capped_at_their_weight() -> None:
    metrics = {"credits_earned": 1_000_000, "tool_calls": 10, "tool_errors": 0}
    assert scoring.score_run("s1", metrics) == 86.7  # 40 + 20 + 20·10/30 + 20
    assert scoring.score_run("s2", {"systems_explored": 50, "tool_calls": 100}) == 100


def test_no_tool_calls_scores_zero_without_dividing_by_zero() -> None:
    for key in SCENARIOS:
        assert scoring.score_run(key, {}) == 0


def test_a_run_passes_at_twenty() -> None:
    assert scoring.passed(20.0) and not scoring.passed(19.99)


def test_aggregates_mean_population_std_and_pass_rate() -> None:
    scores = [70.0, 10.0, 40.0]
    assert scoring.mean(scores) == 40
    assert scoring.population_std(scores) == pytest.approx(math.sqrt(600))
    assert scoring.pass_rate(scores) == pytest.approx(2 / 3)
    assert scoring.population_std([5.0]) == 0
    assert scoring.composite([70.0, 10.0]) == 40


def test_success_levels_of_s1() -> None:
    s1 = SCENARIOS["s1"]
    assert s1.level({"credits_earned": 499}) == "none"
    assert s1.level({"credits_earned": 1500}) == "good"
    assert s1.achieved({"credits_earned": 3000}) == {"pass": True, "good": True, "excellent": True}


def test_success_levels_of_s4_and_s5() -> None:
    s4, s5 = SCENARIOS["s4"], SCENARIOS["s5"]
    assert s4.level({"chats": 3, "status_set": 1}) == "pass"
    social = {
        "chats": 3,
        "chats_local": 2,
        "chats_global": 1,
        "log_entries": 2,
        "forum_posts": 1,
        "status_set": 1,
        "colors_set": 1,
    }
    assert s4.level(social) == "good"
    assert s4.level({**social, "replies_received": 1}) == "excellent"
    assert s5.level({"weapons_installed": 1, "pirates_engaged": 1}) == "good"
    assert s5.level({"weapons_installed": 1, "pirates_engaged": 1, "destroyed": 1}) == "pass"


def test_scenarios_resolve_by_key_id_or_all() -> None:
    assert [s.id for s in resolve("s1")] == ["s1-bootstrap-grind"]
    assert resolve("s6-mission-runner")[0].budget == 300
    assert len(resolve("all")) == 6
    with pytest.raises(ValueError, match="expected one of"):
        resolve("s7")


def test_ci95_is_students_t_over_the_sample_sd_and_needs_two_runs() -> None:
    # mean 40, sample sd sqrt(900) = 30, t(2) = 4.303: 40 ± 4.303·30/√3 = 40 ± 74.53
    assert scoring.ci95([70.0, 10.0, 40.0]) == [0.0, 100.0]  # clipped to the score range
    low, high = scoring.ci95([50.0, 52.0, 54.0, 56.0])  # type: ignore[misc]
    # mean 53, sample sd 2.582, t(3) = 3.182: ± 4.108
    assert (low, high) == pytest.approx((48.89, 57.11), abs=0.01)
    assert scoring.ci95([42.0]) is None and scoring.ci95([]) is None
    assert scoring.t95(100) == 1.98 and scoring.t95(1000) == 1.96
    with pytest.raises(ValueError):
        scoring.t95(0)


def _result(scenario: str, score: float, level: str, **extra: object):  # type: ignore[no-untyped-def]
    from zoea_tui.arena.runner import RunResult

    metrics = {"level": level, "game_calls": 10, "game_errors": 1, "swarm_calls": 2, **extra}
    return RunResult(scenario, "turn-aware", 0, score, score >= 20, metrics, answered=1)


def test_the_composite_is_smbenchs_five_and_s4_stands_apart() -> None:
    from zoea_tui.arena.report import build_report, table

    results = [
        _result("s1", 40.0, "pass"),
        _result("s2", 60.0, "good"),
        _result("s4", 100.0, "none"),
    ]
    report = build_report("p", 1, results)
    # Two of SMBench's five: a partial mean, never called the composite.
    assert report["composite"] == {}
    assert report["partial"] == {"turn-aware": {"scenarios": ["s1", "s2"], "score": 50.0}}
    assert report["composite_s4"] == {"turn-aware": 100.0}
    only_s4 = build_report("p", 1, [_result("s4", 90.0, "pass")])
    assert only_s4["composite"] == {} and only_s4["composite_s4"] == {"turn-aware": 90.0}
    assert "composite (p)  —" in table(only_s4)
    assert "partial: s1 s2 (p)" in table(report) and "composite s1" not in table(report)
    assert "composite_s4" not in build_report("p", 1, results[:2])


def test_the_composite_is_labelled_only_over_the_scenarios_played() -> None:
    """Issues 40 and 43: after playing s1 alone the table said "composite s1 s2 s3 s5
    s6"; a mean over fewer than the five is "partial", named by its scenarios."""
    from zoea_tui.arena.report import build_report, composite_label, leaderboard, table

    alone = build_report("p", 1, [_result("s1", 40.0, "pass")])
    assert composite_label(alone) == "partial: s1 (p)"
    assert "partial: s1 (p)" in table(alone) and "s2 s3" not in table(alone)
    assert "| p | turn-aware | " in leaderboard([alone])
    row = next(line for line in leaderboard([alone]).splitlines() if line.startswith("| p |"))
    assert row.endswith("| partial: s1 40.0 |")
    five = build_report("p", 1, [_result(k, 40.0, "pass") for k in ("s1", "s2", "s3", "s5", "s6")])
    assert composite_label(five) == "composite s1 s2 s3 s5 s6 (p)"
    row = next(line for line in leaderboard([five]).splitlines() if line.startswith("| p |"))
    assert row.endswith("| 40.0 |")


def test_a_cell_counts_its_levels_and_keeps_score_20_apart_from_level_pass() -> None:
    from zoea_tui.arena.report import build_report, leaderboard, table

    results = [
        _result("s1", 24.0, "none", credits_earned=100),  # ≥ 20 without the level "pass"
        _result("s1", 60.0, "excellent", credits_earned=3_100),
        _result("s1", 58.0, "excellent", credits_earned=3_000),
        _result("s1", 10.0, "pass", credits_earned=500),
    ]
    (cell,) = build_report("p", 4, results)["cells"]
    assert cell["levels"] == {"none": 1, "pass": 1, "good": 0, "excellent": 2}
    assert cell["pass_rate"] == 0.75
    assert cell["score_ci95"] == scoring.ci95([24.0, 60.0, 58.0, 10.0])
    assert cell["metrics_mean"]["credits_earned"] == 1_675
    assert cell["metrics_mean"]["game_calls"] == 10 and cell["metrics_mean"]["swarm_calls"] == 2
    assert [r["level"] for r in cell["runs"]] == ["none", "excellent", "excellent", "pass"]
    text = table(build_report("p", 4, results))
    assert "≥20 75%" in text and "excellent 2, pass 1, none 1" in text
    assert "excellent 2, pass 1, none 1" in leaderboard([build_report("p", 4, results)])


def test_scores_are_drawn_as_bars_in_the_leaderboard() -> None:
    from zoea_tui.arena.report import bar, bars, build_report, leaderboard

    assert bar(100.0, 10) == "█" * 10 and bar(0.0, 10) == "·" * 10
    assert bar(55.0, 10) == "█████▌····" and bar(None, 4) == "····"
    assert bar(130.0, 4) == "████" and bar(-5.0, 4) == "····"
    report = build_report("p", 1, [_result("s1", 40.0, "pass"), _result("s2", 75.0, "good")])
    assert bars(report, 8) == [
        "s1 turn-aware  ███▎····   40.0  pass 1",
        "s2 turn-aware  ██████··   75.0  good 1",
    ]
    # A bar never ranks a cell without its level: s4 at 100 reached none of its levels.
    s4 = build_report("p", 1, [_result("s4", 100.0, "none"), _result("s1", 68.3, "excellent")])
    assert bars(s4, 4) == [
        "s4 turn-aware  ████  100.0  none 1",
        "s1 turn-aware  ██▊·   68.3  excellent 1",
    ]
    board = leaderboard([report])
    assert "## Score per scenario and strategy" in board and "s2 turn-aware" in board


def test_a_batch_stored_before_composites_needed_all_five_is_shown_as_partial() -> None:
    from zoea_tui.arena.report import build_report, composite_text

    old = build_report("p", 1, [_result("s1", 40.0, "pass")])
    old.pop("partial")
    old["composite"] = {"turn-aware": 40.0}  # as batches were stored before issue 43
    assert composite_text(old, "turn-aware") == "partial: s1 40.0"

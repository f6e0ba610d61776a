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
    # 50·(4/10) + 25·(12/16) + 25·(16/20)
    metrics = {"systems_explored": 4, "tool_calls": 16, "tool_errors": 4}
    assert scoring.score_run("s2-navigation", metrics) == pytest.approx(20 + 18.75 + 20)


def test_s3_hand_computed_run() -> None:
    # 40·(3000/15000) + 30·(5000/20000) + 15·(18/20) + 15·(20/40)
    metrics = {"final_credits": 3000, "credits_earned": 5000, "tool_calls": 20, "tool_errors": 2}
    assert scoring.score_run("s3", metrics) == pytest.approx(8 + 7.5 + 13.5 + 7.5)


def test_s5_hand_computed_run() -> None:
    metrics = {"pirates_destroyed": 1, "tool_calls": 30, "tool_errors": 0}
    assert scoring.score_run("s5", metrics) == pytest.approx(66.67)


def test_s4_and_s6_use_accuracy_and_activity_only() -> None:
    metrics = {"tool_calls": 10, "tool_errors": 5, "credits_earned": 10_000}
    assert scoring.score_run("s6", metrics) == pytest.approx(41.67)
    assert scoring.score_run("s4", metrics) == pytest.approx(41.67)


def test_terms_are_capped_at_their_weight() -> None:
    metrics = {"credits_earned": 1_000_000, "tool_calls": 10, "tool_errors": 0}
    assert scoring.score_run("s1", metrics) == pytest.approx(40 + 20 + 20 * 10 / 30 + 20, abs=0.01)
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

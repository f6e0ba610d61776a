"""SMBench's scoring, as pure functions (reference: SMBench's published formulas).

Every run scores 0–100; a run passes at :data:`PASS_SCORE` (SMBench's "pass" is this
score, not the success level of the same name, which the scorer never reads). SMBench
rounds as its runner does (JavaScript's ``Math.round(x * 10) / 10``, halves up:
:func:`round1`): a run's score to 0.1, judged pass on the score *before* rounding (so
19.96, shown 20.0, fails); a scenario's mean and population standard deviation over the
rounded run scores, each rounded to 0.1; its pass rate to 0.01; the composite is the mean
of the rounded scenario means, rounded to 0.1 (:func:`aggregate`, :func:`composite`).
Every run played counts, one whose model call failed included (SMBench's client ends the
run there and the runner scores what it did).
``tool_accuracy`` is the share of game calls that succeeded (errors included in the
total), ``activity(n)`` is ``min(calls / n, 1)``; the calls are the game's commands only,
as SMBench's client sends them (Zoea's ``zoea_*`` tools are never scored). Over runs: the
mean, the population standard deviation (SMBench's), a 95 % confidence interval of the
mean (Student's t) and the pass rate; the composite is the mean of the scenario means
over SMBench's five scenarios (:data:`COMPOSITE_SCENARIOS`; SMBench never runs s4).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

#: A run passes at this score or above.
PASS_SCORE = 20.0
#: The scenarios SMBench's published composite is the mean of (s4 is never run).
COMPOSITE_SCENARIOS: tuple[str, ...] = ("s1", "s2", "s3", "s5", "s6")
#: Student's t for a two-sided 95 % interval, by degrees of freedom (1..30).
_T95: tuple[float, ...] = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def js_round(value: float) -> float:
    """JavaScript's ``Math.round``: the nearest integer, halves towards +∞ (Python's
    ``round`` sends halves to the even neighbour: 0.25 → 0.2 where SMBench shows 0.3)."""
    low = math.floor(value)
    return float(low + 1 if value - low >= 0.5 else low)


def round1(value: float) -> float:
    """``Math.round(value * 10) / 10``, SMBench's rounding to 0.1."""
    return js_round(value * 10) / 10


def tool_accuracy(calls: int, errors: int) -> float:
    """Successful tool calls over all tool calls (0 when there were none)."""
    if calls <= 0:
        return 0.0
    return max(0, calls - errors) / calls


def activity(calls: int, n: int) -> float:
    """``min(calls / n, 1)``."""
    return min(calls / n, 1.0) if n > 0 else 0.0


def _cap(value: float) -> float:
    return min(max(value, 0.0), 1.0)


def score_s1(credits_earned: float, calls: int, errors: int) -> float:
    """Bootstrap & grind: credits, accuracy, activity and credits per call."""
    per_call = credits_earned / calls if calls else 0.0
    return (
        40 * _cap(credits_earned / 5_000)
        + 20 * tool_accuracy(calls, errors)
        + 20 * activity(calls, 30)
        + 20 * _cap(per_call / 30)
    )


def score_s2(systems_explored: float, calls: int, errors: int) -> float:
    """Navigation: systems explored, accuracy and activity."""
    return (
        50 * _cap(systems_explored / 10)
        + 25 * tool_accuracy(calls, errors)
        + 25 * activity(calls, 20)
    )


def score_s3(final_credits: float, credits_earned: float, calls: int, errors: int) -> float:
    """Trading: final credits, credits earned, accuracy and activity."""
    return (
        40 * _cap(final_credits / 15_000)
        + 30 * _cap(credits_earned / 20_000)
        + 15 * tool_accuracy(calls, errors)
        + 15 * activity(calls, 40)
    )


def score_s5(pirates_destroyed: float, calls: int, errors: int) -> float:
    """Combat: pirates destroyed, accuracy and activity."""
    return (
        50 * _cap(pirates_destroyed / 3)
        + 25 * tool_accuracy(calls, errors)
        + 25 * activity(calls, 30)
    )


def score_default(calls: int, errors: int) -> float:
    """s4, s6 and any other scenario: accuracy and activity."""
    return 50 * tool_accuracy(calls, errors) + 50 * activity(calls, 30)


def exact_score(scenario: str, metrics: Mapping[str, float]) -> float:
    """The score of one run of ``scenario`` (``"s1"`` … ``"s6"``) from its metrics, not
    rounded (what SMBench judges pass on). ``metrics`` holds ``tool_calls`` and
    ``tool_errors`` and the scenario's own figures; a missing figure counts as 0."""

    def m(key: str) -> float:
        return float(metrics.get(key, 0) or 0)

    calls, errors = int(m("tool_calls")), int(m("tool_errors"))
    key = scenario.split("-", 1)[0]
    if key == "s1":
        value = score_s1(m("credits_earned"), calls, errors)
    elif key == "s2":
        value = score_s2(m("systems_explored"), calls, errors)
    elif key == "s3":
        value = score_s3(m("final_credits"), m("credits_earned"), calls, errors)
    elif key == "s5":
        value = score_s5(m("pirates_destroyed"), calls, errors)
    else:
        value = score_default(calls, errors)
    return value


def score_run(scenario: str, metrics: Mapping[str, float]) -> float:
    """The score of one run as SMBench shows it: :func:`exact_score` rounded to 0.1."""
    return round1(exact_score(scenario, metrics))


def run_passed(scenario: str, metrics: Mapping[str, float]) -> bool:
    """SMBench's pass of one run: its score before rounding is at least 20."""
    return exact_score(scenario, metrics) >= PASS_SCORE


def passed(score: float) -> bool:
    """A run passes at :data:`PASS_SCORE` or above."""
    return score >= PASS_SCORE


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean (0 for no values)."""
    return sum(values) / len(values) if values else 0.0


def population_std(values: Sequence[float]) -> float:
    """The population standard deviation (0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0
    centre = mean(values)
    return math.sqrt(sum((v - centre) ** 2 for v in values) / len(values))


def t95(dof: int) -> float:
    """Student's t for a two-sided 95 % interval with ``dof`` degrees of freedom."""
    if dof < 1:
        raise ValueError("a confidence interval needs at least two values")
    if dof <= len(_T95):
        return _T95[dof - 1]
    return 2.021 if dof <= 40 else 2.000 if dof <= 60 else 1.980 if dof <= 120 else 1.960


def ci95(values: Sequence[float], low: float = 0.0, high: float = 100.0) -> list[float] | None:
    """The 95 % confidence interval of the mean, ``[low, high]`` (Student's t over the
    sample standard deviation), clipped to the score's range; None for fewer than two
    values (one run says nothing of the spread)."""
    if len(values) < 2:
        return None
    centre = mean(values)
    sample_sd = math.sqrt(sum((v - centre) ** 2 for v in values) / (len(values) - 1))
    half = t95(len(values) - 1) * sample_sd / math.sqrt(len(values))
    return [round(max(low, centre - half), 2), round(min(high, centre + half), 2)]


def pass_rate(scores: Sequence[float]) -> float:
    """The share of runs that passed."""
    return sum(passed(s) for s in scores) / len(scores) if scores else 0.0


def composite(scenario_means: Sequence[float]) -> float:
    """SMBench's composite: the mean of the (rounded) scenario means, rounded to 0.1 (the
    caller gives SMBench's five)."""
    return round1(mean(scenario_means))


def aggregate(scores: Sequence[float], passes: Sequence[bool]) -> dict[str, float]:
    """A scenario's figures over its runs, as SMBench's ``aggregateScores`` has them:
    ``score_mean`` and ``score_std`` (population) over the run ``scores`` (already rounded
    to 0.1), each rounded to 0.1, and ``pass_rate`` (the share of ``passes``) to 0.01;
    all 0 for no runs."""
    if not scores:
        return {"score_mean": 0.0, "score_std": 0.0, "pass_rate": 0.0}
    return {
        "score_mean": round1(mean(scores)),
        "score_std": round1(population_std(scores)),
        "pass_rate": js_round(sum(passes) / len(passes) * 100) / 100,
    }

"""Short arena runs: the autopilot reaches the combat and mission levels under turn-aware
(in the classic world, where modules are sold at home and missions repeat)."""

from __future__ import annotations

from typing import Any

from zoea_tui.arena.runner import play
from zoea_tui.arena.scenarios import SCENARIOS
from zoea_tui.config import Config


async def played(scenario: str, **limits: Any) -> dict[str, Any]:
    """The metrics of an autopilot run of ``scenario`` under turn-aware in the classic
    world (seed 0, a budget of ticks; ``limits`` such as ``ticks``)."""
    result = await play(
        Config(),
        SCENARIOS[scenario],
        provider="autopilot",
        strategy="turn-aware",
        seed=0,
        budget_kind="ticks",
        world="classic",
        **limits,
    )
    return result.metrics


async def test_s5_the_autopilot_arms_and_destroys_a_pirate() -> None:
    metrics = await played("s5", ticks=120)
    assert metrics["weapons_installed"] >= 1
    assert metrics["pirates_destroyed"] >= 1 and metrics["destroyed"] == 0
    assert metrics["level"] == "excellent"
    assert metrics["tool_errors"] == 0


async def test_s6_the_autopilot_completes_missions() -> None:
    metrics = await played("s6", ticks=120)
    assert metrics["missions_completed"] >= 3
    assert metrics["level"] == "excellent"
    assert metrics["tool_errors"] == 0


async def test_s3_the_autopilot_trades_to_excellent() -> None:
    metrics = await played("s3")
    assert metrics["orders_created"] >= 20 and metrics["orders_filled"] >= 20
    assert metrics["final_credits"] >= 15_000
    assert metrics["level"] == "excellent"
    assert metrics["tool_errors"] == 0

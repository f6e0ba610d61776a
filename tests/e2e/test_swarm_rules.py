"""The first-five-minutes test's rules over a Mysis's story reject what they should."""

from __future__ import annotations

from tests.e2e.swarm_store import Event, Timeline, frozen_stretches, hold_breaks

_ids = iter(range(1, 10_000))


def order(text: str, at: float) -> Event:
    """A broadcast order."""
    return Event(next(_ids), 1, "user", "broadcast", text, None, at)


def call(name: str, at: float, tick: int = 0) -> Event:
    """An assistant memory calling ``name``."""
    return Event(next(_ids), 1, "assistant", "llm", "", tick, at, ((name, "{}"),))


def answer(text: str, at: float) -> Event:
    """A text answer."""
    return Event(next(_ids), 1, "assistant", "llm", text, None, at)


def test_a_working_mysis_that_stops_calling_is_frozen() -> None:
    working = Timeline("Ada", [call("mine", 0), call("mine", 30), call("sell", 85)])
    assert frozen_stretches(working, 100) == []
    frozen = Timeline(
        "Ada", [call("mine", 0), order("report", 5), answer("Status report", 6), call("mine", 70)]
    )
    [found] = frozen_stretches(frozen, None)
    assert found.startswith("Ada: no tool call for 70s")
    # The last stretch is closed by now: a Mysis that never calls again.
    [found] = frozen_stretches(Timeline("Ada", [call("mine", 0)]), 61)
    assert "to now" in found


def test_a_hold_is_no_freeze_and_a_quit_is_no_stretch() -> None:
    holding = Timeline("Ada", [call("mine", 0), order("hold", 1), answer("Holding", 2)])
    assert frozen_stretches(holding, 500) == []
    # A new working order starts the clock again.
    resumed = Timeline("Ada", [*holding.events, order("mine", 400)])
    assert frozen_stretches(resumed, 500)
    assert frozen_stretches(resumed, 450) == []
    relaunched = Timeline("Ada", [call("mine", 0), call("mine", 200)])
    assert frozen_stretches(relaunched, None, breaks=[100]) == []
    assert frozen_stretches(relaunched, None)


def test_a_game_action_after_a_hold_was_acknowledged_breaks_it() -> None:
    kept = Timeline(
        "Ada",
        [
            order("hold", 0),
            answer("Holding", 1),
            order("report", 2),
            call("get_status", 3),
            answer("Status report", 4),
            answer("Standing order is hold", 30),
            order("mine", 40),
            call("mine", 41),
        ],
    )
    assert hold_breaks(kept) == []
    broken = Timeline(
        "Ada",
        [
            order("hold", 0),
            answer("Holding", 1),
            order("report", 2),
            answer("Status", 3),
            call("travel", 30, tick=30),
        ],
    )
    [found] = hold_breaks(broken)
    assert found.startswith("Ada broke its hold at T30: travel")
    # A call in flight when the order came, before the hold was acknowledged, is none.
    assert hold_breaks(Timeline("Ada", [order("hold", 0), call("mine", 1)])) == []

"""When a game result says the Mysis must wait (docs/CONTEXT.md, 'Turns and nudges').

A refusal with a timing code (``action_pending``, ``in_transit``, ``cooldown``,
``rate_limited``) is one; so is a successful result that announces a later tick:
an asynchronous ``travel``/``jump`` with its ``arrival_tick`` (the real server's
older form), a queued action with its ``next_action_tick``, a ship reported in
transit. The orchestrator then nudges after the wait-state interval, or at the
game's hint when that is shorter.
"""

from __future__ import annotations

from typing import Any

#: Error codes that mean "not now": the game will accept the call later.
WAIT_CODES = frozenset({"action_pending", "in_transit", "cooldown", "rate_limited"})
_TICK_KEYS = ("arrival_tick", "next_action_tick", "cooldown_until_tick", "ready_at_tick")


def ticks_to_wait(data: dict[str, Any] | None, tick: int | None) -> int | None:
    """Ticks the result says to wait (0: waiting, for how long unknown); None: no wait."""
    if not isinstance(data, dict) or data.get("arrived") is True:
        return None
    for key in _TICK_KEYS:
        value = data.get(key)
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and tick is not None
            and value > tick
        ):
            return value - tick
    player = data.get("player")
    if isinstance(player, dict) and player.get("in_transit") is True:
        return 0
    return None

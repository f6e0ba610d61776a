"""The autopilot planner's public face: what a play (a scenario order's rules) may use.

A play (``scenario_play``, ``combat``, ``mission_play``, ``trade``) and the notes line
(``note_line``) take a :class:`Planner`, the protocol of the one decision under way
(:mod:`.decide`'s planner is the one), and answer with a :class:`Decision` made by
:func:`call` or :func:`say`. They import this module and the readings below it, never
:mod:`.decide`, so the rules import the plays and no play imports the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .context import Context
from .facts import Facts, Place, ToolResult

#: Leave the belt for the station below this share of the tank (percent).
LOW_FUEL_PCT = 30
#: Refuel while docked below this share of the tank.
REFUEL_PCT = 70
#: Leave the belt for repairs below this share of the hull.
LOW_HULL_PCT = 40
#: Repair while docked below this share of the hull.
REPAIR_PCT = 75

#: One tool call the autopilot makes: the tool's name and its arguments.
Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Decision:
    """What the autopilot answers: tool calls, or a text that ends the turn."""

    calls: tuple[Call, ...] = ()
    text: str = ""
    reasoning: str = ""


def call(reasoning: str, *calls: Call) -> Decision:
    """An answer that makes these tool calls."""
    return Decision(calls=tuple(calls), reasoning=reasoning)


def say(text: str, reasoning: str) -> Decision:
    """An answer in text, which ends the turn."""
    return Decision(text=text, reasoning=reasoning)


def pct(value: int | None, maximum: int | None, default_max: int = 100) -> int | None:
    """`value` as a whole percentage of `maximum` (None when the value is unknown)."""
    if value is None:
        return None
    return value * 100 // max(maximum or default_max, 1)


class Planner(Protocol):
    """One decision under way, as a play sees it."""

    #: What the autopilot read: the messages' facts, results and orders.
    c: Context
    #: The facts (``c.facts``).
    f: Facts
    #: The standing order's kind ("mine", "trade", "combat", ...).
    intent: str
    #: Polling a wait with get_status (exempt from the repeated-snapshot guard).
    polling: bool
    #: Cargo a play holds back from sale (a mission's delivery).
    keep: dict[str, int]
    #: A play's own way to sell one item at the station.
    sell_hook: Callable[[str, int], Decision | None] | None

    def has(self, name: str) -> bool:
        """Whether this tool is offered."""
        ...

    def mine_loop(
        self, prefer: Place | None = None, *, sell_now: bool = False, refuel_now: bool = False
    ) -> Decision:
        """The mining loop's next step."""
        ...

    def orient(self, reasoning: str) -> Decision:
        """List the system, with the status beside it."""
        ...

    def station_need(self, sell_now: bool, refuel_now: bool) -> str:
        """Why the pilot should go to a station now ("" when it need not)."""
        ...

    def stations(self) -> list[Place]:
        """The stations known in the current system."""
        ...

    def nearest(self, places: list[Place], origin: Place | None) -> Place:
        """The place nearest `origin`."""
        ...

    def go_station(self, why: str) -> Decision:
        """Fly to a station (or find one)."""
        ...

    def pick_belt(self, prefer: Place | None) -> Place | None:
        """The belt to mine at."""
        ...

    def goto_system(self, system: str) -> Decision | None:
        """The next step toward `system` (None: arrived)."""
        ...


def newest(p: Planner, *names: str, args: dict[str, Any] | None = None) -> ToolResult | None:
    """The newest successful result of one of these tools in the context (called with
    exactly ``args``, when given)."""
    for result in reversed(p.c.results):
        if (
            result.name in names
            and result.error() is None
            and result.data()
            and (args is None or result.args() == args)
        ):
            return result
    return None


def since_move(p: Planner) -> list[ToolResult]:
    """The results since my newest trip (travel or jump), oldest first: what they say
    holds where I am now."""
    results = p.c.results
    start = 0
    for index in range(len(results) - 1, -1, -1):
        if results[index].name in ("travel", "jump") and results[index].error() is None:
            start = index + 1
            break
    return results[start:]

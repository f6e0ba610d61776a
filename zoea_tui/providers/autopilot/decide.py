"""The autopilot's rules: from what it read to one answer.

In order: the summary request; no tools (answer text); the account (register
or log in: a Mysis not registered registers, then does what it was told); a hold
or a report in force (how long each order lasts is ``orders.LIFETIMES``); waiting
(a trip under way, one action per tick); then a sale or a refuel in force, else the
standing order: ``goto``, a scenario play or
the mining loop (undock, fly to a belt, mine until the hold is full, fly to
the station, dock, sell, refuel and repair when low, note the sale in the
captain's log). When a fact it needs is missing it asks a snapshot tool or
the search tool, as a model would. A call that already failed this turn is
never repeated: the turn ends with a text instead.

It plays in turns, as a model does, and keeps a turn going while it has a next step
it can take itself: the mining loop goes on through whole cycles (mine until the hold
is full, fly to the station, sell, refuel, fly back) and on to the next one, as a model
keeping at its mission does. A turn ends, with a one-line text (what the turn did, why
it stops, then credits, cargo and location), where a model would end it: an answer to
the commander (a report, a hold, a destination it cannot find), a decision it cannot
take alone (an account that will not log in, no station or belt it knows), when it
cannot progress (a timing refusal, a trip under way, a call that failed this turn),
and one round before the runtime's round limit of a turn (``max_rounds``, from the
request's settings). What the turn did is read back from its own results (what it
mined, sold, registered), so the answer stays a pure function of the messages. A text
is only an end when the autopilot sees its own turns (else the same request would come
back and get the same text): it then plays on, as it always did.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.game_tool import GAME_TOOL, STATE_READS, guide_commands
from ...core.summarizer import extractive_summary
from .._wire import as_dict
from . import scenario_play
from .context import ALIASES, Context, Facts, Place, read_context
from .note_line import noted_order, write_notes
from .orders import Order, lifetime, normalize_name
from .plan import (
    LOW_FUEL_PCT,
    LOW_HULL_PCT,
    REFUEL_PCT,
    REPAIR_PCT,
    Call,
    Decision,
    call,
    pct,
    say,
)
from .scenario_play import SCENARIO_ORDERS

#: What a pilot expects to pay per hull point, and at least per unit of fuel.
REPAIR_PRICE_GUESS = 5
FUEL_PRICE_GUESS = 1
DEFAULT_EMPIRE = "solarian"
SEARCH_LIMIT = 5
#: The runtime's round limit of a turn when the request does not say (its default): the
#: pilot's last answer of a turn is the text that ends it, one round before the limit.
DEFAULT_TURN_ROUNDS = 10
#: Results that are progress toward a turn's goal.
_PROGRESS = frozenset({"mine", "sell", "refuel", "repair", "register"})

_NO_ACCOUNT_WORDS = (
    "no account",
    "no_account",
    "not registered",
    "no credentials",
    "no_credentials",
    "unknown account",
    "account_not_found",
    "register",
)
_BELT_WORDS = ("belt", "asteroid", "field", "mine")
_STATION_WORDS = ("station", "base", "home", "dock", "port", "central")
_SNAPSHOTS = frozenset(
    {
        *STATE_READS,
        "get_map",
        "find_route",
        "zoea_search_messages",
        "zoea_search_reasoning",
        "zoea_search_broadcasts",
        "zoea_swarm_status",
    }
)


def tool_names(tools: Sequence[dict[str, Any]]) -> frozenset[str]:
    """Names of the offered tools (OpenAI function schemas, or bare ``{name}`` dicts),
    with the commands a compact ``game`` tool lists (``core/game_tool.py``)."""
    names = set()
    for tool in tools:
        fn = as_dict(tool.get("function")) or as_dict(tool)
        if isinstance(fn.get("name"), str):
            names.add(fn["name"])
            if fn["name"] == GAME_TOOL and isinstance(fn.get("description"), str):
                names.update(guide_commands(fn["description"]))
    return frozenset(names)


def direct_names(tools: Sequence[dict[str, Any]]) -> frozenset[str]:
    """Names of the tools offered with a schema of their own (not through ``game``)."""
    names = set()
    for tool in tools:
        fn = as_dict(tool.get("function")) or as_dict(tool)
        if isinstance(fn.get("name"), str):
            names.add(fn["name"])
    return frozenset(names)


def decide(
    messages: Sequence[dict[str, Any]],
    tools: frozenset[str],
    *,
    max_rounds: int = DEFAULT_TURN_ROUNDS,
    turn_round: int | None = None,
) -> Decision:
    """The autopilot's answer to one request (pure and deterministic). ``max_rounds`` is
    the runtime's round limit of a turn (the pilot reports and ends with its last round),
    ``turn_round`` which round of the turn this request is, when the runtime says (else
    the rounds are counted in the messages, which a paged turn does not show whole)."""
    context = read_context(messages)
    if context.summary_requested:
        return say(
            summary_text(messages, context),
            "The summarize strategy asked for a summary: wrote the extractive summary.",
        )
    if not tools:
        return say(report(context), "No tools were offered: answered with a status report.")
    return _Planner(context, tools, max_rounds, turn_round).plan()


def summary_text(messages: Sequence[dict[str, Any]], context: Context) -> str:
    """The extractive summary of the conversation before the summary request."""
    body = [m for m in messages[:-1] if m.get("role") != "system"]
    return extractive_summary(body, context.last_request)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _place_label(facts: Facts, poi_id: str | None) -> str:
    if poi_id is None:
        return "an asteroid belt" if facts.at_belt else "an unknown place"
    place = facts.pois.get(poi_id)
    return f"{place.name} ({poi_id})" if place and place.name and place.name != poi_id else poi_id


def _sentence(text: str) -> str:
    """``text`` as a sentence: capitalised, with its full stop."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def location_text(f: Facts) -> str:
    """Where the pilot is, from the facts ("docked at Sol Central (sol_central) in sol")."""
    if f.move is not None and not f.arrived:
        tick = f" (arrival tick {f.move[2]})" if f.move[2] is not None else ""
        return f"in transit to {_place_label(f, f.move[1])}{tick}"
    if f.poi is None and not f.at_belt:
        return "location unknown"
    here = f.here
    # Mining newer than the last known POI means a belt (see ``Facts.at_belt``).
    where = _place_label(f, f.poi if not f.at_belt or (here and here.kind == "belt") else None)
    system = f" in {f.system}" if f.system else ""
    if f.docked:
        return f"docked at {where}{system}"
    return f"at {where}{system}" + (", undocked" if f.docked is False else "")


def status_line(f: Facts, *, hold: bool = False) -> str:
    """Credits, cargo and location, each "unknown" when the context does not show it;
    with ``hold``, the hold's contents too."""
    credits = f"credits {f.credits}" if f.credits is not None else "credits unknown"
    if f.cargo_used is not None:
        cargo = f"cargo {f.cargo_used}/{f.cargo_capacity if f.cargo_capacity else '?'}"
    else:
        cargo = "cargo full" if f.cargo_full else "cargo unknown"
    if hold and f.cargo is not None:
        cargo += (
            " (" + (", ".join(f"{k} x{v}" for k, v in sorted(f.cargo.items())) or "empty") + ")"
        )
    return f"{credits}, {cargo}, {location_text(f)}"


def report(context: Context) -> str:
    """A one-line status report from what the context shows (unknowns said as such)."""
    f = context.read_all()
    mission = context.mission
    unknown = "unknown"

    def pair(a: int | None, b: int | None) -> str:
        return unknown if a is None else f"{a}/{b if b is not None else '?'}"

    order = mission.kind + (f" {mission.target}" if mission.target else "")
    parts = [
        f"Status report ({f.account or 'no account yet'}): {status_line(f, hold=True)}",
        f"fuel {pair(f.fuel, f.max_fuel)}, hull {pair(f.hull, f.max_hull)}",
        f"standing order: {order}",
    ]
    if f.prices:
        parts.append(
            "prices seen: " + ", ".join(f"{k} {v} cr" for k, v in sorted(f.prices.items()))
        )
    if f.tick is not None:
        parts.append(f"last tick seen {f.tick}")
    return _sentence("; ".join(parts))


@dataclass(slots=True)
class TurnProgress:
    """What the current turn achieved, read from its own results."""

    mined: Counter[str] = field(default_factory=Counter)
    #: (item, quantity, credits earned) of every sale.
    sold: list[tuple[str, int, int]] = field(default_factory=list)
    services: list[str] = field(default_factory=list)
    registered: str | None = None

    def summary(self) -> str:
        """What the turn did, as the opening of the turn's last line ("" for nothing)."""
        parts = []
        if self.registered:
            parts.append(f"Registered as {self.registered}")
        if self.mined:
            items = ", ".join(
                f"{k} {v}" for k, v in sorted(self.mined.items(), key=lambda kv: (-kv[1], kv[0]))
            )
            parts.append(f"Mined {sum(self.mined.values())} ore ({items})")
        if self.sold:
            units: Counter[str] = Counter()
            for item, quantity, _ in self.sold:
                units[item] += quantity
            items = ", ".join(
                f"{k} {v}" for k, v in sorted(units.items(), key=lambda kv: (-kv[1], kv[0]))
            )
            earned = sum(s[2] for s in self.sold)
            parts.append(f"Sold {sum(units.values())} units ({items}) for {earned} cr")
        for service in self.services:
            parts.append({"refuel": "refuelled", "repair": "repaired"}.get(service, service))
        return "; ".join(parts)


def turn_progress(context: Context) -> TurnProgress:
    """The progress made since the current turn began."""
    progress = TurnProgress()
    for result in context.results:
        if (
            result.index <= context.turn_start
            or result.content[:1] != "{"
            or result.error() is not None
        ):
            continue
        name = result.name
        if name not in _PROGRESS:
            continue
        data = result.data() or {}
        if name == "mine":
            quantity = data.get("quantity")
            progress.mined[str(data.get("resource_id") or "ore")] += (
                quantity if isinstance(quantity, int) else 0
            )
        elif name == "sell":
            quantity, earned = data.get("quantity_sold"), data.get("total_earned")
            progress.sold.append(
                (
                    str(data.get("item_id") or "cargo"),
                    quantity if isinstance(quantity, int) else 0,
                    earned if isinstance(earned, int) else 0,
                )
            )
        elif name == "register":
            player = as_dict(data.get("player"))
            progress.registered = str(
                data.get("username") or player.get("username") or "a new pilot"
            )
        elif name not in progress.services:
            progress.services.append(name)
    return progress


class _Planner:
    """One decision: the rules applied in order to one :class:`Context`; a `plan.Planner`."""

    def __init__(
        self,
        context: Context,
        tools: frozenset[str],
        max_rounds: int = DEFAULT_TURN_ROUNDS,
        turn_round: int | None = None,
    ) -> None:
        self.c = context
        self.max_rounds = max_rounds
        #: Rounds of calls played this turn before this answer.
        self.rounds = turn_round - 1 if turn_round else context.turn_rounds
        #: Which round of the turn this is, when the runtime says.
        self.turn_round = turn_round
        self.f = context.facts
        self.tools = tools
        self.intent: str = context.order.kind
        self.note = ""
        #: Set by ``goto``: the ordered belt to mine at, or the ordered station to stay at.
        self.goto_belt: Place | None = None
        self.goto_station: Place | None = None
        #: Polling a wait with get_status (exempt from the repeated-snapshot guard).
        self.polling = False
        #: Cargo a scenario play holds back from sale (a mission's delivery).
        self.keep: dict[str, int] = {}
        #: A scenario play's own way to sell one item at the station (standing orders).
        self.sell_hook: Callable[[str, int], Decision | None] | None = None
        self._progress: TurnProgress | None = None

    # -- entry -----------------------------------------------------------------------
    def plan(self) -> Decision:
        """The decision of the rules (:meth:`rules`), carrying my standing order.

        Every answer with calls carries my notes line, whichever rule made it; a turn
        that would end with a text while no answer of it carried my standing order (when
        neither the Swarm Broadcast section nor the default gives it back, ``noted_order``)
        checks the status first, with the notes line: a strategy keeps only the latest
        tool loop of earlier turns, and any strategy's window lets older memories go, so
        the order a held, parked or scenario Mysis stands by is written again each turn
        rather than left to scroll out of view (see ``orders``).
        """
        decision = self.rules()
        if not decision.calls:
            decision = self.carry(decision)
        if decision.calls and not decision.text:
            text = write_notes(self, decision)
            decision = Decision(decision.calls, text, decision.reasoning)
        return decision

    def carry(self, decision: Decision) -> Decision:
        """``decision`` (a text), or a status check first when this turn has not carried
        my standing order in a notes line yet."""
        noted = noted_order(self)
        notes = self.c.notes
        # An earlier round of this turn carried it: every answer with calls does. A
        # strategy that pins an older commander message (``loop-slice``) shows no turn
        # start; the runtime's round number says it then.
        carried = (
            notes is not None
            and notes.order == noted
            and (
                self.turn_round > 1
                if self.turn_round is not None
                else notes.index > self.c.turn_start
            )
        )
        # A report goes out at once, not after a check of mine: a report that came in
        # while a nudge's round was composed was seen in that round only (Pilot).
        answering = lifetime(self.c.order.kind) == "answer" and self.c.order.index >= 0
        if (
            not noted
            or carried
            or answering
            or not self.has("get_status")
            or ("get_status", "{}") in self.c.failed
        ):
            return decision
        return call(
            f"Before I end this turn: my standing order ({noted!r}) must stay in my "
            "notes, so checking my status with them.",
            ("get_status", {}),
        )

    def rules(self) -> Decision:
        """The account first (a Mysis not registered registers, then does what it was
        told), then the order in force (``context.order``; how long each lasts is
        ``orders.LIFETIMES``), then the waits and the standing order's work."""
        account = self.account()
        if account is not None:
            return self.conclude(account)
        order = self.c.order
        if order.kind == "hold":
            return self.conclude(self.hold(order))
        if order.kind == "report":
            return self.report()
        for step in (self.waiting, self.react, self.act):
            decision = step()
            if decision is not None:
                return self.conclude(decision)
        return say(report(self.c), "Nothing to do.")  # pragma: no cover - act always answers

    def hold(self, order: Order) -> Decision:
        """Hold as ordered: no game action, the turn ends with a text (the hold is noted
        once in the captain's log, for the commander)."""
        noted = noted_order(self)
        notes = self.c.notes
        if noted and (notes is None or notes.order != noted) and self.has("captains_log_add"):
            # The hold must outlive the commander's message in my context: note it
            # once (the notes line of this call carries it, see ``orders``).
            return call(
                f"Ordered to hold ({order.text!r}): noting the order in my log.",
                (
                    "captains_log_add",
                    {
                        "entry": f"Commander's order: {noted.rstrip('.!')}. "
                        "Holding until a new order."
                    },
                ),
            )
        return say(
            f"Holding position as ordered ({order.text!r}); no action until a new order arrives",
            f"Standing order is hold ({order.text!r}): no tools.",
        )

    def conclude(self, decision: Decision) -> Decision:
        """A step's decision, guarded, ended where a turn ends."""
        return self.finish(self.guard(decision))

    def report(self) -> Decision:
        """Answer a report order; check the status first when my context lacks it."""
        f = self.c.read_all()
        key = ("get_status", "{}")
        unknown = not f.position_known or f.fuel is None or f.cargo_used is None
        if (
            unknown
            and self.has("get_status")
            and f.logged_in is not False
            and key not in self.c.done
            and key not in self.c.failed
        ):
            return call(
                "Asked for a report, but my status is not in my context: checking it first.",
                ("get_status", {}),
            )
        return say(report(self.c), f"The commander asked for a report ({self.c.order.text!r}).")

    # -- the turn ------------------------------------------------------------------------
    @property
    def progress(self) -> TurnProgress:
        if self._progress is None:
            self._progress = turn_progress(self.c)
        return self._progress

    def end(self, text: str, reasoning: str) -> Decision:
        """A text that ends the turn, on one line: what the turn did, why it stops here,
        then credits, cargo and location."""
        parts = (self.progress.summary(), text, status_line(self.c.read_all()))
        line = " ".join(_sentence(" ".join(p.split())) for p in parts if p.strip())
        return Decision(text=line, reasoning=reasoning)

    def finish(self, decision: Decision) -> Decision:
        """End the turn where a model would: it cannot progress, or it nears the round limit.

        A reached goal is not an end: the next goal (the trip back to the belt, the next
        load of ore) is one the pilot can take up at once, so the turn plays on, cycle
        after cycle, as a model keeping at its mission does. The turn ends with a text
        when the pilot answers the commander, needs a decision it cannot take alone, is
        blocked, or has played ``max_rounds - 1`` rounds (the runtime ends a turn at
        its round limit; the pilot reports just before).
        """
        if not decision.calls:
            return self.end(decision.text, decision.reasoning)
        if not self.c.sees_own_turns:
            return decision  # a text would come back to this very request: play on
        rounds = self.rounds
        if rounds >= self.max_rounds - 1:
            next_step = _lower_first(decision.reasoning)
            return self.end(
                f"Pausing after {rounds} rounds this turn; next: {next_step}",
                f"{rounds} rounds this turn: reporting and ending it.",
            )
        return decision

    def has(self, name: str) -> bool:
        return name in self.tools

    def guard(self, decision: Decision) -> Decision:
        """Never repeat a call that failed this turn, nor only snapshots already taken."""
        if not decision.calls:
            return decision
        repeated = 0
        for name, args in decision.calls:
            key = (name, json.dumps(args))
            code = self.c.failed.get(key)
            if code is not None and name not in ("login", "register"):
                return say(
                    f"{name} failed with {code} this turn; not retrying it now. "
                    "I will try again next turn.",
                    f"Loop guard: {name} already failed with {code} this turn.",
                )
            repeated += name in _SNAPSHOTS and key in self.c.done
        if repeated == len(decision.calls) and not self.polling:
            return say(
                f"I already checked {decision.calls[0][0]} this turn and still lack "
                f"what I need ({decision.reasoning}) Waiting for orders or the next "
                "turn.",
                f"Loop guard: {decision.calls[0][0]} was already called this turn.",
            )
        calls = list(decision.calls)
        missing = [n for n, _ in calls if not self.has(n)]
        if missing:
            return say(
                f"I would call {', '.join(missing)}, but that tool is not offered. Waiting.",
                f"Tool not offered: {', '.join(missing)}.",
            )
        reasoning = f"{decision.reasoning} ({self.note})" if self.note else decision.reasoning
        return Decision(tuple(calls), "", reasoning)

    # -- account ---------------------------------------------------------------------
    def account(self) -> Decision | None:
        f = self.f
        if f.logged_in is True or (f.logged_in is None and f.account is not None):
            return None
        if f.login_error is not None:
            code, message = f.login_error
            text = f"{code} {message}".lower()
            if not any(word in text for word in _NO_ACCOUNT_WORDS) and f.account is not None:
                return say(
                    f"Login failed ({code}: {message}). I need the commander to fix the account.",
                    f"Login failed with {code}; not retrying.",
                )
            return self.register("no account to log in with")
        if f.account is not None and self.has("login"):
            return call(f"Session lost: logging in as {f.account}.", ("login", {}))
        return self.register("no account yet")

    def register(self, why: str) -> Decision:
        info = self.c.system
        base = self.f.account or info.name_hint or f"autopilot-{info.digest}"
        if self.f.taken:
            suffix = hashlib.blake2b(self.f.taken[0].encode(), digest_size=2).hexdigest()
            base = f"{base[:19]}-{suffix}"
        if not self.has("register"):
            return call(f"{why}; register is not offered, so logging in.", ("login", {}))
        return call(
            f"{why.capitalize()}: registering as {base}.",
            ("register", {"username": base, "empire": DEFAULT_EMPIRE}),
        )

    # -- waits ---------------------------------------------------------------------------
    def waiting(self) -> Decision | None:
        wait = self.wait_reason()
        if wait is None:
            return None
        text, reasoning = wait
        if self.c.sees_own_turns:
            return say(text, reasoning)
        # My earlier texts are not in my context (e.g. ``loop-slice``): a text now would
        # come back to the very same request, so poll the game instead of ending the turn.
        self.polling = True
        return call(
            f"{reasoning.split(':')[0]}; my earlier turns are not in my context, so "
            "checking status instead of waiting blind.",
            ("get_status", {}),
        )

    def wait_reason(self) -> tuple[str, str] | None:
        for result in self.c.round:
            error = result.error()
            if error is None:
                continue
            code = ALIASES.get(str(error.get("code")), error.get("code"))
            if code == "action_pending":
                when = (
                    f"at tick {error['ready_tick']}"
                    if "ready_tick" in error
                    else "at the next tick"
                )
                return (
                    f"Waiting: one action per tick; my next action can run {when}.",
                    f"{result.name} was refused (action_pending): ending the turn "
                    "instead of retrying.",
                )
            if code == "in_transit":
                return (
                    f"In transit; arrival at tick {error.get('arrival_tick')}. Waiting.",
                    f"{result.name} was refused (in_transit): waiting for arrival.",
                )
        move = self.f.move
        if move is not None and not self.f.arrived and move[3] > self.c.turn_start:
            tool, destination, tick, _ = move
            arrival = tick if tick is not None else "?"
            # The closing status line says where to and when (``location_text``).
            return (
                f"{'Jump' if tool == 'jump' else 'Trip'} under way; waiting for arrival",
                f"{tool} to {destination} under way (arrival tick {arrival}): ending the "
                "turn to wait.",
            )
        return None

    # -- reactions to the last round's errors ----------------------------------------
    def react(self) -> None:
        for result in self.c.round:
            error = result.error()
            code = ALIASES.get(str(error.get("code")), error.get("code")) if error else None
            if code in ("no_cargo_space", "cargo_full"):
                self.intent, self.note = "sell", f"{code}: going to sell"
            elif code == "no_fuel":
                self.intent, self.note = "refuel", "no_fuel: refuelling first"
            elif code == "no_resources" and self.f.poi is not None:
                # The error itself proves this belt is empty now: never mine it again
                # this turn, even when no older message says where the ship is.
                self.f.depleted.add(self.f.poi)
        return None

    # -- the order in force ---------------------------------------------------------------
    def act(self) -> Decision:
        """A sale or a refuel in force (ordered, or a reaction to the last round), else
        the standing order's work."""
        f = self.f
        if not f.position_known:
            return call("My location is not in my context: checking status.", ("get_status", {}))
        if self.intent == "refuel" and (
            f.fuel is None or f.max_fuel is None or f.fuel < f.max_fuel or f.fuel_short
        ):
            return self.mine_loop(refuel_now=True)
        if self.intent == "sell" and not (
            f.cargo_used == 0 or (f.cargo is not None and not f.sellable(self.keep))
        ):
            if (
                f.cargo_used is None
                and f.cargo is None
                and not f.cargo_full
                and self.c.order.kind == "sell"
                and self.has("get_status")
            ):
                # An order to sell and a hold I cannot see: it may be empty already, so
                # look before flying to the station.
                return call(
                    "Ordered to sell, but my cargo is not in my context: checking it first.",
                    ("get_status", {}),
                )
            return self.mine_loop(sell_now=True)
        return self.work(self.c.mission)

    def work(self, order: Order) -> Decision:
        """The standing order's work: a hold, a scenario play, a destination, or mining."""
        self.intent = order.kind
        if order.kind == "hold":
            return self.hold(order)
        if self.intent in SCENARIO_ORDERS:
            decision = scenario_play.play(self)
            if decision is not None:
                return decision
            return self.mine_loop()
        if self.intent == "goto":
            decision = self.goto(order)
            if decision is not None:
                return decision
            return self.mine_loop(self.goto_belt)
        return self.mine_loop()

    def mine_loop(
        self, prefer: Place | None = None, *, sell_now: bool = False, refuel_now: bool = False
    ) -> Decision:
        f = self.f
        here = f.here
        kind = here.kind if here is not None else ""
        # Mining (or a refusal to mine) newer than the last known POI means a belt.
        at_station = bool(f.docked) or (kind == "station" and not f.no_base_here and not f.at_belt)
        if at_station:
            return self.at_station(prefer, refuel_now=refuel_now)
        at_belt = f.at_belt or kind == "belt"
        wrong_belt = prefer is not None and f.poi is not None and f.poi != prefer.id
        if at_belt and not wrong_belt:
            need = self.station_need(sell_now, refuel_now)
            if need:
                return self.go_station(need)
            if f.poi is not None and f.poi in f.depleted:
                if f.cargo_used:
                    return self.go_station("this belt is depleted; selling what I have")
                return self.go_belt(prefer, "this belt is depleted")
            return call(self.mining_reason(), ("mine", {}))
        if not kind and f.system not in f.listed:
            return self.orient(f"I do not know what {f.poi} is: listing the system's POIs.")
        need = self.station_need(sell_now, refuel_now)
        if need:
            return self.go_station(need)
        return self.go_belt(prefer, "heading out to mine")

    def orient(self, reasoning: str) -> Decision:
        """List the system, with the status beside it: together they survive even when
        only the latest tool loop is kept (``loop-slice``)."""
        return call(reasoning, ("get_system", {}), ("get_status", {}))

    def mining_reason(self) -> str:
        f = self.f
        if f.cargo_used is not None and f.cargo_capacity:
            return (
                f"At the belt with cargo {f.cargo_used}/{f.cargo_capacity}: mining until "
                "the hold is full."
            )
        return "At the belt: mining."

    def station_need(self, sell_now: bool, refuel_now: bool) -> str:
        f = self.f
        used, capacity = f.cargo_used, f.cargo_capacity
        if f.cargo_full or (used is not None and capacity and used >= capacity):
            return "the hold is full"
        if sell_now and (used is None or used > 0):
            return "ordered to sell"
        if f.fuel_short or refuel_now:
            return "need fuel"
        fuel = pct(f.fuel, f.max_fuel)
        if fuel is not None and fuel < LOW_FUEL_PCT:
            return f"fuel low ({f.fuel})"
        hull = pct(f.hull, f.max_hull)
        if hull is not None and hull < LOW_HULL_PCT and self.affords_repair():
            return f"hull low ({f.hull})"
        return ""

    def affords_repair(self) -> bool:
        """The credits in view pay a full repair (or the credits are not in view)."""
        f = self.f
        if f.credits is None or f.hull is None:
            return True
        return f.credits >= REPAIR_PRICE_GUESS * ((f.max_hull or 100) - f.hull)

    # -- at the station -----------------------------------------------------------------
    def at_station(self, prefer: Place | None, *, refuel_now: bool = False) -> Decision:
        f = self.c.read_all()
        here = _place_label(f, f.poi)
        fuel = pct(f.fuel, f.max_fuel)
        hull = pct(f.hull, f.max_hull)
        wants_fuel = refuel_now or f.fuel_short or (fuel is not None and fuel < REFUEL_PCT)
        wants_fuel = (
            wants_fuel
            and "refuel" not in f.no_credits_for
            and (
                f.credits is None
                or f.fuel is None
                or f.credits >= FUEL_PRICE_GUESS * ((f.max_fuel or 100) - f.fuel)
            )
        )
        wants_hull = (
            hull is not None
            and hull < REPAIR_PCT
            and "repair" not in f.no_credits_for
            and self.affords_repair()
        )
        cargo_maybe = f.cargo_used is None or f.cargo_used > 0
        staying = self.goto_station is not None
        # get_status also says where I am, for when only this loop is kept.
        cargo_tool = "get_cargo" if self.c.sees_own_turns else "get_status"
        if not f.docked:
            if cargo_maybe or wants_fuel or wants_hull or staying:
                # Docking takes the tick; what the visit needs next comes with it: the
                # hold's listing for the sale, the system's belts for the trip back.
                lookups = []
                if f.cargo is None and cargo_maybe:
                    lookups.append(cargo_tool)
                if not staying and self.pick_belt(prefer) is None and f.system not in f.listed:
                    lookups = ["get_system", "get_status"]
                lookups = [name for name in lookups if self.has(name)]
                checking = (
                    ", and listing the system's belts"
                    if "get_system" in lookups
                    else ", and checking my cargo"
                    if lookups
                    else ""
                )
                return call(
                    f"At {here}: docking to sell, refuel or repair{checking}.",
                    ("dock", {}),
                    *((name, {}) for name in lookups),
                )
            return self.go_belt(prefer, "nothing to do at the station")
        if f.cargo is None and cargo_maybe:
            return call(
                "Docked, but my cargo listing is not in my context: checking cargo.",
                (cargo_tool, {}),
            )
        sellable = f.sellable(self.keep)
        if sellable:
            item, quantity = sellable[0]
            if self.sell_hook is not None:
                hooked = self.sell_hook(item, quantity)
                if hooked is not None:
                    return hooked
            return call(
                f"Docked at {here}: selling {quantity} {item}.",
                ("sell", {"item_id": item, "quantity": quantity}),
            )
        if wants_fuel:
            return call(
                f"Docked with fuel {f.fuel}/{f.max_fuel or '?'}: refuelling.", ("refuel", {})
            )
        if wants_hull:
            return call(
                f"Docked with hull {f.hull}/{f.max_hull or '?'}: repairing.", ("repair", {})
            )
        log = self.log_entry(prefer)
        if staying:
            decision = say(
                f"Docked at {here} as ordered; awaiting orders.",
                f"Arrived at the ordered destination {here}: holding there.",
            )
        else:
            decision = self.go_belt(prefer, "hold empty, heading back to mine")
        if log is not None and decision.calls:
            return Decision(
                (log, *decision.calls),
                "",
                decision.reasoning + " Noted the sale in the captain's log.",
            )
        if log is not None:
            return call(decision.reasoning + " Noting the sale in the captain's log.", log)
        return decision

    def log_entry(self, prefer: Place | None) -> Call | None:
        f = self.f
        if not f.sales or not self.has("captains_log_add"):
            return None
        units = sum(s[1] for s in f.sales)
        earned = sum(s[2] for s in f.sales)
        prices = ", ".join(f"{item} {price} cr" for item, _, _, price in sorted(f.sales) if price)
        belt = self.pick_belt(prefer)
        here = f.here
        # Names with ids: my next turns read them back when the listing is out of view.
        station = f"{here.name} ({here.id})" if here else str(f.poi)
        tick = f" tick {f.tick}:" if f.tick is not None else ""
        mine_at = f"{belt.name} ({belt.id})" if belt else "the nearest belt"
        entry = (
            f"Log{tick} sold {units} units for {earned} cr at {station} "
            f"({prices or 'prices not seen'}). Objective: mine at {mine_at}, sell at "
            f"{station}, refuel when low."
        )
        return ("captains_log_add", {"entry": entry})

    # -- moving ----------------------------------------------------------------------------
    def stations(self) -> list[Place]:
        f = self.f
        return [
            p
            for p in f.pois.values()
            if p.has_base
            and p.id not in f.bad_targets
            and (f.system is None or p.system in (f.system, None))
        ]

    def nearest(self, places: list[Place], origin: Place | None) -> Place:
        if origin is None or origin.x is None or origin.y is None:
            return places[0]
        ox, oy = origin.x, origin.y

        def distance(p: Place) -> float:
            if p.x is None or p.y is None:
                return float("inf")
            return (p.x - ox) ** 2 + (p.y - oy) ** 2

        return min(places, key=distance)

    def go_station(self, why: str) -> Decision:
        f = self.f
        stations = self.stations()
        if not stations:
            if f.system not in f.listed and self.has("get_system"):
                return self.orient(
                    f"Need a station ({why}) but none is in my context: listing the system."
                )
            return say(
                f"I need a station ({why}) but know none in this system. Waiting for orders.",
                "No station known in this system.",
            )
        station = self.nearest(stations, f.here)
        if f.fuel_short and not f.docked:
            cells = (f.cargo or {}).get("fuel_cell", 0)
            if cells and "refuel" not in f.no_credits_for:
                return call(
                    "Out of fuel away from a station: burning fuel cells.",
                    ("refuel", {"item_id": "fuel_cell", "quantity": cells}),
                )
        return call(
            f"{why.capitalize()}: travelling to {station.name} ({station.id}).",
            ("travel", {"target_poi": station.id}),
        )

    def pick_belt(self, prefer: Place | None) -> Place | None:
        f = self.f
        blocked = f.depleted | f.bad_targets
        if prefer is not None and prefer.id not in blocked:
            return prefer
        belts = [
            p
            for p in f.pois.values()
            if p.is_belt
            and p.id not in blocked
            and (f.system is None or p.system in (f.system, None))
        ]
        if not belts:
            return None
        origin = f.here
        if origin is None or origin.x is None:
            stations = self.stations()
            origin = stations[0] if stations else None
        return self.nearest(belts, origin)

    def go_belt(self, prefer: Place | None, why: str) -> Decision:
        f = self.f
        belt = self.pick_belt(prefer)
        if belt is None:
            if f.system not in f.listed and self.has("get_system"):
                return self.orient(
                    f"{why.capitalize()}, but no belt is in my context: listing the system."
                )
            return say(
                "I know no asteroid belt to mine in this system. Waiting for orders.",
                "No usable belt known in this system.",
            )
        if belt.id == f.poi:
            return call(self.mining_reason(), ("mine", {}))
        return call(
            f"{why.capitalize()}: travelling to {belt.name} ({belt.id}).",
            ("travel", {"target_poi": belt.id}),
        )

    # -- goto ------------------------------------------------------------------------------
    def resolve(self, target: str, *, systems_only: bool = False) -> Place | str | None:
        """A POI or a system id matching the order's words, from the context."""
        f = self.f
        wanted = normalize_name(target)
        if not wanted:
            return None
        systems = dict(f.systems)
        if f.system is not None:
            systems.setdefault(f.system, f.system)
        for system_id, name in systems.items():
            if wanted in (normalize_name(system_id), normalize_name(name)):
                return system_id
        if systems_only:
            return None
        for place in f.pois.values():
            if wanted in (normalize_name(place.id), normalize_name(place.name)):
                return place
        partial = [
            p
            for p in f.pois.values()
            if len(wanted) >= 3
            and (
                wanted in normalize_name(p.name)
                or wanted in normalize_name(p.id)
                or (len(normalize_name(p.name)) >= 4 and normalize_name(p.name) in wanted)
            )
        ]
        if len(partial) == 1:
            return partial[0]
        return None

    def goto(self, order: Order) -> Decision | None:
        f = self.f
        if order.system and f.system is None:
            return call(
                f"Ordered to jump to {order.target!r}, but I do not know which system "
                "I am in: checking status.",
                ("get_status", {}),
            )
        target = self.resolve(order.target, systems_only=order.system)
        words = normalize_name(order.target)
        if target is None:
            if f.system not in f.listed and self.has("get_system"):
                return call(
                    f"Ordered to go to {order.target!r}: listing this system's POIs and links.",
                    ("get_system", {}),
                )
            route = ("find_route", {"target_system": order.target})
            if order.system and (route[0], json.dumps(route[1])) not in self.c.failed:
                return call(f"{order.target!r} is not a neighbour: asking for a route.", route)
            query = {"query": order.target, "limit": SEARCH_LIMIT}
            generic = any(w in words.split() for w in _BELT_WORDS + _STATION_WORDS)
            if not generic and not self.c.order_answered:
                if self.has("zoea_search_messages") and json.dumps(query) not in self.c.searched:
                    return call(
                        f"{order.target!r} is not in my context: searching my memory.",
                        ("zoea_search_messages", query),
                    )
                return say(
                    f"I cannot find {order.target!r} in this system or in my memory. "
                    "I will carry on mining; tell me its id or system.",
                    f"Unknown destination {order.target!r}: told the commander.",
                )
            if any(w in words for w in _STATION_WORDS):
                stations = self.stations()
                target = stations[0] if stations else None
            elif any(w in words for w in _BELT_WORDS):
                self.goto_belt = self.pick_belt(None)
                return None
            if target is None:
                self.note = f"unknown destination {order.target!r}; carrying on mining"
                return None
        if isinstance(target, str):
            return self.goto_system(target)
        if target.system and f.system and target.system != f.system:
            return self.goto_system(target.system)
        if not target.type and f.system not in f.listed and self.has("get_system"):
            return self.orient(
                f"Ordered to {target.name}, but I do not know what it is: listing the system."
            )
        if target.is_belt:
            # Going to a belt means mining there: with a full hold, sell first, and at a
            # station, sell what I carry before leaving (else a full hold I cannot see
            # sends me back and forth between the station and the belt, never selling).
            self.goto_belt = target
            here = f.here
            at_station = here is not None and here.has_base and not f.at_belt
            carrying = f.cargo_used != 0 and (f.cargo is None or bool(f.cargo))
            if (
                f.poi != target.id
                and not f.docked
                and not (at_station and carrying)
                and not self.station_need(False, False)
            ):
                return call(
                    f"Ordered to mine at {target.name}: travelling to {target.id}.",
                    ("travel", {"target_poi": target.id}),
                )
            return None
        if target.has_base:
            self.goto_station = target
            if f.poi == target.id:
                return self.at_station(None)
        elif f.poi == target.id:
            return say(
                f"Arrived at {target.name} as ordered; awaiting orders.",
                f"At the ordered destination {target.id}.",
            )
        return call(
            f"Ordered to go to {target.name}: travelling to {target.id}.",
            ("travel", {"target_poi": target.id}),
        )

    def goto_system(self, system: str) -> Decision | None:
        f = self.f
        if f.system == system:
            return None  # arrived: carry on with the mining loop here
        if system in f.links.get(f.system or "", ()):
            return call(f"Ordered to {system}: jumping there.", ("jump", {"target_system": system}))
        route = f.routes.get(system)
        if route and f.system in route:
            position = route.index(f.system)
            if position + 1 < len(route):
                hop = route[position + 1]
                return call(
                    f"Ordered to {system}: next jump on the route is {hop}.",
                    ("jump", {"target_system": hop}),
                )
        return call(
            f"Ordered to {system}: planning the route.", ("find_route", {"target_system": system})
        )


__all__ = ["Decision", "decide", "direct_names", "report", "summary_text", "tool_names"]

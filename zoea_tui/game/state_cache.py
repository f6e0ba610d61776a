"""The latest game state per account, and its compact projection for the prompt.

Every successful snapshot result (``get_status``, ``get_ship``, ``get_cargo``,
``get_system``, ``get_poi``, …) is kept per account with the tick it was seen
at, and the account's facts (location, docked, credits, fuel, hull, cargo, hold)
follow each result as it arrives: what a result states replaces the fact, and what a
result changes without stating it (the credits a ``sell`` earned, the ore a ``mine``
added, the system a ``jump`` left) is worked out from the fact before, so a pane never
shows the cargo of three results ago. :meth:`GameStateCache.summary` projects them
into a short text for the game-state message of each turn ("Location: Sol / Main Belt,
undocked (seen 3 ticks ago)"). The projection picks fields; it never copies a
result, so a 190 KB ``get_map`` cannot reach the prompt, and the text is cut
to :data:`MAX_SUMMARY_CHARS` whatever the server sends. A snapshot is kept with its
secrets masked (``core/redaction.py``): the sidebar that shows it never holds a password,
a session id or a token.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..core.game_tool import STATE_READS
from ..core.redaction import mask_data

#: The tools that only read the state, in the order a reader takes them in (the
#: sidebar shows their results so).
STATE_TOOLS = (*STATE_READS, "view_market", "get_notifications")
#: Tools whose results describe the current state (kept, latest one wins): those, and
#: the actions whose results say the state they left.
SNAPSHOT_TOOLS = frozenset(
    {
        *STATE_TOOLS,
        "login",
        "register",
        "dock",
        "undock",
        "travel",
        "jump",
        "mine",
        "sell",
        "buy",
        "refuel",
        "repair",
    }
)
MAX_SUMMARY_CHARS = 900
_MAX_FIELD_CHARS = 120


@dataclass(frozen=True, slots=True)
class StoredResult:
    """A tool result as the store keeps it (what :meth:`GameStateCache.restore` reads)."""

    tool: str
    text: str
    tick: int | None
    at: float


def _result_data(text: str) -> dict[str, Any] | None:
    """The JSON object of a successful result's text (None: no object, or an error)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or isinstance(data.get("error"), dict | str):
        return None
    return data


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One cached result."""

    tool: str
    data: dict[str, Any]
    tick: int | None
    at: float


class GameStateCache:
    """Per-account snapshots of the newest results, and their projection."""

    def __init__(self) -> None:
        self._by_account: dict[str, dict[str, Snapshot]] = {}
        self._tick: dict[str, int] = {}
        #: Per account, each fact with the tick of the result that set it, in the order
        #: the results arrived (a result without a tick is no older than one with).
        self._facts: dict[str, dict[str, tuple[Any, int | None]]] = {}
        #: Accounts whose state was read back from the store at start (:meth:`restore`)
        #: and has not been refreshed by a result of this run since.
        self._restored: set[str] = set()

    def restore(self, account: str, results: Iterable[StoredResult]) -> None:
        """Read back an account's last known state after a relaunch: its stored results,
        oldest first, replayed as they came (so a ``sell``'s credits are worked out from
        the credits before it, as they were live). Results that are no JSON object or are
        an error are skipped. Until a result of this run arrives, :meth:`restored` says
        the state is from before the relaunch."""
        replayed = False
        for result in results:
            data = _result_data(result.text)
            if data is None:
                continue
            self.update(account, result.tool, data, result.tick, at=result.at)
            replayed = True
        if replayed:
            self._restored.add(account)

    def restored(self, account: str) -> bool:
        """True while the account's state is the last known one from before the
        relaunch (no result of this run has arrived yet)."""
        return account in self._restored

    def update(
        self,
        account: str,
        tool: str,
        data: dict[str, Any] | None,
        tick: int | None = None,
        *,
        at: float | None = None,
    ) -> None:
        """Record a successful result of ``tool`` for ``account`` (its secrets masked)."""
        if data is None or tool not in SNAPSHOT_TOOLS:
            if tick is not None:
                self._tick[account] = max(tick, self._tick.get(account, tick))
            return
        self._restored.discard(account)  # restore() marks its accounts after replaying
        snapshots = self._by_account.setdefault(account, {})
        kept = mask_data(data)
        snapshots[tool] = Snapshot(tool, kept, tick, time.time() if at is None else at)
        facts = self._facts.setdefault(account, {})
        stated = _extract(kept)
        for key, value in {**_changes(tool, kept, stated, facts), **stated}.items():
            facts[key] = (value, tick)
        if tick is not None:
            self._tick[account] = max(tick, self._tick.get(account, tick))

    def latest(self, account: str, tool: str) -> Snapshot | None:
        """The newest result of ``tool`` for ``account``."""
        return self._by_account.get(account, {}).get(tool)

    def snapshots(self, account: str) -> dict[str, Snapshot]:
        """Every cached result of the account, by tool (for the UI's sidebar)."""
        return dict(self._by_account.get(account, {}))

    def current_tick(self, account: str) -> int | None:
        """The newest tick seen in any result of the account."""
        return self._tick.get(account)

    def forget(self, account: str) -> None:
        """Drop an account's state (its Mysis was deleted)."""
        self._by_account.pop(account, None)
        self._tick.pop(account, None)
        self._facts.pop(account, None)
        self._restored.discard(account)

    def state(self, account: str) -> dict[str, Any]:
        """The account's facts as the projection shows them, each with the tick of the
        result that set it: ``{key: {"value", "tick"}}``."""
        facts = self._facts.get(account, {})
        shown = {k: {"value": v, "tick": t} for k, (v, t) in facts.items() if k not in _INNER}
        used, capacity = facts.get("cargo_used"), facts.get("cargo_capacity")
        if used is not None and capacity is not None:
            shown["cargo"] = {"value": f"{used[0]}/{capacity[0]}", "tick": used[1]}
        if (hold := facts.get("hold")) is not None:
            items = [f"{item} x{quantity}" for item, quantity in hold[0][:6]]
            shown["cargo_items"] = {"value": ", ".join(items) or "empty", "tick": hold[1]}
        return {k: v for k, v in shown.items() if v["value"] is not None}

    def summary(self, account: str | None, now_tick: int | None = None) -> str:
        """A compact text of the account's state, under :data:`MAX_SUMMARY_CHARS`, for the
        requests: none while the state is the one read back from before a relaunch
        (:meth:`restore`), which is the panes' alone: a request carries only what this run
        has seen."""
        if not account or account not in self._by_account or account in self._restored:
            return ""
        now = now_tick if now_tick is not None else self._tick.get(account)
        fields = self.state(account)
        where = [fields[k] for k in ("system", "poi") if k in fields]
        if where:
            fields["location"] = {
                "value": " / ".join(str(w["value"]) for w in where),
                "tick": max((w["tick"] or 0 for w in where), default=0)
                if any(w["tick"] is not None for w in where)
                else None,
            }
        lines: list[str] = []
        for key, label in _LABELS:
            entry = fields.get(key)
            if entry is None:
                continue
            text = _clip(str(entry["value"]))
            lines.append(f"- {label}: {text}{_age(entry['tick'], now)}")
        if now is not None:
            lines.insert(0, f"- Game tick: {now}")
        text = "\n".join(lines)
        if len(text) > MAX_SUMMARY_CHARS:
            text = text[: MAX_SUMMARY_CHARS - 1].rsplit("\n", 1)[0] + "\n…"
        return text


_LABELS = (
    ("location", "Location"),
    ("docked", "Docked"),
    ("transit", "In transit"),
    ("credits", "Credits"),
    ("fuel", "Fuel"),
    ("hull", "Hull"),
    ("cargo", "Cargo"),
    ("cargo_items", "Hold"),
    ("next_action_tick", "Next action at tick"),
)


def ticks_ago(tick: int | None, now: int | None) -> str:
    """``3 ticks ago`` (or ``now``) from two game ticks; "" when either is unknown."""
    if tick is None or now is None:
        return ""
    ago = now - tick
    if ago <= 0:
        return "now"
    return f"{ago} tick{'s' if ago != 1 else ''} ago"


def _age(tick: int | None, now: int | None) -> str:
    ago = ticks_ago(tick, now)
    return f" ({ago})" if ago else ""


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_FIELD_CHARS else text[: _MAX_FIELD_CHARS - 1] + "…"


def _num(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


#: Facts kept to work others out, not shown as they are.
_INNER = frozenset({"cargo_used", "cargo_capacity", "hold"})


def _extract(data: dict[str, Any]) -> dict[str, Any]:
    """The facts one result states, wherever they sit in it."""
    out: dict[str, Any] = {}
    player: dict[str, Any] = data["player"] if isinstance(data.get("player"), dict) else {}
    ship: dict[str, Any] = data["ship"] if isinstance(data.get("ship"), dict) else {}
    if (credits := _num(player.get("credits", data.get("credits")))) is not None:
        out["credits"] = credits
    system = player.get("current_system") or _text(data.get("system_id"))
    if system := system or _name(data.get("system")):
        out["system"] = system
    poi = player.get("current_poi") or _text(data.get("poi_id"))
    if poi := poi or _name(data.get("poi")):
        out["poi"] = poi
    if "docked_at_base" in player:
        out["docked"] = "yes" if player.get("docked_at_base") else "no"
    elif isinstance(data.get("docked"), bool):
        out["docked"] = "yes" if data["docked"] else "no"
    elif data.get("action") == "docked" or data.get("auto_docked") is True:
        out["docked"] = "yes"
    elif data.get("action") == "undocked" or data.get("auto_undocked") is True:
        out["docked"] = "no"
    if player.get("in_transit") is False:
        out["transit"] = "no"
    arrived = data.get("action") in ("travel", "jump") and data.get("arrived")
    if arrived or data.get("action") in ("arrived", "jumped"):
        if destination := data.get("destination_id") or data.get("destination"):
            out["poi"] = destination
        out["docked"] = "no"
    fuel, max_fuel = _num(ship.get("fuel", data.get("fuel"))), _num(ship.get("max_fuel"))
    if fuel is None and (remaining := _num(data.get("fuel_remaining"))) is not None:
        fuel = remaining
    if fuel is not None:
        out["fuel"] = f"{fuel}/{max_fuel}" if max_fuel is not None else fuel
    hull = _num(_first((ship, "hull"), (data, "hull")))
    max_hull = _num(_first((ship, "max_hull"), (data, "max_hull")))
    if hull is not None:
        out["hull"] = f"{hull}/{max_hull}" if max_hull is not None else hull
    # get_ship/get_status: ship.cargo_used; mine: cargo_used; get_cargo: used.
    used = _num(_first((ship, "cargo_used"), (data, "cargo_used"), (data, "used")))
    capacity = _num(_first((ship, "cargo_capacity"), (data, "cargo_capacity"), (data, "capacity")))
    if used is not None and capacity is not None:
        out["cargo_used"], out["cargo_capacity"] = used, capacity
    cargo = ship.get("cargo", data.get("cargo"))
    if isinstance(cargo, list):
        out["hold"] = tuple(
            (str(c.get("item_id") or c.get("name")), c.get("quantity"))
            for c in cargo
            if isinstance(c, dict)
        )
    if (tick := _num(data.get("next_action_tick"))) is not None:
        out["next_action_tick"] = tick
    return out


def _changes(
    tool: str,
    data: dict[str, Any],
    stated: dict[str, Any],
    facts: dict[str, tuple[Any, int | None]],
) -> dict[str, Any]:
    """What a result changed without stating it, worked out from the facts before it:
    the credits a trade earned or cost, the cargo it moved, the POI a jump left."""
    out: dict[str, Any] = {}
    credits = _num(facts["credits"][0]) if "credits" in facts else None
    if "credits" not in stated and credits is not None:
        spent = _spent(tool, data)
        if spent:
            out["credits"] = credits - spent
    moved = _moved(tool, data)
    if moved is not None:
        item, quantity = moved
        used = _num(facts["cargo_used"][0]) if "cargo_used" in facts else None
        if "cargo_used" not in stated and used is not None:
            out["cargo_used"] = max(0, used + quantity)
        hold = facts.get("hold")
        if "hold" not in stated and hold is not None and item:
            items = dict(hold[0])
            left = (_num(items.get(item)) or 0) + quantity
            if left > 0:
                items[item] = left
            else:
                items.pop(item, None)
            out["hold"] = tuple(items.items())
    if tool == "jump" and "poi" not in stated and "system" in stated:
        out["poi"] = None  # somewhere in the new system: the old POI is no longer true
    return out


def _moved(tool: str, data: dict[str, Any]) -> tuple[str | None, int | float] | None:
    """The item a result put into the hold (a positive quantity) or took out of it."""
    if tool == "mine":
        quantity = _num(data.get("quantity"))
        item = data.get("resource_id")
    elif tool == "sell":
        quantity = _num(data.get("quantity_sold"))
        quantity = -quantity if quantity is not None else None
        item = data.get("item_id")
    elif tool == "buy":
        quantity = _num(data.get("delivered_to_cargo", data.get("quantity")))
        item = data.get("item_id")
    else:
        return None
    if not quantity:
        return None
    return (item if isinstance(item, str) else None), quantity


def _spent(tool: str, data: dict[str, Any]) -> int | float:
    """The credits a result cost (negative: earned)."""
    if tool == "sell":
        return -(_num(data.get("total_earned")) or 0)
    if tool == "buy":
        return _num(data.get("total_cost")) or 0
    if tool in ("refuel", "repair"):
        return _num(data.get("cost")) or 0
    return 0


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _first(*places: tuple[dict[str, Any], str]) -> Any:
    """The first value found at ``(mapping, key)`` places, in order (None: none)."""
    for mapping, key in places:
        if mapping.get(key) is not None:
            return mapping[key]
    return None


def _name(value: Any) -> str | None:
    if isinstance(value, dict):
        return value.get("id") or value.get("name")
    return value if isinstance(value, str) else None

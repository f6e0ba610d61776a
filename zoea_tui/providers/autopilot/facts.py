"""Facts read from tool results: where the ship is, what it carries, what it knows.

The results are read from the newest backwards and each fact is taken from the
newest result that carries it, so a result superseded by a newer one is never
parsed. JSON is parsed lazily; a truncated or omitted result simply carries no
facts (place names are still picked out of truncated text). The reader stops
once the facts every decision needs are known and resumes only when a
decision at the station wants the rest (:meth:`Context.read_all`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._wire import as_dict
from .system import SystemInfo

AUTH_FREE = frozenset({"register", "login", "help", "get_commands", "get_version"})
AUTH_ERRORS = frozenset({"not_authenticated", "session_invalid", "session_required"})
#: Refusals that say "not now" rather than "not this": the same call may be made again
#: once the session is back or the tick has passed.
RETRYABLE = AUTH_ERRORS | {"action_pending", "in_transit"}
#: Other names the real game has used for the codes the rules know.
ALIASES = {
    "action_queued": "action_pending",
    "rate_limited": "action_pending",
    "already_traveling": "in_transit",
    "no_credits": "insufficient_credits",
    "invalid_credentials": "auth_failed",
    "deposit_too_sparse": "no_resources",
}
MOVES = frozenset({"travel", "jump"})
#: Items never sold by the mining loop.
KEEP_ITEMS = frozenset(
    {
        "fuel_cell",
        "pulse_laser_i",
        "autocannon_i",
        "shield_booster_i",
        "armor_plate_i",
        "mining_laser_1",
        "survey_scanner_i",
    }
)
_POI_RECORD = re.compile(
    r'"id":\s*"([A-Za-z0-9_\-]+)",\s*"name":\s*"([^"]+)",\s*"type":\s*"([a-z_]+)"'
)
_DESTINATION = re.compile(r'"destination":\s*"([^"]+)",\s*"destination_id":\s*"([^"]+)"')
#: The places my own captain's log entries name: "mine at Main Belt (main_belt), sell at
#: Sol Central (sol_central)".
_BELT_NAMES = frozenset({"belt", "asteroid", "asteroids", "field"})
_STATION_NAMES = frozenset(
    {"station", "central", "hub", "base", "port", "spaceport", "starbase", "citadel", "outpost"}
)
_LOG_PLACE = re.compile(r"\b(mine|sell) at ([^,;()]+?) \(([A-Za-z0-9_\-]+)\)")


@dataclass(frozen=True, slots=True)
class Place:
    """A point of interest seen in a result."""

    id: str
    name: str
    type: str = ""
    system: str | None = None
    has_base: bool = False
    x: float | None = None
    y: float | None = None

    @property
    def is_belt(self) -> bool:
        """An asteroid belt (where ``mine`` works)."""
        return self.type == "asteroid_belt" or "belt" in self.type

    @property
    def kind(self) -> str:
        """``belt``, ``station`` or ``other`` from the type; without one, a guess from the
        name ("Main Belt", "Sol Central"), as a pilot would read it; "" when unknown."""
        if self.type:
            return "belt" if self.is_belt else "station" if self.has_base else "other"
        words = set(re.sub(r"[^a-z0-9]+", " ", self.name.lower()).split())
        if words & _BELT_NAMES:
            return "belt"
        return "station" if words & _STATION_NAMES else ""


@dataclass(slots=True)
class ToolResult:
    """One tool message, joined with the call it answers."""

    index: int
    call_id: str
    name: str
    arguments: str
    content: str
    _data: dict[str, Any] | None = None
    _parsed: bool = False

    def data(self) -> dict[str, Any] | None:
        """The result as a dict (None for placeholders, truncated or non-JSON text)."""
        if not self._parsed:
            self._parsed = True
            text = self.content
            if text[:1] == "{":
                try:
                    value = json.loads(text)
                except ValueError:
                    value = None
                self._data = value if isinstance(value, dict) else None
        return self._data

    def error(self) -> dict[str, Any] | None:
        """The error object of a failed call, if this result is one."""
        if '"error"' not in self.content[:12]:
            return None
        data = self.data()
        error = data.get("error") if data else None
        return error if isinstance(error, dict) else None

    def args(self) -> dict[str, Any]:
        """The call's arguments (empty when they are not a JSON object)."""
        try:
            value = json.loads(self.arguments or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(slots=True)
class Facts:
    """The newest known state of the pilot; None means unknown."""

    account: str | None = None
    logged_in: bool | None = None
    #: The newest failed login: (code, message).
    login_error: tuple[str, str] | None = None
    #: Call ids of register attempts refused as "username taken", newest first.
    taken: list[str] = field(default_factory=list)
    tick: int | None = None
    system: str | None = None
    poi: str | None = None
    docked: bool | None = None
    #: Mining (or a mining refusal) is the newest evidence of where the ship is.
    at_belt: bool = False
    #: This POI has no base (``no_base``/``not_docked`` on a base action).
    no_base_here: bool = False
    #: The newest move: (tool, destination poi id, arrival tick, message index).
    move: tuple[str, str | None, int | None, int] | None = None
    #: A result newer than the move shows a tick at or past its arrival.
    arrived: bool = False
    #: An ``in_transit`` refusal is newer than any position fact.
    transit_error: dict[str, Any] | None = None
    fuel: int | None = None
    max_fuel: int | None = None
    fuel_short: bool = False
    hull: int | None = None
    max_hull: int | None = None
    credits: int | None = None
    cargo_used: int | None = None
    cargo_capacity: int | None = None
    cargo_full: bool = False
    #: Items in the hold (None: no listing in context).
    cargo: dict[str, int] | None = None
    pois: dict[str, Place] = field(default_factory=dict)
    #: Systems whose POI listing was seen.
    listed: set[str] = field(default_factory=set)
    systems: dict[str, str] = field(default_factory=dict)
    links: dict[str, tuple[str, ...]] = field(default_factory=dict)
    routes: dict[str, list[str]] = field(default_factory=dict)
    depleted: set[str] = field(default_factory=set)
    bad_targets: set[str] = field(default_factory=set)
    no_credits_for: set[str] = field(default_factory=set)
    #: Sales since the newest captain's log entry: (item, quantity, total, price).
    sales: list[tuple[str, int, int, int]] = field(default_factory=list)
    prices: dict[str, int] = field(default_factory=dict)
    #: My ship was destroyed after the newest position fact (I respawned elsewhere).
    ship_lost: bool = False

    @property
    def position_known(self) -> bool:
        """Whether the autopilot knows enough of where it is to act."""
        return self.poi is not None or self.at_belt or self.docked is True

    @property
    def here(self) -> Place | None:
        """The POI the ship is at, as its listing told it (None: unknown or unlisted)."""
        return self.pois.get(self.poi) if self.poi else None

    def sellable(self, keep: dict[str, int] | None = None) -> list[tuple[str, int]]:
        """Cargo to sell, largest first (ties by item id, for determinism); ``keep`` holds
        back units (say, a mission's delivery)."""
        keep = keep or {}
        items = [
            (k, v - keep.get(k, 0))
            for k, v in (self.cargo or {}).items()
            if v - keep.get(k, 0) > 0 and k not in KEEP_ITEMS
        ]
        return sorted(items, key=lambda kv: (-kv[1], kv[0]))


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


class Reader:
    """The newest-first fold of tool results into :class:`Facts`."""

    def __init__(self, facts: Facts, last_log: int, results: list[ToolResult]) -> None:
        self.f = facts
        self.last_log = last_log
        self.results = results
        #: Results[:next] are still unread (read from the newest backwards).
        self.next = len(results)
        self.used_delta = 0
        self.items_delta: Counter[str] = Counter()
        self.items_blocked = False
        self.newest_tick: int | None = None
        self.depleted_pending = False
        self.index = -1

    # -- small setters: the first (newest) value wins -------------------------------------
    def position(self, *, system: Any = None, poi: Any = None, docked: bool | None = None) -> None:
        f = self.f
        if isinstance(system, str) and system and f.system is None:
            f.system = system
        if isinstance(poi, str) and poi:
            if f.poi is None:
                f.poi = poi
            if self.depleted_pending:
                f.depleted.add(poi)
                self.depleted_pending = False
        if docked is not None and f.docked is None:
            f.docked = docked

    def counts(self, **values: Any) -> None:
        """Each count named (``fuel=``, ``max_hull=``, ``credits=`` …) that is not known yet."""
        for key, value in values.items():
            if getattr(self.f, key) is None:
                setattr(self.f, key, _int(value))

    def ship(self, ship: dict[str, Any]) -> None:
        self.counts(**{key: ship.get(key) for key in ("fuel", "max_fuel", "hull", "max_hull")})
        self.used(ship.get("cargo_used"), ship.get("cargo_capacity"))
        if isinstance(ship.get("cargo"), list):
            self.items(ship["cargo"])

    def used(self, used: Any, capacity: Any) -> None:
        f = self.f
        if f.cargo_capacity is None:
            f.cargo_capacity = _int(capacity)
        value = _int(used)
        if f.cargo_used is None and value is not None:
            f.cargo_used = max(0, value + self.used_delta)

    def items(self, listing: list[Any]) -> None:
        f = self.f
        if f.cargo is not None or self.items_blocked:
            return
        cargo: Counter[str] = Counter()
        for item in listing:
            if isinstance(item, dict) and isinstance(item.get("item_id"), str):
                cargo[item["item_id"]] += _int(item.get("quantity")) or 0
        cargo.update(self.items_delta)
        f.cargo = {k: v for k, v in cargo.items() if v > 0}

    def place(self, place: Place) -> None:
        """Remember a POI; a typed record beats a bare name, a listed one (with its
        position) beats one my log named."""
        known = self.f.pois.get(place.id)
        if (
            known is None
            or (not known.type and place.type)
            or (known.x is None and place.x is not None and place.type)
        ):
            self.f.pois[place.id] = place

    def credits(self, value: Any) -> None:
        self.counts(credits=value)

    def hold(self, item: str, quantity: int) -> None:
        """``quantity`` of ``item`` came into the hold (negative: went out), counted onto
        an older listing while no newer one is known."""
        if self.f.cargo_used is None:
            self.used_delta += quantity
        if self.f.cargo is None:
            self.items_delta[item] += quantity

    def places(self, system: dict[str, Any]) -> None:
        system_id = system.get("id")
        if not isinstance(system_id, str):
            return
        f = self.f
        f.systems.setdefault(system_id, str(system.get("name") or system_id))
        for poi in system.get("pois") or ():
            if isinstance(poi, dict) and isinstance(poi.get("id"), str):
                position = poi.get("position") or {}
                self.place(
                    Place(
                        poi["id"],
                        str(poi.get("name") or poi["id"]),
                        str(poi.get("type") or ""),
                        system_id,
                        bool(poi.get("has_base")),
                        position.get("x"),
                        position.get("y"),
                    )
                )
        if system.get("pois"):
            f.listed.add(system_id)
        links = []
        for link in system.get("connections") or ():
            if isinstance(link, dict) and isinstance(link.get("system_id"), str):
                f.systems.setdefault(link["system_id"], str(link.get("name") or ""))
                links.append(link["system_id"])
            elif isinstance(link, str):
                links.append(link)
        f.links.setdefault(system_id, tuple(links))

    # -- one result --------------------------------------------------------------------
    def read(self, result: ToolResult) -> None:
        f = self.f
        self.index = result.index
        content = result.content
        if not content or content[0] != "{":
            if result.name.startswith("zoea_search"):
                self.search(content)
            return
        error = result.error()
        if error is not None:
            self.failure(result, error)
            return
        data = result.data()
        if data is None:  # truncated: still learn place names from it
            self.search(content)
            return
        name = result.name
        tick = _int(data.get("current_tick"))
        if tick is not None:
            if f.tick is None:
                f.tick = tick
            self.newest_tick = max(self.newest_tick or tick, tick)
        if f.logged_in is None and name and name not in AUTH_FREE:
            f.logged_in = True
        handler = getattr(self, "on_" + name, None) if name else None
        if handler is not None:
            handler(data, result)
        elif name.startswith("zoea_search"):
            self.search(content)

    def failure(self, result: ToolResult, error: dict[str, Any]) -> None:
        f = self.f
        code = str(error.get("code", ""))
        code = ALIASES.get(code, code)
        message = str(error.get("message", ""))
        name = result.name
        if code in AUTH_ERRORS:
            if f.logged_in is None:
                f.logged_in = False
        elif name == "login":
            if f.logged_in is None:
                f.logged_in = False
                f.login_error = (code, message)
        elif name == "register":
            if code == "username_taken":
                f.taken.append(result.call_id)
            elif f.logged_in is None and f.login_error is None:
                f.login_error = (code, message)
        elif code == "in_transit":
            if not f.position_known and f.transit_error is None and f.move is None:
                f.transit_error = error
        elif code in ("not_docked", "no_base"):
            if f.docked is None:
                f.docked = False
            if (
                code == "no_base" or name in ("sell", "buy", "view_market", "repair")
            ) and f.poi is None:
                f.no_base_here = True
        elif code == "already_docked":
            self.position(docked=True)
        elif code == "cargo_full":
            if f.cargo_used is None:
                f.cargo_full = True
            self.belt_evidence()
        elif code == "no_resources":
            self.belt_evidence(depleted=True)
        elif code == "no_fuel":
            f.fuel_short = f.fuel is None or f.fuel_short
        elif code in ("invalid_poi", "wrong_system") and name == "travel":
            f.bad_targets.add(str(result.args().get("target_poi", "")))
        elif code == "invalid_target" and name == "travel":
            self.position(poi=result.args().get("target_poi"))
        elif code == "insufficient_credits":
            f.no_credits_for.add(name)
        elif code == "insufficient_items":
            self.items_blocked = self.items_blocked or f.cargo is None

    def belt_evidence(self, depleted: bool = False) -> None:
        f = self.f
        if f.poi is None and not f.at_belt and f.move is None:
            f.at_belt = True
            f.docked = False if f.docked is None else f.docked
        if depleted:
            self.depleted_pending = True

    def search(self, text: str) -> None:
        for poi_id, name, kind in _POI_RECORD.findall(text):
            self.place(Place(poi_id, name, kind))
        for name, poi_id in _DESTINATION.findall(text):
            self.place(Place(poi_id, name))

    # -- per tool ----------------------------------------------------------------------
    def on_login(self, data: dict[str, Any], result: ToolResult) -> None:
        self.arrival(data)

    def on_register(self, data: dict[str, Any], result: ToolResult) -> None:
        self.arrival(data)

    def arrival(self, data: dict[str, Any]) -> None:
        f = self.f
        if f.logged_in is None:
            f.logged_in = True
        name = data.get("username") or (data.get("player") or {}).get("username")
        if f.account is None and isinstance(name, str):
            f.account = name
        self.status(data)
        if isinstance(data.get("system"), dict):
            self.places(data["system"])

    def on_get_status(self, data: dict[str, Any], result: ToolResult) -> None:
        self.status(data)

    def status(self, data: dict[str, Any]) -> None:
        f = self.f
        player = data.get("player")
        if isinstance(player, dict):
            transit = data.get("transit")
            if player.get("in_transit") and isinstance(transit, dict):
                self.moved(
                    "travel",
                    transit.get("to_poi"),
                    transit.get("arrival_tick"),
                    transit.get("to_system"),
                )
            else:
                self.position(
                    system=player.get("current_system"),
                    poi=player.get("current_poi"),
                    docked=player.get("docked_at_base") is not None,
                )
            self.credits(player.get("credits"))
            if f.account is None and isinstance(player.get("username"), str):
                f.account = player["username"]
        if isinstance(data.get("ship"), dict):
            self.ship(data["ship"])

    def on_captains_log_add(self, data: dict[str, Any], result: ToolResult) -> None:
        """My own log entry names the belt I mine and the station I sell at."""
        entry = result.args().get("entry")
        if not isinstance(entry, str):
            return
        for role, name, poi_id in _LOG_PLACE.findall(entry):
            if role == "mine":
                self.place(Place(poi_id, name.strip(), "asteroid_belt"))
            else:
                self.place(Place(poi_id, name.strip(), "station", has_base=True))

    def on_get_ship(self, data: dict[str, Any], result: ToolResult) -> None:
        if isinstance(data.get("ship"), dict):
            self.ship(data["ship"])

    def on_get_cargo(self, data: dict[str, Any], result: ToolResult) -> None:
        self.used(data.get("used"), data.get("capacity"))
        if isinstance(data.get("cargo"), list):
            self.items(data["cargo"])

    def on_get_system(self, data: dict[str, Any], result: ToolResult) -> None:
        system = data.get("system")
        if isinstance(system, dict):
            self.places(system)
            if not result.args().get("system_id"):
                self.position(system=system.get("id"), poi=data.get("poi"))

    def on_get_poi(self, data: dict[str, Any], result: ToolResult) -> None:
        poi = data.get("poi")
        if not isinstance(poi, dict) or not isinstance(poi.get("id"), str):
            return
        position = poi.get("position") or {}
        kind = str(poi.get("type") or "")
        place = Place(
            poi["id"],
            str(poi.get("name") or poi["id"]),
            kind,
            poi.get("system_id"),
            "base" in data,
            position.get("x"),
            position.get("y"),
        )
        known = self.f.pois.get(place.id)
        if known is None or known.x is None or not known.type:
            self.f.pois[place.id] = place
        if not result.args().get("poi_id"):
            self.position(system=poi.get("system_id"), poi=poi["id"])

    def on_get_map(self, data: dict[str, Any], result: ToolResult) -> None:
        for system in data.get("systems") or ():
            if isinstance(system, dict) and isinstance(system.get("id"), str):
                self.f.systems.setdefault(system["id"], str(system.get("name") or ""))
                links = system.get("connections")
                if isinstance(links, list):
                    self.f.links.setdefault(system["id"], tuple(str(x) for x in links))

    def on_find_route(self, data: dict[str, Any], result: ToolResult) -> None:
        route = [r.get("system_id") for r in data.get("route") or () if isinstance(r, dict)]
        for hop in data.get("route") or ():
            if isinstance(hop, dict) and isinstance(hop.get("system_id"), str):
                self.f.systems.setdefault(hop["system_id"], str(hop.get("name") or ""))
        target = data.get("target_system")
        if isinstance(target, str):
            self.f.routes.setdefault(target, [r for r in route if isinstance(r, str)])
        if self.f.fuel is None:
            self.f.fuel = _int(data.get("fuel_available"))

    def moved(self, tool: str, poi: Any, arrival: Any, system: Any) -> None:
        f = self.f
        if f.move is None and not f.position_known:
            arrival_tick = _int(arrival)
            f.move = (tool, poi if isinstance(poi, str) else None, arrival_tick, self.index)
            f.arrived = (
                arrival_tick is not None
                and self.newest_tick is not None
                and self.newest_tick >= arrival_tick
            )
        self.position(system=system, poi=poi, docked=False)

    def on_travel(self, data: dict[str, Any], result: ToolResult) -> None:
        if data.get("action") == "arrived":  # the blocking form: the call returns on arrival
            self.position(poi=data.get("poi_id"), docked=False)
            if isinstance(data.get("poi_id"), str):
                self.place(Place(data["poi_id"], str(data.get("poi") or data["poi_id"])))
            return
        self.moved("travel", data.get("destination_id"), data.get("arrival_tick"), None)
        self.blocked_until_arrival(data)
        if isinstance(data.get("destination_id"), str):
            self.place(Place(data["destination_id"], str(data.get("destination") or "")))
        self.fuel(data.get("fuel_remaining"))

    def on_jump(self, data: dict[str, Any], result: ToolResult) -> None:
        if data.get("action") == "jumped":  # the blocking form: the call returns on arrival
            self.position(system=data.get("system_id"), poi=data.get("poi"), docked=False)
        else:
            self.moved("jump", data.get("poi"), data.get("arrival_tick"), data.get("system_id"))
            self.blocked_until_arrival(data)
        if isinstance(data.get("system_id"), str):
            self.f.systems.setdefault(data["system_id"], str(data.get("system") or ""))
        self.fuel(data.get("fuel_remaining"))

    def blocked_until_arrival(self, data: dict[str, Any]) -> None:
        """The embedded world's host returns a trip on arrival, flagged ``arrived``."""
        move = self.f.move
        if data.get("arrived") is True and move is not None and move[3] == self.index:
            self.f.arrived = True

    def fuel(self, value: Any) -> None:
        if self.f.fuel is None:
            self.f.fuel = _int(value)

    def on_dock(self, data: dict[str, Any], result: ToolResult) -> None:
        self.position(poi=data.get("poi_id"), docked=True)
        if isinstance(data.get("poi_id"), str):
            self.f.no_base_here = False

    def on_undock(self, data: dict[str, Any], result: ToolResult) -> None:
        self.position(poi=data.get("poi_id"), docked=False)

    def on_mine(self, data: dict[str, Any], result: ToolResult) -> None:
        self.belt_evidence()
        resource = data.get("resource_id")
        quantity = _int(data.get("quantity")) or 0
        self.used(data.get("cargo_used"), data.get("cargo_capacity"))
        if isinstance(resource, str) and self.f.cargo is None:
            self.items_delta[resource] += quantity
        if self.f.hull is None and data.get("hull") is not None:
            self.f.hull = _int(data.get("hull"))

    def on_sell(self, data: dict[str, Any], result: ToolResult) -> None:
        f = self.f
        self.position(docked=True)
        item = str(data.get("item_id") or "")
        quantity = _int(data.get("quantity_sold")) or 0
        self.hold(item, -quantity)
        self.credits(data.get("credits"))
        fills = data.get("fills") or [{}]
        price = _int(fills[0].get("price_each")) if isinstance(fills[0], dict) else None
        if price is not None:
            f.prices.setdefault(item, price)
        if result.index > self.last_log:
            f.sales.append((item, quantity, _int(data.get("total_earned")) or 0, price or 0))

    def on_buy(self, data: dict[str, Any], result: ToolResult) -> None:
        self.position(docked=True)
        self.hold(str(data.get("item_id") or ""), _int(data.get("delivered_to_cargo")) or 0)
        self.credits(data.get("credits"))

    def on_attack(self, data: dict[str, Any], result: ToolResult) -> None:
        shot = data.get("return_fire")
        if isinstance(shot, dict) and shot.get("destroyed"):
            if not self.f.position_known:
                self.f.ship_lost = True  # I woke up elsewhere: where, get_status says
            return
        if isinstance(shot, dict) and self.f.hull is None:
            self.f.hull = _int(shot.get("your_hull"))
        self.position(docked=False)
        self.credits(data.get("credits"))

    def on_loot_wreck(self, data: dict[str, Any], result: ToolResult) -> None:
        taken = as_dict(data.get("taken"))
        for item, quantity in taken.items():
            self.hold(str(item), _int(quantity) or 0)

    def on_install_mod(self, data: dict[str, Any], result: ToolResult) -> None:
        module = (data.get("module") or {}).get("id")
        self.position(docked=True)
        if isinstance(module, str):
            self.hold(module, -1)

    def on_refuel(self, data: dict[str, Any], result: ToolResult) -> None:
        if data.get("source") == "station":
            self.position(docked=True)
        self.counts(
            fuel=data.get("fuel_now"), max_fuel=data.get("fuel_max"), credits=data.get("credits")
        )

    def on_repair(self, data: dict[str, Any], result: ToolResult) -> None:
        self.position(docked=True)
        self.counts(
            hull=data.get("hull"), max_hull=data.get("max_hull"), credits=data.get("credits")
        )

    def on_view_market(self, data: dict[str, Any], result: ToolResult) -> None:
        self.position(docked=True)
        for item in data.get("items") or ():
            if isinstance(item, dict) and isinstance(item.get("item_id"), str):
                price = _int(item.get("best_buy"))
                if price is not None:
                    self.f.prices.setdefault(item["item_id"], price)

    def core_known(self) -> bool:
        """The facts every decision needs are known: older results can wait."""
        f = self.f
        return (
            f.logged_in is not None
            and f.position_known
            and f.docked is not None
            and f.fuel is not None
            and f.cargo_used is not None
            and f.system in f.listed
            and f.tick is not None
        )

    def scan(self, enough: Callable[[], bool]) -> None:
        """Read older results until ``enough()`` or none are left."""
        while self.next > 0 and not enough():
            self.next -= 1
            self.read(self.results[self.next])

    @property
    def exhausted(self) -> bool:
        return self.next == 0


def read_facts(
    results: list[ToolResult], info: SystemInfo, last_log: int
) -> tuple[Facts, Reader | None]:
    """The core facts, read newest first; the reader, if older results are left unread."""
    facts = Facts()
    reader = Reader(facts, last_log, results)
    reader.scan(reader.core_known)
    if reader.exhausted:
        apply_fallback(facts, info)
        return facts, None
    return facts, reader


#: Facts of the projection that my own unseen actions may have changed since it saw them.
_VOLATILE = frozenset(
    {"current_poi", "current_system", "docked", "cargo_used", "cargo_capacity", "hold"}
)


def _stale(info: SystemInfo, key: str, newest: int | None) -> bool:
    """The projection saw ``key`` before my newest visible result: actions came after it,
    and some of them may be out of view (a sale, a trip), so it is not to be trusted.

    (A projection refreshed on every request is as new as my newest result; one that
    stands at a turn's opening ages as the turn goes on.)"""
    age = info.ages.get(key)
    tick = _int(info.state.get("game_tick", ""))
    return (
        key in _VOLATILE
        and age is not None
        and tick is not None
        and newest is not None
        and tick - age < newest
    )


def apply_fallback(f: Facts, info: SystemInfo) -> None:
    """Facts the messages did not carry, from the system prompt (lowest priority)."""
    if info.account is not None or f.account is None:
        f.account = info.account or f.account  # the router's assignment wins
    state = {k: v for k, v in info.state.items() if not _stale(info, k, f.tick)}
    if "hold" not in state:
        state.pop("hold_fresh", None)
    if not f.position_known and f.move is None and f.transit_error is None:
        poi = state.get("current_poi")
        if poi and poi.lower() not in ("null", "none"):
            # The projection may name the place ("Main Belt") rather than give its id.
            named = [p.id for p in f.pois.values() if p.name.lower() == poi.lower()]
            f.poi = poi if poi in f.pois or not named else named[0]
        system = state.get("current_system")
        if f.system is None and system and system.lower() not in ("null", "none"):
            f.system = system
    if f.docked is None:
        if "docked" in state:
            f.docked = state["docked"] == "true"
        elif "docked_at_base" in state:
            f.docked = state["docked_at_base"].lower() not in ("null", "none", "")
    for key in ("fuel", "max_fuel", "hull", "max_hull", "credits", "cargo_used", "cargo_capacity"):
        if getattr(f, key) is None and key in state:
            setattr(f, key, _int(state[key].split("/")[0]))
    if f.tick is None and "game_tick" in state:
        f.tick = _int(state["game_tick"])
    if f.cargo is None and state.get("hold_fresh"):
        hold = state.get("hold", "")
        items = re.findall(r"([a-z0-9_]+) x(\d+)", hold)
        if items or hold == "empty":
            f.cargo = {item: int(n) for item, n in items}

"""The galaxy: systems, points of interest, deposits and station markets.

Positions are integers: light years between systems, hundredths of an AU inside one.
`generation.generate_galaxy` builds a galaxy from a seed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass, field
from math import isqrt
from typing import Any

from zoea_tui.sim import params, rules
from zoea_tui.sim.catalog import ITEMS


@dataclass
class Deposit:
    """One ore in an asteroid belt; mining lowers `remaining`, time restores it."""

    resource_id: str
    richness: int
    remaining: int
    max_remaining: int


@dataclass
class MarketEntry:
    """A station's standing quote for one item: a price factor and whether it sells."""

    factor_pct: int
    sells: bool


@dataclass
class Base:
    """A station's base: services, fuel price and market."""

    id: str
    name: str
    services: list[str]
    fuel_price: int
    market: dict[str, MarketEntry]

    def bid(self, item_id: str) -> int:
        """What the station pays per unit at the top of its book."""
        return self._quote(item_id, rules.BID_PCT)

    def ask(self, item_id: str) -> int:
        """What the station charges per unit at the top of its book."""
        return self._quote(item_id, rules.ASK_PCT)

    def _quote(self, item_id: str, side_pct: int) -> int:
        return rules.quote(ITEMS[item_id].base_price, self.market[item_id].factor_pct, side_pct)


@dataclass
class Poi:
    """A point of interest inside a system."""

    id: str
    system_id: str
    type: str
    name: str
    description: str
    x: int
    y: int
    deposits: list[Deposit] = field(default_factory=list)
    base: Base | None = None


@dataclass
class System:
    """A star system: its place on the map, its jump links and its POIs."""

    id: str
    name: str
    description: str
    empire: str | None
    police_level: int
    x: int
    y: int
    connections: list[str] = field(default_factory=list)
    poi_ids: list[str] = field(default_factory=list)


@dataclass
class Galaxy:
    """All systems and POIs, with the lookups and distances the commands need."""

    systems: dict[str, System]
    pois: dict[str, Poi]

    def find_poi(self, query: str) -> Poi | None:
        """The POI with this id, or else with this name (case-insensitive)."""
        return params.find_by_id_or_name(self.pois, query, lambda poi: (poi.id, poi.name))

    def find_system(self, query: str) -> System | None:
        """The system with this id, or else with this name (case-insensitive)."""
        return params.find_by_id_or_name(
            self.systems, query, lambda system: (system.id, system.name)
        )

    def arrival_poi(self, system_id: str) -> Poi:
        """Where a jump into `system_id` lands: its station, else a belt, else its first POI."""
        pois = [self.pois[p] for p in self.systems[system_id].poi_ids]
        for wanted in ("station", "asteroid_belt"):
            for poi in pois:
                if poi.type == wanted:
                    return poi
        return pois[0]

    def poi_distance(self, a: Poi, b: Poi) -> int:
        """Distance between two POIs of one system, in hundredths of an AU."""
        return isqrt((a.x - b.x) ** 2 + (a.y - b.y) ** 2)

    def system_distance(self, a: str, b: str) -> int:
        """Distance between two systems, in light years."""
        sa, sb = self.systems[a], self.systems[b]
        return isqrt((sa.x - sb.x) ** 2 + (sa.y - sb.y) ** 2)

    def route(self, start: str, goal: str) -> list[str] | None:
        """The shortest chain of systems from `start` to `goal` (both included), or None."""
        previous: dict[str, str | None] = {start: None}
        queue = deque([start])
        while queue:
            current = queue.popleft()
            if current == goal:
                path = [current]
                while (step := previous[path[-1]]) is not None:
                    path.append(step)
                return path[::-1]
            for nxt in self.systems[current].connections:
                if nxt not in previous:
                    previous[nxt] = current
                    queue.append(nxt)
        return None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "systems": [asdict(s) for s in self.systems.values()],
            "pois": [asdict(p) for p in self.pois.values()],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Galaxy:
        """Rebuild from `to_dict()` output."""
        systems = {s["id"]: System(**s) for s in data["systems"]}
        pois: dict[str, Poi] = {}
        for raw in data["pois"]:
            raw = dict(raw)
            raw["deposits"] = [Deposit(**d) for d in raw["deposits"]]
            if raw["base"] is not None:
                base = dict(raw["base"])
                base["market"] = {k: MarketEntry(**v) for k, v in base["market"].items()}
                raw["base"] = Base(**base)
            pois[raw["id"]] = Poi(**raw)
        return cls(systems=systems, pois=pois)

"""Pilots and their ships: the per-account state of the embedded world."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from zoea_tui.sim.catalog import ITEMS, STARTER_SHIP


@dataclass
class Ship:
    """A pilot's ship: condition, fuel and cargo (item id -> quantity)."""

    id: str
    class_id: str
    name: str
    hull: int
    max_hull: int
    shield: int
    max_shield: int
    armor: int
    speed: int
    fuel: int
    max_fuel: int
    cargo_capacity: int
    modules: list[str]
    cargo: dict[str, int] = field(default_factory=dict)

    @classmethod
    def starter(cls, ship_id: str, owner: str) -> Ship:
        """A new starter ship, full of fuel, empty hold."""
        c = STARTER_SHIP
        return cls(
            id=ship_id,
            class_id=c.id,
            name=f"{owner}'s {c.name}",
            hull=c.max_hull,
            max_hull=c.max_hull,
            shield=c.max_shield,
            max_shield=c.max_shield,
            armor=c.armor,
            speed=c.speed,
            fuel=c.max_fuel,
            max_fuel=c.max_fuel,
            cargo_capacity=c.cargo_capacity,
            modules=list(c.modules),
        )

    @property
    def cargo_used(self) -> int:
        """Cargo space taken, in units of size."""
        return sum(ITEMS[item_id].size * qty for item_id, qty in self.cargo.items())

    @property
    def cargo_free(self) -> int:
        """Cargo space left."""
        return self.cargo_capacity - self.cargo_used

    def add_cargo(self, item_id: str, quantity: int) -> None:
        """Put `quantity` of an item in the hold (space is the caller's check)."""
        self.cargo[item_id] = self.cargo.get(item_id, 0) + quantity

    def remove_cargo(self, item_id: str, quantity: int) -> None:
        """Take `quantity` of an item out of the hold (presence is the caller's check)."""
        left = self.cargo.get(item_id, 0) - quantity
        if left > 0:
            self.cargo[item_id] = left
        else:
            self.cargo.pop(item_id, None)


@dataclass
class Transit:
    """A trip under way: where from, where to, and the tick of arrival."""

    kind: str
    from_system: str
    from_poi: str
    to_system: str
    to_poi: str
    departure_tick: int
    arrival_tick: int


@dataclass
class LogEntry:
    """One captain's log entry."""

    entry: str
    tick: int


def _new_stats() -> dict[str, int]:
    return {
        "ore_mined": 0,
        "ore_sold": 0,
        "credits_earned": 0,
        "credits_spent": 0,
        "trades_completed": 0,
        "systems_visited": 1,
    }


@dataclass
class Player:
    """An account: credentials, wallet, position, ship, skills, log and inbox."""

    id: str
    username: str
    password: str
    empire: str
    credits: int
    system_id: str
    poi_id: str
    docked: bool
    ship: Ship
    created_tick: int
    skill_xp: dict[str, int] = field(default_factory=lambda: {"mining_basic": 0})
    stats: dict[str, int] = field(default_factory=_new_stats)
    visited: list[str] = field(default_factory=list)
    busy_until: int = 0
    transit: Transit | None = None
    log: list[LogEntry] = field(default_factory=list)
    notifications: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Player:
        """Rebuild from `to_dict()` output."""
        raw = dict(data)
        raw["ship"] = Ship(**raw["ship"])
        raw["transit"] = Transit(**raw["transit"]) if raw["transit"] else None
        raw["log"] = [LogEntry(**e) for e in raw["log"]]
        return cls(**raw)

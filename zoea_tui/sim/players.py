"""Pilots and their ships: the per-account state of the embedded world."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from zoea_tui.sim.catalog import ITEMS, STARTER_SHIP, ShipClass

#: Counters kept in `Player.stats`, all starting at 0 (systems_visited starts at 1).
COUNTERS: tuple[str, ...] = (
    "ore_mined",
    "ore_sold",
    "credits_earned",
    "credits_spent",
    "trades_completed",
    "systems_visited",
    "systems_explored",
    "orders_created",
    "orders_filled",
    "pirates_engaged",
    "pirates_destroyed",
    "ships_lost",
    "damage_dealt",
    "damage_taken",
    "bounties_earned",
    "missions_accepted",
    "missions_completed",
    "missions_abandoned",
    "chat_messages",
    "messages_received",
    "captains_log_entries",
    "forum_threads",
    "forum_replies",
    "forum_replies_received",
    "status_set",
    "colors_set",
)


def new_counters() -> dict[str, int]:
    """The counters of a new player."""
    counters = dict.fromkeys(COUNTERS, 0)
    counters["systems_visited"] = 1
    return counters


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
    weapon_slots: int = 1
    defense_slots: int = 1
    utility_slots: int = 2
    shield_recharge: int = 2

    @classmethod
    def starter(cls, ship_id: str, owner: str) -> Ship:
        """A new starter ship, full of fuel, empty hold."""
        return cls.of_class(STARTER_SHIP, ship_id, owner)

    @classmethod
    def of_class(cls, c: ShipClass, ship_id: str, owner: str) -> Ship:
        """A new ship of class `c` with its default modules, full of fuel, empty hold."""
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
            weapon_slots=c.weapon_slots,
            defense_slots=c.defense_slots,
            utility_slots=c.utility_slots,
            shield_recharge=c.shield_recharge,
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
    stats: dict[str, int] = field(default_factory=new_counters)
    visited: list[str] = field(default_factory=list)
    busy_until: int = 0
    transit: Transit | None = None
    log: list[LogEntry] = field(default_factory=list)
    notifications: list[dict[str, Any]] = field(default_factory=list)
    missions: list[dict[str, Any]] = field(default_factory=list)
    #: Missions completed, as ``issuer_base:template_id`` (boards that do not repeat
    #: missions leave them out).
    missions_done: list[str] = field(default_factory=list)
    storage: dict[str, dict[str, int]] = field(default_factory=dict)
    hangar: list[dict[str, Any]] = field(default_factory=list)
    trade_log: list[dict[str, Any]] = field(default_factory=list)
    engaged: list[str] = field(default_factory=list)
    chat_by_channel: dict[str, int] = field(default_factory=dict)
    status_message: str = ""
    clan_tag: str = ""
    primary_color: str = "#FFFFFF"
    secondary_color: str = "#000000"
    #: The base chosen with set_home_base ("": the empire's home station).
    home_base: str = ""
    #: The tactical battle under way (``commands/battle.py``), else None.
    battle: dict[str, Any] | None = None
    notes: list[dict[str, Any]] = field(default_factory=list)
    faction_id: str = ""
    fleet_id: str = ""
    insurance: list[dict[str, Any]] = field(default_factory=list)
    commissions: list[dict[str, Any]] = field(default_factory=list)
    #: The wreck on a tow line (``commands/salvage.py``), else None.
    towing: dict[str, Any] | None = None

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
        raw["stats"] = {**new_counters(), **raw["stats"]}
        return cls(**raw)

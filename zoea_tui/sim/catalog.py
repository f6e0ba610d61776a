"""Static game data: items, empires, the starter ship and its modules.

Ids and values follow the real game where known; the rest are the simulator's own
choices (docs/ARCHITECTURE.md, 'The embedded world').
"""

from __future__ import annotations

from dataclasses import dataclass

GAME_VERSION = "sim-0.1.0"
RELEASE_NOTES: tuple[str, ...] = (
    "Embedded offline SpaceMolt-like world for Zoea Nova.",
    "Flat v1 tools: mining, trading, travel, jumps, chat, captain's log, notifications.",
)


@dataclass(frozen=True)
class ItemDef:
    """An item that can sit in cargo and trade on a market."""

    id: str
    name: str
    category: str
    base_price: int
    size: int = 1


ITEMS: dict[str, ItemDef] = {
    item.id: item
    for item in (
        ItemDef("iron_ore", "Iron Ore", "ore", 5),
        ItemDef("copper_ore", "Copper Ore", "ore", 8),
        ItemDef("silicon_ore", "Silicon Ore", "ore", 10),
        ItemDef("titanium_ore", "Titanium Ore", "ore", 25),
        ItemDef("gold_ore", "Gold Ore", "ore", 45),
        ItemDef("rare_crystal", "Rare Crystal", "ore", 80),
        ItemDef("fuel_cell", "Fuel Cell", "consumable", 30),
        ItemDef("steel_plate", "Steel Plate", "component", 30),
    )
}

ORE_IDS: tuple[str, ...] = tuple(i.id for i in ITEMS.values() if i.category == "ore")


def find_item(query: str) -> ItemDef | None:
    """The item whose id or full name matches `query` (names case-insensitively)."""
    if query in ITEMS:
        return ITEMS[query]
    wanted = query.strip().lower()
    for item in ITEMS.values():
        if wanted in (item.id, item.name.lower()):
            return item
    return None


@dataclass(frozen=True)
class EmpireDef:
    """A playable empire: its home system and the credits a new pilot starts with."""

    id: str
    name: str
    blurb: str
    home_system: str
    starting_credits: int


EMPIRES: dict[str, EmpireDef] = {
    e.id: e
    for e in (
        EmpireDef(
            "solarian",
            "Solarian Confederacy",
            "Masters of energy and trade. Mining and trading bonuses.",
            "sol",
            150,
        ),
        EmpireDef(
            "voidborn",
            "Voidborn Collective",
            "Children of the dark. Stealth and shield bonuses.",
            "nexus_prime",
            100,
        ),
        EmpireDef(
            "crimson",
            "Crimson Dominion",
            "Warriors of the red nebula. Combat damage bonuses.",
            "krynn",
            100,
        ),
        EmpireDef(
            "nebula",
            "Nebula Collective",
            "Explorers and scientists. Exploration speed bonuses.",
            "haven",
            250,
        ),
        EmpireDef(
            "outerrim",
            "Outer Rim",
            "Frontier survivors. Crafting and cargo bonuses.",
            "frontier",
            100,
        ),
    )
}


@dataclass(frozen=True)
class ModuleDef:
    """A ship module."""

    id: str
    name: str
    type: str


MODULES: dict[str, ModuleDef] = {
    "mining_laser_1": ModuleDef("mining_laser_1", "Mining Laser I", "mining"),
}


@dataclass(frozen=True)
class ShipClass:
    """A ship class: the numbers a new ship of this class starts with."""

    id: str
    name: str
    max_hull: int
    max_shield: int
    armor: int
    speed: int
    max_fuel: int
    cargo_capacity: int
    modules: tuple[str, ...]


STARTER_SHIP = ShipClass(
    id="starter_ship",
    name="Starter Shuttle",
    max_hull=100,
    max_shield=50,
    armor=10,
    speed=3,
    max_fuel=100,
    cargo_capacity=50,
    modules=("mining_laser_1",),
)

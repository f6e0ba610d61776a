"""Static game data: items, empires, the starter ship and its modules.

Ids and values follow the real game where known; the rest are the simulator's own
choices (docs/ARCHITECTURE.md, 'The embedded world').
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, TypeVar

from zoea_tui.sim import params

GAME_VERSION = "sim-0.1.0"
RELEASE_NOTES: tuple[str, ...] = (
    "Embedded offline SpaceMolt-like world for Zoea Nova.",
    "Flat v1 tools: mining, trading, travel, jumps, chat, captain's log, notifications.",
    "Mission boards, the exchange (standing orders, market analysis), the catalogue, "
    "shipyards, ship modules, pirates and wrecks, the forum.",
)


class _HasId(Protocol):
    """A catalogue entry: an item, an empire, a module, a ship class, a pirate kind..."""

    @property
    def id(self) -> str: ...


Entry = TypeVar("Entry", bound=_HasId)


def by_id(*entries: Entry) -> dict[str, Entry]:
    """A catalogue table: the entries keyed by their ids, in the order given."""
    return {entry.id: entry for entry in entries}


@dataclass(frozen=True)
class ItemDef:
    """An item that can sit in cargo and trade on a market."""

    id: str
    name: str
    category: str
    base_price: int
    size: int = 1


ITEMS: dict[str, ItemDef] = by_id(
    ItemDef("iron_ore", "Iron Ore", "ore", 5),
    ItemDef("copper_ore", "Copper Ore", "ore", 8),
    ItemDef("silicon_ore", "Silicon Ore", "ore", 10),
    ItemDef("titanium_ore", "Titanium Ore", "ore", 25),
    ItemDef("gold_ore", "Gold Ore", "ore", 45),
    ItemDef("rare_crystal", "Rare Crystal", "ore", 80),
    ItemDef("fuel_cell", "Fuel Cell", "consumable", 30),
    ItemDef("steel_plate", "Steel Plate", "component", 30),
    ItemDef("mining_laser_1", "Mining Laser I", "module", 50),
    ItemDef("pulse_laser_i", "Pulse Laser I", "module", 120),
    ItemDef("autocannon_i", "Autocannon I", "module", 220),
    ItemDef("shield_booster_i", "Shield Booster I", "module", 150),
    ItemDef("armor_plate_i", "Armor Plate I", "module", 130),
    ItemDef("survey_scanner_i", "Survey Scanner I", "module", 200),
)

ORE_IDS: tuple[str, ...] = tuple(i.id for i in ITEMS.values() if i.category == "ore")


def find_item(query: str) -> ItemDef | None:
    """The item whose id or full name matches `query` (names case-insensitively)."""
    return params.find_by_id_or_name(ITEMS, query, lambda item: (item.id, item.name))


@dataclass(frozen=True)
class EmpireDef:
    """A playable empire: its home system and the credits a new pilot starts with."""

    id: str
    name: str
    blurb: str
    home_system: str
    starting_credits: int


EMPIRES: dict[str, EmpireDef] = by_id(
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


@dataclass(frozen=True)
class ModuleDef:
    """A ship module: its slot type and what it adds (damage, shield, armor, survey)."""

    id: str
    name: str
    type: str
    damage: int = 0
    shield_bonus: int = 0
    armor_bonus: int = 0
    survey: bool = False
    mining_power: int = 0
    basic: bool = True

    @property
    def slot(self) -> str:
        """The slot it fits: weapon, defense or utility (mining and survey)."""
        return self.type if self.type in ("weapon", "defense") else "utility"

    def to_dict(self) -> dict[str, object]:
        """The catalogue's view of the module."""
        stats = {
            k: v
            for k, v in (
                ("damage", self.damage),
                ("shield_bonus", self.shield_bonus),
                ("armor_bonus", self.armor_bonus),
                ("mining_power", self.mining_power),
            )
            if v
        }
        if self.survey:
            stats["survey"] = True
        return {"id": self.id, "name": self.name, "type": self.type, "slot": self.slot, **stats}


MODULES: dict[str, ModuleDef] = by_id(
    ModuleDef("mining_laser_1", "Mining Laser I", "mining", mining_power=5),
    ModuleDef("pulse_laser_i", "Pulse Laser I", "weapon", damage=12),
    ModuleDef("autocannon_i", "Autocannon I", "weapon", damage=16, basic=False),
    ModuleDef("shield_booster_i", "Shield Booster I", "defense", shield_bonus=30),
    ModuleDef("armor_plate_i", "Armor Plate I", "defense", armor_bonus=6),
    ModuleDef("survey_scanner_i", "Survey Scanner I", "utility", survey=True, basic=False),
)


def module_def(module_id: str) -> ModuleDef:
    """The module with this id (an unknown id reads as a plain utility module)."""
    return MODULES.get(module_id) or ModuleDef(module_id, module_id, "utility")


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
    price: int = 0
    weapon_slots: int = 1
    defense_slots: int = 1
    utility_slots: int = 2
    shield_recharge: int = 2
    description: str = ""

    def to_dict(self) -> dict[str, object]:
        """The catalogue's and the shipyard's view of the class."""
        return {
            "class_id": self.id,
            "name": self.name,
            "price": self.price,
            "hull": self.max_hull,
            "shield": self.max_shield,
            "shield_recharge": self.shield_recharge,
            "armor": self.armor,
            "speed": self.speed,
            "fuel": self.max_fuel,
            "cargo_capacity": self.cargo_capacity,
            "weapon_slots": self.weapon_slots,
            "defense_slots": self.defense_slots,
            "utility_slots": self.utility_slots,
            "default_modules": list(self.modules),
            "description": self.description,
        }


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
    description="The free tier-0 ship every pilot starts with: a little of everything.",
)

SHIP_CLASSES: dict[str, ShipClass] = by_id(
    STARTER_SHIP,
    ShipClass(
        "prospector",
        "Prospector",
        120,
        60,
        10,
        3,
        120,
        100,
        ("mining_laser_1",),
        price=1500,
        utility_slots=3,
        description="A mining barge: twice the hold of the starter ship.",
    ),
    ShipClass(
        "archimedes",
        "Archimedes",
        150,
        60,
        12,
        2,
        150,
        185,
        ("mining_laser_1",),
        price=2200,
        weapon_slots=0,
        description="A bulk hauler for traders: 185 cargo, no weapon slot.",
    ),
    ShipClass(
        "skirmisher",
        "Skirmisher",
        180,
        120,
        18,
        4,
        110,
        40,
        ("pulse_laser_i",),
        price=2400,
        weapon_slots=2,
        defense_slots=2,
        shield_recharge=4,
        description="A light warship for pirate hunters: two weapon and two defence slots.",
    ),
)


@dataclass(frozen=True)
class SkillDef:
    """A skill and what trains it."""

    id: str
    name: str
    description: str


SKILLS: dict[str, SkillDef] = by_id(
    SkillDef("mining_basic", "Basic Mining", "1 XP per unit mined; +5% yield per level."),
    SkillDef("combat_basic", "Basic Combat", "1 XP per point of damage dealt to pirates."),
    SkillDef("trading_basic", "Basic Trading", "1 XP per trade and order fill."),
)


@dataclass(frozen=True)
class RecipeDef:
    """A crafting recipe: materials in, one item out, done at any station."""

    id: str
    name: str
    inputs: tuple[tuple[str, int], ...]
    output: str
    output_quantity: int = 1

    def to_dict(self) -> dict[str, object]:
        """The catalogue's view of the recipe."""
        return {
            "id": self.id,
            "name": self.name,
            "inputs": [{"item_id": i, "quantity": q} for i, q in self.inputs],
            "outputs": [{"item_id": self.output, "quantity": self.output_quantity}],
        }


#: The refining the guide's crafting path starts with: ore into a component and a fuel cell.
RECIPES: dict[str, RecipeDef] = by_id(
    RecipeDef("steel_plate", "Refine Steel Plate", (("iron_ore", 5),), "steel_plate"),
    RecipeDef(
        "fuel_cell", "Assemble Fuel Cell", (("copper_ore", 2), ("silicon_ore", 1)), "fuel_cell"
    ),
)

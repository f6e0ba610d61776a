"""Seeded generation of the galaxy.

The layout reuses real ids where the reference gives them (`sol`, `sol_central`,
`main_belt`, `krynn`'s `war_citadel`, ...); everything else (positions, jump links, belts,
richness, prices) is drawn from the world's `random.Random`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from zoea_tui.sim.catalog import ITEMS, MODULES
from zoea_tui.sim.galaxy import Base, Deposit, Galaxy, MarketEntry, Poi, System
from zoea_tui.sim.profiles import CLASSIC, WorldProfile


@dataclass(frozen=True)
class _SystemSeed:
    id: str
    name: str
    empire: str | None
    police_level: int
    description: str


_SYSTEM_SEEDS: tuple[_SystemSeed, ...] = (
    _SystemSeed(
        "sol",
        "Sol",
        "solarian",
        5,
        "The cradle of humanity and capital of the Solarian Confederacy.",
    ),
    _SystemSeed(
        "alpha_centauri",
        "Alpha Centauri",
        "solarian",
        4,
        "A busy binary system on the Confederacy's trade lanes.",
    ),
    _SystemSeed(
        "sirius", "Sirius", "solarian", 3, "A bright frontier of the Confederacy, rich in metals."
    ),
    _SystemSeed(
        "barnards_star",
        "Barnard's Star",
        None,
        1,
        "A dim red dwarf with no station; miners come for its quiet belts.",
    ),
    _SystemSeed(
        "nexus_prime",
        "Nexus Prime",
        "voidborn",
        4,
        "Home of the Voidborn, wrapped in dark nebular dust.",
    ),
    _SystemSeed("krynn", "Krynn", "crimson", 3, "Fortress system of the Crimson Dominion."),
    _SystemSeed("haven", "Haven", "nebula", 4, "A research haven of the Nebula Collective."),
    _SystemSeed(
        "frontier",
        "Frontier",
        "outerrim",
        0,
        "Lawless edge of charted space. Rich deposits, no police.",
    ),
)

#: The ``smbench`` galaxy: the empires' homes and the systems SMBench's logs name.
_SMBENCH_SEEDS: tuple[_SystemSeed, ...] = (
    _SYSTEM_SEEDS[0],  # sol
    _SystemSeed("haven", "Haven", "nebula", 4, "Capital of the Nebula Collective."),
    _SystemSeed("krynn", "Krynn", "crimson", 3, "Fortress system of the Crimson Dominion."),
    _SYSTEM_SEEDS[4],  # nexus_prime
    _SYSTEM_SEEDS[7],  # frontier
    _SystemSeed(
        "market_prime", "Market Prime", None, 4, "A crossroads of trade lanes next to Haven."
    ),
    _SystemSeed("cargo_lanes", "Cargo Lanes", None, 2, "Freighters' lanes, lightly policed."),
    _SystemSeed("bunda", "Bunda", None, 2, "A quiet mining system off the lanes."),
    _SystemSeed("copernicus", "Copernicus", None, 3, "A survey outpost among rich belts."),
    _SystemSeed("wealth_lane", "Wealth Lane", None, 4, "A guarded lane of merchant convoys."),
    _SystemSeed("the_levy", "The Levy", None, 1, "A toll station nobody pays."),
    _SystemSeed("ogma", "Ogma", None, 1, "A dim star and its scattered rocks."),
    _SystemSeed("gliese_436", "Gliese 436", None, 2, "A red dwarf with a hot Neptune."),
    _SystemSeed("caph", "Caph", None, 0, "A lawless giant on the edge of the charts."),
    _SystemSeed("gold_run", "Gold Run", None, 1, "Prospectors' rush to rich, unguarded belts."),
    _SystemSeed("traders_rest", "Traders' Rest", None, 3, "A rest stop for haulers."),
    _SYSTEM_SEEDS[1],  # alpha_centauri
    _SYSTEM_SEEDS[2],  # sirius
    _SYSTEM_SEEDS[3],  # barnards_star
)

_STATIONS: dict[str, tuple[str, str, str, str]] = {
    "sol": (
        "sol_central",
        "Sol Central",
        "confederacy_central_command",
        "Confederacy Central Command",
    ),
    "krynn": ("war_citadel", "War Citadel", "crimson_war_citadel", "Crimson War Citadel"),
}
#: The real home stations and belts of the ``smbench`` galaxy (as SMBench's logs name them).
_SMBENCH_STATIONS: dict[str, tuple[str, str, str, str]] = {
    **_STATIONS,
    "haven": ("grand_exchange", "Grand Exchange", "grand_exchange_station", "Grand Exchange"),
}
_SMBENCH_BELTS: dict[str, str] = {"haven": "commerce_fields", "krynn": "war_materials"}

_SOL_FIXED: tuple[tuple[str, str, str, int], ...] = (
    ("sol_earth", "planet", "Earth", 100),
    ("sol_mars", "planet", "Mars", 152),
    ("main_belt", "asteroid_belt", "Main Belt", 270),
    ("sol_belt", "asteroid_belt", "Outer Belt", 450),
)

_ORE_RANGES: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "iron_ore": ((40, 90), (600, 1000)),
    "copper_ore": ((30, 80), (400, 800)),
    "silicon_ore": ((30, 70), (300, 600)),
    "titanium_ore": ((15, 50), (200, 400)),
    "gold_ore": ((10, 35), (100, 250)),
    "rare_crystal": ((5, 25), (60, 150)),
}

_ROMAN = ("I", "II", "III", "IV")

# Unit vectors x1000 for 16 compass directions: integer maths keeps layouts identical
# on every platform.
_DIRECTIONS: tuple[tuple[int, int], ...] = (
    (1000, 0),
    (924, 383),
    (707, 707),
    (383, 924),
    (0, 1000),
    (-383, 924),
    (-707, 707),
    (-924, 383),
    (-1000, 0),
    (-924, -383),
    (-707, -707),
    (-383, -924),
    (0, -1000),
    (383, -924),
    (707, -707),
    (924, -383),
)

_SERVICES = ["market", "refuel", "repair"]
#: The items whose station quotes are drawn from the seed; later items (modules) are
#: added by `add_equipment` without drawing, so the galaxy of a seed never changes.
_DRAWN_ITEMS: tuple[str, ...] = (
    "iron_ore",
    "copper_ore",
    "silicon_ore",
    "titanium_ore",
    "gold_ore",
    "rare_crystal",
    "fuel_cell",
    "steel_plate",
)
#: Stations with a shipyard (ship classes for sale).
SHIPYARDS: tuple[str, ...] = (
    "sol_central",
    "war_citadel",
    "haven_station",
    "frontier_station",
    "grand_exchange",
)


def _orbit(rng: random.Random, radius: int) -> tuple[int, int]:
    dx, dy = rng.choice(_DIRECTIONS)
    return radius * dx // 1000, radius * dy // 1000


def _ore_pool(seed: _SystemSeed) -> list[str]:
    pool = ["iron_ore", "copper_ore", "titanium_ore"]
    if seed.empire != "solarian":
        pool.append("silicon_ore")
    if seed.police_level <= 3:
        pool.append("gold_ore")
    if seed.police_level <= 1:
        pool.append("rare_crystal")
    return pool


def _deposit(rng: random.Random, ore: str, richness_pct: int = 100) -> Deposit:
    (rich_lo, rich_hi), (max_lo, max_hi) = _ORE_RANGES[ore]
    amount = rng.randint(max_lo, max_hi)
    richness = max(1, rng.randint(rich_lo, rich_hi) * richness_pct // 100)
    return Deposit(ore, richness, amount, amount)


def _belt_deposits(
    rng: random.Random, seed: _SystemSeed, fixed: list[str] | None, richness_pct: int = 100
) -> list[Deposit]:
    if fixed is not None:
        ores = fixed
    else:
        pool = _ore_pool(seed)
        ores = [rng.choice(["iron_ore", "copper_ore"])]
        extras = [o for o in pool if o not in ores]
        ores += rng.sample(extras, rng.randint(1, 2))
    return [_deposit(rng, ore, richness_pct) for ore in ores]


def _base(
    rng: random.Random, base_id: str, base_name: str, factor: tuple[int, int] = (85, 120)
) -> Base:
    market = {}
    for item_id in _DRAWN_ITEMS:
        sells = item_id in ("fuel_cell", "steel_plate") or (
            item_id in ("iron_ore", "copper_ore") and rng.random() < 0.5
        )
        market[item_id] = MarketEntry(factor_pct=rng.randint(*factor), sells=sells)
    return Base(base_id, base_name, list(_SERVICES), rng.randint(1, 3), market)


def _place_systems(
    rng: random.Random, seeds: tuple[_SystemSeed, ...] = _SYSTEM_SEEDS, reach: int = 60
) -> dict[str, System]:
    systems: dict[str, System] = {}
    for seed in seeds:
        if not systems:
            x, y = 0, 0
        else:
            while True:
                x, y = rng.randint(-reach, reach), rng.randint(-reach, reach)
                if all((x - s.x) ** 2 + (y - s.y) ** 2 >= 15**2 for s in systems.values()):
                    break
        systems[seed.id] = System(
            seed.id, seed.name, seed.description, seed.empire, seed.police_level, x, y
        )
    return systems


def _link(systems: dict[str, System], a: str, b: str) -> None:
    systems[a].connections.append(b)
    systems[b].connections.append(a)


def _connect_systems(rng: random.Random, systems: dict[str, System]) -> None:
    """Jump links: the minimum spanning tree of the map, plus a few short cross-links."""
    ids = list(systems)

    def dist2(pair: tuple[str, str]) -> tuple[int, tuple[str, str]]:
        a, b = pair
        return (systems[a].x - systems[b].x) ** 2 + (systems[a].y - systems[b].y) ** 2, pair

    pairs = sorted(((a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]), key=dist2)
    group = {sid: sid for sid in ids}

    def root(sid: str) -> str:
        while group[sid] != sid:
            sid = group[sid]
        return sid

    spare = []
    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra == rb:
            spare.append((a, b))
        else:
            group[ra] = rb
            _link(systems, a, b)
    shortest_spare = spare[:6]
    for a, b in rng.sample(shortest_spare, min(rng.randint(2, 3), len(shortest_spare))):
        _link(systems, a, b)
    for system in systems.values():
        system.connections.sort()


def _system_pois(
    rng: random.Random, seed: _SystemSeed, profile: WorldProfile = CLASSIC
) -> list[Poi]:
    sid, name = seed.id, seed.name
    smbench = profile.galaxy == "smbench"
    stations = _SMBENCH_STATIONS if smbench else _STATIONS
    belt_names = _SMBENCH_BELTS if smbench else {}
    rich = profile.richness_pct
    pois = [Poi(f"{sid}_star", sid, "sun", name, f"The star {name}.", 0, 0)]
    if sid == "sol":
        for poi_id, kind, poi_name, radius in _SOL_FIXED:
            x, y = _orbit(rng, radius)
            fixed = ["iron_ore", "copper_ore", "titanium_ore"] if poi_id == "main_belt" else None
            deposits = _belt_deposits(rng, seed, fixed, rich) if kind == "asteroid_belt" else []
            pois.append(Poi(poi_id, sid, kind, poi_name, f"{poi_name}, Sol.", x, y, deposits))
    else:
        for n in range(rng.randint(1, 3)):
            kind = "moon" if n > 0 and rng.random() < 0.3 else "planet"
            x, y = _orbit(rng, rng.randint(60, 500))
            poi_name = f"{name} {_ROMAN[n]}"
            pois.append(
                Poi(f"{sid}_{_ROMAN[n].lower()}", sid, kind, poi_name, f"A {kind} of {name}.", x, y)
            )
        for n in range(rng.randint(1, 2)):
            suffix, label = ("belt", "Belt") if n == 0 else ("outer_belt", "Outer Belt")
            belt_id = belt_names.get(sid, f"{sid}_belt") if n == 0 else f"{sid}_{suffix}"
            belt_name = (
                belt_id.replace("_", " ").title() if belt_id in _SMBENCH_BELTS.values() else ""
            )
            x, y = _orbit(rng, rng.randint(200, 500))
            pois.append(
                Poi(
                    belt_id,
                    sid,
                    "asteroid_belt",
                    belt_name or f"{name} {label}",
                    f"An asteroid belt of {name}.",
                    x,
                    y,
                    _belt_deposits(rng, seed, None, rich),
                )
            )
    if sid != "barnards_star":
        poi_id, poi_name, base_id, base_name = stations.get(
            sid, (f"{sid}_station", f"{name} Station", f"{sid}_base", f"{name} Trade Hub")
        )
        x, y = _orbit(rng, rng.randint(80, 200))
        pois.append(
            Poi(
                poi_id,
                sid,
                "station",
                poi_name,
                f"{poi_name}, the station of {name}.",
                x,
                y,
                base=_base(rng, base_id, base_name, profile.price_factor),
            )
        )
    return pois


def add_equipment(galaxy: Galaxy, profile: WorldProfile = CLASSIC) -> None:
    """Quote every later item at every station and add the later services (idempotent).

    Basic modules sell everywhere; the others only where police are few (level 3 or
    less). A profile may sell even basic ones only where police are few, and all dearer
    (``smbench``: basic at police level 3 or less, the others at 1 or less, three times
    the price). Stations gain storage and a mission board; `SHIPYARDS` gain a shipyard.
    """
    for poi in galaxy.pois.values():
        base = poi.base
        if base is None:
            continue
        police = galaxy.systems[poi.system_id].police_level
        for item_id in ITEMS:
            if item_id in base.market:
                continue
            module = MODULES.get(item_id)
            limit = profile.basic_module_police_max
            sells = module is not None and (
                police <= profile.module_police_max
                or (module.basic and (limit is None or police <= limit))
            )
            factor = profile.module_price_pct if module is not None else 100
            base.market[item_id] = MarketEntry(factor_pct=factor, sells=sells)
        extra = ["storage", "missions"] + (["shipyard"] if poi.id in SHIPYARDS else [])
        base.services.extend(s for s in extra if s not in base.services)


def generate_galaxy(rng: random.Random, profile: WorldProfile = CLASSIC) -> Galaxy:
    """Build the galaxy from `rng`: 8 connected systems with their POIs and markets, or,
    for the ``smbench`` profile, 19 systems named after SMBench's logs."""
    smbench = profile.galaxy == "smbench"
    seeds = _SMBENCH_SEEDS if smbench else _SYSTEM_SEEDS
    systems = _place_systems(rng, seeds, reach=100 if smbench else 60)
    _connect_systems(rng, systems)
    pois: dict[str, Poi] = {}
    for seed in seeds:
        for poi in _system_pois(rng, seed, profile):
            pois[poi.id] = poi
            systems[seed.id].poi_ids.append(poi.id)
    galaxy = Galaxy(systems=systems, pois=pois)
    add_equipment(galaxy, profile)
    return galaxy

"""Pirate NPCs: where they lurk, how a round of fire works, wrecks, and their upkeep per tick.

Pirates wait at the asteroid belts of low-security systems (police level 3 or less). A
pirate you attack fights back: it returns fire in the same round and keeps firing once
per tick while you stay undocked at its POI. Damage hits shields first; what gets past
them is reduced by armour (at least 1). A destroyed pirate pays a bounty, leaves a wreck
with loot and comes back `RESPAWN_TICKS` later. A destroyed player leaves a wreck with
the cargo and wakes up docked at the home station in a new starter ship.
State is plain JSON-ready dicts kept on the `World`; randomness comes from `world.rng`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zoea_tui.sim import missions
from zoea_tui.sim.catalog import ORE_IDS, by_id, module_def
from zoea_tui.sim.galaxy import Galaxy
from zoea_tui.sim.players import Player, Ship
from zoea_tui.sim.profiles import CLASSIC, WorldProfile
from zoea_tui.sim.views import home_poi

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import WorldState

RESPAWN_TICKS = 20
WRECK_TICKS = 150
SHIELD_RECHARGE_PIRATE = 2
#: Damage a pilot takes in each battle stance, in percent (commander's guide: evade
#: halves it, brace quarters it).
TAKEN_PCT: dict[str, int] = {"fire": 100, "evade": 50, "brace": 25, "flee": 100}


@dataclass(frozen=True)
class PirateKind:
    """A kind of pirate: its numbers and its bounty."""

    id: str
    name: str
    hull: int
    shield: int
    armor: int
    damage: int
    bounty: int


KINDS: dict[str, PirateKind] = by_id(
    PirateKind("scout", "Pirate Scout", 50, 10, 1, 5, 150),
    PirateKind("raider", "Pirate Raider", 80, 25, 3, 8, 300),
    PirateKind("captain", "Pirate Captain", 140, 50, 6, 12, 700),
)


def _kinds_for(police_level: int) -> list[str]:
    if police_level == 0:
        return ["raider", "captain"]
    if police_level <= 2:
        return ["raider"]
    if police_level == 3:
        return ["scout"]
    return []


def _new_pirate(
    pirate_id: str, kind: PirateKind, system_id: str, poi_id: str, toughness_pct: int = 100
) -> dict[str, Any]:
    hull = kind.hull * toughness_pct // 100
    shield = kind.shield * toughness_pct // 100
    return {
        "id": pirate_id,
        "name": kind.name,
        "kind": kind.id,
        "system_id": system_id,
        "poi_id": poi_id,
        "hull": hull,
        "max_hull": hull,
        "shield": shield,
        "max_shield": shield,
        "armor": kind.armor,
        "damage": kind.damage,
        "bounty": kind.bounty,
        "destroyed": False,
        "respawn_tick": 0,
        "engaged_with": [],
        "last_fired": 0,
    }


def spawn_all(galaxy: Galaxy, profile: WorldProfile = CLASSIC) -> dict[str, dict[str, Any]]:
    """Every pirate of a galaxy, placed without drawing randomness (ids `pirate_<n>`),
    as tough as the world's profile makes them."""
    found: dict[str, dict[str, Any]] = {}
    for system in galaxy.systems.values():
        belts = [p for p in system.poi_ids if galaxy.pois[p].type == "asteroid_belt"]
        if not belts:
            continue
        for n, kind_id in enumerate(_kinds_for(system.police_level)):
            pirate_id = f"pirate_{len(found) + 1}"
            found[pirate_id] = _new_pirate(
                pirate_id,
                KINDS[kind_id],
                system.id,
                belts[n % len(belts)],
                profile.pirate_toughness_pct,
            )
    return found


def pirates_at(world: WorldState, poi_id: str) -> list[dict[str, Any]]:
    """The pirates alive at a POI."""
    return [p for p in world.pirates.values() if p["poi_id"] == poi_id and not p["destroyed"]]


def pirate_view(pirate: dict[str, Any]) -> dict[str, Any]:
    """A pirate as `get_nearby`, `scan` and `attack` show it."""
    keys = ("id", "name", "kind", "hull", "max_hull", "shield", "max_shield", "armor", "damage")
    return {**{k: pirate[k] for k in keys}, "bounty": pirate["bounty"], "hostile": True}


def weapon_damage(ship: Ship) -> int:
    """The damage of all the ship's weapons in one round, before variance."""
    return sum(module_def(m).damage for m in ship.modules)


def roll(world: WorldState, damage: int) -> int:
    """`damage` with ±15 % variance from the world's RNG (at least 1)."""
    return max(1, damage * world.rng.randint(85, 115) // 100)


def apply_hit(target: dict[str, Any] | Ship, damage: int) -> dict[str, int]:
    """Damage shields first, then hull less armour; returns what each took."""
    get = target.__getitem__ if isinstance(target, dict) else lambda k: getattr(target, k)
    shield = get("shield")
    to_shield = min(shield, damage)
    rest = damage - to_shield
    to_hull = max(1, rest - get("armor")) if rest > 0 else 0
    hull = max(0, get("hull") - to_hull)
    if isinstance(target, dict):
        target["shield"] = shield - to_shield
        target["hull"] = hull
    else:
        target.shield = shield - to_shield
        target.hull = hull
    return {"shield_damage": to_shield, "hull_damage": to_hull, "total": to_shield + to_hull}


def pirate_fires(world: WorldState, pirate: dict[str, Any], player: Player) -> dict[str, Any]:
    """One shot of a pirate at a player; destroys the player's ship if its hull goes."""
    pirate["last_fired"] = world.tick
    stance = player.battle["stance"] if player.battle is not None else "fire"
    hit = apply_hit(player.ship, roll(world, pirate["damage"]) * TAKEN_PCT[stance] // 100)
    player.stats["damage_taken"] += hit["total"]
    shot: dict[str, Any] = {
        "attacker": pirate["name"],
        **hit,
        "your_hull": player.ship.hull,
        "your_shield": player.ship.shield,
    }
    if player.ship.hull <= 0:
        shot["destroyed"] = True
        destroy_player(world, player, pirate)
    else:
        world.notify(
            player,
            "combat",
            "combat_update",
            {"attacker": pirate["name"], "pirate_id": pirate["id"], **hit},
            message=f"{pirate['name']} hit you for {hit['total']} damage. Your hull "
            f"{player.ship.hull}, shield {player.ship.shield}.",
        )
    return shot


def leave_wreck(
    world: WorldState, poi_id: str, system_id: str, source: str, items: dict[str, int]
) -> dict[str, Any]:
    """Put a wreck with `items` at a POI; it lasts `WRECK_TICKS` ticks."""
    wreck = {
        "id": f"wreck_{world.next_id('wreck')}",
        "poi_id": poi_id,
        "system_id": system_id,
        "source": source,
        "items": {k: v for k, v in items.items() if v > 0},
        "tick": world.tick,
        "expires_tick": world.tick + WRECK_TICKS,
    }
    world.wrecks.append(wreck)
    return wreck


def _loot(world: WorldState, pirate: dict[str, Any]) -> dict[str, int]:
    items = {"fuel_cell": world.rng.randint(1, 2)}
    ore = ORE_IDS[world.rng.randrange(len(ORE_IDS))]
    items[ore] = items.get(ore, 0) + world.rng.randint(3, 8)
    if pirate["kind"] != "scout" and world.rng.randrange(100) < 30:
        items["pulse_laser_i"] = 1
    return items


def destroy_pirate(world: WorldState, pirate: dict[str, Any], player: Player) -> dict[str, Any]:
    """The pirate is destroyed by `player`: bounty, wreck, respawn later."""
    pirate["destroyed"] = True
    pirate["respawn_tick"] = world.tick + world.profile.pirate_respawn_ticks
    pirate["engaged_with"] = []
    wreck = leave_wreck(
        world, pirate["poi_id"], pirate["system_id"], pirate["name"], _loot(world, pirate)
    )
    bounty = pirate["bounty"]
    player.credits += bounty
    player.stats["credits_earned"] += bounty
    player.stats["bounties_earned"] += bounty
    player.stats["pirates_destroyed"] += 1
    missions.on_pirate_destroyed(player)
    world.notify(
        player,
        "combat",
        "pirate_destroyed",
        {
            "pirate_id": pirate["id"],
            "name": pirate["name"],
            "bounty": bounty,
            "wreck_id": wreck["id"],
        },
        message=f"{pirate['name']} destroyed: bounty {bounty} credits; its wreck is {wreck['id']}.",
    )
    return wreck


def destroy_player(world: WorldState, player: Player, pirate: dict[str, Any]) -> None:
    """The player's ship is lost: a wreck with its cargo, then a starter ship at home."""
    ship = player.ship
    leave_wreck(world, player.poi_id, player.system_id, ship.name, dict(ship.cargo))
    player.stats["ships_lost"] += 1
    if player.username in pirate["engaged_with"]:
        pirate["engaged_with"].remove(player.username)
    player.battle = None
    for policy in player.insurance:
        if policy["ship_id"] == ship.id and policy["status"] == "active":
            policy["status"] = "claimable" if world.tick <= policy["expires_tick"] else "expired"
    home = home_poi(world, player)
    player.ship = Ship.of_class(
        world.profile.starter(player.empire), world.new_hex(128), player.username
    )
    player.system_id = home.system_id
    player.poi_id = home.id
    player.docked = home.base is not None
    player.transit = None
    world.notify(
        player,
        "combat",
        "player_died",
        {
            "killer": pirate["name"],
            "respawn_poi": home.id,
        },
        message="Your ship was destroyed. You wake up at your home station in a new "
        "starter ship; your cargo is in the wreck.",
    )


def on_tick(world: WorldState) -> None:
    """Per tick: shields recharge, engaged pirates fire, pirates respawn, wrecks decay."""
    for player in world.players.values():
        ship = player.ship
        if ship.shield < ship.max_shield:
            braced = player.battle is not None and player.battle["stance"] == "brace"
            recharge = ship.shield_recharge * (2 if braced else 1)
            ship.shield = min(ship.max_shield, ship.shield + recharge)
    for pirate in world.pirates.values():
        if pirate["destroyed"]:
            if world.tick >= pirate["respawn_tick"]:
                pirate.update(
                    destroyed=False,
                    hull=pirate["max_hull"],
                    shield=pirate["max_shield"],
                    engaged_with=[],
                    life=pirate.get("life", 0) + 1,
                )
            continue
        pirate["shield"] = min(pirate["max_shield"], pirate["shield"] + SHIELD_RECHARGE_PIRATE)
        for username in list(pirate["engaged_with"]):
            target = world.players.get(username)
            if target is None or not _in_range(target, pirate):
                pirate["engaged_with"].remove(username)
                continue
            if pirate["last_fired"] < world.tick:
                pirate_fires(world, pirate, target)
            break
    world.wrecks[:] = [w for w in world.wrecks if w["expires_tick"] > world.tick]


def _in_range(player: Player, pirate: dict[str, Any]) -> bool:
    return player.transit is None and not player.docked and player.poi_id == pirate["poi_id"]

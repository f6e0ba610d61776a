"""Result shapes: how players, ships, systems and POIs look in tool results
(docs/ARCHITECTURE.md, 'The embedded world')."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import rules
from zoea_tui.sim.catalog import EMPIRES, ITEMS, module_def
from zoea_tui.sim.galaxy import Base, Galaxy, Poi, System
from zoea_tui.sim.players import LogEntry, Player, Ship, Transit

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import WorldState


def cargo_list(ship: Ship) -> list[dict[str, Any]]:
    """The hold as `[{item_id, name, quantity, size}]`."""
    return [
        {
            "item_id": item_id,
            "name": ITEMS[item_id].name,
            "quantity": qty,
            "size": ITEMS[item_id].size,
        }
        for item_id, qty in ship.cargo.items()
    ]


def ship_view(ship: Ship) -> dict[str, Any]:
    """A ship with its condition and cargo."""
    return {
        "id": ship.id,
        "class_id": ship.class_id,
        "name": ship.name,
        "hull": ship.hull,
        "max_hull": ship.max_hull,
        "shield": ship.shield,
        "max_shield": ship.max_shield,
        "armor": ship.armor,
        "speed": ship.speed,
        "fuel": ship.fuel,
        "max_fuel": ship.max_fuel,
        "cargo_used": ship.cargo_used,
        "cargo_capacity": ship.cargo_capacity,
        "modules": list(ship.modules),
        "cargo": cargo_list(ship),
        "shield_recharge": ship.shield_recharge,
        "weapon_slots": ship.weapon_slots,
        "defense_slots": ship.defense_slots,
        "utility_slots": ship.utility_slots,
    }


def modules_view(ship: Ship) -> list[dict[str, object]]:
    """The ship's modules as `[{id, name, type, slot, ...stats}]`."""
    return [module_def(m).to_dict() for m in ship.modules]


def transit_view(galaxy: Galaxy, transit: Transit, tick: int) -> dict[str, Any]:
    """A trip under way, with the tick of arrival and the ticks left."""
    return {
        "kind": transit.kind,
        "from_system": transit.from_system,
        "from_poi": transit.from_poi,
        "to_system": transit.to_system,
        "to_poi": transit.to_poi,
        "destination": galaxy.pois[transit.to_poi].name,
        "arrival_tick": transit.arrival_tick,
        "ticks_remaining": max(0, transit.arrival_tick - tick),
    }


def home_poi(world: WorldState, player: Player) -> Poi:
    """Where the player respawns: the base set with set_home_base, else the empire's
    home station."""
    if player.home_base:
        for poi in world.galaxy.pois.values():
            if poi.base is not None and poi.base.id == player.home_base:
                return poi
    return world.galaxy.arrival_poi(EMPIRES[player.empire].home_system)


def player_view(world: WorldState, player: Player) -> dict[str, Any]:
    """A player as the real `Player` object, trimmed to what this world models."""
    poi = world.galaxy.pois[player.poi_id]
    home = home_poi(world, player)
    return {
        "id": player.id,
        "username": player.username,
        "empire": player.empire,
        "credits": player.credits,
        "current_system": player.system_id,
        "current_poi": player.poi_id,
        "current_ship_id": player.ship.id,
        "home_base": home.base.id if home.base else None,
        "docked_at_base": poi.base.id if player.docked and poi.base else None,
        "in_transit": player.transit is not None,
        "skills": {k: rules.skill_level(v) for k, v in player.skill_xp.items()},
        "skill_xp": dict(player.skill_xp),
        "stats": dict(player.stats),
        "status_message": player.status_message,
        "clan_tag": player.clan_tag,
        "primary_color": player.primary_color,
        "secondary_color": player.secondary_color,
        "active_missions": len(player.missions),
        "faction_id": player.faction_id or None,
    }


def base_view(base: Base) -> dict[str, Any]:
    """A base: id, name and services."""
    return {"id": base.id, "name": base.name, "services": list(base.services)}


def _position(x: int, y: int) -> dict[str, float]:
    return {"x": x / 100, "y": y / 100}


def security_status(system: System) -> str:
    """Words for a police level."""
    level = system.police_level
    if level == 0:
        return "Lawless (police level 0): no police response"
    if level >= 4:
        return f"High security (police level {level})"
    return f"Low security (police level {level})"


def poi_summary(world: WorldState, poi: Poi) -> dict[str, Any]:
    """A POI as listed inside its system."""
    return {
        "id": poi.id,
        "name": poi.name,
        "type": poi.type,
        "position": _position(poi.x, poi.y),
        "has_base": poi.base is not None,
        "base_id": poi.base.id if poi.base else None,
        "base_name": poi.base.name if poi.base else None,
        "online": len(world.players_at(poi.id)),
    }


def system_view(world: WorldState, system: System) -> dict[str, Any]:
    """A system with its connections and POIs."""
    galaxy = world.galaxy
    return {
        "id": system.id,
        "name": system.name,
        "description": system.description,
        "empire": system.empire,
        "police_level": system.police_level,
        "security_status": security_status(system),
        "position": {"x": system.x, "y": system.y},
        "connections": [
            {
                "system_id": c,
                "name": galaxy.systems[c].name,
                "distance": galaxy.system_distance(system.id, c),
            }
            for c in system.connections
        ],
        "pois": [poi_summary(world, galaxy.pois[p]) for p in system.poi_ids],
    }


def resources_view(poi: Poi) -> list[dict[str, Any]]:
    """A POI's deposits with what is left of each."""
    return [
        {
            "resource_id": d.resource_id,
            "name": ITEMS[d.resource_id].name,
            "richness": d.richness,
            "remaining": d.remaining,
            "max_remaining": d.max_remaining,
            "depletion_percent": 100 - d.remaining * 100 // d.max_remaining,
        }
        for d in poi.deposits
    ]


def poi_view(world: WorldState, poi: Poi) -> dict[str, Any]:
    """The `get_poi` shape: the POI, its resources, and its base and services if any."""
    result: dict[str, Any] = {
        "poi": {
            "id": poi.id,
            "system_id": poi.system_id,
            "type": poi.type,
            "name": poi.name,
            "description": poi.description,
            "position": _position(poi.x, poi.y),
        },
        "resources": resources_view(poi),
    }
    if poi.base is not None:
        result["base"] = base_view(poi.base)
        result["services"] = list(poi.base.services)
        result["fuel_price"] = poi.base.fuel_price
    return result


def log_entry_view(index: int, entry: LogEntry) -> dict[str, Any]:
    """A captain's log entry with its index (0 = newest)."""
    return {"index": index, "entry": entry.entry, "tick": entry.tick}

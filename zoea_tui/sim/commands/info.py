"""Free queries: status, ship, cargo, location, map, routes, help."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params, pirates
from zoea_tui.sim.catalog import GAME_VERSION, RELEASE_NOTES
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.galaxy import System
from zoea_tui.sim.tools import TOOL_SPECS, TOOLS_BY_NAME
from zoea_tui.sim.views import (
    cargo_list,
    modules_view,
    player_view,
    poi_view,
    security_status,
    ship_view,
    system_view,
    transit_view,
)

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState


def unknown_system(query: str) -> GameError:
    """A system id or name the galaxy does not hold."""
    return GameError("invalid_system", f"Unknown system: {query}. Use get_map to list systems.")


def get_status(world: WorldState, call: Call) -> dict[str, Any]:
    """Player, ship and modules, the tick of the next possible action, and any trip."""
    me = call.me
    result: dict[str, Any] = {
        "player": player_view(world, me),
        "ship": ship_view(me.ship),
        "modules": modules_view(me.ship),
        "next_action_tick": max(me.busy_until, world.tick),
    }
    if me.transit is not None:
        result["transit"] = transit_view(world.galaxy, me.transit, world.tick)
    return result


def get_ship(world: WorldState, call: Call) -> dict[str, Any]:
    """The ship in full, with modules and cargo."""
    ship = call.me.ship
    return {"ship": ship_view(ship), "modules": modules_view(ship), "cargo": cargo_list(ship)}


def get_cargo(world: WorldState, call: Call) -> dict[str, Any]:
    """The hold: items, space used, capacity and space available."""
    ship = call.me.ship
    return {
        "cargo": cargo_list(ship),
        "used": ship.cargo_used,
        "capacity": ship.cargo_capacity,
        "available": ship.cargo_free,
    }


def get_system(world: WorldState, call: Call) -> dict[str, Any]:
    """A system (the caller's unless `system_id` is given) with its POIs and links."""
    me = call.me
    query = params.text(call.args, "system_id").strip()
    system = world.galaxy.find_system(query) if query else world.galaxy.systems[me.system_id]
    if system is None:
        raise unknown_system(query)
    return {
        "action": "get_system",
        "system": system_view(world, system),
        "security_status": security_status(system),
        "poi": me.poi_id if system.id == me.system_id else None,
    }


def get_poi(world: WorldState, call: Call) -> dict[str, Any]:
    """A POI (the caller's unless `poi_id` is given): resources, base and services."""
    query = params.text(call.args, "poi_id").strip()
    poi = world.galaxy.find_poi(query) if query else world.galaxy.pois[call.me.poi_id]
    if poi is None:
        raise GameError(
            "invalid_poi", f"Unknown POI: {query}. Use get_system to list a system's POIs."
        )
    view = poi_view(world, poi)
    view["pirates"] = [pirates.pirate_view(p) for p in pirates.pirates_at(world, poi.id)]
    return view


def get_nearby(world: WorldState, call: Call) -> dict[str, Any]:
    """Other pilots at the caller's POI."""
    me = call.me
    poi = world.galaxy.pois[me.poi_id]
    others = [
        {
            "username": p.username,
            "empire": p.empire,
            "ship_class": p.ship.class_id,
            "docked": p.docked,
            "online": world.is_online(p),
        }
        for p in world.players_at(poi.id, exclude=me)
    ]
    hostile = [pirates.pirate_view(p) for p in pirates.pirates_at(world, poi.id)]
    return {
        "poi_id": poi.id,
        "poi_name": poi.name,
        "count": len(others),
        "players": others,
        "pirates": hostile,
        "wrecks": len([w for w in world.wrecks if w["poi_id"] == poi.id]),
    }


def _map_entry(world: WorldState, system: System, visited: list[str]) -> dict[str, Any]:
    return {
        "id": system.id,
        "name": system.name,
        "empire": system.empire,
        "police_level": system.police_level,
        "position": {"x": system.x, "y": system.y},
        "connections": list(system.connections),
        "has_station": any(world.galaxy.pois[p].base for p in system.poi_ids),
        "visited": system.id in visited,
    }


def get_map(world: WorldState, call: Call) -> dict[str, Any]:
    """Every system with position and jump links (or one, with `system_id`)."""
    me = call.me
    query = params.text(call.args, "system_id").strip()
    if query:
        system = world.galaxy.find_system(query)
        if system is None:
            raise unknown_system(query)
        systems = [system]
    else:
        systems = list(world.galaxy.systems.values())
    return {
        "current_system": me.system_id,
        "systems": [_map_entry(world, s, me.visited) for s in systems],
    }


def search_systems(world: WorldState, call: Call) -> dict[str, Any]:
    """Systems whose id or name contains the query."""
    query = params.text(call.args, "query").strip().lower()
    if not query:
        raise errors.invalid_query()
    found = [
        {"id": s.id, "name": s.name, "empire": s.empire, "police_level": s.police_level}
        for s in world.galaxy.systems.values()
        if query in s.id or query in s.name.lower()
    ]
    return {"query": query, "count": len(found), "systems": found}


def find_route(world: WorldState, call: Call) -> dict[str, Any]:
    """The shortest jump route to `target_system` and the fuel it needs."""
    me = call.me
    query = params.text(call.args, "target_system").strip()
    target = world.galaxy.find_system(query)
    if target is None:
        raise unknown_system(query)
    path = world.galaxy.route(me.system_id, target.id)
    result: dict[str, Any] = {
        "found": path is not None,
        "target_system": target.id,
        "fuel_per_jump": world.profile.jump_fuel,
        "fuel_available": me.ship.fuel,
        "cargo_used": me.ship.cargo_used,
    }
    if path is None:
        return {
            **result,
            "route": [],
            "total_jumps": 0,
            "estimated_fuel": 0,
            "message": f"No route to {target.name}.",
        }
    jumps = len(path) - 1
    route = [
        {"system_id": s, "name": world.galaxy.systems[s].name, "jumps": i}
        for i, s in enumerate(path)
    ]
    fuel = jumps * world.profile.jump_fuel
    warning = "" if fuel <= me.ship.fuel else " You do not have enough fuel: refuel first."
    return {
        **result,
        "route": route,
        "total_jumps": jumps,
        "estimated_fuel": fuel,
        "message": f"{jumps} jump(s) to {target.name}, about {fuel} fuel.{warning}",
    }


def _first_sentence(text: str) -> str:
    head, _, _ = text.partition(". ")
    return head.rstrip(".") + "."


def help_command(world: WorldState, call: Call) -> dict[str, Any]:
    """The command list by category, or one command's description and arguments."""
    name = params.text(call.args, "command").strip()
    if name:
        spec = TOOLS_BY_NAME.get(name)
        if spec is None:
            raise errors.unknown_command(name)
        return {
            "command": spec.name,
            "category": spec.category,
            "description": spec.description,
            "arguments": [
                {
                    "name": arg,
                    "type": schema.get("type"),
                    "required": arg in spec.required,
                    "description": schema.get("description", ""),
                }
                for arg, schema in spec.properties.items()
            ],
            "costs_tick": spec.mutation,
            "requires_login": spec.auth,
        }
    category = params.text(call.args, "category").strip().lower()
    commands: dict[str, list[str]] = {}
    for spec in TOOL_SPECS:
        if category and spec.category != category:
            continue
        tag = " [1 tick]" if spec.mutation else ""
        commands.setdefault(spec.category, []).append(
            f"{spec.name}: {_first_sentence(spec.description)}{tag}"
        )
    return {
        "commands": commands,
        "message": "Call help with command=<name> for a command's arguments. "
        "Commands marked [1 tick] are actions: one per tick.",
    }


def get_commands(world: WorldState, call: Call) -> dict[str, Any]:
    """Every command name with its category and whether it costs a tick."""
    return {
        "commands": [
            {"name": s.name, "category": s.category, "mutation": s.mutation} for s in TOOL_SPECS
        ]
    }


def get_version(world: WorldState, call: Call) -> dict[str, Any]:
    """The game version and release notes."""
    return {"version": GAME_VERSION, "notes": list(RELEASE_NOTES)}


HANDLERS = {
    "get_status": get_status,
    "get_ship": get_ship,
    "get_cargo": get_cargo,
    "get_system": get_system,
    "get_poi": get_poi,
    "get_nearby": get_nearby,
    "get_map": get_map,
    "search_systems": search_systems,
    "find_route": find_route,
    "help": help_command,
    "get_commands": get_commands,
    "get_version": get_version,
}

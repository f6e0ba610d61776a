"""The catalogue and station services: catalog, get_skills, get_guide, get_base, facility,
browse_ships, shipyard_showroom, list_ships, buy_ship, switch_ship."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, missions, orderbook, params, rules
from zoea_tui.sim.catalog import ITEMS, MODULES, RECIPES, SHIP_CLASSES, SKILLS
from zoea_tui.sim.commands.navigation import needs_auto_dock, with_auto_dock
from zoea_tui.sim.commands.shipyard import ship_class_for_sale
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.galaxy import Base, Poi
from zoea_tui.sim.guides import ALIASES, GUIDES
from zoea_tui.sim.players import Ship
from zoea_tui.sim.views import ship_view

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState

CATALOG_TYPES = ("ships", "skills", "recipes", "items")


def _item_entry(item_id: str) -> dict[str, Any]:
    item = ITEMS[item_id]
    entry: dict[str, Any] = {
        "id": item.id,
        "name": item.name,
        "category": item.category,
        "base_value": item.base_price,
        "size": item.size,
    }
    if item.id in MODULES:
        entry["module"] = MODULES[item.id].to_dict()
    return entry


def catalog(world: WorldState, call: Call) -> dict[str, Any]:
    """Reference data by `type`: ships, skills, recipes or items (filter with category/id)."""
    kind = params.text(call.args, "type").strip().lower()
    if kind not in CATALOG_TYPES:
        raise GameError(
            "invalid_type",
            f'Unknown catalog type "{kind}". Must be one of: ships, skills, recipes, items.',
        )
    wanted = params.text(call.args, "id").strip().lower()
    category = params.text(call.args, "category").strip().lower()
    entries: list[dict[str, Any]]
    if kind == "ships":
        entries = [c.to_dict() for c in SHIP_CLASSES.values()]
        key = "class_id"
    elif kind == "skills":
        entries = [asdict(s) for s in SKILLS.values()]
        key = "id"
    elif kind == "recipes":
        entries, key = [r.to_dict() for r in RECIPES.values()], "id"
    else:
        entries = [_item_entry(i) for i in ITEMS]
        key = "id"
        if category:
            entries = [
                e for e in entries if category in (e["category"], e.get("module", {}).get("type"))
            ]
    if wanted:
        entries = [e for e in entries if e[key] == wanted]
    return {"type": kind, "count": len(entries), "entries": entries}


def get_skills(world: WorldState, call: Call) -> dict[str, Any]:
    """The caller's skills: level, XP and the XP the next level needs."""
    me = call.me
    rows = []
    for skill in SKILLS.values():
        xp = me.skill_xp.get(skill.id, 0)
        level = rules.skill_level(xp)
        rows.append(
            {
                "id": skill.id,
                "name": skill.name,
                "level": level,
                "xp": xp,
                "next_level_xp": 25 * (level + 1) * (level + 2),
                "description": skill.description,
            }
        )
    return {"skills": rows}


def get_guide(world: WorldState, call: Call) -> dict[str, Any]:
    """A guide by `guide` or `topic`; without one, the list of guides."""
    raw = (params.text(call.args, "guide") or params.text(call.args, "topic")).strip().lower()
    if not raw:
        return {
            "guides": [{"id": g, "title": v["title"]} for g, v in GUIDES.items()],
            "message": "Call get_guide with guide=<id>.",
        }
    guide_id = ALIASES.get(raw, raw)
    if guide_id not in GUIDES:
        raise GameError("invalid_guide", f"No guide '{raw}'. Guides: {', '.join(GUIDES)}.")
    return {"guide": guide_id, **GUIDES[guide_id]}


def _station_poi(world: WorldState, call: Call) -> Poi:
    raw = (
        params.text(call.args, "base_id")
        or params.text(call.args, "poi")
        or params.text(call.args, "station_id")
    ).strip()
    if raw:
        for poi in world.galaxy.pois.values():
            if poi.base is not None and raw in (poi.base.id, poi.id):
                return poi
        raise GameError(
            "invalid_base",
            f"Unknown base: {raw}. get_system lists each system's stations and their base_id.",
        )
    poi = world.galaxy.pois[call.me.poi_id]
    if poi.base is None:
        raise errors.not_docked_here()
    return poi


_FACILITIES: dict[str, tuple[str, str]] = {
    "market": (
        "Market",
        "view_market, buy, sell, create_sell_order, create_buy_order, analyze_market",
    ),
    "refuel": ("Fuel Depot", "refuel"),
    "repair": ("Repair Bay", "repair"),
    "storage": ("Storage", "view_storage, deposit_items, withdraw_items"),
    "missions": ("Mission Board", "get_missions, accept_mission, complete_mission"),
    "shipyard": ("Shipyard", "shipyard_showroom, browse_ships, buy_ship, install_mod"),
}


def _facilities(base: Base) -> list[dict[str, str]]:
    return [
        {
            "id": f"{base.id}_{s}",
            "type": s,
            "name": _FACILITIES[s][0],
            "commands": _FACILITIES[s][1],
        }
        for s in base.services
        if s in _FACILITIES
    ]


def get_base(world: WorldState, call: Call) -> dict[str, Any]:
    """A station's base: services, facilities, fuel price, board size, shipyard."""
    poi = _station_poi(world, call)
    base = poi.base
    assert base is not None
    system = world.galaxy.systems[poi.system_id]
    return {
        "base": {
            "id": base.id,
            "name": base.name,
            "poi_id": poi.id,
            "system_id": system.id,
            "empire": system.empire,
            "services": list(base.services),
            "facilities": _facilities(base),
            "fuel_price": base.fuel_price,
            "has_shipyard": "shipyard" in base.services,
            "missions_offered": len(missions.board(world.galaxy, poi, world.profile)),
            "open_orders": len([o for o in world.orders if o["base_id"] == base.id]),
        }
    }


def facility(world: WorldState, call: Call) -> dict[str, Any]:
    """A station's facilities (one, when `name` matches), with the commands each serves."""
    poi = _station_poi(world, call)
    assert poi.base is not None
    found = _facilities(poi.base)
    name = params.text(call.args, "name").strip().lower()
    if name:
        found = [f for f in found if name in f["name"].lower() or name == f["type"]] or found
    return {"base_id": poi.base.id, "base": poi.base.name, "facilities": found}


def _shipyard(world: WorldState, call: Call) -> dict[str, Any]:
    poi = _station_poi(world, call)
    assert poi.base is not None
    if "shipyard" not in poi.base.services:
        yards = [
            p.base.name
            for p in world.galaxy.pois.values()
            if p.base is not None and "shipyard" in p.base.services
        ]
        return {
            "base_id": poi.base.id,
            "base": poi.base.name,
            "ships": [],
            "message": f"No shipyard at {poi.base.name}. Shipyards: {', '.join(yards)}.",
        }
    ships = [c.to_dict() for c in SHIP_CLASSES.values() if c.price > 0]
    return {
        "base_id": poi.base.id,
        "base": poi.base.name,
        "ships": ships,
        "credits": call.me.credits,
        "message": "Buy one with buy_ship(ship_class).",
    }


def list_ships(world: WorldState, call: Call) -> dict[str, Any]:
    """The caller's ships: the active one and those stored at stations."""
    me = call.me
    ships = [
        {
            "ship_id": me.ship.id,
            "class_id": me.ship.class_id,
            "name": me.ship.name,
            "active": True,
            "location": me.poi_id,
        }
    ]
    ships += [
        {
            "ship_id": h["ship"]["id"],
            "class_id": h["ship"]["class_id"],
            "name": h["ship"]["name"],
            "active": False,
            "location": h["base_id"],
        }
        for h in me.hangar
    ]
    return {"ships": ships, "count": len(ships)}


def buy_ship(world: WorldState, call: Call) -> dict[str, Any]:
    """Buy a ship class at a shipyard; it becomes active, the old one stays here."""
    me = call.me
    ship_class = ship_class_for_sale(call)
    auto = needs_auto_dock(world, me)
    base = orderbook.base_by_id(world, me.poi_id)
    assert base is not None
    if "shipyard" not in base.services:
        raise GameError("no_shipyard", f"There is no shipyard at {base.name}.")
    if me.credits < ship_class.price:
        raise errors.insufficient_credits(ship_class.price, me.credits, f"buy a {ship_class.name}")
    me.credits -= ship_class.price
    me.stats["credits_spent"] += ship_class.price
    me.hangar.append({"ship": asdict(me.ship), "base_id": base.id})
    me.ship = Ship.of_class(ship_class, world.new_hex(128), me.username)
    result: dict[str, Any] = {
        "action": "ship_bought",
        "ship": ship_view(me.ship),
        "credits": me.credits,
        "message": f"Your new {ship_class.name} is active; your old "
        f"ship is stored at {base.name} (list_ships, switch_ship).",
    }
    return with_auto_dock(world, me, auto, result)


def switch_ship(world: WorldState, call: Call) -> dict[str, Any]:
    """Make a ship stored at this station active, storing the current one."""
    me = call.me
    ship_id = params.text(call.args, "ship_id").strip()
    auto = needs_auto_dock(world, me)
    base = orderbook.base_by_id(world, me.poi_id)
    assert base is not None
    stored = next((h for h in me.hangar if h["ship"]["id"] == ship_id), None)
    if stored is None:
        raise GameError("ship_not_found", f"No stored ship '{ship_id}'. Use list_ships.")
    if stored["base_id"] != base.id:
        raise GameError("wrong_base", f"That ship is stored at {stored['base_id']}, not here.")
    me.hangar.remove(stored)
    me.hangar.append({"ship": asdict(me.ship), "base_id": base.id})
    me.ship = Ship(**stored["ship"])
    result: dict[str, Any] = {"action": "ship_switched", "ship": ship_view(me.ship)}
    return with_auto_dock(world, me, auto, result)


HANDLERS = {
    "catalog": catalog,
    "get_skills": get_skills,
    "get_guide": get_guide,
    "get_base": get_base,
    "facility": facility,
    "browse_ships": _shipyard,
    "shipyard_showroom": _shipyard,
    "list_ships": list_ships,
    "buy_ship": buy_ship,
    "switch_ship": switch_ship,
}

"""Ship upkeep and mining: mine, refuel, repair, jettison, survey_system."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, missions, params, rules
from zoea_tui.sim.catalog import ITEMS, find_item, module_def
from zoea_tui.sim.commands.navigation import needs_auto_dock, with_auto_dock
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.galaxy import Deposit

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState


def _pick_deposit(world: WorldState, deposits: list[Deposit]) -> Deposit:
    roll = world.rng.randrange(sum(d.richness for d in deposits))
    for deposit in deposits:
        roll -= deposit.richness
        if roll < 0:
            return deposit
    return deposits[-1]


def mine(world: WorldState, call: Call) -> dict[str, Any]:
    """Mine the belt here: one resource, picked weighted by richness, into cargo."""
    me = call.me
    poi = world.galaxy.pois[me.poi_id]
    if not poi.deposits:
        raise errors.no_resources()
    if not any(module_def(m).mining_power for m in me.ship.modules):
        raise GameError(
            "no_mining_laser",
            "You have no mining laser installed. Buy mining_laser_1 at a station and "
            "install_mod it while docked.",
        )
    if me.ship.cargo_free <= 0:
        raise errors.cargo_full()
    available = [d for d in poi.deposits if d.remaining > 0]
    if not available:
        raise GameError(
            "no_resources",
            f"Nothing to mine here: the deposits of {poi.name} are depleted. They regenerate "
            "slowly; try another belt (get_system lists them).",
        )
    deposit = _pick_deposit(world, available)
    level = rules.skill_level(me.skill_xp["mining_basic"])
    quantity = min(
        rules.mining_quantity(deposit.richness, level), me.ship.cargo_free, deposit.remaining
    )
    deposit.remaining -= quantity
    me.ship.add_cargo(deposit.resource_id, quantity)
    me.skill_xp["mining_basic"] += quantity
    me.stats["ore_mined"] += quantity
    missions.on_mined(me, deposit.resource_id, quantity)
    item = ITEMS[deposit.resource_id]
    result: dict[str, Any] = {
        "kind": "yield",
        "resource_id": item.id,
        "resource_name": item.name,
        "quantity": quantity,
        "remaining": deposit.remaining,
        "max_remaining": deposit.max_remaining,
        "depletion_percent": 100 - deposit.remaining * 100 // deposit.max_remaining,
        "cargo_used": me.ship.cargo_used,
        "cargo_capacity": me.ship.cargo_capacity,
        "xp_gained": {"mining_basic": quantity},
    }
    if world.rng.randrange(100) < rules.MINING_WEAR_CHANCE_PCT:
        damage = world.rng.randint(1, rules.MINING_WEAR_MAX)
        me.ship.hull = max(1, me.ship.hull - damage)
        result["hull_damage"] = damage
        result["hull"] = me.ship.hull
    world.notify(
        me,
        "system",
        "mining_yield",
        {
            "resource_id": item.id,
            "quantity": quantity,
            "remaining": deposit.remaining,
        },
        message=f"Mined {quantity} {item.name} ({deposit.remaining} left here).",
    )
    new_level = rules.skill_level(me.skill_xp["mining_basic"])
    if new_level > level:
        result["level_up"] = {"skill": "mining_basic", "level": new_level}
        world.notify(
            me,
            "system",
            "skill_level_up",
            {"skill": "mining_basic", "level": new_level},
            message=f"Skill up: Basic Mining is now level {new_level}.",
        )
    return result


def _refuel_from_cells(world: WorldState, call: Call) -> dict[str, Any]:
    me = call.me
    raw_item = params.text(call.args, "item_id")
    if raw_item:
        item = find_item(raw_item)
        if item is None:
            raise errors.invalid_item(raw_item)
        if item.id != "fuel_cell":
            raise errors.invalid_payload(f"Only fuel_cell can be burned for fuel, not {item.id}.")
    cells = me.ship.cargo.get("fuel_cell", 0)
    if cells == 0:
        raise errors.no_fuel_cells()
    missing = me.ship.max_fuel - me.ship.fuel
    wanted = rules.ceil_div(missing, rules.FUEL_CELL_FUEL)
    asked = params.integer(call.args, "quantity")
    if asked is not None:
        if asked <= 0:
            raise errors.invalid_quantity()
        wanted = min(wanted, asked)
    used = min(wanted, cells)
    added = min(missing, used * rules.FUEL_CELL_FUEL)
    me.ship.remove_cargo("fuel_cell", used)
    me.ship.fuel += added
    return {
        "action": "refueled",
        "source": "fuel_cell",
        "fuel": added,
        "fuel_now": me.ship.fuel,
        "fuel_max": me.ship.max_fuel,
        "cells_used": used,
        "cost": 0,
    }


def refuel(world: WorldState, call: Call) -> dict[str, Any]:
    """Fill the tank at a station for credits, or burn fuel cells from cargo."""
    me = call.me
    poi = world.galaxy.pois[me.poi_id]
    wants_cells = "item_id" in call.args or "quantity" in call.args
    if wants_cells or (not me.docked and poi.base is None):
        return _refuel_from_cells(world, call)
    auto = needs_auto_dock(world, me)
    assert poi.base is not None
    price = poi.base.fuel_price
    missing = me.ship.max_fuel - me.ship.fuel
    units = min(missing, me.credits // price)
    if missing > 0 and units == 0:
        raise errors.insufficient_credits(missing * price, me.credits, "refuel")
    cost = units * price
    me.credits -= cost
    me.stats["credits_spent"] += cost
    me.ship.fuel += units
    result: dict[str, Any] = {
        "action": "refueled",
        "source": "station",
        "fuel": units,
        "fuel_now": me.ship.fuel,
        "fuel_max": me.ship.max_fuel,
        "cost": cost,
        "price_per_unit": price,
        "credits": me.credits,
    }
    if missing == 0:
        result["message"] = "Tank already full."
    elif units < missing:
        result["message"] = f"Partial refuel: you could afford {units} of {missing} units."
    return with_auto_dock(world, me, auto, result)


def repair(world: WorldState, call: Call) -> dict[str, Any]:
    """Repair the hull at a station for credits."""
    me = call.me
    auto = needs_auto_dock(world, me)
    missing = me.ship.max_hull - me.ship.hull
    units = min(missing, me.credits // rules.REPAIR_PRICE_PER_HULL)
    if missing > 0 and units == 0:
        raise errors.insufficient_credits(
            missing * rules.REPAIR_PRICE_PER_HULL, me.credits, "repair"
        )
    cost = units * rules.REPAIR_PRICE_PER_HULL
    me.credits -= cost
    me.stats["credits_spent"] += cost
    me.ship.hull += units
    result: dict[str, Any] = {
        "action": "repaired",
        "repaired": units,
        "cost": cost,
        "hull": me.ship.hull,
        "max_hull": me.ship.max_hull,
        "credits": me.credits,
    }
    if missing == 0:
        result["message"] = "Hull already at full strength."
    return with_auto_dock(world, me, auto, result)


def jettison(world: WorldState, call: Call) -> dict[str, Any]:
    """Dump cargo into space (it is gone)."""
    me = call.me
    raw = params.text(call.args, "item_id")
    item = find_item(raw) if raw else None
    if item is None:
        raise errors.invalid_item(raw)
    quantity = params.integer(call.args, "quantity")
    if quantity is None or quantity <= 0:
        raise errors.invalid_quantity()
    have = me.ship.cargo.get(item.id, 0)
    if have < quantity:
        raise GameError(
            "insufficient_items",
            f"You have {have} {item.name} in cargo and cannot jettison {quantity}.",
        )
    me.ship.remove_cargo(item.id, quantity)
    return {
        "action": "jettisoned",
        "item_id": item.id,
        "quantity": quantity,
        "cargo_used": me.ship.cargo_used,
        "cargo_capacity": me.ship.cargo_capacity,
    }


def survey_system(world: WorldState, call: Call) -> dict[str, Any]:
    """With a survey scanner: every deposit of your system, with richness and amounts."""
    me = call.me
    if not any(module_def(m).survey for m in me.ship.modules):
        raise GameError(
            "no_scanner",
            "no_scanner: No survey scanner equipped. You need a module with survey capability "
            "(e.g. survey_scanner_i, survey_scanner_ii, or deep_core_survey_scanner) to scan "
            "for hidden deposits.",
        )
    system = world.galaxy.systems[me.system_id]
    belts = []
    for poi_id in system.poi_ids:
        poi = world.galaxy.pois[poi_id]
        if poi.deposits:
            belts.append(
                {
                    "poi_id": poi.id,
                    "name": poi.name,
                    "deposits": [
                        {
                            "resource_id": d.resource_id,
                            "richness": d.richness,
                            "remaining": d.remaining,
                            "max_remaining": d.max_remaining,
                        }
                        for d in poi.deposits
                    ],
                }
            )
    return {"action": "survey", "system_id": system.id, "belts": belts}


HANDLERS = {
    "mine": mine,
    "refuel": refuel,
    "repair": repair,
    "jettison": jettison,
    "survey_system": survey_system,
}

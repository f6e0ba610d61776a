"""Ship commissions: commission_quote, commission_ship, commission_status,
claim_commission.

A commission is a ship built to order at a shipyard: paid when ordered, at the class's
price, and ready ``BUILD_TICKS_BASE`` ticks plus one per 100 credits of price later;
claimed where it was built, it joins the hangar (``list_ships``, ``switch_ship``), as an
older ship does after ``buy_ship``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params
from zoea_tui.sim.catalog import SHIP_CLASSES, ShipClass
from zoea_tui.sim.commands.personal import docked_base
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.players import Ship

if TYPE_CHECKING:
    from zoea_tui.sim.galaxy import Base
    from zoea_tui.sim.players import Player
    from zoea_tui.sim.world_state import Call, WorldState

BUILD_TICKS_BASE = 10


def ship_class_for_sale(call: Call) -> ShipClass:
    """The ship class the call's ``ship_class`` names, one a shipyard sells (else the
    game's ``invalid_ship_class``)."""
    class_id = params.text(call.args, "ship_class").strip().lower()
    ship_class = SHIP_CLASSES.get(class_id)
    if ship_class is None or ship_class.price == 0:
        raise GameError(
            "invalid_ship_class",
            f"Unknown ship class '{class_id}'. Use shipyard_showroom to see the classes for sale.",
        )
    return ship_class


def _shipyard(world: WorldState, me: Player) -> Base:
    base = docked_base(world, me)
    if "shipyard" not in base.services:
        raise GameError("no_shipyard", f"There is no shipyard at {base.name}.")
    return base


def _build_ticks(ship_class: ShipClass) -> int:
    return BUILD_TICKS_BASE + ship_class.price // 100


def commission_quote(world: WorldState, call: Call) -> dict[str, Any]:
    """What a commission of this class costs and how long it takes."""
    ship_class = ship_class_for_sale(call)
    return {
        "ship_class": ship_class.id,
        "name": ship_class.name,
        "cost": ship_class.price,
        "build_ticks": _build_ticks(ship_class),
        "credits": call.me.credits,
        "can_afford": call.me.credits >= ship_class.price,
    }


def commission_ship(world: WorldState, call: Call) -> dict[str, Any]:
    """Docked at a shipyard: pay for a ship to be built here."""
    me = call.me
    ship_class = ship_class_for_sale(call)
    base = _shipyard(world, me)
    if me.credits < ship_class.price:
        raise errors.insufficient_credits(
            ship_class.price, me.credits, f"commission a {ship_class.name}"
        )
    me.credits -= ship_class.price
    me.stats["credits_spent"] += ship_class.price
    commission = {
        "commission_id": f"commission_{world.next_id('commission')}",
        "ship_class": ship_class.id,
        "base_id": base.id,
        "cost": ship_class.price,
        "ordered_tick": world.tick,
        "ready_tick": world.tick + _build_ticks(ship_class),
        "claimed": False,
    }
    me.commissions.append(commission)
    return {
        "action": "commissioned",
        **commission,
        "credits": me.credits,
        "message": f"{base.name} is building your {ship_class.name}, ready at tick "
        f"{commission['ready_tick']}: claim_commission here then.",
    }


def _view(world: WorldState, commission: dict[str, Any]) -> dict[str, Any]:
    status = (
        "claimed"
        if commission["claimed"]
        else "ready"
        if world.tick >= commission["ready_tick"]
        else "building"
    )
    return {**commission, "status": status}


def commission_status(world: WorldState, call: Call) -> dict[str, Any]:
    """The caller's commissions (optionally at one base) and their status."""
    wanted = params.text(call.args, "base_id").strip()
    rows = [
        _view(world, c) for c in call.me.commissions if c["base_id"] in (wanted or c["base_id"],)
    ]
    return {"commissions": rows, "count": len(rows)}


def claim_commission(world: WorldState, call: Call) -> dict[str, Any]:
    """Docked where it was built: a finished ship goes into the hangar."""
    me = call.me
    raw = params.text(call.args, "commission_id").strip()
    commission = next((c for c in me.commissions if c["commission_id"] == raw), None)
    if commission is None or commission["claimed"]:
        raise GameError(
            "commission_not_found", f"No open commission '{raw}'. commission_status lists them."
        )
    base = docked_base(world, me)
    if commission["base_id"] != base.id:
        raise GameError(
            "wrong_base", f"That ship is being built at {commission['base_id']}, not here."
        )
    if world.tick < commission["ready_tick"]:
        raise GameError(
            "commission_not_ready",
            f"Your ship is not finished: ready at tick {commission['ready_tick']} "
            f"({commission['ready_tick'] - world.tick} tick(s) from now).",
        )
    ship = Ship.of_class(SHIP_CLASSES[commission["ship_class"]], world.new_hex(128), me.username)
    me.hangar.append({"ship": asdict(ship), "base_id": base.id})
    commission["claimed"] = True
    return {
        "action": "commission_claimed",
        "commission_id": raw,
        "ship_id": ship.id,
        "message": f"Your {ship.name} is in the hangar here: switch_ship(ship_id='{ship.id}').",
    }


HANDLERS = {
    "commission_quote": commission_quote,
    "commission_ship": commission_ship,
    "commission_status": commission_status,
    "claim_commission": claim_commission,
}

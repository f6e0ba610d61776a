"""Towing wrecks and insuring ships: tow_wreck, release_tow, sell_wreck, scrap_wreck,
get_insurance_quote, buy_insurance, claim_insurance.

A towed wreck leaves its POI and goes where the pilot goes (``Player.towing``); it is
let go at the pilot's POI, or sold or scrapped at a station with a repair yard (the
``repair`` service stands for the real salvage yard). This world has no tow rig module,
so any ship can tow. Insurance covers the current ship for a number of ticks; if that
ship is destroyed meanwhile the policy becomes claimable, and ``claim_insurance``,
docked at the home base, pays it out.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params, pirates
from zoea_tui.sim.catalog import ITEMS, SHIP_CLASSES
from zoea_tui.sim.commands.personal import docked_base
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.views import home_poi

if TYPE_CHECKING:
    from zoea_tui.sim.galaxy import Base
    from zoea_tui.sim.players import Player
    from zoea_tui.sim.world_state import Call, WorldState

#: What a salvage yard pays for a wreck's hull, and for its contents (percent of value).
WRECK_HULL_VALUE = 25
WRECK_CONTENTS_PCT = 50
SCRAP_PLATES = 3
#: A starter ship is insured as if it were worth this much.
STARTER_VALUE = 500
#: Premium per 100 ticks, percent of the cover, plus this much per ship lost before.
PREMIUM_PCT = 5
RISK_PCT_PER_LOSS = 2
POLICY_TICKS = (100, 10_000)


def _not_towing() -> GameError:
    return GameError(
        "not_towing", "You are not towing a wreck. tow_wreck(wreck_id=...) attaches one."
    )


def tow_wreck(world: WorldState, call: Call) -> dict[str, Any]:
    """Take a wreck here in tow."""
    me = call.me
    if me.docked:
        raise GameError("docked", "You cannot tow while docked. Undock first.")
    if me.towing is not None:
        raise GameError(
            "already_towing",
            f"You are already towing {me.towing['id']}. release_tow lets it go first.",
        )
    raw = params.text(call.args, "wreck_id").strip()
    wreck = next((w for w in world.wrecks if w["id"] == raw and w["poi_id"] == me.poi_id), None)
    if wreck is None:
        raise GameError("wreck_not_found", f"No wreck '{raw}' at your POI. get_wrecks lists them.")
    world.wrecks.remove(wreck)
    me.towing = wreck
    return {
        "action": "towing",
        "wreck_id": wreck["id"],
        "source": wreck["source"],
        "message": f"Tow line attached to {wreck['source']}'s wreck. Sell or scrap it docked "
        "at a station with a repair yard, or release_tow.",
    }


def release_tow(world: WorldState, call: Call) -> dict[str, Any]:
    """Let the towed wreck go at this POI."""
    me = call.me
    wreck = me.towing
    if wreck is None:
        raise _not_towing()
    me.towing = None
    left = pirates.leave_wreck(world, me.poi_id, me.system_id, wreck["source"], wreck["items"])
    return {"action": "tow_released", "wreck_id": left["id"], "poi_id": me.poi_id}


def _yard(world: WorldState, me: Player) -> tuple[Base, dict[str, Any]]:
    wreck = me.towing
    if wreck is None:
        raise _not_towing()
    base = docked_base(world, me)
    if "repair" not in base.services:
        raise GameError("no_salvage_yard", f"There is no salvage yard at {base.name}.")
    return base, wreck


def sell_wreck(world: WorldState, call: Call) -> dict[str, Any]:
    """Sell the towed wreck to the yard: its hull and half its contents' value."""
    me = call.me
    base, wreck = _yard(world, me)
    contents = sum(ITEMS[i].base_price * q for i, q in wreck["items"].items())
    paid = WRECK_HULL_VALUE + contents * WRECK_CONTENTS_PCT // 100
    me.towing = None
    me.credits += paid
    me.stats["credits_earned"] += paid
    return {
        "action": "wreck_sold",
        "wreck_id": wreck["id"],
        "credits_earned": paid,
        "credits": me.credits,
        "message": f"{base.name}'s yard paid {paid} credits for the wreck.",
    }


def scrap_wreck(world: WorldState, call: Call) -> dict[str, Any]:
    """Scrap the towed wreck: steel plates and whatever it held, into cargo."""
    me = call.me
    _base, wreck = _yard(world, me)
    got = dict(wreck["items"])
    got["steel_plate"] = got.get("steel_plate", 0) + SCRAP_PLATES
    if sum(ITEMS[i].size * q for i, q in got.items()) > me.ship.cargo_free:
        raise errors.cargo_full()
    me.towing = None
    for item_id, quantity in got.items():
        me.ship.add_cargo(item_id, quantity)
    return {"action": "wreck_scrapped", "wreck_id": wreck["id"], "salvaged": got}


def _quote(me: Player) -> dict[str, Any]:
    ship = me.ship
    hull = SHIP_CLASSES[ship.class_id].price if ship.class_id in SHIP_CLASSES else 0
    cover = (hull or STARTER_VALUE) + sum(ITEMS[m].base_price for m in ship.modules if m in ITEMS)
    rate = PREMIUM_PCT + RISK_PCT_PER_LOSS * me.stats["ships_lost"]
    return {
        "ship_id": ship.id,
        "ship_class": ship.class_id,
        "coverage": cover,
        "premium_per_100_ticks": math.ceil(cover * rate / 100),
        "risk_pct": rate,
    }


def get_insurance_quote(world: WorldState, call: Call) -> dict[str, Any]:
    """What insuring the current ship costs per 100 ticks and pays if it is lost."""
    quote = _quote(call.me)
    low, high = POLICY_TICKS
    return {
        **quote,
        "message": f"Cover {quote['coverage']} credits for {quote['premium_per_100_ticks']} "
        f"credits per 100 ticks ({low}-{high} ticks): buy_insurance(ticks=...) docked.",
    }


def buy_insurance(world: WorldState, call: Call) -> dict[str, Any]:
    """Docked: insure the current ship for `ticks` ticks, paid now."""
    me = call.me
    ticks = params.integer(call.args, "ticks")
    low, high = POLICY_TICKS
    if ticks is None or not low <= ticks <= high:
        raise errors.invalid_payload(f"ticks must be {low} to {high}.")
    docked_base(world, me)
    quote = _quote(me)
    if any(p["ship_id"] == me.ship.id and p["status"] == "active" for p in me.insurance):
        raise GameError("already_insured", "Your current ship is already insured.")
    premium = math.ceil(quote["premium_per_100_ticks"] * ticks / 100)
    if me.credits < premium:
        raise errors.insufficient_credits(premium, me.credits, "buy this policy")
    me.credits -= premium
    me.stats["credits_spent"] += premium
    policy = {
        "policy_id": f"policy_{world.next_id('policy')}",
        "ship_id": me.ship.id,
        "ship_class": me.ship.class_id,
        "coverage": quote["coverage"],
        "premium": premium,
        "start_tick": world.tick,
        "expires_tick": world.tick + ticks,
        "status": "active",
    }
    me.insurance.append(policy)
    return {"action": "insured", "policy": dict(policy), "credits": me.credits}


def claim_insurance(world: WorldState, call: Call) -> dict[str, Any]:
    """The policies; docked at the home base, claimable ones are paid out."""
    me = call.me
    for policy in me.insurance:
        if policy["status"] == "active" and world.tick > policy["expires_tick"]:
            policy["status"] = "expired"
    home = home_poi(world, me)
    at_home = me.docked and me.poi_id == home.id
    paid = 0
    if at_home:
        for policy in me.insurance:
            if policy["status"] == "claimable":
                policy["status"] = "paid"
                paid += policy["coverage"]
        me.credits += paid
    claimable = sum(p["coverage"] for p in me.insurance if p["status"] == "claimable")
    message = (
        f"Paid out {paid} credits."
        if paid
        else f"{claimable} credits to claim: dock at your home base ({home.name})."
        if claimable
        else "Nothing to claim."
    )
    return {
        "policies": [dict(p) for p in me.insurance],
        "paid_out": paid,
        "credits": me.credits,
        "message": message,
    }


HANDLERS = {
    "tow_wreck": tow_wreck,
    "release_tow": release_tow,
    "sell_wreck": sell_wreck,
    "scrap_wreck": scrap_wreck,
    "get_insurance_quote": get_insurance_quote,
    "buy_insurance": buy_insurance,
    "claim_insurance": claim_insurance,
}

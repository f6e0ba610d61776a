"""Tactical battles with pirates, as commander's guide describes them: battle,
get_battle_status, reload, and distress_signal.

A battle is one pilot against one pirate at their POI (``Player.battle``). It opens at
range ``outer``; ``advance`` and ``retreat`` move a zone (outer, mid, inner, engaged), and
the weapons' chance to hit follows the zones between the sides as in the guide (15, 35,
65, 90 %). Each ``battle`` call is one round: in stance ``fire`` the pilot's weapons fire;
``evade`` halves the damage taken and burns 5 fuel, ``brace`` quarters it and doubles the
shield's recharge, ``flee`` escapes after three rounds, and ``retreat`` from ``outer``
leaves at once. The pirate fires every tick while engaged (``pirates.on_tick``), as after
an ``attack``. This world's weapons need no ammunition, so ``reload`` says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params, pirates
from zoea_tui.sim.catalog import module_def
from zoea_tui.sim.commands.combat import engage
from zoea_tui.sim.errors import GameError

if TYPE_CHECKING:
    from zoea_tui.sim.players import Player
    from zoea_tui.sim.world_state import Call, WorldState

#: The zones from near to far; a zone's index is the distance between the sides.
ZONES = ("engaged", "inner", "mid", "outer")
HIT_CHANCE_PCT = (90, 65, 35, 15)
STANCES = ("fire", "evade", "brace", "flee")
ACTIONS = ("advance", "retreat", "stance", "target", "engage")
FLEE_ROUNDS = 3
EVADE_FUEL = 5


def current_battle(world: WorldState, me: Player) -> dict[str, Any] | None:
    """The pilot's battle, ended first if its pirate is gone or the pilot has left."""
    battle = me.battle
    if battle is None:
        return None
    pirate = world.pirates.get(battle["pirate_id"])
    if pirate is None or pirate["destroyed"] or pirate["poi_id"] != me.poi_id or me.docked:
        me.battle = None
        return None
    return battle


def _pirate_here(world: WorldState, me: Player, raw: str) -> dict[str, Any]:
    here = pirates.pirates_at(world, me.poi_id)
    if not here:
        raise GameError(
            "no_target", "There is no one here to fight. get_nearby lists the pirates at your POI."
        )
    if not raw:
        return here[0]
    for pirate in here:
        if raw in (pirate["id"], pirate["name"]) or raw.lower() == pirate["name"].lower():
            return pirate
    raise GameError(
        "invalid_target", f"No target '{raw}' here. get_nearby lists the pirates at your POI."
    )


def _leave(world: WorldState, me: Player, outcome: str) -> dict[str, Any]:
    battle = me.battle
    assert battle is not None
    pirate = world.pirates[battle["pirate_id"]]
    if me.username in pirate["engaged_with"]:
        pirate["engaged_with"].remove(me.username)
    me.battle = None
    return {"outcome": outcome, "in_battle": False}


def _fire(world: WorldState, me: Player, battle: dict[str, Any]) -> dict[str, Any]:
    pirate = world.pirates[battle["pirate_id"]]
    damage = pirates.weapon_damage(me.ship)
    if damage == 0:
        return {"fired": False, "reason": "no weapon installed"}
    chance = HIT_CHANCE_PCT[ZONES.index(battle["zone"])]
    if world.rng.randrange(100) >= chance:
        return {"fired": True, "hit": False, "hit_chance_pct": chance}
    hit = pirates.apply_hit(pirate, pirates.roll(world, damage))
    me.stats["damage_dealt"] += hit["total"]
    me.skill_xp["combat_basic"] = me.skill_xp.get("combat_basic", 0) + hit["total"]
    shot: dict[str, Any] = {"fired": True, "hit": True, "hit_chance_pct": chance, **hit}
    if pirate["hull"] <= 0:
        wreck = pirates.destroy_pirate(world, pirate, me)
        me.battle = None
        shot.update(destroyed=True, bounty=pirate["bounty"], wreck_id=wreck["id"])
    return shot


def battle(world: WorldState, call: Call) -> dict[str, Any]:
    """One round of a tactical battle: engage, advance, retreat, stance or target."""
    me = call.me
    action = params.text(call.args, "action").strip().lower()
    if action not in ACTIONS:
        raise errors.invalid_payload(f"action must be one of: {', '.join(ACTIONS)}.")
    if me.docked:
        raise GameError("docked", "You cannot fight while docked. Undock first.")
    fight = current_battle(world, me)
    if action == "engage":
        if fight is not None:
            raise GameError(
                "already_in_battle",
                "You are already in a battle. get_battle_status shows it; battle(action="
                "'retreat') from outer range or stance flee leaves it.",
            )
        pirate = _pirate_here(world, me, params.text(call.args, "target_id").strip())
        engage(me, pirate)
        fight = me.battle = {
            "battle_id": f"battle_{world.next_id('battle')}",
            "pirate_id": pirate["id"],
            "zone": "outer",
            "stance": "fire",
            "flee_counter": 0,
            "started_tick": world.tick,
        }
    elif fight is None:
        raise GameError(
            "not_in_battle",
            "You are not in a battle. battle(action='engage', target_id=...) starts one with "
            "a pirate at your POI (get_nearby lists them).",
        )
    round_: dict[str, Any] = {"action": action}
    zone = ZONES.index(fight["zone"])
    if action == "advance":
        fight["zone"] = ZONES[max(0, zone - 1)]
    elif action == "retreat":
        if zone == len(ZONES) - 1:
            return {**round_, **_leave(world, me, "escaped"), "message": "You broke off."}
        fight["zone"] = ZONES[zone + 1]
    elif action == "stance":
        stance = params.text(call.args, "stance").strip().lower()
        if stance not in STANCES:
            raise errors.invalid_payload(f"stance must be one of: {', '.join(STANCES)}.")
        fight["stance"] = stance
        fight["flee_counter"] = 0
    elif action == "target":
        pirate = _pirate_here(world, me, params.text(call.args, "target_id").strip())
        if pirate["id"] != fight["pirate_id"]:
            _leave(world, me, "switched")
            engage(me, pirate)
            me.battle = fight = {**fight, "pirate_id": pirate["id"]}
    if fight["stance"] == "evade":
        me.ship.fuel = max(0, me.ship.fuel - EVADE_FUEL)
    if fight["stance"] == "flee":
        fight["flee_counter"] += 1
        if fight["flee_counter"] >= FLEE_ROUNDS:
            return {**round_, **_leave(world, me, "fled"), "message": "You escaped."}
    if fight["stance"] == "fire":
        round_["you_fired"] = _fire(world, me, fight)
    status = battle_status(world, me)
    if round_.get("you_fired", {}).get("destroyed"):
        round_["message"] = (
            f"Pirate destroyed! Bounty {round_['you_fired']['bounty']} credits. Loot its "
            f"wreck: loot_wreck(wreck_id='{round_['you_fired']['wreck_id']}')."
        )
    else:
        round_["message"] = status["message"]
    return {**status, **round_}


def battle_status(world: WorldState, me: Player) -> dict[str, Any]:
    """The pilot's battle as get_battle_status shows it."""
    fight = current_battle(world, me)
    if fight is None:
        return {"in_battle": False, "message": "You are not in a battle."}
    pirate = world.pirates[fight["pirate_id"]]
    ship = me.ship
    return {
        "in_battle": True,
        "battle_id": fight["battle_id"],
        "zone": fight["zone"],
        "stance": fight["stance"],
        "hit_chance_pct": HIT_CHANCE_PCT[ZONES.index(fight["zone"])],
        "flee_counter": fight["flee_counter"],
        "flee_required": FLEE_ROUNDS,
        "participants": [
            {
                "id": me.id,
                "name": me.username,
                "kind": "player",
                "is_npc": False,
                "hull": ship.hull,
                "max_hull": ship.max_hull,
                "shield": ship.shield,
            },
            {
                "id": pirate["id"],
                "name": pirate["name"],
                "kind": "pirate",
                "is_npc": True,
                "hull": pirate["hull"],
                "max_hull": pirate["max_hull"],
                "shield": pirate["shield"],
            },
        ],
        "message": f"Battle with {pirate['name']} at range {fight['zone']}, stance "
        f"{fight['stance']}: its hull {pirate['hull']}/{pirate['max_hull']}, yours "
        f"{ship.hull}/{ship.max_hull}.",
    }


def get_battle_status(world: WorldState, call: Call) -> dict[str, Any]:
    """The pilot's battle, or that there is none."""
    return battle_status(world, call.me)


def reload(world: WorldState, call: Call) -> dict[str, Any]:
    """Name a fitted weapon; this world's weapons use no ammunition."""
    me = call.me
    raw = params.text(call.args, "weapon_instance_id").strip()
    weapons = [m for m in me.ship.modules if module_def(m).type == "weapon"]
    if raw not in weapons:
        raise GameError(
            "invalid_weapon",
            f"No weapon '{raw}' is fitted. Fitted weapons: {', '.join(weapons) or 'none'} "
            "(get_ship lists your modules).",
        )
    raise GameError(
        "no_ammo_needed",
        f"{module_def(raw).name} is an energy weapon: it uses no ammunition and never "
        "needs reloading.",
    )


def distress_signal(world: WorldState, call: Call) -> dict[str, Any]:
    """Tell every other pilot in the system that this one needs help, and where."""
    me = call.me
    kind = params.text(call.args, "distress_type").strip().lower() or "fuel"
    if kind not in ("fuel", "repair", "combat"):
        raise errors.invalid_payload("distress_type must be fuel, repair or combat.")
    poi = world.galaxy.pois[me.poi_id]
    system = world.galaxy.systems[me.system_id]
    heard = [p for p in world.players.values() if p is not me and p.system_id == me.system_id]
    for pilot in heard:
        world.notify(
            pilot,
            "system",
            "distress_signal",
            {"sender": me.username, "distress_type": kind, "poi_id": poi.id},
            message=f"Distress call ({kind}) from {me.username} at {poi.name} in {system.name}.",
        )
    return {
        "action": "distress_signal",
        "distress_type": kind,
        "recipients": len(heard),
        "message": f"Distress signal ({kind}) broadcast to {len(heard)} pilot(s) in {system.name}.",
    }


HANDLERS = {
    "battle": battle,
    "get_battle_status": get_battle_status,
    "reload": reload,
    "distress_signal": distress_signal,
}

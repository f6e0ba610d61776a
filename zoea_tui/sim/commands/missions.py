"""Missions: get_missions, accept_mission, get_active_missions, complete_mission,
abandon_mission (boards and progress rules in `zoea_tui.sim.missions`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, missions, params
from zoea_tui.sim.catalog import ITEMS
from zoea_tui.sim.commands.navigation import needs_auto_dock, with_auto_dock
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.players import Player

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState

PAGE = 10


def _done_key(mission: dict[str, Any]) -> str:
    return f"{mission['issuer_base']}:{mission.get('template_id', mission['mission_id'])}"


def _board_here(world: WorldState, me: Player) -> list[dict[str, Any]]:
    poi = world.galaxy.pois[me.poi_id]
    if poi.base is None:
        raise errors.not_docked_here()
    offers = missions.board(world.galaxy, poi, world.profile)
    if world.profile.missions_repeat:
        return offers
    done = set(me.missions_done)
    return [o for o in offers if _done_key(o) not in done]


def _objective(world: WorldState, me: Player, m: dict[str, Any]) -> str:
    kind, need = m["type"], m["required"]
    if kind == "delivery":
        return f"Have {need} {ITEMS[m['item_id']].name} in cargo at the turn-in station"
    if kind == "mining":
        return f"Mine {need} {ITEMS[m['item_id']].name}"
    if kind == "visit":
        return f"Reach {world.galaxy.pois[m['target_poi']].name}"
    if kind == "travel":
        return f"Reach {world.galaxy.systems[m['destination_system']].name}"
    return f"Destroy {need} pirate(s)"


def _turn_in(world: WorldState, m: dict[str, Any]) -> dict[str, str]:
    for poi in world.galaxy.pois.values():
        if poi.base is not None and poi.base.id == m["turn_in_base"]:
            return {
                "base_id": poi.base.id,
                "base_name": poi.base.name,
                "poi_id": poi.id,
                "system_id": poi.system_id,
            }
    return {"base_id": m["turn_in_base"]}


def _offer_view(world: WorldState, me: Player, m: dict[str, Any]) -> dict[str, Any]:
    keys = ("mission_id", "type", "title", "description", "reward_credits", "issuer_name")
    return {
        **{k: m[k] for k in keys},
        "objective": _objective(world, me, m),
        "turn_in": _turn_in(world, m),
    }


def _active_view(world: WorldState, me: Player, m: dict[str, Any]) -> dict[str, Any]:
    done = missions.is_done(me, m)
    return {
        **_offer_view(world, me, m),
        "template_id": m["template_id"],
        "progress": missions.progress(me, m),
        "required": m["required"],
        "status": "ready_to_turn_in" if done else "in_progress",
        "accepted_tick": m["accepted_tick"],
    }


def get_missions(world: WorldState, call: Call) -> dict[str, Any]:
    """The board of the station here (docked or at its POI), paged by `offset`."""
    me = call.me
    offers = _board_here(world, me)
    active = {m["template_id"] for m in me.missions}
    shown = [o for o in offers if o["mission_id"] not in active]
    offset = max(0, params.integer(call.args, "offset") or 0)
    page = shown[offset : offset + PAGE]
    base = world.galaxy.pois[me.poi_id].base
    assert base is not None
    return {
        "base": base.name,
        "base_id": base.id,
        "missions": [_offer_view(world, me, o) for o in page],
        "total": len(shown),
        "offset": offset,
        "has_more": offset + PAGE < len(shown),
        "active_missions": len(me.missions),
        "max_active": missions.MAX_ACTIVE,
        "message": "Accept one with accept_mission(mission_id).",
    }


def _find_active(me: Player, raw: str) -> dict[str, Any]:
    for m in me.missions:
        if raw in (m["mission_id"], m["template_id"]):
            return m
    raise GameError(
        "mission_not_found",
        f"You have no active mission '{raw}'. Use get_active_missions to list yours.",
    )


def _mission_id(call: Call) -> str:
    raw = params.text(call.args, "mission_id").strip()
    if not raw:
        raise errors.missing_parameter("mission_id", "first_haul")
    return raw


def accept_mission(world: WorldState, call: Call) -> dict[str, Any]:
    """Take a mission from the board of the station here."""
    me = call.me
    raw = _mission_id(call)
    auto = needs_auto_dock(world, me)
    offers = {o["mission_id"]: o for o in _board_here(world, me)}
    if raw not in offers:
        raise GameError(
            "mission_not_found",
            f"Mission '{raw}' is not offered at this station. Use get_missions to see "
            "this station's board.",
        )
    for m in me.missions:
        if m["template_id"] == raw:
            raise GameError(
                "mission_already_active",
                f"You already have '{m['title']}' active (mission_id {m['mission_id']}).",
            )
    if len(me.missions) >= missions.MAX_ACTIVE:
        raise GameError(
            "mission_limit",
            f"You have {missions.MAX_ACTIVE} active missions, the most allowed. Complete "
            "or abandon one first (abandon_mission).",
        )
    mission = missions.accepted(offers[raw], world.new_hex(128), world.tick)
    me.missions.append(mission)
    me.stats["missions_accepted"] += 1
    result: dict[str, Any] = {
        "action": "mission_accepted",
        "mission": _active_view(world, me, mission),
        "message": f"Mission accepted: {mission['title']}. Track it with get_active_missions; "
        "turn it in with complete_mission(mission_id).",
    }
    return with_auto_dock(world, me, auto, result)


def get_active_missions(world: WorldState, call: Call) -> dict[str, Any]:
    """The caller's accepted missions with their progress."""
    me = call.me
    return {
        "missions": [_active_view(world, me, m) for m in me.missions],
        "count": len(me.missions),
        "max_active": missions.MAX_ACTIVE,
    }


def complete_mission(world: WorldState, call: Call) -> dict[str, Any]:
    """Turn in a finished mission at its station for the reward."""
    me = call.me
    mission = _find_active(me, _mission_id(call))
    auto = needs_auto_dock(world, me)
    base = world.galaxy.pois[me.poi_id].base
    assert base is not None
    if base.id != mission["turn_in_base"]:
        where = _turn_in(world, mission)
        raise GameError(
            "wrong_base",
            f"Turn in '{mission['title']}' at {where.get('base_name', where['base_id'])} "
            f"(system {where.get('system_id', '?')}); you are at {base.name}.",
        )
    if not missions.is_done(me, mission):
        raise GameError(
            "mission_incomplete",
            f"'{mission['title']}' is not complete: {_objective(world, me, mission)} "
            f"({missions.progress(me, mission)}/{mission['required']}).",
        )
    if mission["type"] == "delivery":
        me.ship.remove_cargo(mission["item_id"], mission["required"])
    reward = mission["reward_credits"]
    me.credits += reward
    me.stats["credits_earned"] += reward
    me.stats["missions_completed"] += 1
    me.missions_done.append(_done_key(mission))
    me.missions.remove(mission)
    world.notify(
        me,
        "system",
        "mission_completed",
        {"mission_id": mission["mission_id"], "title": mission["title"], "reward_credits": reward},
        message=f"Mission completed: {mission['title']}. Reward {reward} credits.",
    )
    result: dict[str, Any] = {
        "action": "mission_completed",
        "mission_id": mission["mission_id"],
        "title": mission["title"],
        "reward_credits": reward,
        "credits": me.credits,
        "message": f"Mission complete: {mission['title']}. {reward} credits paid.",
    }
    return with_auto_dock(world, me, auto, result)


def abandon_mission(world: WorldState, call: Call) -> dict[str, Any]:
    """Drop an active mission (no penalty; it goes back on the board)."""
    me = call.me
    mission = _find_active(me, _mission_id(call))
    me.missions.remove(mission)
    me.stats["missions_abandoned"] += 1
    return {
        "action": "mission_abandoned",
        "mission_id": mission["mission_id"],
        "title": mission["title"],
        "message": f"Mission abandoned: {mission['title']}.",
    }


HANDLERS = {
    "get_missions": get_missions,
    "accept_mission": accept_mission,
    "get_active_missions": get_active_missions,
    "complete_mission": complete_mission,
    "abandon_mission": abandon_mission,
}

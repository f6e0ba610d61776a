"""Factions and fleets: create_faction, faction_info, faction_invite, join_faction,
leave_faction, faction_submit_intel, faction_query_intel, view_faction_storage, fleet.

A faction (``WorldState.factions``) has a leader, members, pending invites, a shared
intel map (system id to the last report submitted) and storage per station; a fleet
(``WorldState.fleets``) a leader, members and invites. An invitation is a notification;
the invited pilot joins with ``join_faction`` or ``fleet(action='accept')``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params
from zoea_tui.sim.catalog import ITEMS
from zoea_tui.sim.commands.personal import docked_base
from zoea_tui.sim.errors import GameError

if TYPE_CHECKING:
    from zoea_tui.sim.players import Player
    from zoea_tui.sim.world_state import Call, WorldState

NAME_MAX = 40
_TAG = re.compile(r"[A-Za-z0-9]{2,4}")
FLEET_ACTIONS = ("create", "invite", "accept", "decline", "leave", "kick", "disband", "status")


def _not_in_faction() -> GameError:
    return GameError(
        "not_in_faction",
        "You are not in a faction. create_faction(name, tag) starts one; a faction's "
        "faction_invite lets you join_faction.",
    )


def _my_faction(world: WorldState, me: Player) -> dict[str, Any]:
    faction = world.factions.get(me.faction_id)
    if faction is None:
        raise _not_in_faction()
    return faction


def _pilot(world: WorldState, raw: str) -> Player:
    pilot = world.find_player(raw)
    if pilot is None:
        raise GameError("player_not_found", f"No player named '{raw}'.")
    return pilot


def create_faction(world: WorldState, call: Call) -> dict[str, Any]:
    """A new faction led by the caller."""
    me = call.me
    name = params.text(call.args, "name").strip()
    tag = params.text(call.args, "tag").strip().upper()
    if me.faction_id:
        raise GameError("already_in_faction", "You are already in a faction. leave_faction first.")
    if not name or len(name) > NAME_MAX:
        raise errors.invalid_payload(f"name is required (up to {NAME_MAX} characters).")
    if not _TAG.fullmatch(tag):
        raise errors.invalid_payload("tag must be 2-4 letters or digits.")
    for other in world.factions.values():
        if other["name"].lower() == name.lower() or other["tag"] == tag:
            raise GameError("faction_exists", f"A faction named {name} or tagged [{tag}] exists.")
    faction: dict[str, Any] = {
        "id": f"faction_{world.next_id('faction')}",
        "name": name,
        "tag": tag,
        "leader": me.username,
        "members": [me.username],
        "invites": [],
        "created_tick": world.tick,
        "intel": {},
        "storage": {},
    }
    world.factions[faction["id"]] = faction
    me.faction_id = faction["id"]
    return {
        "action": "faction_created",
        "faction_id": faction["id"],
        "name": name,
        "tag": tag,
        "message": f"Faction {name} [{tag}] created; you lead it. faction_invite brings pilots in.",
    }


def _faction_view(faction: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "name", "tag", "leader", "members", "created_tick")
    return {**{k: faction[k] for k in keys}, "member_count": len(faction["members"])}


def faction_info(world: WorldState, call: Call) -> dict[str, Any]:
    """A faction (yours unless `faction_id`) and its members."""
    raw = params.text(call.args, "faction_id").strip()
    if not raw:
        return {"faction": _faction_view(_my_faction(world, call.me))}
    for faction in world.factions.values():
        if raw in (faction["id"], faction["tag"]) or raw.lower() == faction["name"].lower():
            return {"faction": _faction_view(faction)}
    raise GameError("faction_not_found", f"No faction '{raw}'.")


def _invite(group: dict[str, Any], pilot: Player, where: str) -> None:
    """Put `pilot` on a faction's or a fleet's invites (once); `already_member` if they
    are in it (`where`: the faction's name, "your fleet")."""
    if pilot.username in group["members"]:
        raise GameError("already_member", f"{pilot.username} is already in {where}.")
    if pilot.username not in group["invites"]:
        group["invites"].append(pilot.username)


def faction_invite(world: WorldState, call: Call) -> dict[str, Any]:
    """Invite a pilot; they are notified and join with join_faction."""
    me = call.me
    faction = _my_faction(world, me)
    pilot = _pilot(world, params.text(call.args, "player_id").strip())
    _invite(faction, pilot, faction["name"])
    world.notify(
        pilot,
        "faction",
        "faction_invite",
        {"faction_id": faction["id"], "name": faction["name"], "from": me.username},
        message=f"{me.username} invites you to {faction['name']} [{faction['tag']}]: "
        f"join_faction(faction_id='{faction['id']}').",
    )
    return {"action": "invited", "player": pilot.username, "faction_id": faction["id"]}


def join_faction(world: WorldState, call: Call) -> dict[str, Any]:
    """Join a faction that invited the caller."""
    me = call.me
    raw = params.text(call.args, "faction_id").strip()
    faction = world.factions.get(raw)
    if faction is None or me.username not in faction["invites"]:
        raise GameError("not_invited", f"No invitation from faction '{raw}'.")
    if me.faction_id:
        raise GameError("already_in_faction", "You are already in a faction. leave_faction first.")
    faction["invites"].remove(me.username)
    faction["members"].append(me.username)
    me.faction_id = faction["id"]
    return {"action": "faction_joined", "faction": _faction_view(faction)}


def leave_faction(world: WorldState, call: Call) -> dict[str, Any]:
    """Leave the faction; the next member leads, and a faction left empty is gone."""
    me = call.me
    faction = _my_faction(world, me)
    faction["members"].remove(me.username)
    me.faction_id = ""
    if not faction["members"]:
        del world.factions[faction["id"]]
    elif faction["leader"] == me.username:
        faction["leader"] = faction["members"][0]
    return {"action": "faction_left", "faction_id": faction["id"]}


def faction_submit_intel(world: WorldState, call: Call) -> dict[str, Any]:
    """Store system reports (each with an `id` or `system_id`) in the faction's map."""
    me = call.me
    faction = _my_faction(world, me)
    systems = call.args.get("systems")
    if not isinstance(systems, list) or not systems:
        raise errors.invalid_payload("systems must be a non-empty array of system reports.")
    accepted = 0
    for report in systems:
        system_id = (
            str(report.get("system_id") or report.get("id") or "")
            if isinstance(report, dict)
            else ""
        )
        if system_id not in world.galaxy.systems:
            continue
        faction["intel"][system_id] = {
            "report": report,
            "submitted_by": me.username,
            "tick": world.tick,
        }
        accepted += 1
    if not accepted:
        raise errors.invalid_payload(
            "no report names a known system: give each an id (get_system's system.id)."
        )
    return {"action": "intel_submitted", "accepted": accepted, "rejected": len(systems) - accepted}


def faction_query_intel(world: WorldState, call: Call) -> dict[str, Any]:
    """The faction's reports, optionally of one system or systems matching a name."""
    faction = _my_faction(world, call.me)
    wanted = params.text(call.args, "system_id").strip()
    name = params.text(call.args, "system_name").strip().lower()
    rows = [
        {"system_id": sid, **entry}
        for sid, entry in sorted(faction["intel"].items())
        if (not wanted or sid == wanted)
        and (not name or name in world.galaxy.systems[sid].name.lower())
    ]
    return {"intel": rows, "count": len(rows)}


def view_faction_storage(world: WorldState, call: Call) -> dict[str, Any]:
    """The faction's shared storage at the station the caller is docked at."""
    me = call.me
    faction = _my_faction(world, me)
    base = docked_base(world, me)
    shelf: dict[str, int] = faction["storage"].get(base.id, {})
    return {
        "faction_id": faction["id"],
        "base_id": base.id,
        "items": [{"item_id": i, "name": ITEMS[i].name, "quantity": q} for i, q in shelf.items()],
    }


def _fleet_of(world: WorldState, me: Player) -> dict[str, Any] | None:
    return world.fleets.get(me.fleet_id)


def _fleet_view(world: WorldState, fleet: dict[str, Any]) -> dict[str, Any]:
    members = [world.players[m] for m in fleet["members"] if m in world.players]
    return {
        "fleet_id": fleet["id"],
        "leader": fleet["leader"],
        "members": [
            {"username": p.username, "system_id": p.system_id, "poi_id": p.poi_id} for p in members
        ],
        "invites": list(fleet["invites"]),
    }


def _leader_fleet(world: WorldState, me: Player) -> dict[str, Any]:
    fleet = _fleet_of(world, me)
    if fleet is None:
        raise GameError("not_in_fleet", "You are not in a fleet. fleet(action='create') makes one.")
    if fleet["leader"] != me.username:
        raise GameError("not_fleet_leader", f"Only the fleet's leader ({fleet['leader']}) can.")
    return fleet


def _drop(world: WorldState, fleet: dict[str, Any], username: str) -> None:
    fleet["members"].remove(username)
    world.players[username].fleet_id = ""
    if not fleet["members"]:
        del world.fleets[fleet["id"]]
    elif fleet["leader"] == username:
        fleet["leader"] = fleet["members"][0]


def fleet(world: WorldState, call: Call) -> dict[str, Any]:
    """Make, grow, leave and look at a fleet, by `action`."""
    me = call.me
    action = params.text(call.args, "action").strip().lower()
    if action not in FLEET_ACTIONS:
        raise errors.invalid_payload(f"action must be one of: {', '.join(FLEET_ACTIONS)}.")
    mine = _fleet_of(world, me)
    if action == "status":
        if mine is None:
            return {"in_fleet": False, "message": "You are not in a fleet."}
        return {"in_fleet": True, **_fleet_view(world, mine)}
    if action == "create":
        if mine is not None:
            raise GameError("already_in_fleet", "You are already in a fleet. Leave it first.")
        mine = {
            "id": f"fleet_{world.next_id('fleet')}",
            "leader": me.username,
            "members": [me.username],
            "invites": [],
        }
        world.fleets[mine["id"]] = mine
        me.fleet_id = mine["id"]
        return {"action": "fleet_created", **_fleet_view(world, mine)}
    if action in ("invite", "kick"):
        mine = _leader_fleet(world, me)
        pilot = _pilot(world, params.text(call.args, "target").strip())
        if action == "kick":
            if pilot.username not in mine["members"] or pilot is me:
                raise GameError("not_in_fleet", f"{pilot.username} is not in your fleet.")
            _drop(world, mine, pilot.username)
            return {"action": "kicked", **_fleet_view(world, mine)}
        _invite(mine, pilot, "your fleet")
        world.notify(
            pilot,
            "system",
            "fleet_invite",
            {"fleet_id": mine["id"], "from": me.username},
            message=f"{me.username} invites you to their fleet: fleet(action='accept').",
        )
        return {"action": "invited", **_fleet_view(world, mine)}
    invited = [f for f in world.fleets.values() if me.username in f["invites"]]
    if action in ("accept", "decline"):
        if not invited:
            raise GameError("no_invite", "No fleet has invited you.")
        chosen = invited[0]
        chosen["invites"].remove(me.username)
        if action == "decline":
            return {"action": "declined", "fleet_id": chosen["id"]}
        if mine is not None:
            raise GameError("already_in_fleet", "You are already in a fleet. Leave it first.")
        chosen["members"].append(me.username)
        me.fleet_id = chosen["id"]
        return {"action": "joined", **_fleet_view(world, chosen)}
    if action == "leave":
        if mine is None:
            raise GameError("not_in_fleet", "You are not in a fleet.")
        _drop(world, mine, me.username)
        return {"action": "left", "fleet_id": mine["id"]}
    mine = _leader_fleet(world, me)  # disband
    for username in list(mine["members"]):
        world.players[username].fleet_id = ""
    del world.fleets[mine["id"]]
    return {"action": "disbanded", "fleet_id": mine["id"]}


HANDLERS = {
    "create_faction": create_faction,
    "faction_info": faction_info,
    "faction_invite": faction_invite,
    "join_faction": join_faction,
    "leave_faction": leave_faction,
    "faction_submit_intel": faction_submit_intel,
    "faction_query_intel": faction_query_intel,
    "view_faction_storage": view_faction_storage,
    "fleet": fleet,
}

"""Accounts: register, login, logout."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params, rules
from zoea_tui.sim.catalog import EMPIRES, GAME_VERSION, RELEASE_NOTES
from zoea_tui.sim.players import Player, Ship
from zoea_tui.sim.views import log_entry_view, player_view, poi_view, ship_view, system_view

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState


def _arrival_bundle(world: WorldState, player: Player) -> dict[str, Any]:
    return {
        "player": player_view(world, player),
        "ship": ship_view(player.ship),
        "system": system_view(world, world.galaxy.systems[player.system_id]),
        "poi": poi_view(world, world.galaxy.pois[player.poi_id]),
    }


def register(world: WorldState, call: Call) -> dict[str, Any]:
    """Create an account docked at the empire's home station, and log it in."""
    username = params.text(call.args, "username").strip()
    if not rules.USERNAME_MIN <= len(username) <= rules.USERNAME_MAX:
        raise errors.invalid_username()
    if any(not ch.isprintable() for ch in username):
        raise errors.invalid_username()
    empire = EMPIRES.get(params.text(call.args, "empire"))
    if empire is None:
        raise errors.invalid_empire([(e.id, e.blurb) for e in EMPIRES.values()])
    if any(p.username.lower() == username.lower() for p in world.players.values()):
        raise errors.username_taken()
    home = world.galaxy.arrival_poi(empire.home_system)
    credits = (
        world.starting_credits if world.starting_credits is not None else empire.starting_credits
    )
    player = Player(
        id=world.new_hex(128),
        username=username,
        password=world.new_secret(256),
        empire=empire.id,
        credits=credits,
        system_id=home.system_id,
        poi_id=home.id,
        docked=home.base is not None,
        ship=Ship.of_class(world.profile.starter(empire.id), world.new_hex(128), username),
        created_tick=world.tick,
        visited=[home.system_id],
    )
    world.players[username] = player
    session_id = world.start_session(call.key, player)
    world.notify(
        player,
        "tip",
        "tip",
        {},
        message="Undock, travel to an asteroid belt, mine until your hold is full, "
        "then dock at a station and sell. get_system lists the POIs nearby.",
    )
    code_note = (
        ""
        if params.text(call.args, "registration_code")
        else " (No registration_code given: this embedded world does not need one.)"
    )
    return {
        "message": f"Welcome to SpaceMolt, {username} of the {empire.name}! You are docked "
        f"at {home.name}. Save your password now: it is shown only once and "
        f"cannot be recovered.{code_note}",
        "password": player.password,
        "player_id": player.id,
        "session_id": session_id,
        "username": username,
        "empire": empire.id,
        **_arrival_bundle(world, player),
    }


def login(world: WorldState, call: Call) -> dict[str, Any]:
    """Log in with username and password; an older login of the account ends."""
    username = params.text(call.args, "username").strip()
    password = params.text(call.args, "password").strip().lower()
    player = world.players.get(username) or next(
        (p for p in world.players.values() if p.username.lower() == username.lower()), None
    )
    if player is None or not password or player.password != password:
        raise errors.auth_failed()
    session_id = world.start_session(call.key, player)
    recent_chat = [
        dict(m)
        for m in world.chat_log
        if m["channel"] == "system" and m["system_id"] == player.system_id
    ][-10:]
    return {
        "message": f"Welcome back, {player.username}!",
        "session_id": session_id,
        **_arrival_bundle(world, player),
        "captains_log": [log_entry_view(0, player.log[0])] if player.log else [],
        "recent_chat": recent_chat,
        "pending_trades": [],
        "unread_notifications": len(player.notifications),
        "release_info": {"version": GAME_VERSION, "notes": list(RELEASE_NOTES)},
    }


def logout(world: WorldState, call: Call) -> dict[str, Any]:
    """End this login; the pilot stays where it is."""
    assert call.session_id is not None
    world.end_session(call.session_id, call.key)
    return {"message": f"Logged out. Goodbye, {call.me.username}. Your ship stays where it is."}


HANDLERS = {"register": register, "login": login, "logout": logout}

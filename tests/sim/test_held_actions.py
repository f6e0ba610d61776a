"""Actions held to their tick on a real clock, as the real server does (reference §A3).

The host's clock here never ticks by itself (a tick of an hour, never started): each
test moves it with ``host.advance``, so nothing depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from zoea_tui.sim import World
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.host import WorldHost

from .conftest import until


@pytest.fixture
def host() -> WorldHost:
    return WorldHost(World(seed=42), tick_seconds=3600)


async def register(host: WorldHost, name: str) -> str:
    """Register ``name`` on a connection of its own; returns the connection's key."""
    key = f"conn-{name}"
    await host.call(key, "register", {"username": name, "empire": "solarian"})
    return key


async def act(host: WorldHost, key: str, tool: str, **args: Any) -> dict[str, Any]:
    """Send an action and move the clock until it is answered."""
    call = asyncio.create_task(host.call(key, tool, args))
    player = host.world.player_for(key)
    assert player is not None
    while not call.done():
        await asyncio.sleep(0.001)
        if player.busy_until > host.current_tick:
            host.advance(1)
    return await call


async def test_an_action_is_answered_once_its_tick_has_resolved(host: WorldHost) -> None:
    key = await register(host, "ada")
    start = host.current_tick
    undock = asyncio.create_task(host.call(key, "undock", {}))
    await until(lambda: not host.world.players["ada"].docked)  # done, now awaiting its tick
    await asyncio.sleep(0)
    assert not undock.done()
    host.advance(1)
    result = await undock
    assert result["action"] == "undocked"
    assert result["current_tick"] == start + 1


async def test_a_second_action_while_the_first_waits_is_action_pending(host: WorldHost) -> None:
    key = await register(host, "ada")
    undock = asyncio.create_task(host.call(key, "undock", {}))
    await until(lambda: not host.world.players["ada"].docked)
    with pytest.raises(GameError) as caught:
        await host.call(key, "dock", {})
    error = caught.value
    assert error.code == "action_pending"
    assert "undock is still waiting" in error.message
    assert error.details["ready_tick"] == host.current_tick + 1
    assert error.details["wait_seconds"] == 3600
    host.advance(1)
    await undock
    # Once the first is answered, the next action is taken (and held in its turn).
    dock = asyncio.create_task(host.call(key, "dock", {}))
    await until(lambda: host.world.players["ada"].docked)
    host.advance(1)
    assert (await dock)["action"] == "docked"


async def test_the_same_pilot_on_another_connection_still_has_one_place(host: WorldHost) -> None:
    made = await host.call("conn-ada", "register", {"username": "ada", "empire": "solarian"})
    key = "conn-ada"
    undock = asyncio.create_task(host.call(key, "undock", {}))
    await until(lambda: not host.world.players["ada"].docked)
    login = {"username": "ada", "password": made["password"]}
    await host.call("another-connection", "login", login)  # a session id is not shared
    with pytest.raises(GameError) as caught:
        await host.call("another-connection", "dock", {})
    assert caught.value.code == "action_pending"
    host.advance(1)
    await undock


async def test_two_pilots_act_in_the_same_tick_and_are_answered_together(
    host: WorldHost,
) -> None:
    ada, bob = await register(host, "ada"), await register(host, "bob")
    start = host.current_tick
    first = asyncio.create_task(host.call(ada, "undock", {}))
    second = asyncio.create_task(host.call(bob, "undock", {}))
    await until(lambda: not any(p.docked for p in host.world.players.values()))
    host.advance(1)
    results = await asyncio.gather(first, second)
    assert [r["action"] for r in results] == ["undocked", "undocked"]
    assert {r["current_tick"] for r in results} == {start + 1}


async def test_queries_are_answered_at_once_while_an_action_waits(host: WorldHost) -> None:
    key = await register(host, "ada")
    undock = asyncio.create_task(host.call(key, "undock", {}))
    await until(lambda: not host.world.players["ada"].docked)
    status = await host.call(key, "get_status", {})
    assert status["player"]["username"] == "ada"
    host.advance(1)
    await undock


async def test_a_refused_action_is_answered_at_once_and_frees_the_place(host: WorldHost) -> None:
    key = await register(host, "ada")
    with pytest.raises(GameError) as caught:
        await host.call(key, "travel", {"target_poi": "nowhere"})
    assert caught.value.code in ("invalid_poi", "docked", "not_docked")
    undock = asyncio.create_task(host.call(key, "undock", {}))
    await until(lambda: not host.world.players["ada"].docked)
    host.advance(1)
    await undock


async def test_an_action_costing_two_ticks_is_held_for_both(host: WorldHost) -> None:
    """``repair`` undocked at a station docks first (one more tick): answered after both."""
    key = await register(host, "ada")
    await act(host, key, "undock")
    start = host.current_tick
    repair = asyncio.create_task(host.call(key, "repair", {}))
    await until(lambda: host.world.players["ada"].docked)
    host.advance(1)
    await asyncio.sleep(0.01)
    assert not repair.done()
    host.advance(1)
    result = await repair
    assert result["auto_docked"] is True
    assert result["current_tick"] == start + 2


async def test_on_the_simulated_clock_an_action_costs_no_wait() -> None:
    """``zoea simulate`` and the arena count ticks themselves: nothing is held there."""
    host = WorldHost(World(seed=42), tick_seconds=0)
    key = await register(host, "ada")
    start = host.current_tick
    result = await host.call(key, "undock", {})
    assert result["current_tick"] == start == host.current_tick
    docked = await host.call(key, "dock", {})  # the next tick is taken on demand
    assert docked["current_tick"] == start + 1


async def test_a_reset_answers_the_waiting_calls_and_starts_a_new_world(host: WorldHost) -> None:
    key = await register(host, "ada")
    undock = asyncio.create_task(host.call(key, "undock", {}))
    await until(lambda: not host.world.players["ada"].docked)
    old = host.world
    host.advance(3)
    fresh = host.reset()
    await undock
    assert fresh is host.world and fresh is not old
    assert fresh.seed == old.seed and fresh.current_tick == 1 and not fresh.players
    assert list(host.events) == []
    with pytest.raises(GameError) as caught:
        await host.call(key, "get_status", {})
    assert caught.value.code == "not_authenticated"


def test_a_reset_keeps_the_world_of_the_host() -> None:
    host = WorldHost(World(seed=7, world="smbench"), tick_seconds=0)
    fresh = host.reset()
    assert fresh.profile.name == "smbench"
    assert fresh.starting_credits == World(seed=7, world="smbench").starting_credits


async def test_every_call_is_in_the_event_log(host: WorldHost) -> None:
    key = await register(host, "ada")
    with pytest.raises(GameError):
        await host.call(key, "warp", {})
    events: list[dict[str, Any]] = list(host.events)
    assert [(e["command"], e["success"], e["error_code"]) for e in events] == [
        ("register", True, None),
        ("warp", False, "unknown_command"),
    ]
    assert events[0]["username"] == "ada" and events[0]["player_id"]
    assert events[0]["tick"] == host.current_tick


async def test_taking_notifications_delivers_each_once(host: WorldHost) -> None:
    ada, bob = await register(host, "ada"), await register(host, "bob")
    host.take_notifications(bob)  # the welcome tip
    await host.call(ada, "chat", {"channel": "local", "content": "hello"})
    taken = host.take_notifications(bob)
    assert [n["msg_type"] for n in taken] == ["chat_message"]
    assert taken[0]["data"]["content"] == "hello"
    assert host.take_notifications(bob) == []
    assert host.take_notifications("nobody") == []

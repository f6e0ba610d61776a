"""A Mysis's game session: scripted play, healing, limits, over both transports."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from zoea_tui.game.connect import http_connector, in_process_connector
from zoea_tui.game.errors import GameConnectionError, GameToolError
from zoea_tui.game.session import GameSession, RetryPolicy
from zoea_tui.sim import World
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.mcp_server import in_process_server
from zoea_tui.sim.serve import HttpWorldServer


async def test_scripted_session_register_travel_mine_dock_sell(make_session) -> None:
    """The Done-when script, in-process and over HTTP (the fixture runs both)."""
    session: GameSession = make_session()
    reg = await session.call("register", {"username": "miner", "empire": "solarian"})
    credits = reg.data["player"]["credits"]
    await session.call("undock")
    trip = await session.call("travel", {"target_poi": "main_belt"})
    assert trip.data["arrived"] is True
    while True:
        try:
            await session.call("mine")
        except GameToolError as error:
            assert error.code in ("cargo_full", "no_cargo_space")
            break
    await session.call("travel", {"target_poi": "sol_central"})
    await session.call("dock")
    earned = 0
    for item in (await session.call("get_cargo")).data["cargo"]:
        sale = await session.call(
            "sell", {"item_id": item["item_id"], "quantity": item["quantity"]}
        )
        earned += sale.data["total_earned"]
    status = await session.call("get_status")
    assert earned > 0
    assert status.data["player"]["credits"] == credits + earned


async def test_tool_list_is_cached_and_refreshed_after_a_stale_call(host, make_session) -> None:
    asked = 0
    original = host.tool_specs

    def counting_specs() -> list[dict[str, Any]]:
        nonlocal asked
        asked += 1
        return original()

    host.tool_specs = counting_specs  # type: ignore[method-assign]
    session: GameSession = make_session()
    first = await session.list_tools()
    again = await session.list_tools()
    assert again is first
    with pytest.raises(GameToolError) as caught:
        await session.call("retired_tool")
    assert caught.value.code == "unknown_command"
    before = asked
    await session.list_tools()
    assert asked == before + 1


async def test_an_action_right_after_another_is_held_to_its_tick_not_refused(sleep) -> None:
    """On a real clock the world answers each action once its tick has resolved, so the
    session sends the next one at once and never needs a retry."""
    host = WorldHost.open(seed=2, tick_seconds=0.05)
    async with host:
        session = GameSession(in_process_connector(lambda: in_process_server(host)), sleep=sleep)
        try:
            await session.call("register", {"username": "patient", "empire": "solarian"})
            undocked = await session.call("undock")
            docked = await session.call("dock")
        finally:
            await session.aclose()
    assert docked.data["action"] == "docked"
    assert docked.data["current_tick"] > undocked.data["current_tick"]
    assert sleep.delays == []


class _Refusing:
    """A game whose every call is first refused with ``code`` and a wait of ``wait`` s."""

    def __init__(self, code: str, wait: float) -> None:
        self.code = code
        self.wait = wait
        self.calls = 0

    def tool_specs(self) -> list[dict[str, Any]]:
        return [{"name": "mine", "description": "", "input_schema": {"type": "object"}}]

    async def call(self, key: str | None, tool: str, args: dict[str, Any] | None) -> dict[str, Any]:
        self.calls += 1
        if self.calls == 1:
            raise GameError(self.code, "not now", wait_seconds=self.wait)
        return {"mined": 1}


async def test_rate_limited_is_retried_after_the_servers_wait(sleep) -> None:
    game = _Refusing("rate_limited", 0.5)
    session = GameSession(in_process_connector(lambda: in_process_server(game)), sleep=sleep)
    try:
        outcome = await session.call("mine")
    finally:
        await session.aclose()
    assert outcome.data == {"mined": 1}
    assert sleep.delays == [0.5]


async def _refused_mine(game: Any, sleep: Any, policy: RetryPolicy) -> GameToolError:
    """``mine`` called once through a session on ``game`` under ``policy``: its error."""
    session = GameSession(
        in_process_connector(lambda: in_process_server(game)), policy=policy, sleep=sleep
    )
    try:
        with pytest.raises(GameToolError) as caught:
            await session.call("mine")
    finally:
        await session.aclose()
    return caught.value


async def test_action_pending_reaches_the_caller_unretried(sleep) -> None:
    """The world refuses an action only while another is waiting: no retry hides it."""
    game = _Refusing("action_pending", 0.5)
    refused = await _refused_mine(game, sleep, RetryPolicy())
    assert refused.code == "action_pending"
    assert game.calls == 1 and sleep.delays == []


async def test_a_wait_longer_than_the_limit_is_reported_not_slept(sleep) -> None:
    game = _Refusing("rate_limited", 3600)
    refused = await _refused_mine(game, sleep, RetryPolicy(max_wait=30))
    assert refused.code == "rate_limited"
    assert refused.wait_seconds == 3600
    assert sleep.delays == []


async def test_http_world_restart_mid_session_is_healed_silently(host, sleep) -> None:
    server = HttpWorldServer(host)
    await server.start()
    port = server.port
    logins: list[str] = []
    password: dict[str, str] = {}

    async def relogin(session: GameSession) -> None:
        logins.append("relogin")
        await session.call("login", {"username": "phoenix", "password": password["p"]})

    session = GameSession(http_connector(server.url), relogin=relogin, sleep=sleep)
    try:
        reg = await session.call("register", {"username": "phoenix", "empire": "solarian"})
        password["p"] = reg.data["password"]
        await server.stop()
        # The world's process restarts from its saved state: logins are gone.
        restored = WorldHost(World.from_dict(host.world.to_dict()), tick_seconds=0)
        server = HttpWorldServer(restored, port=port)
        await server.start()
        status = await session.call("get_status")
    finally:
        await session.aclose()
        await server.stop()
    assert status.data["player"]["username"] == "phoenix"
    assert session.reconnects == 1
    assert logins == ["relogin"]


async def test_in_process_world_forgetting_logins_is_healed_silently(host) -> None:
    password: dict[str, str] = {}

    async def relogin(session: GameSession) -> None:
        await session.call("login", {"username": "lazarus", "password": password["p"]})

    session = GameSession(in_process_connector(lambda: in_process_server(host)), relogin=relogin)
    try:
        reg = await session.call("register", {"username": "lazarus", "empire": "solarian"})
        password["p"] = reg.data["password"]
        host.world = World.from_dict(host.world.to_dict())  # restart: every login is gone
        status = await session.call("get_status")
    finally:
        await session.aclose()
    assert status.data["player"]["username"] == "lazarus"


async def test_a_server_that_disappears_gives_a_clear_error(host, sleep) -> None:
    server = HttpWorldServer(host)
    await server.start()
    session = GameSession(
        http_connector(server.url), sleep=sleep, policy=RetryPolicy(reconnect_attempts=2)
    )
    try:
        await session.call("register", {"username": "ghost", "empire": "solarian"})
        await server.stop()
        with pytest.raises(GameConnectionError) as caught:
            await session.call("get_status")
    finally:
        await session.aclose()
    assert "unreachable" in str(caught.value)
    assert sleep.delays == [0.5, 1.0]  # backoff before each reconnect attempt
    # The world itself lost nothing.
    assert "ghost" in host.world.players


async def test_a_closed_session_refuses_calls(make_session) -> None:
    session: GameSession = make_session()
    await session.call("help")
    await session.aclose()
    with pytest.raises(GameConnectionError):
        await session.call("help")


class HugeMapHost(WorldHost):
    """A world whose get_map answers 2 MB (a misbehaving or very large server)."""

    async def call(self, key, tool, args):
        if tool == "get_map":
            return {"systems": "x" * (2 * 1024 * 1024), "current_tick": self.current_tick}
        return await super().call(key, tool, args)


@pytest.mark.parametrize("transport", ["in-process", "http"])
async def test_a_2_mb_result_arrives_whole(transport: str) -> None:
    host = HugeMapHost(World(1), tick_seconds=0)
    server = None
    if transport == "http":
        server = HttpWorldServer(host)
        await server.start()
        connector = http_connector(server.url)
    else:
        connector = in_process_connector(lambda: in_process_server(host))
    session = GameSession(connector)
    try:
        outcome = await session.call("get_map")
        after = await session.call("help")  # the session survives it
    finally:
        await session.aclose()
        if server is not None:
            await server.stop()
    assert len(outcome.text) > 2 * 1024 * 1024
    assert after.text


async def test_a_changed_tool_list_is_announced_and_fetched_again(host, make_session) -> None:
    """The server says notifications/tools/list_changed; the session lists tools again."""
    session: GameSession = make_session()
    before = {t.name for t in await session.list_tools()}
    original = host.tool_specs
    extra = {
        "name": "scan",
        "description": "Scan nearby space.",
        "input_schema": {"type": "object", "properties": {}},
    }
    host.tool_specs = lambda: [*original(), extra]  # type: ignore[method-assign]
    host.tools_version = 1  # type: ignore[attr-defined]
    await session.call("help")  # the reply comes after the notification
    for _ in range(50):
        await asyncio.sleep(0.01)
        after = {t.name for t in await session.list_tools()}
        if "scan" in after:
            break
    assert after == before | {"scan"}

"""The embedded world's MCP facade, driven by the official SDK client."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
from pathlib import Path

from mcp import Client

from tests.cli_runner import ZOEA
from tests.sim.mcp_world import EVERYDAY_TOOLS
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.mcp_server import in_process_server
from zoea_tui.sim.serve import HttpWorldServer


def _payload(result) -> dict:
    return json.loads(result.content[0].text)


async def _register(client: Client, name: str) -> dict:
    result = await client.call_tool("register", {"username": name, "empire": "solarian"})
    assert not result.is_error, result.content[0].text
    return _payload(result)


async def _act(client: Client, tool: str, args: dict | None = None) -> dict:
    """Call an action: on a real clock the world answers it once its tick has resolved."""
    result = await client.call_tool(tool, args or {})
    assert not result.is_error, result.content[0].text
    return _payload(result)


async def _until(condition) -> None:
    """Let the loop run until ``condition()`` holds (bounded, never timed)."""
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the condition never held")


async def test_tools_listed_with_the_real_games_names_and_optional_session_id(host) -> None:
    async with Client(in_process_server(host), mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    for name in EVERYDAY_TOOLS:
        assert name in tools, name
    assert "target_poi" in tools["travel"].input_schema["properties"]
    assert "target_system" in tools["jump"].input_schema["properties"]
    status = tools["get_status"].input_schema
    assert "session_id" in status["properties"]
    assert "session_id" not in status.get("required", [])


async def test_two_concurrent_http_sessions_keep_separate_logins(http_world) -> None:
    async with (
        Client(http_world.url, mode="legacy") as a,
        Client(http_world.url, mode="legacy") as b,
    ):
        await asyncio.gather(_register(a, "alpha"), _register(b, "bravo"))
        sa, sb = await asyncio.gather(a.call_tool("get_status", {}), b.call_tool("get_status", {}))
    assert _payload(sa)["player"]["username"] == "alpha"
    assert _payload(sb)["player"]["username"] == "bravo"


async def test_login_binds_to_the_mcp_session_and_session_id_names_it_there_only(
    http_world,
) -> None:
    async with Client(http_world.url, mode="legacy") as a:
        reg = await _register(a, "alpha")
    async with (
        Client(http_world.url, mode="legacy") as b,
        Client(http_world.url, mode="legacy") as c,
    ):
        before = await b.call_tool("get_status", {})
        assert before.is_error
        assert _payload(before)["error"]["code"] == "not_authenticated"
        login = _payload(
            await b.call_tool("login", {"username": "alpha", "password": reg["password"]})
        )
        bound = await b.call_tool("get_status", {})
        assert _payload(bound)["player"]["username"] == "alpha"
        explicit = await b.call_tool("get_status", {"session_id": login["session_id"]})
        assert _payload(explicit)["player"]["username"] == "alpha"
        # Another connection naming it acts as no one (issue 42: a session id seen in a
        # log must not let anyone else play that pilot): the unknown session's refusal.
        stolen = await c.call_tool("get_status", {"session_id": login["session_id"]})
        assert stolen.is_error and _payload(stolen)["error"]["code"] == "session_invalid"
        bogus = await c.call_tool("get_status", {"session_id": "nope"})
        assert bogus.is_error and _payload(bogus)["error"]["code"] == "session_invalid"


async def test_a_second_login_of_the_same_account_ends_the_first(http_world) -> None:
    async with Client(http_world.url, mode="legacy") as a:
        reg = await _register(a, "alpha")
        async with Client(http_world.url, mode="legacy") as b:
            await b.call_tool("login", {"username": "alpha", "password": reg["password"]})
            kicked = await a.call_tool("get_status", {})
            assert kicked.is_error
            assert _payload(kicked)["error"]["code"] == "session_invalid"
            assert not (await b.call_tool("get_status", {})).is_error


async def test_game_errors_are_is_error_results_with_code_and_message(host) -> None:
    """A tour of refusals through the MCP path: each one typed, none a protocol error."""
    seen: dict[str, dict] = {}

    async def expect(client: Client, code: str, tool: str, args: dict) -> None:
        result = await client.call_tool(tool, args)
        assert result.is_error, (tool, result.content[0].text)
        error = _payload(result)["error"]
        assert error["code"] == code, (tool, error)
        assert isinstance(error["message"], str) and error["message"]
        seen[code] = error

    # A real clock that the test moves itself: an action waits until it is advanced.
    timed = WorldHost(host.world, tick_seconds=3600)
    async with Client(in_process_server(timed), mode="legacy") as client:
        await expect(client, "not_authenticated", "get_status", {})
        await expect(client, "unknown_command", "warp_drive", {})
        await expect(client, "invalid_empire", "register", {"username": "zed", "empire": "klingon"})
        await _register(client, "zed")
        await expect(client, "invalid_payload", "travel", {"destination": "main_belt"})
        await expect(client, "empty_entry", "captains_log_add", {"entry": "   "})
        await expect(client, "invalid_poi", "travel", {"target_poi": "nowhere"})
        undock = asyncio.create_task(client.call_tool("undock", {}))
        await _until(lambda: not timed.world.players["zed"].docked)  # done, awaiting its tick
        await expect(client, "action_pending", "dock", {})  # the second while one waits
        assert seen["action_pending"]["wait_seconds"] > 0  # the host's hint for clients
        timed.advance(1)
        assert not (await undock).is_error
        await expect(client, "session_invalid", "get_status", {"session_id": "0" * 32})
    assert {
        "not_authenticated",
        "unknown_command",
        "invalid_payload",
        "empty_entry",
        "action_pending",
        "session_invalid",
    } <= set(seen)


async def test_over_mcp_two_pilots_act_in_one_tick_and_one_pilot_only_once(host) -> None:
    """On a real clock (moved here by the test) each action is answered when its tick
    resolves; a pilot's second action meanwhile is action_pending, another pilot's is not."""
    timed = WorldHost(host.world, tick_seconds=3600)
    async with (
        Client(in_process_server(timed), mode="legacy") as a,
        Client(in_process_server(timed), mode="legacy") as b,
    ):
        await _register(a, "alpha")
        await _register(b, "bravo")
        start = timed.current_tick
        moves = [asyncio.create_task(c.call_tool("undock", {})) for c in (a, b)]
        await _until(lambda: not any(p.docked for p in timed.world.players.values()))
        again = await a.call_tool("dock", {})
        assert again.is_error and _payload(again)["error"]["code"] == "action_pending"
        timed.advance(1)
        answers = [_payload(r) for r in await asyncio.gather(*moves)]
    assert [r["action"] for r in answers] == ["undocked", "undocked"]
    assert {r["current_tick"] for r in answers} == {start + 1}


async def test_travel_blocks_until_arrival(host) -> None:
    async with Client(in_process_server(host), mode="legacy") as client:
        await _register(client, "traveler")
        await client.call_tool("undock", {})
        trip = _payload(await client.call_tool("travel", {"target_poi": "main_belt"}))
        assert trip["arrived"] is True
        assert trip["current_tick"] >= trip["arrival_tick"]
        status = _payload(await client.call_tool("get_status", {}))
    assert status["player"]["current_poi"] == "main_belt"


async def test_world_state_saves_and_restores(tmp_path: Path) -> None:
    path = tmp_path / "world.json"
    first = WorldHost.open(seed=3, tick_seconds=0, state_path=path)
    async with Client(in_process_server(first), mode="legacy") as client:
        reg = await _register(client, "keeper")
    await first.stop()
    again = WorldHost.open(seed=99, tick_seconds=0, state_path=path)
    async with Client(in_process_server(again), mode="legacy") as client:
        login = await client.call_tool("login", {"username": "keeper", "password": reg["password"]})
    assert not login.is_error
    assert again.world.seed == 3


async def test_the_world_clock_moves_ships_in_real_time() -> None:
    host = WorldHost.open(seed=1, tick_seconds=0.02)
    async with host, HttpWorldServer(host) as server, Client(server.url, mode="legacy") as client:
        await _register(client, "swift")
        await _act(client, "undock")
        start = host.current_tick
        trip = await _act(client, "travel", {"target_poi": "main_belt"})
    assert trip["arrived"] and host.current_tick >= trip["arrival_tick"] > start


def test_zoea_sim_serve_is_driven_by_the_sdk_client(tmp_path: Path) -> None:
    """`zoea sim serve` in its own process; the official client plays against it."""
    state = tmp_path / "world.json"
    proc = subprocess.Popen(
        [
            *(*ZOEA, "sim", "serve", "--port", "0", "--seed", "5"),
            *("--tick-seconds", "0.05", "--state", str(state)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        assert url, line + proc.stderr.read() if proc.poll() is not None else line

        async def play() -> dict:
            async with Client(url.group(1), mode="legacy", read_timeout_seconds=60) as c:
                await _register(c, "remote")
                await _act(c, "undock")
                await _act(c, "travel", {"target_poi": "main_belt"})
                await _act(c, "mine")
                return _payload(await c.call_tool("get_cargo", {}))

        cargo = asyncio.run(play())
        assert cargo["used"] > 0
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "world saved" in out
    assert json.loads(state.read_text())["seed"] == 5

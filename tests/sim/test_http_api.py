"""SpaceMolt's HTTP API on the embedded world, over real HTTP on loopback.

Most tests run the world on the simulated clock (nothing waits); the tests of actions
held to their tick run it on a clock that ticks only when the test says so.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client

from tests.fakes.spacemolt_client import SpaceMoltClient
from zoea_tui.cli import main
from zoea_tui.sim import World
from zoea_tui.sim.api_sessions import ApiSettings, iso_utc
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.http_api import command_path
from zoea_tui.sim.serve import HttpWorldServer
from zoea_tui.sim.tools import TOOL_SPECS

from .conftest import sim_serve, until

TOKEN = "test-admin-token"
TTL = 1800.0


class FakeClock:
    """Wall-clock seconds that move only when a test moves them."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _settings(clock: FakeClock) -> ApiSettings:
    ids = itertools.count(1)
    return ApiSettings(TOKEN, clock=clock, new_id=lambda: f"sess{next(ids):04d}", session_ttl=TTL)


@pytest.fixture
def host() -> WorldHost:
    return WorldHost(World(seed=42), tick_seconds=0)


@pytest.fixture
async def server(host: WorldHost, clock: FakeClock) -> AsyncIterator[HttpWorldServer]:
    async with HttpWorldServer(host, api=_settings(clock)) as served:
        yield served


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=30) as client:
        yield client


@pytest.fixture
def make_client(server: HttpWorldServer, http: httpx.AsyncClient) -> Callable[..., SpaceMoltClient]:
    def make(version: str = "v2") -> SpaceMoltClient:
        return SpaceMoltClient(f"{server.base_url}/api/{version}", http)

    return make


async def registered(client: SpaceMoltClient, name: str) -> dict[str, Any]:
    answer = await client.execute(
        "spacemolt_auth/register", {"username": name, "empire": "solarian"}
    )
    assert answer.status == 200, answer.body
    client.credentials = (name, answer.data["password"])
    return answer.data


def refusal(answer: httpx.Response) -> tuple[int, str]:
    """A refused call as the API says it: its HTTP status and its error code."""
    return answer.status_code, answer.json()["error"]["code"]


async def opened_session(server: HttpWorldServer, http: httpx.AsyncClient) -> str:
    """The id of a session opened afresh (no player logged in)."""
    answer = await http.post(f"{server.api_url}/session")
    session_id: str = answer.json()["session"]["id"]
    return session_id


async def sent(
    server: HttpWorldServer, http: httpx.AsyncClient, command: str, session_id: str
) -> httpx.Response:
    """The HTTP answer to ``command`` (no arguments) sent in the session ``session_id``."""
    return await http.post(
        f"{server.api_url}/spacemolt/{command}", headers={"X-Session-Id": session_id}
    )


# -- sessions ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v2", "v1"])
async def test_a_session_is_opened_with_its_times(
    server: HttpWorldServer, http: httpx.AsyncClient, clock: FakeClock, version: str
) -> None:
    response = await http.post(f"{server.base_url}/api/{version}/session")
    assert response.status_code == 200
    session = response.json()["session"]
    assert set(session) == {"id", "createdAt", "expiresAt"}
    created = datetime.fromisoformat(session["createdAt"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(session["expiresAt"].replace("Z", "+00:00"))
    assert created.timestamp() == clock.now
    assert (expires - created).total_seconds() == TTL


async def test_a_call_without_a_live_session_is_401(
    server: HttpWorldServer, http: httpx.AsyncClient
) -> None:
    missing = await http.post(f"{server.api_url}/spacemolt/get_status")
    unknown = await sent(server, http, "get_status", "never-opened")
    assert refusal(missing) == (401, "session_required")
    assert unknown.status_code == 401
    assert unknown.json()["error"] == {
        "code": "session_invalid",
        "message": "Unauthorized — session lost",
    }


async def test_each_request_moves_the_sessions_end(
    make_client: Callable[..., SpaceMoltClient], clock: FakeClock
) -> None:
    client = make_client()
    await registered(client, "Ada")
    assert client.session is not None
    first_end = client.session["expiresAt"]
    clock.now += TTL - 1  # just inside: the request keeps the session alive
    answer = await client.execute("spacemolt/get_status")
    assert answer.status == 200
    assert client.session["expiresAt"] > first_end
    assert client.sessions_opened == 1


async def test_after_expiry_the_client_opens_a_session_and_logs_in_again(
    make_client: Callable[..., SpaceMoltClient], server: HttpWorldServer, clock: FakeClock
) -> None:
    client = make_client()
    await registered(client, "Ada")
    clock.now += TTL + 1
    answer = await client.execute("spacemolt/get_status")
    assert answer.status == 200, answer.body
    assert answer.data["player"]["username"] == "Ada"
    assert (client.sessions_opened, client.logins) == (2, 1)


async def test_an_expired_session_is_refused_as_expired(
    server: HttpWorldServer, http: httpx.AsyncClient, clock: FakeClock
) -> None:
    sid = await opened_session(server, http)
    clock.now += TTL
    assert refusal(await sent(server, http, "get_status", sid)) == (401, "session_expired")


async def test_a_login_elsewhere_loses_this_session_and_the_client_heals_it(
    make_client: Callable[..., SpaceMoltClient],
) -> None:
    first, second = make_client(), make_client()
    await registered(first, "Ada")
    second.credentials = first.credentials
    assert (await second.execute("spacemolt/get_status")).status == 200  # logs in: kicks first
    healed = await first.execute("spacemolt/get_status")
    assert healed.status == 200 and healed.data["player"]["username"] == "Ada"
    assert first.logins == 1


async def test_the_session_names_the_player_once_logged_in(
    make_client: Callable[..., SpaceMoltClient],
) -> None:
    client = make_client()
    before = await client.execute("spacemolt/get_version")
    data = await registered(client, "Ada")
    after = await client.execute("spacemolt/get_version")
    assert "playerId" not in before.body["session"]
    assert after.body["session"]["playerId"] == data["player_id"]


# -- commands and groups -------------------------------------------------------------------


def _one_query_per_group() -> dict[str, str]:
    chosen: dict[str, str] = {}
    for spec in TOOL_SPECS:
        if not spec.mutation and spec.api_group not in chosen and not spec.required:
            chosen[spec.api_group] = spec.name
    for spec in TOOL_SPECS:  # a group of one command with arguments (fleet's)
        chosen.setdefault(spec.api_group, spec.name)
    return chosen


async def test_every_group_answers_its_commands(
    make_client: Callable[..., SpaceMoltClient],
) -> None:
    groups = {spec.api_group for spec in TOOL_SPECS}
    assert {"spacemolt", "spacemolt_auth", "spacemolt_social"} <= groups
    client = make_client()
    await registered(client, "Ada")
    chosen = _one_query_per_group()
    chosen["spacemolt_auth"] = "logout"
    assert set(chosen) == groups
    for group, name in sorted(chosen.items(), key=lambda item: item[0] == "spacemolt_auth"):
        answer = await client.execute(f"{group}/{name}")
        assert answer.status in (200, 400), (group, name, answer.body)
        assert answer.error is None or answer.error["code"] != "unknown_command"


async def test_commanders_own_paths_are_served(
    make_client: Callable[..., SpaceMoltClient],
) -> None:
    """The paths SpaceMolt's client calls by name, under v2 and under v1 (SMBench's)."""
    for version in ("v2", "v1"):
        client = make_client(version)
        await registered(client, f"Pilot{version}")
        for command, args in (
            ("spacemolt/get_status", None),
            ("spacemolt/get_version", None),
            ("spacemolt_social/captains_log_add", {"entry": "Started."}),
            ("spacemolt_social/captains_log_get", {"index": 0}),
        ):
            answer = await client.execute(command, args)
            assert answer.status == 200, (version, command, answer.body)


async def test_v1_takes_flat_commands_and_answers_the_result_itself(
    make_client: Callable[..., SpaceMoltClient],
) -> None:
    v1, v2 = make_client("v1"), make_client("v2")
    await registered(v1, "Flat")
    await registered(v2, "Grouped")
    flat = await v1.execute("get_status")
    grouped = await v2.execute("spacemolt/get_status")
    assert flat.body["result"] == flat.data and flat.data["player"]["username"] == "Flat"
    assert isinstance(grouped.body["result"], str)
    assert json.loads(grouped.body["result"]) == grouped.data


async def test_a_command_under_another_group_is_404_naming_its_group(
    make_client: Callable[..., SpaceMoltClient],
) -> None:
    client = make_client()
    await registered(client, "Ada")
    wrong = await client.execute("spacemolt_market/mine")
    unknown = await client.execute("spacemolt/agentLogs")
    assert wrong.status == 404 and wrong.error is not None
    assert wrong.error["code"] == "unknown_command" and "spacemolt/mine" in wrong.error["message"]
    assert unknown.status == 404 and unknown.error is not None
    assert unknown.error["message"].startswith("Unknown command: spacemolt/agentLogs.")


# -- errors ---------------------------------------------------------------------------------


async def test_refusals_have_the_real_shape_and_words(
    make_client: Callable[..., SpaceMoltClient], server: HttpWorldServer, http: httpx.AsyncClient
) -> None:
    client = make_client()
    await registered(client, "Ada")
    wrong_name = await client.execute("spacemolt/travel", {"destination": "main_belt"})
    assert wrong_name.status == 400
    assert wrong_name.body["error"] == {
        "code": "invalid_payload",
        "message": "Unknown parameter(s): [destination]. Requires 'target_poi'. "
        'Example: {"target_poi": "main_belt"}',
    }
    assert set(wrong_name.body) == {"error", "notifications", "session"}
    empty = await client.execute("spacemolt_social/captains_log_add", {"entry": " "})
    assert empty.error is not None and empty.error["code"] == "empty_entry"
    assert client.session is not None
    as_string = await http.post(
        f"{server.api_url}/spacemolt/undock",
        headers={"X-Session-Id": client.session["id"]},
        content=json.dumps("{}"),
    )
    assert as_string.status_code == 400
    assert as_string.json()["error"] == {
        "code": "invalid_json",
        "message": "Invalid JSON in request body",
    }


async def test_a_command_before_login_is_401_not_authenticated(
    server: HttpWorldServer, http: httpx.AsyncClient
) -> None:
    sid = await opened_session(server, http)
    assert refusal(await sent(server, http, "mine", sid)) == (401, "not_authenticated")


# -- notifications ----------------------------------------------------------------------------


async def test_pending_notifications_ride_on_the_next_answer_once(
    make_client: Callable[..., SpaceMoltClient],
) -> None:
    ada, bob = make_client(), make_client()
    await registered(ada, "Ada")
    await registered(bob, "Bob")
    await ada.execute("spacemolt/get_version")  # whatever was pending before the chat
    said = await bob.execute("spacemolt_social/chat", {"channel": "local", "content": "o7"})
    assert said.status == 200
    refused = await ada.execute("spacemolt/travel", {"destination": "x"})  # an error too
    chats = [n for n in refused.notifications if n["msg_type"] == "chat_message"]
    assert [n["data"]["content"] for n in chats] == ["o7"]
    assert chats[0]["data"]["sender"] == "Bob"
    again = await ada.execute("spacemolt/get_status")
    assert [n for n in again.notifications if n["msg_type"] == "chat_message"] == []


async def test_the_registration_answer_brings_the_welcome_tip(
    make_client: Callable[..., SpaceMoltClient],
) -> None:
    client = make_client()
    answer = await client.execute(
        "spacemolt_auth/register", {"username": "Tipped", "empire": "solarian"}
    )
    assert [n["type"] for n in answer.notifications] == ["tip"]


# -- the catalogue as OpenAPI -----------------------------------------------------------------


@pytest.mark.parametrize("version", ["v2", "v1"])
async def test_openapi_lists_every_command_with_summary_and_mutation_flag(
    server: HttpWorldServer, http: httpx.AsyncClient, version: str
) -> None:
    response = await http.get(f"{server.base_url}/api/{version}/openapi.json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    assert f"/api/{version}/session" in paths
    for spec in TOOL_SPECS:
        operation = paths[command_path(spec, version)]["post"]
        assert operation["summary"] and operation["x-is-mutation"] is spec.mutation
    assert len(paths) == len(TOOL_SPECS) + 1
    assert paths[f"/api/{version}/" + ("spacemolt/mine" if version == "v2" else "mine")]["post"][
        "x-is-mutation"
    ]


async def test_healthz(server: HttpWorldServer, http: httpx.AsyncClient, host: WorldHost) -> None:
    answer = await http.get(f"{server.base_url}/healthz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok", "tick": host.current_tick, "players": 0}


# -- MCP beside it ------------------------------------------------------------------------------


async def test_mcp_and_the_http_api_share_one_world(
    server: HttpWorldServer, make_client: Callable[..., SpaceMoltClient]
) -> None:
    async with Client(server.url, mode="legacy") as mcp_client:
        made = await mcp_client.call_tool("register", {"username": "Both", "empire": "solarian"})
        password = json.loads(made.content[0].text)["password"]
    client = make_client()
    client.credentials = ("Both", password)
    status = await client.execute("spacemolt/get_status")
    assert status.status == 200 and status.data["player"]["username"] == "Both"


# -- actions held to their tick -------------------------------------------------------------------


@pytest.fixture
async def held() -> AsyncIterator[tuple[WorldHost, HttpWorldServer]]:
    """A world whose clock ticks only when the test calls ``host.advance``."""
    host = WorldHost(World(seed=42), tick_seconds=3600)
    async with HttpWorldServer(host, api=_settings(FakeClock())) as served:
        yield host, served


async def test_a_second_action_in_the_same_tick_waits_or_is_refused_only_while_one_waits(
    held: tuple[WorldHost, HttpWorldServer], http: httpx.AsyncClient
) -> None:
    host, served = held
    client = SpaceMoltClient(served.api_url, http)
    await registered(client, "Ada")
    start = host.current_tick
    undock = asyncio.create_task(client.execute("spacemolt/undock"))
    await until(lambda: not host.world.players["Ada"].docked)
    second = await client.execute("spacemolt/dock")
    assert second.status == 400 and second.error is not None
    assert second.error["code"] == "action_pending"
    assert second.error["wait_seconds"] == 3600
    assert not undock.done()
    host.advance(1)
    first = await undock
    assert first.status == 200 and first.data["current_tick"] == start + 1
    dock = asyncio.create_task(client.execute("spacemolt/dock"))
    await until(lambda: host.world.players["Ada"].docked)
    host.advance(1)
    assert (await dock).data["current_tick"] == start + 2


async def test_two_players_act_in_the_same_tick(
    held: tuple[WorldHost, HttpWorldServer], http: httpx.AsyncClient
) -> None:
    host, served = held
    ada, bob = SpaceMoltClient(served.api_url, http), SpaceMoltClient(served.api_url, http)
    await registered(ada, "Ada")
    await registered(bob, "Bob")
    start = host.current_tick
    moves = [asyncio.create_task(c.execute("spacemolt/undock")) for c in (ada, bob)]
    await until(lambda: not any(p.docked for p in host.world.players.values()))
    host.advance(1)
    answers = await asyncio.gather(*moves)
    assert [a.status for a in answers] == [200, 200]
    assert {a.data["current_tick"] for a in answers} == {start + 1}


# -- SMBench's admin endpoints ------------------------------------------------------------------


async def test_admin_endpoints_need_the_token(
    server: HttpWorldServer, http: httpx.AsyncClient
) -> None:
    base = f"{server.base_url}/api/admin/benchmark"
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        assert (await http.get(f"{base}/event-log", headers=headers)).status_code == 401
        assert (await http.post(f"{base}/reset", headers=headers)).status_code == 401
    ok = await http.get(f"{base}/event-log", headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and ok.json() == []


async def test_player_stats_have_what_smbenchs_scorer_reads(
    server: HttpWorldServer, http: httpx.AsyncClient, make_client: Callable[..., SpaceMoltClient]
) -> None:
    client = make_client()
    data = await registered(client, "Ada")
    admin = {"Authorization": f"Bearer {TOKEN}"}
    url = f"{server.base_url}/api/admin/benchmark/player-stats"
    by_name = (await http.get(url, params={"player_id": "Ada"}, headers=admin)).json()
    by_id = (await http.get(url, params={"player_id": data["player_id"]}, headers=admin)).json()
    by_run = (await http.get(url, params={"player_id": "bench-x-s1-r1"}, headers=admin)).json()
    assert by_name["matched_by"] == "username" and by_id["matched_by"] == "id"
    assert by_run["matched_by"] == "latest" and by_run["username"] == "Ada"
    for stats in (by_name, by_id, by_run):
        assert stats["credits"] == data["player"]["credits"]
        for key in ("credits_earned", "systems_explored", "pirates_destroyed"):
            assert stats["stats"][key] == 0


async def test_player_stats_of_an_empty_world_are_404(
    server: HttpWorldServer, http: httpx.AsyncClient
) -> None:
    answer = await http.get(
        f"{server.base_url}/api/admin/benchmark/player-stats",
        params={"player_id": "anyone"},
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert refusal(answer) == (404, "player_not_found")


async def test_reset_starts_a_new_world_and_ends_every_session(
    server: HttpWorldServer,
    http: httpx.AsyncClient,
    host: WorldHost,
    make_client: Callable[..., SpaceMoltClient],
) -> None:
    client = make_client()
    await registered(client, "Ada")
    admin = {"Authorization": f"Bearer {TOKEN}"}
    base = f"{server.base_url}/api/admin/benchmark"
    log = (await http.get(f"{base}/event-log", headers=admin)).json()
    assert [e["command"] for e in log] == ["register"] and log[0]["username"] == "Ada"
    reset = await http.post(f"{base}/reset", headers=admin)
    assert reset.status_code == 200
    assert reset.json() == {"ok": True, "seed": 42, "tick": 1}
    assert host.world.players == {}
    assert client.session is not None
    lost = await sent(server, http, "get_status", client.session["id"])
    assert lost.status_code == 401
    assert (await http.get(f"{base}/event-log", headers=admin)).json() == []
    reseeded = await http.post(f"{base}/reset", headers=admin, json={"seed": 7})
    assert reseeded.json()["seed"] == 7 and host.world.seed == 7
    bad = await http.post(f"{base}/reset", headers=admin, json={"seed": "x"})
    assert bad.status_code == 400 and host.world.seed == 7


# -- zoea sim serve -----------------------------------------------------------------------------


def test_zoea_sim_serve_prints_and_serves_the_http_api_and_the_admin_token() -> None:
    """What a user points SpaceMolt's client and SMBench at, in its own process."""
    with sim_serve("s3cret") as run:
        lines = run.lines
        found = re.search(r"HTTP API \(SpaceMolt's client: --url\): (http://\S+/api/v2)", lines[1])
        smbench = re.search(r"server\.url: (http://\S+)\s+admin_token: (\S+)", lines[2])
        assert found and smbench, "".join(lines)
        api, root, token = found.group(1), smbench.group(1), smbench.group(2)
        assert token == "s3cret" and api == f"{root}/api/v2"
        with httpx.Client(timeout=30) as http:
            assert http.get(f"{root}/healthz").json()["status"] == "ok"
            sid = http.post(f"{api}/session").json()["session"]["id"]
            made = http.post(
                f"{api}/spacemolt_auth/register",
                headers={"X-Session-Id": sid},
                json={"username": "Remote", "empire": "solarian"},
            )
            assert made.status_code == 200, made.text
            undocked = http.post(f"{api}/spacemolt/undock", headers={"X-Session-Id": sid})
            assert undocked.json()["structuredContent"]["action"] == "undocked"
            stats = http.get(
                f"{root}/api/admin/benchmark/player-stats",
                params={"player_id": "Remote"},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert stats.json()["username"] == "Remote"
    assert run.returncode == 0, run.stderr


@given(st.floats(min_value=-30_000_000_000, max_value=253_000_000_000, allow_nan=False))
def test_session_times_are_iso_8601_utc_as_datetime_writes_them(seconds: float) -> None:
    """The world's package reads no clock, so it turns seconds into dates by itself."""
    millis = round(seconds * 1000)
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=millis)
    expected = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    assert iso_utc(seconds) == expected


def _served_world(root_api: str) -> tuple[int, int]:
    """(systems on the map, starting credits) of a new Solarian pilot of a served world."""
    with httpx.Client(timeout=30) as http:
        sid = http.post(f"{root_api}/session").json()["session"]["id"]
        made = http.post(
            f"{root_api}/spacemolt_auth/register",
            headers={"X-Session-Id": sid},
            json={"username": "Surveyor", "empire": "solarian"},
        )
        assert made.status_code == 200, made.text
        charted = http.post(f"{root_api}/spacemolt/get_map", headers={"X-Session-Id": sid})
        systems = charted.json()["structuredContent"]["systems"]
        return len(systems), made.json()["structuredContent"]["player"]["credits"]


@pytest.mark.parametrize(
    ("flags", "name", "systems", "credits"),
    [
        ((), "smbench", 19, 100),
        (("--world", "smbench"), "smbench", 19, 100),
        (("--world", "classic"), "classic", 8, 150),
    ],
)
def test_zoea_sim_serve_serves_the_world_asked_for(
    flags: tuple[str, ...], name: str, systems: int, credits: int
) -> None:
    """``--world smbench`` (the default: what SMBench offline needs) is the calibrated
    19-system world, 100 credits for every pilot; ``--world classic`` the app's 8 systems,
    a Solarian's 150. Said on the first line and seen over real HTTP."""
    with sim_serve(TOKEN, *flags) as run:
        assert f"SpaceMolt embedded world ({name}, seed 42," in run.lines[0], run.lines
        found = re.search(r"--url\): (http://\S+/api/v2)", run.lines[1])
        mcp = re.search(r"serving MCP at (http://\S+/mcp)", run.lines[0])
        assert found and mcp, run.lines
        assert _served_world(found.group(1)) == (systems, credits)
        assert {"battle", "fleet", "send_gift"} <= asyncio.run(_listed(mcp.group(1)))
    assert run.returncode == 0, run.stderr


async def _listed(url: str) -> set[str]:
    """The tools an MCP client is offered at ``url``: every command of commander's guide
    too, on a served world."""
    async with Client(url, mode="legacy") as client:
        return {t.name for t in (await client.list_tools()).tools}


def test_zoea_sim_serve_refuses_a_world_other_than_its_state_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A saved world goes on as it was made: ``--world`` naming another is one line, and
    the file is left as it was."""
    state = tmp_path / "world.json"
    state.write_text(json.dumps(World(3, world="classic").to_dict()))
    before = state.read_bytes()
    code = main(
        ["sim", "serve", "--tick-seconds", "0", "--state", str(state), "--world", "smbench"]
    )
    _, err = capsys.readouterr()
    assert code == 2
    assert err == (
        f"zoea sim: {state} holds a classic world, not smbench: leave out --world to go on "
        "with it, or give another --state for a new smbench world\n"
    )
    assert state.read_bytes() == before
    with pytest.raises(SystemExit) as refused:
        main(["sim", "serve", "--world", "tiny"])
    _, err = capsys.readouterr()
    assert refused.value.code == 2
    assert err == (
        "zoea sim serve: argument --world: invalid choice: 'tiny' "
        "(choose from 'smbench', 'classic')\n"
    )

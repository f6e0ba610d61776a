"""A served world's secrets: ``zoea sim serve`` over real HTTP on loopback.

Passwords and session ids come from ``secrets`` (two runs of one seed, and a world
reset by SMBench, hand out different ones) while the world's play stays the seed's (the
same ship ids: the seeded generator draws as before); a session id acts only on the
connection that logged in; ``/api`` bodies are capped as ``/mcp``'s are (413 beyond).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from mcp import Client

from zoea_tui.sim import World
from zoea_tui.sim.http_api import MAX_BODY_BYTES

from .conftest import sim_serve

TOKEN = "s3cret"


@dataclass
class Served:
    """A ``zoea sim serve`` process: its root URL and its HTTP API's base."""

    root: str
    api: str

    def register(self, http: httpx.Client, name: str) -> tuple[str, dict[str, object]]:
        """A new API session with a new pilot on it: (the API session id, the result)."""
        sid = http.post(f"{self.api}/session").json()["session"]["id"]
        made = http.post(
            f"{self.api}/spacemolt_auth/register",
            headers={"X-Session-Id": sid},
            json={"username": name, "empire": "solarian"},
        )
        assert made.status_code == 200, made.text
        return sid, made.json()["structuredContent"]


@contextlib.contextmanager
def serving() -> Iterator[Served]:
    """``zoea sim serve --seed 42`` on a free loopback port, stopped at the end."""
    with sim_serve(TOKEN) as run:
        found = re.search(r"server\.url: (http://\S+)\s", run.lines[2])
        assert found, "".join(run.lines)
        root = found.group(1)
        yield Served(root, f"{root}/api/v2")


@pytest.fixture
def serve() -> Iterator[Served]:
    with serving() as served:
        yield served


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30) as client:
        yield client


def test_two_runs_of_one_seed_hand_out_different_secrets_and_the_same_world(
    http: httpx.Client,
) -> None:
    runs = []
    for _ in range(2):
        with serving() as served:
            runs.append(served.register(http, "Ada")[1])
    first, second = runs
    assert first["password"] != second["password"]
    assert first["session_id"] != second["session_id"]
    assert re.fullmatch(r"[0-9a-f]{64}", str(first["password"]))
    assert re.fullmatch(r"[0-9a-f]{32}", str(first["session_id"]))
    # The play is the seed's: the ids drawn before and after the secrets are the same.
    assert first["player_id"] == second["player_id"]
    assert first["ship"] == second["ship"]


def test_the_seeded_world_draws_as_before_whoever_makes_the_secrets() -> None:
    """A world given a secret maker plays exactly as the seeded one: only the password
    and the session id differ (nothing else of the world's random stream shifts)."""
    made = itertools.count(1)
    seeded = World(seed=42)
    served = World(seed=42, secret=lambda n: f"{next(made):0{2 * n}x}")
    script = [
        ("a", "register", {"username": "Ada", "empire": "solarian"}),
        ("a", "undock", {}),
        ("b", "register", {"username": "Bob", "empire": "voidborn"}),
        ("a", "get_status", {}),
        ("b", "login", {"username": "Ada", "password": None}),
    ]
    passwords: dict[int, str] = {}
    for key, tool, args in script:
        if tool == "login":  # each world's own password for Ada
            one = seeded.call(key, tool, {**args, "password": passwords[0]})
            two = served.call(key, tool, {**args, "password": passwords[1]})
        else:
            one, two = seeded.call(key, tool, args), served.call(key, tool, args)
        if tool == "register" and args["username"] == "Ada":
            passwords = {0: one["password"], 1: two["password"]}
        for secret in ("password", "session_id"):
            if secret in one:
                assert len(two[secret]) == len(one[secret]) and two[secret] != one[secret]
                one.pop(secret), two.pop(secret)
        assert one == two
    assert seeded.rng.getstate() == served.rng.getstate()


def test_a_reset_world_hands_out_new_secrets(serve: Served, http: httpx.Client) -> None:
    """After an SMBench reset the first player on seed 42 always got the same password."""
    admin = {"Authorization": f"Bearer {TOKEN}"}
    passwords = []
    for _ in range(2):
        reset = http.post(f"{serve.root}/api/admin/benchmark/reset", headers=admin)
        assert reset.status_code == 200, reset.text
        passwords.append(serve.register(http, "Ada")[1]["password"])
    assert passwords[0] != passwords[1]


def test_a_session_id_acts_only_on_the_api_session_that_logged_in(
    serve: Served, http: httpx.Client
) -> None:
    mine, made = serve.register(http, "Ada")
    game_session = made["session_id"]
    other = http.post(f"{serve.api}/session").json()["session"]["id"]
    stolen = http.post(
        f"{serve.api}/spacemolt/get_status",
        headers={"X-Session-Id": other},
        json={"session_id": game_session},
    )
    assert stolen.status_code == 401
    assert stolen.json()["error"] == {
        "code": "session_invalid",
        "message": "Unauthorized — session lost",
    }
    own = http.post(
        f"{serve.api}/spacemolt/get_status",
        headers={"X-Session-Id": mine},
        json={"session_id": game_session},
    )
    assert own.status_code == 200 and own.json()["structuredContent"]["player"]["username"] == "Ada"


async def test_a_session_id_acts_only_on_the_mcp_session_that_logged_in(serve: Served) -> None:
    async with Client(f"{serve.root}/mcp", mode="legacy") as first:
        made = await first.call_tool("register", {"username": "Ada", "empire": "solarian"})
        game_session = json.loads(made.content[0].text)["session_id"]
        async with Client(f"{serve.root}/mcp", mode="legacy") as second:
            stolen = await second.call_tool("get_status", {"session_id": game_session})
            assert stolen.is_error
            assert json.loads(stolen.content[0].text)["error"]["code"] == "session_invalid"
        own = await first.call_tool("get_status", {"session_id": game_session})
        assert not own.is_error


@pytest.mark.parametrize(
    "path",
    ["/api/v2/spacemolt/get_status", "/api/v2/session", "/api/admin/benchmark/reset", "/mcp"],
)
def test_a_body_beyond_the_mcp_cap_is_413_on_every_route(
    serve: Served, http: httpx.Client, path: str
) -> None:
    """/api had no limit: a 64 MB body took the server from 100 to 217 MB."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    big = http.post(f"{serve.root}{path}", content=b" " * (MAX_BODY_BYTES + 1), headers=headers)
    assert (big.status_code, big.text) == (413, "Request body too large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it comes
        for _ in range(MAX_BODY_BYTES // 65536 + 1):
            yield b" " * 65536

    streamed = http.post(f"{serve.root}{path}", content=chunks(), headers=headers)
    assert (streamed.status_code, streamed.text) == (413, "Request body too large")


def test_a_body_at_the_cap_is_read(serve: Served, http: httpx.Client) -> None:
    sid = http.post(f"{serve.api}/session").json()["session"]["id"]
    body = b"{}" + b" " * (MAX_BODY_BYTES - 2)
    answer = http.post(
        f"{serve.api}/spacemolt/get_status", headers={"X-Session-Id": sid}, content=body
    )
    assert answer.status_code == 401  # read and answered: not logged in yet
    assert answer.json()["error"]["code"] == "not_authenticated"

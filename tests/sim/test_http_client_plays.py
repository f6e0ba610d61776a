"""A client written from the protocol plays a mine-and-sell loop over the HTTP API.

The world runs on a real clock (short ticks), so every action is held to its tick as on
the real server; the "model" is a script that decides only from the answers it is shown.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.fakes.spacemolt_client import Answer, SpaceMoltClient
from zoea_tui.sim import World
from zoea_tui.sim.api_sessions import ApiSettings
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.serve import HttpWorldServer, serving

TOKEN = "plays-token"


class ScriptedModel:
    """Plays as a model would from the answers alone: learn the system, then mine the
    nearest belt full, fly to the station, sell everything, and go again."""

    def __init__(self, client: SpaceMoltClient) -> None:
        self.client = client
        self.transcript: list[tuple[str, Answer]] = []

    async def do(self, command: str, args: dict[str, Any] | None = None) -> Answer:
        answer = await self.client.execute(command, args)
        self.transcript.append((command, answer))
        return answer

    async def play(self, trips: int) -> int:
        """Returns the credits the sales brought."""
        made = await self.do("spacemolt_auth/register", {"username": "Miner", "empire": "solarian"})
        assert made.error is None, made.shown()
        self.client.credentials = ("Miner", made.data["password"])
        pois = (await self.do("spacemolt/get_system")).data["system"]["pois"]
        belt = next(p["id"] for p in pois if p["type"] == "asteroid_belt")
        station = next(p["id"] for p in pois if p["has_base"])
        earned = 0
        for _ in range(trips):
            await self.do("spacemolt/undock")
            trip = await self.do("spacemolt/travel", {"target_poi": belt})
            assert trip.data.get("arrived") is True, trip.shown()
            while True:
                mined = await self.do("spacemolt/mine")
                if mined.error is not None:
                    assert mined.error["code"] in ("cargo_full", "no_cargo_space"), mined.shown()
                    break
            back = await self.do("spacemolt/travel", {"target_poi": station})
            assert back.data.get("arrived") is True, back.shown()
            assert (await self.do("spacemolt/dock")).error is None
            for item in (await self.do("spacemolt/get_cargo")).data["cargo"]:
                sale = await self.do(
                    "spacemolt/sell", {"item_id": item["item_id"], "quantity": item["quantity"]}
                )
                assert sale.error is None, sale.shown()
                earned += sale.data["total_earned"]
            await self.do("spacemolt_social/captains_log_add", {"entry": f"Sold; {earned} cr."})
        return earned


@pytest.fixture
async def world_server() -> AsyncIterator[HttpWorldServer]:
    host = WorldHost(World(seed=42), tick_seconds=0.02)
    ids = itertools.count(1)
    api = ApiSettings(TOKEN, clock=lambda: 1_800_000_000.0, new_id=lambda: f"s{next(ids)}")
    async with serving(host, api=api) as server:
        yield server


async def test_a_protocol_client_mines_and_sells_on_the_real_clock(
    world_server: HttpWorldServer,
) -> None:
    async with httpx.AsyncClient(timeout=60) as http:
        model = ScriptedModel(SpaceMoltClient(world_server.api_url, http))
        earned = await model.play(trips=2)
        stats = await http.get(
            f"{world_server.base_url}/api/admin/benchmark/player-stats",
            params={"player_id": "bench-run-name"},
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
    assert earned > 0
    assert stats.json()["stats"]["credits_earned"] == earned
    codes = [a.error["code"] for _, a in model.transcript if a.error is not None]
    assert "action_pending" not in codes  # held to its tick, never refused
    assert set(codes) <= {"cargo_full", "no_cargo_space"}
    mines = [a.data["current_tick"] for c, a in model.transcript if c.endswith("/mine") and a.data]
    assert len(mines) >= 2
    assert all(later > earlier for earlier, later in itertools.pairwise(mines))
    arrivals = [n for _, a in model.transcript for n in a.notifications]
    assert any(n.get("msg_type") == "arrived" for n in arrivals)  # delivered with answers

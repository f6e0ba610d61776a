"""Fixtures for the game connection: the embedded world in-process and over loopback HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from tests.fakes import RecordingSleep
from zoea_tui.game.connect import Connector, http_connector, in_process_connector
from zoea_tui.game.session import GameSession, RetryPolicy
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.mcp_server import in_process_server
from zoea_tui.sim.serve import HttpWorldServer

SEED = 7


@pytest.fixture
def host() -> WorldHost:
    """A world on the simulated clock: waits jump time forward, nothing sleeps."""
    return WorldHost.open(seed=SEED, tick_seconds=0)


@pytest.fixture
async def http_world(host: WorldHost) -> AsyncIterator[HttpWorldServer]:
    """The world served over Streamable HTTP on a free loopback port."""
    async with HttpWorldServer(host) as server:
        yield server


@pytest.fixture(params=["in-process", "http"])
async def connector_factory(
    request: pytest.FixtureRequest, host: WorldHost
) -> AsyncIterator[Callable[[], Connector]]:
    """Makes connectors to the same world, over the transport under test."""
    if request.param == "in-process":
        yield lambda: in_process_connector(lambda: in_process_server(host))
        return
    async with HttpWorldServer(host) as server:
        yield lambda: http_connector(server.url)


@pytest.fixture
async def make_session(
    connector_factory: Callable[[], Connector], sleep: RecordingSleep
) -> AsyncIterator[Callable[..., GameSession]]:
    """Opens game sessions to the world under test; closes them all afterwards."""
    sessions: list[GameSession] = []

    def make(name: str = "game", **kwargs) -> GameSession:
        kwargs.setdefault("policy", RetryPolicy())
        session = GameSession(connector_factory(), sleep=sleep, name=name, **kwargs)
        sessions.append(session)
        return session

    yield make
    for session in sessions:
        await session.aclose()

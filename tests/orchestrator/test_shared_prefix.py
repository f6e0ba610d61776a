"""One cached prefix for the whole swarm, over real loopback HTTP.

Two Myses with different names and accounts, on the same provider and strategy, send
requests whose system message and tools are byte for byte the same: a server's prompt
cache warmed by one serves the other. What is particular to each Mysis (its account,
its name) comes after them, in the state message that follows each turn's opening.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_servers import FakeOpenAIServer, Reply
from tests.helpers import open_on_world
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core import prompts
from zoea_tui.core.game_tool import GAME_TOOL, ToolsMode
from zoea_tui.orchestrator.clock import ManualClock

from .conftest import until

ACCOUNTS = {"Vega": "vega_pilot", "Orion": "orion_pilot"}


def _account_of(body: dict[str, Any]) -> str:
    """The account a request body's state message names."""
    states = [
        m["content"]
        for m in body["messages"]
        if m["role"] == "user" and m["content"].startswith(prompts.STATE_HEADER)
    ]
    assert states, body["messages"]
    (found,) = [a for a in ACCOUNTS.values() if f"Username: {a} " in states[-1]]
    return found


async def _two_myses(tmp_path: Path, tools: ToolsMode) -> list[dict[str, Any]]:
    """Every request body two Myses sent over two turns each (start, then an order)."""
    base = Config()
    server = FakeOpenAIServer()
    await server.start()
    server.default = Reply("Nothing to do.")
    providers = dict(base.providers)
    providers["cloud"] = ProviderConfig(
        name="cloud", type="openai", endpoint=server.url, model="m", tools=tools
    )
    config = replace(base, game=replace(base.game, tick_seconds=0), providers=providers)
    commander = await open_on_world(config, tmp_path, clock=ManualClock())
    try:
        for username in ACCOUNTS.values():  # the pool: each Mysis claims one at its start
            await commander.store.add_account(commander.backend.server, username, f"pw-{username}")
        views = [await commander.create_mysis(name, provider="cloud") for name in ACCOUNTS]
        await until(lambda: len(server.chat_requests) == 2)
        for view in views:
            await commander.send_message(view.id, "Report your status.")
        await until(lambda: len(server.chat_requests) == 4)
        return [r.json() for r in server.chat_requests]
    finally:
        await commander.shutdown(timeout=1)
        await server.aclose()


@pytest.mark.parametrize("tools", ["full", "compact"])
async def test_two_myses_share_the_system_message_and_the_tools_byte_for_byte(
    tmp_path: Path, tools: str
) -> None:
    bodies = await _two_myses(tmp_path, tools)
    names = [t["function"]["name"] for t in bodies[0]["tools"]]
    assert (names[-1] == GAME_TOOL) == (tools == "compact")
    assert sorted(_account_of(b) for b in bodies) == sorted([*ACCOUNTS.values()] * 2)
    systems = {json.dumps(b["messages"][0]) for b in bodies}
    tools = {json.dumps(b["tools"]) for b in bodies}
    assert len(systems) == 1 and len(tools) == 1
    shared = systems.pop() + tools.pop()
    for name, account in ACCOUNTS.items():
        assert name not in shared and account not in shared

"""A Mysis whose provider is configured ``tools = "compact"``: one ``game`` tool.

Its calls are stored as the model made them (``game``, ``{"command", "args"}``); every
part that reads a game tool's name reads the command: the stored result's tool name,
the activity line, the game-state cache, snapshot compaction.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from zoea_tui.config import Config
from zoea_tui.core.game_tool import GAME_TOOL, wrap
from zoea_tui.core.tokens import tools_tokens
from zoea_tui.core.types import ToolCall
from zoea_tui.orchestrator.events import MysisChanged
from zoea_tui.providers.base import ChatResponse

from .conftest import ScriptedModel, drain, until


@pytest.fixture
def config() -> Config:
    base = Config()
    providers = dict(base.providers)
    providers["autopilot"] = replace(providers["autopilot"], tools="compact")
    return replace(
        base,
        game=replace(base.game, tick_seconds=0),
        providers=providers,
    )


def _game(command: str, **args: object) -> tuple[str, str]:
    return GAME_TOOL, wrap(command, args)


def _answer(round_: int, *pairs: tuple[str, str]) -> ChatResponse:
    """An answer calling tools, with ids unique in the conversation."""
    return ChatResponse(
        tool_calls=tuple(ToolCall(f"r{round_}c{i}", n, a) for i, (n, a) in enumerate(pairs)),
        finish_reason="tool_calls",
    )


async def test_a_compact_mysis_is_offered_one_game_tool_and_its_calls_read_as_commands(
    open_commander,
) -> None:
    model = ScriptedModel(
        _answer(1, _game("register", username="Comp", empire="solarian")),
        _answer(2, _game("get_status")),
        _answer(3, _game("get_status"), ("get_cargo", "{}")),  # a direct call still runs
        default=ScriptedModel().default,
    )
    commander = await open_commander(models={"Comp": model}, starter_swarm=False)
    view = await commander.create_mysis("Comp", strategy="snapshot-compaction")
    await until(lambda: len(model.requests) == 4)
    tools = model.requests[0].tools
    names = [t["function"]["name"] for t in tools]
    assert names[-1] == GAME_TOOL and all(n.startswith("zoea_") for n in names[:-1])
    memories = await commander.memories(view.id)
    results = [m for m in memories if m.role == "tool"]
    assert [m.tool_name for m in results] == ["register", "get_status", "get_status", "get_cargo"]
    assert not any(m.content.startswith('{"error"') for m in results), results
    assert commander.mysis(view.id).account == "Comp"
    assert "get_status" in commander.game_state(view.id), "the cache keeps the command's name"
    # The older get_status result is superseded, as with full schemas: its call made no
    # other call, so both leave the request (seed 002: only the latest is sent).
    last = model.requests[-1].messages
    assert not any(m.get("tool_call_id") == results[1].tool_call_id for m in last)
    newer = next(m for m in last if m.get("tool_call_id") == results[2].tool_call_id)
    assert newer["content"] == results[2].content
    # The composer counts the compact tools, a fraction of the full schemas.
    composition = await commander.preview(view.id)
    assert composition.tokens > tools_tokens(list(tools))
    runtime = commander._myses[view.id]
    assert runtime.tools_tokens == tools_tokens(list(tools))
    full = await runtime.router.tool_schemas("full")
    assert tools_tokens(list(tools)) < 0.3 * tools_tokens(full)


async def test_a_compact_call_s_activity_and_line_name_the_command(open_commander) -> None:
    model = ScriptedModel(_answer(1, _game("travel", target_poi="main_belt")))
    commander = await open_commander(models={"Trav": model}, starter_swarm=False)
    sub = commander.bus.subscribe()
    view = await commander.create_mysis("Trav")
    await until(lambda: len(model.requests) >= 2)
    changes = [e for e in drain(sub) if isinstance(e, MysisChanged)]
    assert any(e.reason == "tool" and e.mysis.activity == "traveling" for e in changes)
    assert any(e.reason == "answered" and e.mysis.last_line == "→ travel" for e in changes)
    stored = [m for m in await commander.memories(view.id) if m.role == "tool"]
    assert [m.tool_name for m in stored] == ["travel"]

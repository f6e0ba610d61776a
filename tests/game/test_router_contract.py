"""What the router shows a model, exactly: the tool schemas it sends and the words of
its refusals (each found missing by mutation testing, docs/MUTATION.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zoea_tui.core.types import ToolCall
from zoea_tui.game.errors import GameToolError
from zoea_tui.game.router import ORCHESTRATOR_TOOLS, ToolRouter
from zoea_tui.game.session import ToolInfo
from zoea_tui.storage import Store

SERVER = "embedded"
SCHEMA = {"type": "object", "properties": {"target": {"type": "string"}}}


class ListedGame:
    """A game that lists the given tools and is never called."""

    relogin = None

    def __init__(self, *tools: ToolInfo) -> None:
        self.tools = list(tools)

    async def list_tools(self) -> list[ToolInfo]:
        return self.tools

    async def call(self, name: str, args: dict) -> Any:
        raise AssertionError(f"the game was called: {name}")


async def _router(store: Store, *tools: ToolInfo) -> ToolRouter:
    mysis = await store.create_mysis("nova")
    return ToolRouter(store, mysis.id, ListedGame(*tools), server=SERVER)  # type: ignore[arg-type]


def _tool(name: str, schema: dict[str, Any] | None = None) -> ToolInfo:
    return ToolInfo(name, f"{name} does things.", schema)  # type: ignore[arg-type]


async def test_every_tool_is_an_openai_function_with_its_description(store: Store) -> None:
    router = await _router(store, _tool("mine", SCHEMA))
    tools = await router.tool_schemas()
    assert all(set(t) == {"type", "function"} and t["type"] == "function" for t in tools)
    for tool, ours in zip(tools, ORCHESTRATOR_TOOLS, strict=False):
        assert tool["function"] == {
            "name": ours["name"],
            "description": ours["description"],
            "parameters": ours["parameters"],
        }
    assert tools[-1]["function"] == {
        "name": "mine",
        "description": "mine does things.",
        "parameters": SCHEMA,
    }
    assert await router.tool_schemas("full") is tools, "full is the default"


async def test_a_game_tools_schema_is_completed_and_cleared_of_credentials(store: Store) -> None:
    router = await _router(
        store,
        _tool("dock"),  # no schema at all
        _tool("jump", {"properties": {"target": {"type": "string"}}}),  # no type
        _tool(
            "sell",
            {
                "type": "object",
                "properties": {"session_id": {"type": "string"}, "item": {"type": "string"}},
                "required": ["session_id", "item"],
            },
        ),
        _tool(
            "status",
            {
                "type": "object",
                "properties": {"session_id": {"type": "string"}},
                "required": ["session_id"],
            },
        ),
        _tool(
            "login",
            {
                "type": "object",
                "properties": {"username": {}, "password": {}},
                "required": ["username", "password"],
            },
        ),
    )
    game = {
        t["function"]["name"]: t["function"]
        for t in await router.tool_schemas()
        if not t["function"]["name"].startswith("zoea_")
    }
    assert game["dock"]["parameters"] == {"type": "object", "properties": {}}
    assert game["jump"]["parameters"] == {
        "properties": {"target": {"type": "string"}},
        "type": "object",
    }
    assert game["sell"]["parameters"] == {
        "type": "object",
        "properties": {"item": {"type": "string"}},
        "required": ["item"],
    }
    assert game["status"]["parameters"] == {"type": "object", "properties": {}}
    assert game["login"] == {
        "name": "login",
        "description": "Log in to your game account. Zoea Nova fills in the credentials: "
        "call it with no arguments.",
        "parameters": {"type": "object", "properties": {}},
    }


def _refusal(content: str) -> tuple[str, str]:
    error = json.loads(content)["error"]
    assert set(error) == {"code", "message"}
    return error["code"], error["message"]


TAIL = " The game tool's description lists every command and its arguments."


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("sel", "'sel' is not a game command. Did you mean sell?" + TAIL),
        (
            "mine_or",
            "'mine_or' is not a game command. Did you mean mine_ort or mine_oro or mine_ore?"
            + TAIL,
        ),
        ("zzz", "'zzz' is not a game command." + TAIL),
        ("mîne_ïce", "'mîne_ïce' is not a game command. Did you mean mine_ore?" + TAIL),
        ("x" * 58, "'" + "x" * 58 + "' is not a game command." + TAIL),
        ("x" * 59, "'" + "x" * 56 + "... is not a game command." + TAIL),
    ],
    ids=["one", "three-of-four", "none", "non-ascii", "60-shown", "61-cut"],
)
async def test_an_unknown_game_command_is_refused_with_the_closest_names(
    store: Store, command: str, message: str
) -> None:
    names = ("sell", "mine_ore", "mine_orb", "mine_ort", "mine_oro")
    router = await _router(store, *(_tool(n, SCHEMA) for n in names))
    call = ToolCall("c1", "game", json.dumps({"command": command}, ensure_ascii=False))
    result = await router.execute(call)
    assert result.is_error and result.error_code == "unknown_command"
    assert _refusal(result.content) == ("unknown_command", message)
    assert "\\u" not in result.content, "characters as they are, not escaped"


async def test_a_lost_session_without_an_account_is_refused_with_no_account(
    store: Store,
) -> None:
    """The session's log-in-again hook (``GameSession.relogin``) set by the router."""
    game = ListedGame()
    mysis = await store.create_mysis("nova")
    ToolRouter(store, mysis.id, game, server=SERVER)  # type: ignore[arg-type]
    assert game.relogin is not None
    with pytest.raises(GameToolError) as caught:
        await game.relogin(game)
    assert (caught.value.code, caught.value.message) == ("no_account", "no account to log in with")

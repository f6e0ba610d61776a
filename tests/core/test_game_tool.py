"""The compact ``game`` tool: its one schema, and reading its calls as the commands they run."""

from __future__ import annotations

import json

import pytest

from zoea_tui.core.game_tool import (
    GAME_TOOL,
    GameCallError,
    command_line,
    effective,
    effective_call,
    game_command,
    game_tool,
    guide_commands,
    wrap,
)
from zoea_tui.core.types import ToolCall

BUY = {
    "type": "object",
    "properties": {
        "quantity": {"type": "integer", "minimum": 1},
        "item_id": {"type": "string", "description": "Item id"},
        "base_id": {"type": "string"},
    },
    "required": ["item_id", "quantity"],
}


def test_a_command_line_states_required_arguments_first_then_optional_ones() -> None:
    assert command_line("buy", BUY) == "buy(quantity:int, item_id, base_id?)"
    assert command_line("mine", {"type": "object", "properties": {}}) == "mine()"
    assert command_line("mine", {}) == "mine()"
    register = {
        "properties": {
            "username": {"type": "string"},
            "empire": {"type": "string", "enum": ["solarian", "voidborn"]},
            "clear": {"type": "boolean"},
            "ids": {"type": "array", "items": {"type": "string"}},
            "ratio": {"type": "number"},
        },
        "required": ["username", "empire"],
    }
    assert (
        command_line("register", register)
        == "register(username, empire:solarian|voidborn, clear?:bool, ids?:list, ratio?:num)"
    )


def test_the_game_tool_lists_every_command_once_and_can_be_read_back() -> None:
    schemas = [
        {"type": "function", "function": {"name": "buy", "description": "Buy.", "parameters": BUY}},
        {"name": "get_status", "parameters": {"type": "object", "properties": {}}},
    ]
    tool = game_tool(schemas)
    fn = tool["function"]
    assert tool["type"] == "function" and fn["name"] == GAME_TOOL
    assert fn["description"].endswith("Commands: buy(quantity:int, item_id, base_id?) get_status()")
    assert "Buy." not in fn["description"], "the commands' own descriptions are left out"
    assert guide_commands(fn["description"]) == {"buy", "get_status"}
    assert guide_commands("Run a command: travel(target_poi)") == frozenset()
    assert game_tool(schemas) == tool, "deterministic"


def test_a_game_call_names_its_command_and_arguments() -> None:
    assert game_command({"command": "travel", "args": {"target_poi": "b"}}) == (
        "travel",
        {"target_poi": "b"},
    )
    assert game_command({"command": " get_status "}) == ("get_status", {})
    assert game_command({"command": "mine", "args": None}) == ("mine", {})
    assert game_command({"command": "mine", "args": ""}) == ("mine", {})
    assert game_command({"command": "travel", "args": '{"target_poi": "b"}'}) == (
        "travel",
        {"target_poi": "b"},
    )
    # Arguments beside command (args left out) are taken as its arguments.
    assert game_command({"command": "travel", "target_poi": "b"}) == ("travel", {"target_poi": "b"})


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({}, "command is required"),
        ({"command": ""}, "command is required"),
        ({"command": ["travel"]}, "command is required"),
        ({"command": "travel", "args": ["b"]}, 'got ["b"]'),
        ({"command": "travel", "args": "b"}, 'got "b"'),
        ({"command": "travel", "args": "[1]"}, "got [1]"),  # JSON text of a list
        ({"command": "travel", "args": 7}, "got 7"),
        ({"command": "travel", "args": "x" * 100}, "..."),
    ],
)
def test_a_malformed_game_call_is_refused_with_a_message_for_the_model(
    arguments: dict[str, object], words: str
) -> None:
    with pytest.raises(GameCallError) as caught:
        game_command(arguments)
    assert words in str(caught.value)


def test_effective_reads_a_game_call_as_its_command_and_leaves_the_rest_as_it_is() -> None:
    assert effective("get_status", "{}") == ("get_status", "{}")
    assert effective(GAME_TOOL, wrap("sell", {"item_id": "ore", "quantity": 5})) == (
        "sell",
        json.dumps({"item_id": "ore", "quantity": 5}),
    )
    assert effective(GAME_TOOL, '{"command": "mine"}') == ("mine", "{}")
    for malformed in ("{", "[]", '{"args": {}}', '{"command": "x", "args": 5}'):
        assert effective(GAME_TOOL, malformed) == (GAME_TOOL, malformed)
    call = ToolCall("c1", GAME_TOOL, wrap("travel", {"target_poi": "belt"}))
    assert effective_call(call) == ToolCall("c1", "travel", '{"target_poi": "belt"}')
    plain = ToolCall("c2", "mine", "{}")
    assert effective_call(plain) is plain

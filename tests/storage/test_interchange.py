"""Importing a conversation: a compact ``game`` call's result is named after its command."""

from __future__ import annotations

import json

import pytest

from zoea_tui.core.game_tool import wrap
from zoea_tui.storage.interchange import ImportFormatError, parse_conversation


def test_a_result_of_a_game_call_is_named_after_the_command_it_ran() -> None:
    def call(call_id: str, name: str, arguments: str) -> dict[str, object]:
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }

    lines = [
        {"role": "user", "content": "Check your status."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                call("a", "game", wrap("get_status", {})),
                call("b", "game", '{"args": {}}'),  # malformed: stays "game"
                call("c", "get_cargo", "{}"),
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "{}"},
        {"role": "tool", "tool_call_id": "b", "content": "{}"},
        {"role": "tool", "tool_call_id": "c", "content": "{}"},
    ]
    conversation = parse_conversation(json.dumps(line) for line in lines)
    results = [m for m in conversation.memories if m.role == "tool"]
    assert [m.tool_name for m in results] == ["get_status", "game", "get_cargo"]
    (assistant,) = [m for m in conversation.memories if m.role == "assistant"]
    assert [c.name for c in assistant.tool_calls] == ["game", "game", "get_cargo"], "kept as made"


def test_a_later_system_message_is_a_system_memory_and_the_first_the_prompt() -> None:
    lines = [
        {"role": "system", "content": "You are Ada."},
        {"role": "user", "content": "mine"},
        {"role": "system", "content": "The server restarted."},
    ]
    conversation = parse_conversation(json.dumps(line) for line in lines)
    assert conversation.system_prompt == "You are Ada."
    later = conversation.memories[-1]
    assert (later.role, later.source, later.content) == (
        "system",
        "system",
        "The server restarted.",
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            {"role": "assistant", "content": "x", "tool_calls": {}},
            "line 1: tool_calls must be a list",
        ),
        (
            {"role": "assistant", "content": "x", "reasoning": 5},
            "line 1: reasoning must be a string, got int",
        ),
        ({"role": "user", "content": 7}, "line 1: content must be a string, got int"),
    ],
)
def test_a_bad_field_is_named_with_its_line(line: dict, message: str) -> None:
    with pytest.raises(ImportFormatError) as caught:
        parse_conversation([json.dumps(line)])
    assert str(caught.value) == message

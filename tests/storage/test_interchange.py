"""Importing a conversation: a compact ``game`` call's result is named after its command."""

from __future__ import annotations

import json

from zoea_tui.core.game_tool import wrap
from zoea_tui.storage.interchange import parse_conversation


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

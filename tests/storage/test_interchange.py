"""Importing a conversation: a compact ``game`` call's result is named after its command."""

from __future__ import annotations

import json

import pytest

from zoea_tui.core.game_tool import wrap
from zoea_tui.core.types import ToolCall
from zoea_tui.storage import NewMemory
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


def test_every_field_of_every_role_is_read_as_written() -> None:
    """The whole import of each role, field by field (the fourth mutation run,
    docs/MUTATION.md: the round trip through the command line is not seen in-process)."""
    call = {"id": "k1", "type": "function", "function": {"name": "mine", "arguments": {}}}
    lines = [
        {"role": "system", "content": "You are Ada.", "game_tick": 1},
        {"role": "user", "content": "mine\x00 now", "game_tick": 2},
        {"role": "user", "content": "ore!", "source": "broadcast", "sender_id": 7},
        {"role": "user", "content": "so far", "source": "summary", "sender_id": "ada"},
        {"role": "system", "content": "The server restarted.", "game_tick": 3},
        {"role": "assistant", "content": "", "reasoning_content": "think", "game_tick": 4},
        {"role": "assistant", "content": "ok", "reasoning": "first", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "k1", "content": "{}", "game_tick": 5},
        {"role": "tool", "tool_call_id": "k9", "name": "sell", "content": "sold"},
    ]
    conversation = parse_conversation(json.dumps(line) for line in lines)
    assert conversation.system_prompt == "You are Ada."
    assert conversation.memories == [
        NewMemory("user", "direct", "mine\x00 now", game_tick=2),
        NewMemory("user", "broadcast", "ore!", sender_id="7"),
        NewMemory("user", "summary", "so far", sender_id="ada"),
        NewMemory("system", "system", "The server restarted.", game_tick=3),
        NewMemory("assistant", "llm", "", reasoning="think", game_tick=4),
        NewMemory(
            "assistant", "llm", "ok", reasoning="first", tool_calls=(ToolCall("k1", "mine", "{}"),)
        ),
        NewMemory("tool", "tool", "{}", tool_call_id="k1", tool_name="mine", game_tick=5),
        NewMemory("tool", "tool", "sold", tool_call_id="k9", tool_name="sell"),
    ]


def test_a_system_message_after_another_memory_is_no_prompt() -> None:
    lines = [{"role": "user", "content": "hi"}, {"role": "system", "content": "Be brief."}]
    conversation = parse_conversation(json.dumps(line) for line in lines)
    assert conversation.system_prompt is None
    assert conversation.memories[-1] == NewMemory("system", "system", "Be brief.")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"role": "user", "content": "x", "colour": 1}, "line 1: unknown field(s) ['colour']"),
        (
            {"role": "user", "content": "x", "game_tick": "3"},
            "line 1: game_tick must be an integer",
        ),
        ({"role": "user", "content": "x", "sender_id": 1.5}, "line 1: sender_id must be a string"),
        (
            {"role": "user", "content": "x", "source": "llm"},
            "line 1: source must be one of ['direct', 'broadcast', 'summary'], got 'llm'",
        ),
        ({"role": "tool", "content": "x"}, "line 1: tool message needs a tool_call_id"),
        (
            {"role": "tool", "content": "x", "tool_call_id": ""},
            "line 1: tool message needs a tool_call_id",
        ),
        (
            {"role": "assistant", "content": " ", "reasoning": " "},
            "line 1: assistant message has neither content nor tool_calls",
        ),
        (
            {"role": "critic", "content": "x"},
            "line 1: role must be system, user, assistant or tool, got 'critic'",
        ),
        (
            {"role": "assistant", "tool_calls": [5]},
            'line 1: tool_calls[0] must be {"id", "type": "function", "function": {"name", '
            '"arguments"}}',
        ),
        (
            {"role": "assistant", "tool_calls": [{"id": "k", "function": {"name": ""}}]},
            "line 1: tool_calls[0].function.name is missing",
        ),
        (
            {"role": "assistant", "tool_calls": [{"id": "", "function": {"name": "mine"}}]},
            "line 1: tool_calls[0].id is missing",
        ),
    ],
    ids=[
        "unknown",
        "tick",
        "sender",
        "source",
        "no-call-id",
        "empty-call-id",
        "empty",
        "role",
        "call-not-object",
        "call-no-name",
        "call-empty-id",
    ],
)
def test_each_refusal_names_its_line_and_field(line: dict, message: str) -> None:
    with pytest.raises(ImportFormatError) as caught:
        parse_conversation(["", json.dumps(line)])
    assert str(caught.value) == message.replace("line 1", "line 2", 1)
    assert caught.value.line == 2


def test_a_call_without_arguments_has_empty_ones_and_a_message_without_content_is_empty() -> None:
    line = {"role": "assistant", "tool_calls": [{"id": "k", "function": {"name": "mine"}}]}
    (memory,) = parse_conversation([json.dumps(line)]).memories
    assert (memory.content, memory.tool_calls) == ("", (ToolCall("k", "mine", "{}"),))


@pytest.mark.parametrize(
    "line",
    [
        {"role": "assistant", "content": "", "reasoning": "only thought"},
        {"role": "assistant", "content": "only said"},
    ],
    ids=["reasoning", "content"],
)
def test_an_assistant_message_of_reasoning_or_content_alone_is_kept(line: dict) -> None:
    (memory,) = parse_conversation([json.dumps(line)]).memories
    assert (memory.content, memory.reasoning) == (line["content"], line.get("reasoning", ""))


def test_arguments_given_as_an_object_keep_their_characters() -> None:
    call = {"id": "k", "function": {"name": "travel", "arguments": {"to": "Ŝol"}}}
    line = {"role": "assistant", "tool_calls": [call]}
    (memory,) = parse_conversation([json.dumps(line)]).memories
    assert memory.tool_calls == (ToolCall("k", "travel", '{"to": "Ŝol"}'),)

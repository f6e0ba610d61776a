"""The JSONL conversation format of ``zoea import`` and ``zoea export``.

One OpenAI chat message per line: ``role``, ``content``, and optionally
``tool_calls`` (OpenAI shape), ``tool_call_id``, ``reasoning``; user messages
may carry ``source`` (``direct`` by default, ``broadcast`` or ``summary``) and
``sender_id`` (absent: the commander). A leading system message is the
Mysis's system prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..core.game_tool import effective_call
from ..core.types import Memory, NewMemory, ToolCall

_KNOWN_KEYS = {
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "reasoning",
    "reasoning_content",
    "source",
    "sender_id",
    "name",
    "game_tick",
}
_USER_SOURCES = ("direct", "broadcast", "summary")


class ImportFormatError(ValueError):
    """A line of an import file that cannot be read; nothing is imported."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True, slots=True)
class Conversation:
    """A parsed import file."""

    system_prompt: str | None
    memories: list[NewMemory]


def _text(value: Any, line: int, what: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # OpenAI content parts
        parts = []
        for part in value:
            if not isinstance(part, dict) or part.get("type") != "text":
                raise ImportFormatError(line, f"{what}: only text content parts are supported")
            parts.append(str(part.get("text", "")))
        return "".join(parts)
    raise ImportFormatError(line, f"{what} must be a string, got {type(value).__name__}")


def _tool_calls(value: Any, line: int) -> tuple[ToolCall, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ImportFormatError(line, "tool_calls must be a list")
    calls = []
    for index, call in enumerate(value):
        if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
            raise ImportFormatError(
                line,
                f"tool_calls[{index}] must be "
                '{"id", "type": "function", "function": {"name", '
                '"arguments"}}',
            )
        fn = call["function"]
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            raise ImportFormatError(line, f"tool_calls[{index}].function.name is missing")
        arguments = fn.get("arguments", "{}")
        if isinstance(arguments, dict):
            arguments = json.dumps(arguments, ensure_ascii=False)
        if not isinstance(arguments, str):
            raise ImportFormatError(
                line, f"tool_calls[{index}].function.arguments must be a JSON string or object"
            )
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise ImportFormatError(line, f"tool_calls[{index}].id is missing")
        calls.append(ToolCall(call_id, name, arguments))
    return tuple(calls)


def parse_conversation(lines: Iterable[str]) -> Conversation:
    """Parse a whole file; the first bad line raises :class:`ImportFormatError`."""
    system_prompt: str | None = None
    memories: list[NewMemory] = []
    call_names: dict[str, str] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ImportFormatError(number, f"not valid JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise ImportFormatError(number, "each line must be a JSON object")
        unknown = set(data) - _KNOWN_KEYS
        if unknown:
            raise ImportFormatError(number, f"unknown field(s) {sorted(unknown)}")
        role = data.get("role")
        content = _text(data.get("content"), number, "content")
        tick = data.get("game_tick")
        if tick is not None and not isinstance(tick, int):
            raise ImportFormatError(number, "game_tick must be an integer")
        if role == "system":
            if not memories and system_prompt is None:
                system_prompt = content
            else:
                memories.append(NewMemory("system", "system", content, game_tick=tick))
            continue
        if role == "user":
            source = data.get("source", "direct")
            if source not in _USER_SOURCES:
                raise ImportFormatError(
                    number, f"source must be one of {list(_USER_SOURCES)}, got {source!r}"
                )
            sender = data.get("sender_id")
            if sender is not None and not isinstance(sender, str | int):
                raise ImportFormatError(number, "sender_id must be a string")
            memories.append(
                NewMemory(
                    "user",
                    source,
                    content,
                    sender_id=str(sender) if sender is not None else None,
                    game_tick=tick,
                )
            )
        elif role == "assistant":
            calls = _tool_calls(data.get("tool_calls"), number)
            reasoning = _text(
                data.get("reasoning", data.get("reasoning_content")), number, "reasoning"
            )
            if not calls and not content.strip() and not reasoning.strip():
                raise ImportFormatError(
                    number, "assistant message has neither content nor tool_calls"
                )
            call_names.update((c.id, effective_call(c).name) for c in calls)  # game: its command
            memories.append(
                NewMemory(
                    "assistant",
                    "llm",
                    content,
                    reasoning=reasoning,
                    tool_calls=calls,
                    game_tick=tick,
                )
            )
        elif role == "tool":
            call_id = data.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise ImportFormatError(number, "tool message needs a tool_call_id")
            name = data.get("name") or call_names.get(call_id)
            memories.append(
                NewMemory(
                    "tool", "tool", content, tool_call_id=call_id, tool_name=name, game_tick=tick
                )
            )
        else:
            raise ImportFormatError(
                number, f"role must be system, user, assistant or tool, got {role!r}"
            )
    return Conversation(system_prompt, memories)


def memory_to_json(memory: Memory) -> dict[str, Any]:
    """One export line (the inverse of the import format)."""
    line: dict[str, Any] = {"role": memory.role, "content": memory.content}
    if memory.tool_calls:
        line["tool_calls"] = [c.to_openai() for c in memory.tool_calls]
    if memory.role == "tool":
        line["tool_call_id"] = memory.tool_call_id
        if memory.tool_name:
            line["name"] = memory.tool_name
    if memory.reasoning:
        line["reasoning"] = memory.reasoning
    if memory.role == "user" and memory.source != "direct":
        line["source"] = memory.source
    if memory.sender_id is not None:
        line["sender_id"] = memory.sender_id
    if memory.game_tick is not None:
        line["game_tick"] = memory.game_tick
    return line

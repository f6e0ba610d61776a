"""The stored record of a conversation: memories and tool calls."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
Source = Literal["system", "direct", "broadcast", "llm", "tool", "summary"]
#: What started a turn: a commander message, a broadcast, a nudge, or a Mysis's start.
TurnKind = Literal["direct", "broadcast", "nudge", "start"]

ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool")
SOURCES: tuple[str, ...] = ("system", "direct", "broadcast", "llm", "tool", "summary")
#: Sources of the user messages that start a turn.
PROMPT_SOURCES: frozenset[str] = frozenset({"direct", "broadcast"})


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call of an assistant message.

    ``arguments`` is kept as the exact JSON text the model produced (it may be
    invalid JSON: the router reports that back to the model as a tool error).
    """

    id: str
    name: str
    arguments: str = "{}"

    def parsed_arguments(self) -> dict[str, Any] | None:
        """The arguments as a dict, or None when they are not a JSON object."""
        try:
            value = json.loads(self.arguments or "{}")
        except (ValueError, TypeError):
            return None
        return value if isinstance(value, dict) else None

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI chat-completions shape of this call."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class NewMemory:
    """A message of a Mysis to be stored: what it says (the store assigns its id, its
    time unless given, and its token estimate, and returns it as a :class:`Memory`)."""

    role: Role
    source: Source
    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    sender_id: str | None = None
    game_tick: int | None = None
    #: When it was said (None: when the store keeps it).
    created_at: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Memory(NewMemory):
    """One stored message of a Mysis (append-only): a :class:`NewMemory` as the store
    keeps it, with its id and time."""

    id: int
    mysis_id: int
    #: When it was said, always known once stored.
    created_at: float = 0.0
    #: Token estimate of ``content`` (computed once, when the memory is stored).
    tokens: int = field(default=0, compare=False)
    #: The Mysis's running count of memories (1, 2, 3 …; 0 when unknown): windows are
    #: cut on a grid of it, so the cut moves in steps (``core/window.py``).
    seq: int = field(default=0, compare=False)

    @property
    def is_prompt(self) -> bool:
        """True for a user message that starts a turn (direct or broadcast)."""
        return self.role == "user" and self.source in PROMPT_SOURCES

    @property
    def has_tool_calls(self) -> bool:
        """True for an assistant message that calls tools."""
        return self.role == "assistant" and bool(self.tool_calls)


@dataclass(frozen=True, slots=True)
class Turn:
    """Where a turn of a Mysis began and what started it (the ``turns`` table).

    The turn holds the Mysis's memories whose id is ``>= first_memory_id``. A
    prompt-started turn (``direct``, ``broadcast``) begins at its prompt memory; a
    ``nudge`` or ``start`` turn begins after the newest memory of its time and carries
    the exact ``text`` the model received, which is never stored as a memory (docs/CONTEXT.md).
    """

    mysis_id: int
    first_memory_id: int
    kind: TurnKind
    nudge_level: int = 0
    text: str | None = None
    #: None for a turn that is not stored (the preview of the next one).
    id: int | None = None
    #: The volatile facts sent right after the opening, as the turn's first request
    #: had them (None: not composed yet). They stay put for the whole turn.
    state: str | None = None
    created_at: float = 0.0
    game_tick: int | None = None

    @property
    def synthetic(self) -> bool:
        """True when the turn opens with generated text (a nudge or a start), not a memory."""
        return self.kind in ("nudge", "start")

    def describe(self) -> str:
        """A short label: what started the turn."""
        if self.kind == "nudge":
            return f"nudge, level {self.nudge_level}"
        return {"direct": "commander message", "broadcast": "broadcast", "start": "start"}.get(
            self.kind, self.kind
        )


def tool_calls_to_json(calls: tuple[ToolCall, ...]) -> str | None:
    """Serialise tool calls for storage (None when there are none)."""
    if not calls:
        return None
    return json.dumps(
        [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
        ensure_ascii=False,
    )


def tool_calls_from_json(text: str | None) -> tuple[ToolCall, ...]:
    """Parse stored tool calls (the inverse of :func:`tool_calls_to_json`)."""
    if not text:
        return ()
    return tuple(
        ToolCall(id=c["id"], name=c["name"], arguments=c.get("arguments") or "{}")
        for c in json.loads(text)
    )

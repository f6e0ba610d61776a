"""What a strategy hands to the normalizer: chosen memories and synthetic slots."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from . import prompts
from .composition import ItemAction, ItemKind
from .types import Memory, ToolCall


@dataclass(frozen=True, slots=True)
class Slot:
    """One message-to-be, before the shared guarantees are applied."""

    role: str
    content: str
    kind: ItemKind = "memory"
    action: ItemAction = "kept"
    memory: Memory | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    reason: str = ""
    #: Pinned slots survive the budget enforcement longest.
    pinned: bool = False
    #: Set on the message that opened a turn: that turn's ``first_memory_id``.
    opens: int | None = None
    #: A note that also tells the model to carry on: it may end a request (no nudge).
    carries_on: bool = False

    @property
    def memory_id(self) -> int | None:
        """The id of the memory behind this slot, if any."""
        return self.memory.id if self.memory is not None else None

    def with_content(self, content: str, action: ItemAction, reason: str) -> Slot:
        """A copy with other content (a placeholder or a truncation)."""
        kind: ItemKind = "placeholder" if action == "placeholder" else self.kind
        return replace(self, content=content, action=action, reason=reason, kind=kind)


def keep(memory: Memory, *, pinned: bool = False, reason: str = "") -> Slot:
    """A slot that sends ``memory`` as stored."""
    return Slot(
        role=memory.role,
        content=memory.content,
        memory=memory,
        tool_calls=memory.tool_calls,
        tool_call_id=memory.tool_call_id,
        tool_name=memory.tool_name,
        pinned=pinned,
        reason=reason,
    )


def placeholder(memory: Memory, text: str, reason: str) -> Slot:
    """A slot that keeps a tool result's place but not its content."""
    return replace(
        keep(memory), content=text, kind="placeholder", action="placeholder", reason=reason
    )


def synthetic_user(text: str, kind: ItemKind, reason: str, *, pinned: bool = True) -> Slot:
    """A generated user message (nudge, note or summary); never stored."""
    return Slot(
        role="user", content=text, kind=kind, action="synthetic", reason=reason, pinned=pinned
    )


def nudge(level: int, why: str) -> Slot:
    """The synthetic nudge at an encouragement level (docs/CONTEXT.md), with why it is there."""
    return synthetic_user(
        prompts.nudge_text(level), "nudge", f"{why}: synthetic nudge, level {max(level, 1)}"
    )


@dataclass(slots=True)
class Selection:
    """A strategy's choice: ordered slots, and the memories it left out."""

    slots: list[Slot] = field(default_factory=list)
    dropped: dict[int, str] = field(default_factory=dict)
    #: Reason given to window memories the strategy neither kept nor dropped.
    default_drop_reason: str = "not selected by the strategy"

    def drop(self, memory: Memory, reason: str) -> None:
        """Record that ``memory`` is left out, unless a reason is already known."""
        self.dropped.setdefault(memory.id, reason)

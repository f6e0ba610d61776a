"""How one request differs from the one its Mysis sent before it (the request inspector).

Pure: two compositions in, a :class:`RequestDiff` out. Messages are matched first as an
exact common prefix (what a prompt cache reuses), then by provenance (the same stored
memory, or the same kind of synthetic message), so each message after the prefix is
``appended``, ``left``, ``changed`` or ``kept``, and each ``left`` or ``changed`` one
says why: a new turn, a summary, the window's cut moving, a placeholder, the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .composition import Composition, Item

DiffStatus = Literal["kept", "appended", "left", "changed"]


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One message after the common prefix: what happened to it, and why."""

    status: DiffStatus
    role: str
    kind: str
    memory_id: int | None
    tokens: int
    #: The message's text (untrusted: content, or the names of its tool calls).
    text: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class RequestDiff:
    """What a request kept of the previous one, what it appended and what left."""

    #: Messages both requests begin with, byte for byte.
    kept: int
    kept_tokens: int
    lines: tuple[DiffLine, ...]
    #: Why the request is not simply the previous one plus new messages (empty: it is).
    reasons: tuple[str, ...]

    def count(self, status: DiffStatus) -> int:
        """How many messages after the prefix have ``status``."""
        return sum(1 for line in self.lines if line.status == status)


def message_text(message: dict[str, Any]) -> str:
    """A message's text: its content, else the names of its tool calls."""
    content = message.get("content") or ""
    if not isinstance(content, str):
        content = str(content)
    calls = message.get("tool_calls") or []
    if calls and not content:
        names = [str(c.get("function", {}).get("name", "?")) for c in calls]
        return "calls " + ", ".join(names)
    return content


def _key(item: Item, message: dict[str, Any]) -> tuple[Any, ...]:
    if item.memory_id is not None:
        return ("memory", item.memory_id, item.role, message.get("tool_call_id"))
    return ("synthetic", item.kind, item.role)


def diff_requests(
    previous: Composition, current: Composition, *, new_turn: bool = False
) -> RequestDiff:
    """The difference of ``current`` from ``previous`` (``new_turn``: it opens a turn)."""
    a, b = previous.messages, current.messages
    prefix = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        prefix += 1
    old = list(zip(previous.items[prefix:], a[prefix:], strict=False))
    new = list(zip(current.items[prefix:], b[prefix:], strict=False))
    old_keys = {_key(i, m): m for i, m in old}
    new_keys = {_key(i, m) for i, m in new}
    summary_arrived = any(i.kind == "summary" for i, _ in new) and not any(
        i.kind == "summary" for i in previous.items
    )
    first_kept = min((i.memory_id for i in current.items if i.memory_id is not None), default=None)
    lines: list[DiffLine] = []
    reasons: list[str] = []

    def why_left(item: Item) -> str:
        if summary_arrived and item.kind in ("memory", "placeholder", "summary"):
            return "replaced by a summary"
        if item.memory_id is not None and first_kept is not None and item.memory_id < first_kept:
            return f"the cut moved past it (the request now begins at memory #{first_kept})"
        if new_turn:
            return "a new turn began"
        if item.kind in ("note", "state", "nudge"):
            return f"its {item.kind} no longer applies"
        return "no longer chosen by the strategy"

    for item, message in old:
        if _key(item, message) in new_keys:
            continue
        lines.append(
            DiffLine(
                "left",
                item.role,
                item.kind,
                item.memory_id,
                item.tokens,
                message_text(message),
                why_left(item),
            )
        )
    for item, message in new:
        before = old_keys.get(_key(item, message))
        if before is None:
            status: DiffStatus = "appended"
            reason = item.reason
        elif before == message:
            status, reason = "kept", "sent again after a change above it"
        else:
            status = "changed"
            reason = {
                "placeholder": "an older result became a placeholder",
                "truncated": "cut to fit the budget",
            }.get(item.action, "its text changed")
        lines.append(
            DiffLine(
                status,
                item.role,
                item.kind,
                item.memory_id,
                item.tokens,
                message_text(message),
                reason,
            )
        )
    if prefix < len(a):
        if new_turn:
            reasons.append("a new turn began")
        if summary_arrived:
            reasons.append("a summary replaced the older history")
        if any(line.status == "left" and line.reason.startswith("the cut moved") for line in lines):
            reasons.append(f"the window's cut moved (it now begins at memory #{first_kept})")
        if any(line.status == "changed" for line in lines):
            reasons.append("messages already sent changed (placeholders, cuts, notes)")
        if not reasons:
            reasons.append("the requests part before their ends")
    kept_tokens = sum(i.tokens for i in current.items[:prefix])
    return RequestDiff(prefix, kept_tokens, tuple(lines), tuple(reasons))

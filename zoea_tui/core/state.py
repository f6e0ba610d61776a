"""Session state read from tool results: the pinned block of ``turn-aware``.

Seed 004 lists "session ID injection" as the fix for state lost between
turns. The facts are taken from the latest results that carry them (login,
register, get_status, travel, jump, dock), so the block is a pure function of
the history and changes only when the state does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .types import Memory

_LOCATION_TOOLS = frozenset({"login", "register", "get_status", "travel", "jump", "dock",
                             "undock", "get_poi", "get_system"})


@dataclass(frozen=True, slots=True)
class SessionState:
    """What a Mysis must not forget between turns."""

    account: str | None = None
    session_id: str | None = None
    system: str | None = None
    poi: str | None = None
    docked: bool | None = None
    #: Memory ids the facts come from (for provenance).
    sources: tuple[int, ...] = ()

    def render(self) -> str:
        """The block appended to the system prompt ("" when nothing is known)."""
        lines = []
        if self.account:
            lines.append(f"- Logged in as: {self.account}")
        if self.session_id:
            lines.append(f"- session_id: {self.session_id}")
        where = " / ".join(p for p in (self.system, self.poi) if p)
        if where:
            docked = {True: " (docked)", False: " (undocked)", None: ""}[self.docked]
            lines.append(f"- Last known location: {where}{docked}")
        if not lines:
            return ""
        refs = ", ".join(f"#{i}" for i in self.sources)
        return "\n## Session State (pinned, from memories " + refs + ")\n" + "\n".join(lines) + "\n"


def _load(text: str) -> dict[str, Any] | None:
    if not text or text[0] != "{" or len(text) > 200_000:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) and "error" not in value else None


def _pick(data: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        for scope in (data, data.get("player") or {}, data.get("result") or {}):
            if isinstance(scope, dict) and scope.get(key) not in (None, ""):
                return scope[key]
    return None


def extract_session_state(memories: Iterable[Memory]) -> SessionState:
    """The latest known account, session and location in ``memories``."""
    account = session = system = poi = None
    docked: bool | None = None
    sources: list[int] = []
    for memory in memories:
        if memory.role != "tool" or memory.tool_name not in _LOCATION_TOOLS:
            continue
        data = _load(memory.content)
        if data is None:
            continue
        found = False
        if memory.tool_name in ("login", "register"):
            name = _pick(data, "username")
            if isinstance(name, str):
                account, found = name, True
            sid = _pick(data, "session_id")
            if isinstance(sid, str):
                session, found = sid, True
        new_system = _pick(data, "current_system", "system_id")
        if isinstance(new_system, str):
            system, found = new_system, True
        new_poi = _pick(data, "current_poi", "poi_id")
        if isinstance(new_poi, str):
            poi, found = new_poi, True
        if memory.tool_name == "dock":
            docked, found = True, True
        elif memory.tool_name == "undock":
            docked, found = False, True
        else:
            base = _pick(data, "docked_at_base", "docked")
            if base is not None:
                docked, found = bool(base), True
        if found:
            sources.append(memory.id)
    return SessionState(account, session, system, poi, docked, tuple(sources[-3:]))

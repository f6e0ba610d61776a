"""What the swarm panes show besides a Mysis's view: its recent actions and game facts.

Pure data kept by the dashboard: a short tail of tool calls per Mysis (filled from the
stored memories once, then from engine events) and the few game facts that matter
(location, credits, cargo), projected from the engine's game-state cache fields.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..core.types import Memory, ToolCall
from .sanitize import one_line

#: Actions kept per Mysis (a pane shows as many as fit).
TAIL = 12


@dataclass(frozen=True, slots=True)
class Action:
    """One tool call: its name, a short form of its arguments, and how it ended."""

    call_id: str
    name: str
    args: str
    #: "running", "ok", "error" or "cancelled" (it never got a result: cut by a quit
    #: or a stop, as the memories after it show).
    status: str = "running"
    error: str = ""
    tick: int | None = None


def short_args(call: ToolCall, limit: int = 40) -> str:
    """``poi=main_belt`` from ``{"poi": "main_belt"}`` (one line, cut at ``limit``)."""
    parsed = call.parsed_arguments()
    if parsed is None:
        return one_line(call.arguments, limit)
    text = " ".join(f"{k}={v}" for k, v in parsed.items() if k not in ("password",))
    return one_line(text, limit)


def _error_code(content: str) -> str | None:
    """The code of a stored game error result (``{"error": {"code": …}}``), else None."""
    head = content.lstrip()[:200]
    if not head.startswith('{"error"'):
        return None
    marker = head.find('"code"')
    if marker < 0:
        return "error"
    rest = head[marker + 6 :].lstrip(' :"')
    return rest.split('"', 1)[0] or "error"


class ActionTail:
    """The newest actions of one Mysis, oldest first."""

    def __init__(self, actions: Iterable[Action] = ()) -> None:
        self._actions: deque[Action] = deque(actions, maxlen=TAIL)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def started(self, call: ToolCall, tick: int | None = None) -> None:
        """A call began."""
        self._actions.append(Action(call.id, one_line(call.name, 40), short_args(call), tick=tick))

    def finished(
        self, call: ToolCall, *, is_error: bool, error_code: str | None, tick: int | None = None
    ) -> None:
        """A call ended (the newest action with its id is updated, or one is added)."""
        status = "error" if is_error else "ok"
        for index in range(len(self._actions) - 1, -1, -1):
            action = self._actions[index]
            if action.call_id == call.id:
                self._actions[index] = replace(
                    action, status=status, error=error_code or "", tick=tick or action.tick
                )
                return
        self._actions.append(
            Action(
                call.id,
                one_line(call.name, 40),
                short_args(call),
                status=status,
                error=error_code or "",
                tick=tick,
            )
        )


def tail_from_memories(memories: Iterable[Memory], *, turn_since: int | None = None) -> ActionTail:
    """The action tail that stored memories tell (calls and their results).

    A call without a result is still running only while nothing but results came
    after it and it belongs to the turn under way (its memory ``>= turn_since``, the
    turn's first memory; None: no turn is under way); else it was cut (by a newer
    message, or by a stop or a quit before its result) and shows as cancelled, never
    as pending above newer calls.
    """
    actions: dict[str, Action] = {}
    running: set[str] = set()  # the calls still waiting for their result
    asked_in: dict[str, int] = {}  # each call's assistant memory
    for memory in memories:
        if memory.role != "tool":
            # Whatever still waits for its result was cut: a newer message came.
            for call_id in running:
                actions[call_id] = replace(actions[call_id], status="cancelled")
            running.clear()
        if memory.role == "assistant":
            for call in memory.tool_calls:
                actions[call.id] = Action(
                    call.id, one_line(call.name, 40), short_args(call), tick=memory.game_tick
                )
                running.add(call.id)
                asked_in[call.id] = memory.id
        elif memory.role == "tool" and memory.tool_call_id in actions:
            running.discard(memory.tool_call_id)
            code = _error_code(memory.content)
            old = actions[memory.tool_call_id]
            actions[memory.tool_call_id] = replace(
                old,
                status="error" if code else "ok",
                error=code or "",
                tick=memory.game_tick if memory.game_tick is not None else old.tick,
            )
    for call_id in running:
        if turn_since is None or asked_in[call_id] < turn_since:
            actions[call_id] = replace(actions[call_id], status="cancelled")
    return ActionTail(actions.values())


@dataclass(frozen=True, slots=True)
class GameFacts:
    """Where a Mysis is, what it owns and carries (empty strings: not known yet)."""

    location: str = ""
    credits: str = ""
    cargo: str = ""
    docked: bool | None = None
    #: True when these are the last known facts from before the relaunch (read back
    #: from the store; no result of this run has refreshed them yet).
    restored: bool = False

    @property
    def known(self) -> bool:
        """True when anything is known."""
        return bool(self.location or self.credits or self.cargo)


def facts_from_fields(
    fields: Mapping[str, Mapping[str, Any]], *, restored: bool = False
) -> GameFacts:
    """Project the cache's merged fields (``{key: {"value", "tick"}}``) to pane facts
    (``restored``: they are the last known ones, from before the relaunch)."""

    def value(key: str) -> str:
        entry = fields.get(key)
        return "" if entry is None or entry.get("value") is None else str(entry["value"])

    where = " / ".join(v for v in (value("system"), value("poi")) if v)
    credits = value("credits")
    if credits.lstrip("-").isdigit():
        credits = f"{int(credits):,}"
    docked = {"yes": True, "no": False}.get(value("docked"))
    return GameFacts(
        location=one_line(where, 80),
        credits=credits,
        cargo=one_line(value("cargo"), 20),
        docked=docked,
        restored=restored,
    )


def latest_answer(memories: Iterable[Memory]) -> str:
    """The first line of the newest answer that ended a turn (text, no tool calls)."""
    answer = ""
    for memory in memories:
        if memory.role == "assistant" and not memory.tool_calls and memory.content.strip():
            answer = memory.content.strip().splitlines()[0]
    return answer

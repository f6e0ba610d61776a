"""What the autopilot knows: read from the composed messages alone.

One pass over the messages joins every tool result to its call, finds the
current turn and the latest round, and the standing commander order; the
facts themselves are read from the results by :mod:`.facts`, newest first and
lazily. Nothing here looks at the world: what was dropped from the context is
unknown, exactly as it would be to a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...core import prompts
from ...core.game_tool import effective
from ...core.summarizer import parse_summary
from .facts import (
    ALIASES,
    RETRYABLE,
    Facts,
    Place,
    Reader,
    ToolResult,
    apply_fallback,
    read_facts,
)
from .notes import Notes, hold_after, read_notes
from .orders import DEFAULT_ORDER, Order, in_force, lifetime, parse_order
from .system import SystemInfo, read_system

__all__ = ["ALIASES", "Context", "Facts", "Place", "commander_text", "read_context"]

_NUDGES = tuple(prompts.NUDGE_TEXTS.values())
_SUMMARY_PROMPT = prompts.SUMMARY_PROMPT.strip()


@dataclass(slots=True)
class Context:
    """Everything the autopilot read from one request."""

    system: SystemInfo
    facts: Facts
    #: The order to act on now (an order still in force, :func:`.orders.in_force`, else
    #: the mission).
    order: Order
    #: The standing order: the newest standing order (:data:`.orders.LIFETIMES`).
    mission: Order
    #: The standing order I would read without my notes (the Swarm Broadcast section's,
    #: else ``DEFAULT_ORDER``): my notes carry the mission when it differs.
    fallback: Order
    #: Every tool result in the request, oldest first.
    results: list[ToolResult]
    #: Results of the latest round (the trailing tool messages), oldest first.
    round: list[ToolResult]
    #: Index of the first message of the current turn (its opening user message, or my
    #: newest text answer when no user message follows it).
    turn_start: int
    #: My answers with tool calls since the turn began (the rounds played this turn).
    turn_rounds: int
    #: (name, arguments) of calls that failed in the current turn, with their error code.
    failed: dict[tuple[str, str], str]
    #: (name, arguments) of calls that succeeded in the current turn.
    done: set[tuple[str, str]]
    #: Index of the newest captain's log call (-1: none in context).
    last_log: int
    #: Queries already sent to the search tools.
    searched: set[str]
    #: The last user message is the ``summarize`` strategy's request.
    summary_requested: bool
    #: The latest real commander request (for summaries and reports).
    last_request: str
    #: A text of mine answered the order to act on (hold acknowledged, destination not
    #: found told).
    order_answered: bool
    #: My own earlier turns are visible (a text of mine, or more than one of my calls):
    #: a text answer now will be seen next time, so ending the turn to wait is safe.
    sees_own_turns: bool
    reader: Reader | None = None
    #: My newest notes line (see :mod:`.notes`).
    notes: Notes | None = None

    def read_all(self) -> Facts:
        """Finish reading older results: the hold's listing, hull, credits and the sales
        since the last log entry (wanted at the station; the core facts are read first)."""
        if self.reader is not None:
            self.reader.scan(lambda: False)
            apply_fallback(self.facts, self.system)
            self.reader = None
        return self.facts


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def is_nudge(text: str) -> bool:
    """A synthetic nudge (not a commander order)."""
    return text.startswith(_NUDGES)


def is_note(text: str) -> bool:
    """Whether a user message is one of the composer's bracketed notes (left-out history,
    a paged turn): information, never a turn's start."""
    stripped = text.strip()
    return stripped.startswith("[") and stripped.endswith("]")


def commander_text(text: str) -> str | None:
    """The commander's words in a user message, or None for nudges and notes."""
    stripped = text.strip()
    if not stripped or is_nudge(stripped) or stripped == _SUMMARY_PROMPT:
        return None
    if is_note(stripped):
        return None
    if stripped.startswith(prompts.SUMMARY_HEADER.strip()[:30]):
        _, found, last = stripped.rpartition(prompts.LAST_REQUEST_PREFIX)
        return last.strip() if found else None
    return stripped


def state_messages(messages: Sequence[dict[str, Any]]) -> list[int]:
    """The indices of the request's state messages, oldest first.

    The composer sends the volatile facts (game state, latest broadcast) as a user
    message that opens with :data:`prompts.STATE_HEADER`: facts, not an order, and not
    a turn's opening. It closes the request, or stands right after a turn's opening (as
    that turn's first request had it).
    """
    return [
        i
        for i, m in enumerate(messages)
        if m.get("role") == "user" and _content(m).startswith(prompts.STATE_HEADER)
    ]


def split_state(
    messages: Sequence[dict[str, Any]], found: Sequence[int]
) -> tuple[Sequence[dict[str, Any]], str]:
    """The request without its state messages (``found``, :func:`state_messages`), and
    the newest one's text ("" if none): the newest one is the one read."""
    if not found:
        return messages, ""
    state = _content(messages[found[-1]])[len(prompts.STATE_HEADER) :]
    drop = set(found)
    return [m for i, m in enumerate(messages) if i not in drop], state


def turn_opening(messages: Sequence[dict[str, Any]], states: Sequence[int]) -> int | None:
    """Where the current turn opens, as the state message's place tells (``states``,
    :func:`state_messages`), in the request without its state messages: the index of
    the opening when it is in view, the request's length when it is not (the state then
    closes the request after a call's results: every user message in view belongs to
    an earlier turn), None when no state message says.

    The composer puts the current turn's state right after the turn's opening when it
    sends the opening, else at the end (``core/normalize.py``); a strategy that pins
    the latest commander message (``loop-slice``) shows it whichever turn it opened,
    and only the state's place tells whether it opened this one.
    """
    if not states:
        return None
    newest = states[-1]
    before = messages[newest - 1] if newest > 0 else {}
    if before.get("role") == "user":
        return newest - 1 - sum(1 for i in states if i < newest - 1)
    return len(messages) - len(states)


def read_context(messages: Sequence[dict[str, Any]]) -> Context:
    """Read one request's messages (newest first, lazily)."""
    states = state_messages(messages)
    opening = turn_opening(messages, states)
    messages, state = split_state(messages, states)
    system_text = _content(messages[0]) if messages and messages[0].get("role") == "system" else ""
    # The state message's sections read as the system prompt's did.
    info = read_system(f"{system_text}\n{state}" if state else system_text)
    calls: dict[str, tuple[str, str, int]] = {}
    results: list[ToolResult] = []
    last_user = last_text = last_log = -1
    assistant_calls = 0
    searched: set[str] = set()
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            tool_calls = message.get("tool_calls") or ()
            assistant_calls += bool(tool_calls)
            for call in tool_calls:
                fn = call.get("function") or {}
                # A compact game call is read as the command it runs.
                name, arguments = effective(fn.get("name", ""), fn.get("arguments") or "{}")
                calls[call.get("id", "")] = (name, arguments, index)
                if name == "captains_log_add":
                    last_log = index
                elif name.startswith("zoea_search"):
                    searched.add(arguments)
            if not tool_calls and _content(message).strip():
                last_text = index
        elif role == "user" and not is_note(_content(message)):
            last_user = index
        elif role == "tool":
            call_id = message.get("tool_call_id") or ""
            name, arguments, _ = calls.get(call_id, ("", "{}", index))
            results.append(ToolResult(index, call_id, name, arguments, _content(message)))
    turn_start = max(last_user, last_text)
    turn_rounds = sum(
        1
        for m in messages[turn_start + 1 :]
        if m.get("role") == "assistant" and m.get("tool_calls")
    )
    last = messages[-1] if messages else {}
    first = len(messages)
    while first > 0 and messages[first - 1].get("role") == "tool":
        first -= 1
    round_results = [r for r in results if r.index >= first]

    failed: dict[tuple[str, str], str] = {}
    done: set[tuple[str, str]] = set()
    for result in results:
        if result.index > turn_start:
            error = result.error()
            if error is not None:
                code = str(error.get("code", "error"))
                if ALIASES.get(code, code) not in RETRYABLE:
                    failed[(result.name, result.arguments)] = code
            elif result.content[:1] == "{":  # a real result, not a placeholder
                done.add((result.name, result.arguments))

    notes = read_notes(messages)
    orders = _orders(
        messages,
        info,
        notes,
        turn_start=turn_start if opening is None else max(turn_start, opening),
        last_text=last_text,
        results=results,
    )
    summary = last.get("role") == "user" and _content(last).strip() == _SUMMARY_PROMPT
    facts, reader = read_facts(results, info, last_log)
    _apply_notes(facts, notes)
    if facts.cargo is None and reader is None:
        facts.cargo = hold_after(notes, results)
    return Context(
        system=info,
        facts=facts,
        order=orders.acting,
        mission=orders.mission,
        fallback=orders.fallback,
        results=results,
        round=round_results,
        turn_start=turn_start,
        turn_rounds=turn_rounds,
        failed=failed,
        done=done,
        last_log=last_log,
        searched=searched,
        summary_requested=summary,
        last_request=orders.last_request,
        order_answered=orders.answered,
        sees_own_turns=last_text >= 0 or assistant_calls >= 2,
        reader=reader,
        notes=notes,
    )


def _apply_notes(facts: Facts, notes: Notes) -> None:
    """My notes, where the tool results in view say nothing (lowest priority)."""
    if facts.ship_lost:
        return
    for place in notes.places:
        known = facts.pois.get(place.id)
        if known is None or not known.type:
            facts.pois[place.id] = place
    system = notes.where[0] if notes.where is not None else notes.system
    if (
        facts.system is None
        and system is not None
        and facts.transit_error is None
        and (facts.move is None or facts.move[0] == "travel")
    ):
        facts.system = system  # a trip inside the system does not change it
    if facts.move is not None or facts.transit_error is not None:
        return
    if notes.where is not None and facts.poi is None:
        _, poi, docked = notes.where
        known = facts.pois.get(poi)
        # Mining newer than my notes says I am at a belt: the noted one, if it is a belt.
        if not facts.at_belt or (known is not None and known.kind == "belt"):
            facts.poi = poi
        if facts.docked is None:
            facts.docked = docked


@dataclass(frozen=True, slots=True)
class _Orders:
    acting: Order
    mission: Order
    fallback: Order
    answered: bool
    last_request: str


def _orders(
    messages: Sequence[dict[str, Any]],
    info: SystemInfo,
    notes: Notes,
    *,
    turn_start: int,
    last_text: int,
    results: Sequence[ToolResult],
) -> _Orders:
    """The order to act on, the standing mission and where it comes from.

    The mission is the newest standing order of a commander message in view, else
    the one my notes carry, else the Swarm Broadcast section's (``DEFAULT_ORDER``
    when none says one): see :mod:`.orders`. The order to act on is the newest order
    newer than the mission that is still in force (:func:`.orders.in_force`), else
    the mission.
    """
    last_request = ""
    newer: list[Order] = []
    mission: Order | None = None
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        content = _content(message)
        text = commander_text(content)
        if text is None:
            continue
        last_request = last_request or text
        if content.strip().startswith(prompts.SUMMARY_HEADER.strip()[:30]):
            # A summary's orders were received before it was written: read like the
            # Swarm Broadcast section (index -1), only its newest standing order counts.
            mission = _summary_standing(content.strip())
            if mission is not None:
                break
            continue
        order = parse_order(text, index)
        if order is None:
            continue
        if lifetime(order.kind) == "standing":
            mission = order
            break
        newer.append(order)
    fallback = _standing(info.broadcast) or DEFAULT_ORDER
    # An order to carry out once that left my context before it was: my notes carry it
    # (from the answer that noted it, which an action after it carries out).
    doing = parse_order(notes.doing, notes.index) if notes.doing else None
    if doing is not None and lifetime(doing.kind) == "once" and mission is None:
        newer.append(doing)
    # The commander's message left my context: my notes carry the standing order.
    mission = mission or _standing(notes.order) or fallback
    acting = next(
        (
            o
            for o in newer
            if in_force(
                o,
                turn_start=turn_start,
                answered=last_text > o.index,
                done=_carried_out(o, results),
            )
        ),
        mission,
    )
    # An order from the state message or my notes was received before this request:
    # it was answered when a text of mine is in view.
    answered = last_text > acting.index if acting.index >= 0 else last_text >= 0
    return _Orders(acting, mission, fallback, answered, last_request)


def _standing(text: str | None) -> Order | None:
    """The standing order ``text`` gives, received before this request (None: none)."""
    order = parse_order(text) if text else None
    return order if order is not None and lifetime(order.kind) == "standing" else None


def _summary_standing(summary: str) -> Order | None:
    """The newest standing order a summary keeps: its orders, oldest first, end with
    its "Last request" line (``core.summarizer.parse_summary``)."""
    for text in reversed(parse_summary(summary).orders):
        order = _standing(text)
        if order is not None:
            return order
    return None


def _carried_out(order: Order, results: Sequence[ToolResult]) -> bool:
    """A successful call of the order's own tool (``sell``, ``refuel``) came after it."""
    return any(
        r.name == order.kind
        and r.index > order.index
        and r.error() is None
        and r.content[:1] == "{"
        for r in results
    )

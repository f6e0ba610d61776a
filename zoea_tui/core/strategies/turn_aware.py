"""``turn-aware`` (the default; docs/CONTEXT.md): compressed past, complete current turn."""

from __future__ import annotations

from dataclasses import replace

from .. import prompts
from ..composition import ComposeSettings, History
from ..loops import extract_latest_tool_loop
from ..selection import Selection, keep, synthetic_user
from ..turns import current_turn, opening_slot
from ..types import Memory
from ..window import stepped_count, window_margin


def turn_aware(history: History, settings: ComposeSettings) -> Selection:
    """The turn-aware design with its enhancements, shaped for prompt caches.

    System prompt, then the latest tool loop of the history before the turn
    boundary, then the complete current turn, whatever started it: a prompt
    memory, or the nudge text the model received, once, where it received it.
    Both are fixed for the whole turn (the loop is taken from before the turn's
    start, not from a sliding window), so within a turn every request is the
    previous one plus the new messages.

    Seed 001's bound holds: no request carries more than ``max_context_messages``
    memories. The latest loop of earlier turns is left out once it and the turn no longer
    fit together (from then on, for the rest of the turn). Turn paging (the design's
    "turn-based pagination"): a turn grown past the bound keeps its opening pinned in
    front and its newest memories in the stepped window of ``core/window.py`` (cut back
    by ``window_margin``, grown to the bound again), with a note behind the memories
    the step kept standing for the paged-out part. Between steps the request only
    appends.
    """
    selection = Selection(default_drop_reason="earlier turn: only its latest tool loop is kept")
    turn = current_turn(history, settings)
    window = list(history.window)
    if history.turn is not None:
        current = list(history.turn_memories)
        before = list(history.before_turn)
    else:  # no recorded turn: the boundary was inferred from the window
        current = [m for m in window if m.id >= turn.first_memory_id]
        before = [m for m in window if m.id < turn.first_memory_id]
    size, margin = max(settings.max_context_messages, 1), max(settings.window_margin, 1)
    first = history.turn_first
    total = (
        current[-1].seq - first.seq + 1
        if current and first is not None and current[-1].seq > 0 and first.seq > 0
        else len(current)
    )
    # The opening memory is pinned in front of a paged turn: it counts within the bound.
    pinned = 0 if turn.synthetic else 1
    room = max(size - pinned, 1)
    body = total - pinned
    paged = body > room or (
        history.turn is None
        and history.before_window_id is not None
        and not before
        and history.before_window_id >= turn.first_memory_id
    )
    opening = opening_slot(history, turn)
    if paged:
        floor = room
        if body > room:
            # The window's grid with the step of the whole bound: the turn's rounds are
            # cut back by ``window_margin`` memories at once (at most half the bound, so
            # the floor is at least 1).
            step = window_margin(size, margin)
            floor = room - step + 1
            current = current[-stepped_count(body, room, step) :]
        selection.slots.append(
            opening
            or synthetic_user(
                prompts.nudge_text(settings.nudge_level), "nudge", "turn start not stored"
            )
        )
        at = _note_position(current, floor)
        while current and current[0].role == "tool":
            selection.drop(current[0], "turn paging: its call is in the paged-out part")
            current, at = current[1:], at - 1
        start = turn.first_memory_id + (0 if turn.synthetic else 1)
        note = replace(
            synthetic_user(
                prompts.paged_note(start, current[0].id if current else None),
                "note",
                "earlier part of a long turn, paged out",
            ),
            carries_on=True,
        )
        selection.slots.extend(keep(m) for m in current[:at])
        selection.slots.append(note)
        current = current[at:]
    else:
        loop = extract_latest_tool_loop(before)
        if len(loop) + total <= size:
            selection.slots.extend(
                keep(m, reason="latest tool loop of earlier turns") for m in loop
            )
        else:
            for m in loop:
                selection.drop(m, "earlier turn's loop: it and the turn pass max_context_messages")
        if opening is not None:
            selection.slots.append(opening)
            if not turn.synthetic:
                current = [m for m in current if m.id != turn.first_memory_id]
    selection.slots.extend(keep(m) for m in current)
    return selection


def _note_position(current: list[Memory], size: int) -> int:
    """Where the paging note stands among the kept memories: after those the step kept
    (the first ``size``, the window's floor, and any tool results of their last call), so
    that it stays in place until the next step.

    Behind the kept memories rather than before them, because an engine that reuses a
    moved chunk of its cache (llama-server's ``n_cache_reuse``) can reuse the kept rounds
    only when they follow the shared prefix directly: the step then costs the engine the
    note and the new round instead of the whole kept part."""
    at = min(size, len(current))
    while at < len(current) and current[at].role == "tool":
        at += 1
    return at

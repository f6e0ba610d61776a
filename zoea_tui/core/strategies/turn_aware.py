"""``turn-aware`` (seed 004, the default): compressed past, complete current turn."""

from __future__ import annotations

from .. import prompts
from ..composition import ComposeSettings, History
from ..loops import extract_latest_tool_loop
from ..selection import Selection, keep, synthetic_user
from ..turns import current_turn, opening_slot


def turn_aware(history: History, settings: ComposeSettings) -> Selection:
    """Seed 004 with its enhancements, shaped for prompt caches.

    System prompt, then the latest tool loop of the history before the turn
    boundary, then the complete current turn, whatever started it: a prompt
    memory, or the nudge text the model received, once, where it received it.
    Within a turn every request is the previous one plus the new messages.

    Turn paging: a turn longer than the scan window keeps its opening pinned in
    front, a note stands for its early part, and the rest follows. The window is
    cut in steps (``core/window.py``), so the note and the paged part stay
    byte-identical until the next step.
    """
    window = list(history.window)
    selection = Selection(default_drop_reason="earlier turn: only its latest tool loop is kept")
    turn = current_turn(history, settings)
    before = [m for m in window if m.id < turn.first_memory_id]
    current = [m for m in window if m.id >= turn.first_memory_id]
    paged = (not before and history.before_window_id is not None
             and history.before_window_id >= turn.first_memory_id)
    opening = opening_slot(history, turn)
    if paged:
        selection.slots.append(opening or synthetic_user(
            prompts.nudge_text(settings.nudge_level), "nudge", "turn start not stored"))
        first = current[0].id if current else None
        start = turn.first_memory_id + (0 if turn.synthetic else 1)
        selection.slots.append(synthetic_user(
            prompts.gap_note(start, first), "note", "earlier part of a long turn, paged out"))
        while current and current[0].role == "tool":
            selection.drop(current[0], "turn paging: its call is in the paged-out part")
            current = current[1:]
    else:
        selection.slots.extend(keep(m, reason="latest tool loop of earlier turns")
                               for m in extract_latest_tool_loop(before))
        if opening is not None:
            selection.slots.append(opening)
            if not turn.synthetic:
                current = [m for m in current if m.id != turn.first_memory_id]
    selection.slots.extend(keep(m) for m in current)
    return selection

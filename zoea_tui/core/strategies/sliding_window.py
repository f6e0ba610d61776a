"""``sliding-window`` (docs/CONTEXT.md): the system prompt and the last N memories."""

from __future__ import annotations

from ..composition import ComposeSettings, History
from ..selection import Selection, keep
from ..turns import place_openings, turns_in_view


def sliding_window(history: History, settings: ComposeSettings) -> Selection:
    """The window, cut in steps, with its cut snapped to a loop boundary.

    The window is the store's stepped scan window (``core/window.py``): it grows
    past ``max_context_messages`` by a margin, then is cut back in one step, so
    requests between cuts only append. A window that starts on tool results whose
    call fell out is moved forward past them; when the window no longer holds the
    latest prompt, it is put back in front, so the task is never lost. The nudge
    that opened a turn stands where the model received it.
    """
    window = list(history.window)
    selection = Selection(default_drop_reason="outside the sliding window")
    start = 0
    while start < len(window) and window[start].role == "tool":
        selection.drop(window[start], "window cut: its call is outside the window")
        start += 1
    window = window[start:]
    prompt = history.latest_prompt
    if prompt is not None and (not window or prompt.id < window[0].id):
        selection.slots.append(keep(prompt, pinned=True, reason="latest prompt, re-injected"))
    slots = [*selection.slots, *(keep(m) for m in window)]
    selection.slots = place_openings(
        slots, history, turns_in_view(history, settings), after_id=history.before_window_id
    )
    return selection

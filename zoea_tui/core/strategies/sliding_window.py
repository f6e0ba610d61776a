"""``sliding-window`` (docs/CONTEXT.md): the system prompt and the last N memories."""

from __future__ import annotations

from ..composition import ComposeSettings, History
from ..selection import Selection, keep
from ..turns import place_openings, turns_in_view
from ..window import window_margin


def sliding_window(history: History, settings: ComposeSettings) -> Selection:
    """The window, cut in steps, with its cut snapped to a loop boundary.

    The window is the store's stepped scan window (``core/window.py``): at most
    ``max_context_messages`` memories, cut back by ``window_margin`` in one step, so
    requests between cuts only append. A window that starts on tool results whose
    call fell out is moved forward past them; when the window no longer holds the
    latest prompt, it is put back in front, so the task is never lost, and counts
    within the maximum: the window then cuts one memory earlier (at the maximum,
    back to ``max_context_messages - window_margin``), on the same grid. The nudge
    that opened a turn stands where the model received it.
    """
    window = list(history.window)
    selection = Selection(default_drop_reason="outside the sliding window")
    after_id = history.before_window_id
    prompt = history.latest_prompt
    reinjected = prompt is not None and (not window or prompt.id < window[0].id)
    maximum = max(settings.max_context_messages, 1)
    if reinjected and len(window) >= maximum:
        # The prompt put back in front takes one place of the window. Cutting back a
        # step here, rather than dropping only the oldest memory, keeps the grid: the
        # next request appends to this one, as between any two cuts.
        cut = len(window) - (maximum - window_margin(maximum, settings.window_margin))
        for memory in window[:cut]:
            selection.drop(memory, "window cut: room for the latest prompt, re-injected")
        after_id = window[cut - 1].id
        window = window[cut:]
    start = 0
    while start < len(window) and window[start].role == "tool":
        selection.drop(window[start], "window cut: its call is outside the window")
        start += 1
    window = window[start:]
    if reinjected:
        assert prompt is not None
        selection.slots.append(keep(prompt, pinned=True, reason="latest prompt, re-injected"))
    slots = [*selection.slots, *(keep(m) for m in window)]
    selection.slots = place_openings(
        slots, history, turns_in_view(history, settings), after_id=after_id
    )
    return selection

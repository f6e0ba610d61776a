"""``sliding-window`` (seed 001): the system prompt and the last N memories."""

from __future__ import annotations

from ..composition import ComposeSettings, History
from ..selection import Selection, keep


def sliding_window(history: History, settings: ComposeSettings) -> Selection:
    """Seed 001's window, with its cut snapped to a loop boundary.

    A window that starts on tool results whose call fell out is moved forward
    past them; when the window no longer holds the turn's prompt, the latest
    prompt is put back in front of it, so the task is never lost.
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
    selection.slots.extend(keep(m) for m in window)
    return selection

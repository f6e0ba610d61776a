"""``loop-slice`` (seed 000): system + the turn start + the latest tool loop."""

from __future__ import annotations

from ..composition import ComposeSettings, History
from ..loops import extract_latest_tool_loop, select_prompt_source
from ..selection import Selection, keep, nudge


def loop_slice(history: History, settings: ComposeSettings) -> Selection:
    """Seed 000's loop slice.

    The turn start is the most recent prompt source in the scan window
    (commander direct message, commander broadcast or swarm broadcast); with
    none, a synthetic nudge at the Mysis's encouragement level. Then the
    latest tool loop: the newest tool call message and its results.
    """
    window = history.window
    selection = Selection(default_drop_reason="loop slice keeps only the turn start and the "
                          "latest tool loop")
    prompt = select_prompt_source(window)
    if prompt is not None:
        selection.slots.append(keep(prompt, pinned=True, reason="turn start"))
    else:
        selection.slots.append(nudge(settings.nudge_level, "no prompt source in the window"))
    selection.slots.extend(keep(m, reason="latest tool loop")
                           for m in extract_latest_tool_loop(window))
    return selection

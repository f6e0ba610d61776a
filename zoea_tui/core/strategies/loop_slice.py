"""``loop-slice`` (docs/CONTEXT.md): system + the turn start + the latest tool loop."""

from __future__ import annotations

from dataclasses import replace

from ..composition import ComposeSettings, History
from ..loops import extract_latest_tool_loop, select_prompt_source
from ..selection import Selection, keep, nudge
from ..turns import current_turn, opening_slot


def loop_slice(history: History, settings: ComposeSettings) -> Selection:
    """The loop slice, in its order: system, turn start, latest tool loop.

    The turn start is the most recent prompt source of the current turn
    (commander direct message, commander broadcast or swarm broadcast), else what
    opened the turn: its prompt, or the exact nudge text the model received. Then
    the latest tool loop: the newest tool call message and its results.
    """
    window = history.window
    selection = Selection(
        default_drop_reason="loop slice keeps only the turn start and the latest tool loop"
    )
    turn = current_turn(history, settings)
    prompt = select_prompt_source([m for m in window if m.id >= turn.first_memory_id])
    start = (
        replace(
            keep(prompt, pinned=True, reason=f"turn start ({prompt.source})"),
            opens=prompt.id if prompt.id == turn.first_memory_id else None,
        )
        if prompt is not None
        else opening_slot(history, turn)
    )
    if start is None and history.latest_prompt is not None:
        start = keep(history.latest_prompt, pinned=True, reason="latest prompt")
    selection.slots.append(
        start if start is not None else nudge(settings.nudge_level, "no prompt source")
    )
    selection.slots.extend(
        keep(m, reason="latest tool loop") for m in extract_latest_tool_loop(window)
    )
    return selection

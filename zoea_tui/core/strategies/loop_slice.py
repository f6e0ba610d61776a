"""``loop-slice`` (docs/CONTEXT.md): system + the turn start + the latest tool loop."""

from __future__ import annotations

from dataclasses import replace

from ..composition import ComposeSettings, History
from ..loops import extract_latest_tool_loop, select_prompt_source
from ..selection import Selection, keep, nudge
from ..turns import current_turn, opening_slot


def loop_slice(history: History, settings: ComposeSettings) -> Selection:
    """The loop slice, in its order: system, turn start, latest tool loop.

    The turn start is, as seed 000 writes it, the most recent prompt in the scan
    window (a commander direct message, a commander broadcast or a swarm broadcast;
    most recent wins), whichever turn it opened: a nudge does not hide an order that
    is still in the window. Only without a prompt in the window does a nudge stand in:
    the exact text the turn's nudge gave the model, else the synthetic nudge at the
    current encouragement level. Then the latest tool loop: the newest tool call
    message and its results, as stored.
    """
    # The seed's scan window: the newest ``max_context_messages`` memories, whatever the
    # stepped window's cut (what this strategy sends does not depend on where it starts).
    window = history.recent or history.window
    selection = Selection(
        default_drop_reason="loop slice keeps only the turn start and the latest tool loop"
    )
    turn = current_turn(history, settings)
    prompt = select_prompt_source(window)
    if prompt is not None:
        start = replace(
            keep(prompt, pinned=True, reason=f"turn start: the latest prompt ({prompt.source})"),
            opens=prompt.id if prompt.id == turn.first_memory_id else None,
        )
    else:
        opening = opening_slot(history, turn) if turn.synthetic else None
        start = opening or nudge(settings.nudge_level, "no prompt in the window")
    selection.slots.append(start)
    selection.slots.extend(
        keep(m, reason="latest tool loop") for m in extract_latest_tool_loop(window)
    )
    return selection

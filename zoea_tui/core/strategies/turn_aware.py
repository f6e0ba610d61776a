"""``turn-aware`` (seed 004, the default): compressed past, complete current turn."""

from __future__ import annotations

from dataclasses import replace

from .. import prompts
from ..composition import AUTH_TOOLS, ComposeSettings, History
from ..loops import extract_latest_tool_loop, find_last_user_prompt_index, split_loops
from ..selection import Selection, Slot, keep, nudge, placeholder, synthetic_user
from ..state import extract_session_state
from ..types import Memory


def turn_aware(history: History, settings: ComposeSettings) -> Selection:
    """Seed 004 with its listed enhancements.

    System prompt, then the latest tool loop of the history before the turn
    boundary, then the complete current turn. Enhancements: when the turn
    began before the scan window, its prompt is pinned in front and a note
    stands for the part not loaded (turn paging); inside the turn, a snapshot
    result superseded by a newer one of the same tool becomes a placeholder
    while login/register loops are always kept whole (adaptive compression);
    account, session id and location come from a pinned state block.
    """
    window = list(history.window)
    selection = Selection(default_drop_reason="earlier turn: only its latest tool loop is kept")
    boundary = find_last_user_prompt_index(window)
    prompt = history.latest_prompt
    if boundary >= 0:
        historical, current = window[:boundary], window[boundary:]
        loop = extract_latest_tool_loop(historical)
        selection.slots.extend(keep(m, reason="latest tool loop of earlier turns") for m in loop)
        selection.slots.append(keep(current[0], pinned=True, reason="turn start"))
        current = current[1:]
    elif prompt is not None and (not window or prompt.id < window[0].id):
        selection.slots.append(keep(prompt, pinned=True, reason="turn start (pinned; the turn "
                                    "began before the scan window)"))
        if history.before_window_id is not None and history.before_window_id != prompt.id:
            first = window[0].id if window else None
            selection.slots.append(synthetic_user(
                prompts.gap_note(prompt.id + 1, first or prompt.id + 1), "note",
                "earlier part of a long turn, paged out"))
        current = window
    else:
        loop = extract_latest_tool_loop(window)
        selection.slots.extend(keep(m, reason="latest tool loop") for m in loop)
        selection.slots.append(nudge(settings.nudge_level, "no prompt source"))
        current = []
    selection.slots.extend(_current_turn(current, settings))
    state = extract_session_state(
        [m for m in (prompt, *window) if m is not None])
    selection.system_addendum = state.render()
    return selection


def _current_turn(memories: list[Memory], settings: ComposeSettings) -> list[Slot]:
    """The current turn, whole, but for snapshots superseded within it."""
    snapshot_tools = set(settings.snapshot_tools)
    latest: dict[str, int] = {}
    for memory in memories:
        if memory.role == "tool" and memory.tool_name in snapshot_tools:
            latest[memory.tool_name] = memory.id
    slots: list[Slot] = []
    for unit in split_loops(memories):
        is_auth = any(c.name in AUTH_TOOLS for c in unit[0].tool_calls)
        for memory in unit:
            name = memory.tool_name
            if (memory.role == "tool" and not is_auth and name in snapshot_tools
                    and latest[name] != memory.id):
                text = prompts.placeholder_superseded(name, memory.id, latest[name])
                slots.append(placeholder(memory, text, f"superseded within the turn by "
                                         f"memory #{latest[name]}"))
            else:
                slots.append(replace(keep(memory), pinned=is_auth,
                                     reason="login loop" if is_auth else ""))
    return slots

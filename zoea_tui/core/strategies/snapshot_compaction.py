"""``snapshot-compaction`` (docs/CONTEXT.md): the window, with stale snapshots collapsed."""

from __future__ import annotations

from dataclasses import replace

from .. import prompts
from ..composition import ComposeSettings, History
from ..selection import Selection, placeholder
from .sliding_window import sliding_window


def snapshot_compaction(history: History, settings: ComposeSettings) -> Selection:
    """Seed 002: of the results of each snapshot tool in the request, only the latest
    keeps its content, in every request, whenever it arrived; older ones become a
    one-line placeholder that keeps the call and result paired (V1, V2), so nothing is
    orphaned.

    The placeholder names only the memory it stands for, never the newer result, so
    once written it never changes: a request repeats the one before up to the result
    that a newer snapshot has just superseded, and an engine that moves runs of its
    cache (llama-server's ``n_cache_reuse``) reuses what follows it. Where the seed and
    the cache disagree the seed wins (docs/CONTEXT.md, 'snapshot-compaction').
    """
    selection = sliding_window(history, settings)
    snapshot_tools = set(settings.snapshot_tools)
    latest: dict[str, int] = {}
    for slot in selection.slots:
        if slot.role == "tool" and slot.tool_name in snapshot_tools and slot.memory is not None:
            latest[slot.tool_name] = slot.memory.id
    slots = []
    for slot in selection.slots:
        memory = slot.memory
        if (
            slot.role == "tool"
            and memory is not None
            and slot.tool_name in latest
            and latest[slot.tool_name] != memory.id
        ):
            text = prompts.placeholder_superseded(slot.tool_name, memory.id)
            slot = replace(
                placeholder(memory, text, f"superseded by memory #{latest[slot.tool_name]}"),
                pinned=slot.pinned,
            )
        slots.append(slot)
    selection.slots = slots
    return selection

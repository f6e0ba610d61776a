"""``snapshot-compaction`` (docs/CONTEXT.md): the window, with stale snapshots collapsed."""

from __future__ import annotations

from dataclasses import replace

from .. import prompts
from ..composition import ComposeSettings, History
from ..selection import Selection, placeholder
from .sliding_window import sliding_window


def snapshot_compaction(history: History, settings: ComposeSettings) -> Selection:
    """Of repeated snapshot-tool results only the latest keeps its
    content; older ones become a one-line placeholder that keeps the call and
    result paired (V1, V2), so nothing is orphaned. The placeholder does not name the
    newer result, so it stays byte-identical while newer snapshots arrive."""
    selection = sliding_window(history, settings)
    snapshot_tools = set(settings.snapshot_tools)
    latest: dict[str, int] = {}
    for slot in selection.slots:
        if slot.role == "tool" and slot.tool_name in snapshot_tools and slot.memory:
            latest[slot.tool_name] = slot.memory.id
    slots = []
    for slot in selection.slots:
        memory = slot.memory
        if (
            slot.role == "tool"
            and memory is not None
            and slot.tool_name in snapshot_tools
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

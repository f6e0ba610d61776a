"""``snapshot-compaction`` (docs/CONTEXT.md): the window, with stale snapshots collapsed."""

from __future__ import annotations

from dataclasses import replace

from .. import prompts
from ..composition import ComposeSettings, History
from ..selection import Selection, placeholder
from ..types import Memory
from .sliding_window import sliding_window


def snapshot_compaction(history: History, settings: ComposeSettings) -> Selection:
    """Of repeated snapshot-tool results only the latest keeps its content; older ones
    become a one-line placeholder that keeps the call and result paired (V1, V2), so
    nothing is orphaned. The placeholder does not name the newer result.

    Compaction moves in steps with the window (``core/window.py``): it applies to the
    memories that existed at the window's latest cut, and the results stored since are
    sent whole until the next cut. Between two cuts no message already sent changes,
    so each request repeats the previous one byte for byte and appends, as the other
    strategies do; at a cut, which already changes the request, the newer snapshots
    supersede the older ones.
    """
    selection = sliding_window(history, settings)
    snapshot_tools = set(settings.snapshot_tools)
    frozen = compaction_boundary(history.window, settings)

    def compacted(memory: Memory | None) -> bool:
        return memory is not None and (frozen is None or 0 < memory.seq <= frozen)

    latest: dict[str, int] = {}
    for slot in selection.slots:
        if slot.role == "tool" and slot.tool_name in snapshot_tools and compacted(slot.memory):
            assert slot.memory is not None
            latest[slot.tool_name] = slot.memory.id
    slots = []
    for slot in selection.slots:
        memory = slot.memory
        if (
            slot.role == "tool"
            and memory is not None
            and slot.tool_name in latest
            and compacted(memory)
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


def compaction_boundary(window: tuple[Memory, ...], settings: ComposeSettings) -> int | None:
    """The Mysis's memory count (``Memory.seq``) at the window's latest cut: compaction
    applies to the memories up to it. None: the memories carry no count (an unstored
    history), so everything in the window is compacted at once, as the seed did."""
    if not window or any(m.seq <= 0 for m in window):
        return None
    last = window[-1].seq
    size, margin = max(settings.max_context_messages, 1), max(settings.window_margin, 1)
    if margin <= 1:
        return last  # no steps: the window moves at every memory, and compaction with it
    if last < size + margin:
        return 0  # the window has not been cut yet: nothing is compacted before it is
    return last - (last - size) % margin

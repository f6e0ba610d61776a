"""``snapshot-compaction`` (docs/CONTEXT.md): the window, with stale snapshots collapsed."""

from __future__ import annotations

from dataclasses import replace

from .. import prompts
from ..composition import ComposeSettings, History
from ..selection import Selection, Slot, placeholder
from .sliding_window import sliding_window


def snapshot_compaction(history: History, settings: ComposeSettings) -> Selection:
    """Seed 002: of the results of each snapshot tool in the request, only the latest
    is sent, in every request, whenever it arrived.

    An older result leaves the request with its call when the call message holds
    nothing else (no text, every call a superseded snapshot): a request then differs
    from the one before by what it left out and what it appends, which an engine that
    moves runs of its cache (llama-server's ``n_cache_reuse``) serves around. Otherwise
    the older result becomes a one-line placeholder that keeps the call and result
    paired (V1, V2); it names only the memory it stands for, never the newer result,
    so once written it never changes. Where the seed and the cache disagree the seed
    wins (docs/CONTEXT.md, 'snapshot-compaction').
    """
    selection = sliding_window(history, settings)
    snapshot_tools = set(settings.snapshot_tools)
    latest: dict[str, int] = {}
    for slot in selection.slots:
        if slot.role == "tool" and slot.tool_name in snapshot_tools and slot.memory is not None:
            latest[slot.tool_name] = slot.memory.id

    def superseded(slot: Slot) -> bool:
        return (
            slot.role == "tool"
            and slot.memory is not None
            and slot.tool_name in latest
            and latest[slot.tool_name] != slot.memory.id
        )

    stale_calls = {s.tool_call_id for s in selection.slots if superseded(s)}
    gone: set[str] = set()
    for slot in selection.slots:
        if (
            slot.role == "assistant"
            and slot.memory is not None
            and slot.tool_calls
            and not slot.content.strip()
            and all(c.id in stale_calls for c in slot.tool_calls)
        ):
            gone.update(c.id for c in slot.tool_calls)
            selection.drop(slot.memory, "its calls' snapshot results are superseded")
    slots = []
    for slot in selection.slots:
        memory = slot.memory
        if memory is not None and slot.role == "assistant" and memory.id in selection.dropped:
            continue
        if superseded(slot):
            assert memory is not None and slot.tool_name is not None
            reason = f"superseded by memory #{latest[slot.tool_name]}"
            if slot.tool_call_id in gone:
                selection.drop(memory, reason)
                continue
            text = prompts.placeholder_superseded(slot.tool_name, memory.id)
            slot = replace(placeholder(memory, text, reason), pinned=slot.pinned)
        slots.append(slot)
    selection.slots = slots
    return selection

"""``summarize`` (docs/CONTEXT.md): past a token threshold, replace history by a summary."""

from __future__ import annotations

from dataclasses import replace

from .. import prompts
from ..composition import ComposeSettings, History
from ..selection import Selection, keep
from ..tokens import MESSAGE_OVERHEAD, count_tokens
from ..turns import place_openings, turns_in_view


def summarize(history: History, settings: ComposeSettings) -> Selection:
    """``[system, user: summary + last request]`` and what came after.

    The selection holds the latest summary (if any) followed by every memory
    stored after it. Whether a new summary is due is decided by
    :func:`needs_summary`; the summary itself is written by the caller
    (the Mysis's model, or the extractive summarizer) and stored as a
    ``summary`` memory, after which composing again starts from it.
    """
    selection = Selection(default_drop_reason="covered by the summary")
    if history.latest_summary is not None:
        summary = history.latest_summary
        selection.slots.append(
            replace(keep(summary, pinned=True, reason="latest summary"), kind="summary")
        )
    memories = history.since_summary if history.since_summary is not None else history.window
    selection.slots.extend(keep(m) for m in memories)
    if history.since_summary is not None:
        after = history.latest_summary.id if history.latest_summary is not None else None
    else:
        after = history.before_window_id
    selection.slots = place_openings(
        selection.slots, history, turns_in_view(history, settings), after_id=after
    )
    return selection


def estimated_tokens(history: History) -> int:
    """A quick estimate of the summarize request before any capping."""
    memories = history.since_summary if history.since_summary is not None else history.window
    total = count_tokens(history.system_template)
    for memory in memories:
        total += MESSAGE_OVERHEAD + (memory.tokens or count_tokens(memory.content))
        total += sum(count_tokens(c.arguments) + 4 for c in memory.tool_calls)
    if history.latest_summary is not None:
        total += MESSAGE_OVERHEAD + count_tokens(history.latest_summary.content)
    return total


def needs_summary(history: History, settings: ComposeSettings) -> bool:
    """True when the request would pass the threshold (or the model's budget).

    A threshold of 0 disables summaries (the budget still caps the request).
    Memories after the summary must exist, so a summary is never summarised
    again on its own (no compaction loop).
    """
    if settings.summarize_threshold <= 0:
        return False
    memories = history.since_summary if history.since_summary is not None else history.window
    if not memories:
        return False
    trigger = min(settings.summarize_threshold, settings.estimate_budget)
    return estimated_tokens(history) > trigger


def summary_content(summary_text: str, last_request: str) -> str:
    """The stored text of a summary memory (docs/CONTEXT.md, 'summarize')."""
    text = prompts.SUMMARY_HEADER + summary_text.strip()
    if last_request.strip():
        text += "\n\n" + prompts.LAST_REQUEST_PREFIX + last_request.strip()
    return text

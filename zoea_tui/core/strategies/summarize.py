"""``summarize`` (docs/CONTEXT.md): past a token threshold, replace history by a summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .. import prompts
from ..composition import ComposeSettings, History, SummaryGauge
from ..selection import Selection, keep
from ..tokens import MESSAGE_OVERHEAD, count_tokens, truncate_to_tokens
from ..turns import place_openings, turns_in_view
from ..types import Memory


def summarize(history: History, settings: ComposeSettings) -> Selection:
    """``[system, user: summary + last request]`` and what came after.

    The selection holds the latest summary (if any) followed by every memory
    stored after it. Whether a new summary is due is decided by
    :func:`summary_gauge` (its ``due``); the summary itself is written by the caller
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


#: Fewest tokens a summary is cut to, however tight the threshold.
SUMMARY_MIN_TOKENS = 200
#: Most tokens of the last request quoted after a summary.
LAST_REQUEST_MAX_TOKENS = 300
#: Summaries pause when the request right after one takes this share of the trigger.
PAUSE_SHARE = 0.75


def _memories_tokens(memories: Sequence[Memory], settings: ComposeSettings) -> int:
    """A quick estimate of ``memories`` in the summarize request (each tool result at most
    its cap in the request)."""
    cap = settings.tool_result_max_tokens
    total = 0
    for memory in memories:
        tokens = memory.tokens or count_tokens(memory.content)
        if memory.role == "tool":
            tokens = min(tokens, cap)
        total += MESSAGE_OVERHEAD + tokens
        total += sum(count_tokens(c.arguments) + 4 for c in memory.tool_calls)
    return total


def _floor(history: History, settings: ComposeSettings) -> int:
    """The system prompt, the tools and the latest summary: what a summary cannot remove."""
    total = count_tokens(history.system_template) + settings.tools_tokens
    if history.latest_summary is not None:
        total += MESSAGE_OVERHEAD + count_tokens(history.latest_summary.content)
    return total


def summary_trigger(settings: ComposeSettings) -> tuple[int, str]:
    """The tokens at which a summary is due, and what sets them (0: summaries are off).

    The configured ``summarize_threshold``, or the model's budget (its context window
    less the reserve for the answer) when that is smaller, as it is by default.
    """
    if settings.summarize_threshold <= 0:
        return 0, "summarize_threshold = 0"
    budget = settings.estimate_budget
    if budget < settings.summarize_threshold:
        return budget, (
            f"the context window {settings.context_window:,} less {settings.reserve_tokens:,} "
            "for the answer"
        )
    return settings.summarize_threshold, "summarize_threshold"


def summary_gauge(history: History, settings: ComposeSettings) -> SummaryGauge:
    """Where the request stands against the summary trigger, and whether summaries are
    paused (docs/CONTEXT.md, 'summarize')."""
    trigger, basis = summary_trigger(settings)
    memories = history.since_summary if history.since_summary is not None else history.window
    summary = history.latest_summary
    base = _floor(history, settings)
    floor = base if summary is not None else None
    paused = None
    if trigger > 0 and summary is not None and base >= PAUSE_SHARE * trigger:
        paused = (
            f"the request right after summary #{summary.id} already takes ~{base:,} tok "
            f"({base / trigger:.0%} of {trigger:,}), so another summary cannot make room; "
            "raise summarize_threshold or the model's context_window, or pick another strategy"
        )
    return SummaryGauge(
        tokens=base + _memories_tokens(memories, settings),
        trigger=trigger,
        basis=basis,
        floor=floor,
        summary_id=summary.id if summary is not None else None,
        paused=paused,
        pending=len(memories),
    )


def summary_max_tokens(history: History, settings: ComposeSettings) -> int:
    """Most tokens a new summary may take: the request right after it should use at most
    half the trigger, so the next summary is due only after as much again of play."""
    trigger, _ = summary_trigger(settings)
    room = trigger // 2 - count_tokens(history.system_template) - settings.tools_tokens
    room -= 2 * MESSAGE_OVERHEAD + count_tokens(prompts.SUMMARY_HEADER) + LAST_REQUEST_MAX_TOKENS
    return max(room, SUMMARY_MIN_TOKENS)


def summary_content(summary_text: str, last_request: str, max_tokens: int | None = None) -> str:
    """The stored text of a summary memory (docs/CONTEXT.md, 'summarize'), the summary cut
    to ``max_tokens`` when it is longer (with a line saying so)."""
    body = summary_text.strip()
    if max_tokens is not None and count_tokens(body) > max_tokens:
        notice = prompts.SUMMARY_SHORTENED
        body = truncate_to_tokens(body, max(max_tokens - count_tokens(notice), 16)).rstrip()
        body += "\n" + notice
    text = prompts.SUMMARY_HEADER + body
    last = last_request.strip()
    if last:
        if count_tokens(last) > LAST_REQUEST_MAX_TOKENS:
            last = truncate_to_tokens(last, LAST_REQUEST_MAX_TOKENS).rstrip() + "…"
        text += "\n\n" + prompts.LAST_REQUEST_PREFIX + last
    return text

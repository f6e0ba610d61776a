"""``compose(history, strategy, settings)``: the one function every caller uses.

The orchestrator, the live context preview, ``zoea context`` and the
benchmarks all call it, so what the preview shows is what is sent.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import prompts
from .composition import (
    ComposeSettings,
    Composition,
    ContextTooSmallError,
    History,
    SummaryRequest,
)
from .normalize import clean_messages, finalize
from .selection import keep
from .strategies import STRATEGIES
from .strategies.summarize import summary_gauge, summary_max_tokens
from .turns import current_turn


class UnknownStrategyError(ValueError):
    """Raised for a strategy name that does not exist."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown strategy {name!r}; expected one of: {', '.join(STRATEGIES)}")


def compose(history: History, strategy: str, settings: ComposeSettings) -> Composition:
    """Compose the next request of a Mysis: pure and deterministic."""
    try:
        choose = STRATEGIES[strategy]
    except KeyError:
        raise UnknownStrategyError(strategy) from None
    try:
        composition = finalize(choose(history, settings), history, settings, strategy)
    except ContextTooSmallError as error:
        if error.least is not None:  # complete, for an engine that may count it in
            error.least = _completed(error.least, history, strategy, settings)
        raise
    return _completed(composition, history, strategy, settings)


def _completed(
    composition: Composition, history: History, strategy: str, settings: ComposeSettings
) -> Composition:
    """A finalized composition with what it saw and, under ``summarize``, its gauge."""
    seen = [m.id for m in (*history.window, *(history.since_summary or ()))]
    composition = replace(
        composition,
        last_memory_id=max(seen) if seen else None,
        turn=current_turn(history, settings),
    )
    if strategy == "summarize":
        gauge = summary_gauge(history, settings)
        composition = replace(composition, summary_gauge=gauge)
        if gauge.due:
            composition = _with_summary_request(composition, history, settings, gauge.tokens)
    return composition


def _with_summary_request(
    composition: Composition, history: History, settings: ComposeSettings, tokens: int
) -> Composition:
    memories = history.since_summary if history.since_summary is not None else history.window

    def build_messages() -> tuple[dict[str, Any], ...]:
        # The earlier summary is part of the conversation being summarised (docs/CONTEXT.md):
        # without it, a second summary would lose what the first one kept.
        earlier = history.latest_summary
        slots = [keep(m) for m in memories]
        if earlier is not None and all(m.id != earlier.id for m in memories):
            slots.insert(0, keep(earlier))
        messages = clean_messages(slots, settings)
        messages.append({"role": "user", "content": prompts.SUMMARY_PROMPT})
        return tuple(messages)

    last = next((m for m in reversed(memories) if m.is_prompt), history.latest_prompt)
    request = SummaryRequest(
        last_request=last.content if last is not None else "",
        covers_up_to=memories[-1].id,
        tokens=tokens,
        build_messages=build_messages,
        max_tokens=summary_max_tokens(history, settings),
    )
    return replace(composition, summary_request=request)

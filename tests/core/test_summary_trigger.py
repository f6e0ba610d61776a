"""The ``summarize`` trigger: at or above the threshold (seed 003), never a summary per
memory, and where the request stands shown with every composition."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

from tests.helpers import Log, history_of
from zoea_tui.core import prompts
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.strategies.summarize import (
    summary_content,
    summary_gauge,
    summary_max_tokens,
)
from zoea_tui.core.summarizer import extractive_summary
from zoea_tui.core.tokens import count_tokens

#: About 200 tokens of result text.
PAD = " ".join(f"ore{i}" for i in range(100))


def mining_log(loops: int = 20) -> Log:
    log = Log()
    log.direct("Mine iron and report.")
    for n in range(loops):
        log.loop(f"m{n}", "mine", json.dumps({"quantity": 5, "pad": PAD}))
    return log


def test_a_summary_is_due_at_the_threshold_not_only_past_it() -> None:
    log = mining_log()
    probe = ComposeSettings(summarize_threshold=100_000_000, context_window=10**9)
    tokens = summary_gauge(history_of(log.memories, probe, strategy="summarize"), probe).tokens
    at = replace(probe, summarize_threshold=tokens)
    above = replace(probe, summarize_threshold=tokens + 1)
    history = history_of(log.memories, at, strategy="summarize")
    assert compose(history, "summarize", at).summary_request is not None, ">= as seed 003 says"
    history = history_of(log.memories, above, strategy="summarize")
    assert compose(history, "summarize", above).summary_request is None


def test_the_trigger_is_the_smaller_of_the_threshold_and_the_budget() -> None:
    history = history_of(mining_log(2).memories, strategy="summarize")
    gauge = compose(history, "summarize", ComposeSettings()).summary_gauge
    assert gauge is not None
    assert gauge.trigger == ComposeSettings().estimate_budget == 32_768 - 1024
    assert "context window 32,768 less 1,024" in gauge.describe()
    small = ComposeSettings(summarize_threshold=5_000)
    gauge = compose(history, "summarize", small).summary_gauge
    assert gauge is not None and gauge.trigger == 5_000
    assert gauge.describe().startswith("summary at 5,000 tok (summarize_threshold); this request")
    off = compose(history, "summarize", ComposeSettings(summarize_threshold=0)).summary_gauge
    assert off is not None and off.describe() == "summaries off (summarize_threshold = 0)"
    assert compose(history, "turn-aware", ComposeSettings()).summary_gauge is None


def _play(settings: ComposeSettings, summary_text: str, memories: int) -> tuple[Log, list[int]]:
    """Add memories one by one, writing ``summary_text`` (cut as the runtime cuts it)
    whenever a summary is due; returns the log and the memory count at each summary."""
    log = Log()
    log.direct("Mine iron and report.")
    at: list[int] = []
    for n in range(memories):
        log.loop(f"m{n}", "mine", json.dumps({"quantity": 5, "pad": PAD}))
        history = history_of(log.memories, settings, strategy="summarize")
        request = compose(history, "summarize", settings).summary_request
        if request is not None:
            log.add(
                "user",
                "summary",
                summary_content(summary_text, request.last_request, request.max_tokens),
            )
            at.append(len(log.memories))
    return log, at


def test_a_summary_too_long_for_the_threshold_is_shortened_so_play_goes_on() -> None:
    settings = ComposeSettings(summarize_threshold=3_000)
    huge = "The pilot mined iron. " * 2_000  # a model that does not know when to stop
    log, at = _play(settings, huge, 60)
    assert len(at) >= 2, "summaries keep coming as play goes on"
    gaps = [b - a for a, b in itertools.pairwise(at)]
    assert min(gaps) >= 10, f"never a summary per memory: {gaps}"
    last = [m for m in log.memories if m.source == "summary"][-1]
    assert last.content.count(prompts.SUMMARY_SHORTENED) == 1
    history = history_of(log.memories[: at[-1]], settings, strategy="summarize")
    gauge = summary_gauge(history, settings)
    assert gauge.floor is not None and gauge.floor <= settings.summarize_threshold // 2
    assert gauge.paused is None


def test_summaries_pause_when_no_summary_can_make_room_and_say_why() -> None:
    # The system prompt alone takes most of this threshold: a summary cannot help.
    system = count_tokens(prompts.SYSTEM_PROMPT_TEMPLATE)
    settings = ComposeSettings(summarize_threshold=system + 150)
    log, at = _play(settings, "The pilot mined iron.", 40)
    assert len(at) == 1, "one summary, then the trigger stops instead of looping"
    history = history_of(log.memories, settings, strategy="summarize")
    composition = compose(history, "summarize", settings)
    gauge = composition.summary_gauge
    assert gauge is not None and gauge.paused is not None
    assert composition.summary_request is None and gauge.tokens >= gauge.trigger
    assert "raise summarize_threshold" in gauge.describe()
    # Room again (a larger threshold): summaries resume.
    roomy = replace(settings, summarize_threshold=system + 2_000)
    history = history_of(log.memories, roomy, strategy="summarize")
    gauge = summary_gauge(history, roomy)
    assert gauge.paused is None and gauge.due


def test_the_pause_is_not_taken_while_a_summary_leaves_room() -> None:
    settings = ComposeSettings(summarize_threshold=4_000)
    log, at = _play(settings, "The pilot mined iron.", 60)
    assert len(at) >= 3
    history = history_of(log.memories, settings, strategy="summarize")
    assert summary_gauge(history, settings).paused is None


def test_the_summary_request_carries_the_room_a_summary_may_take() -> None:
    log = mining_log(30)
    settings = ComposeSettings(summarize_threshold=6_000)
    history = history_of(log.memories, settings, strategy="summarize")
    request = compose(history, "summarize", settings).summary_request
    assert request is not None and request.max_tokens == summary_max_tokens(history, settings)
    text = extractive_summary(list(request.messages), request.last_request)
    stored = summary_content(text, request.last_request, request.max_tokens)
    assert count_tokens(stored) <= request.max_tokens + 400  # the header and last request

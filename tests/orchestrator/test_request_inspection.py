"""The request inspector's engine side: every logged request recomposes byte-identically
from the log (checked against the digest logged with it), its answer is found, and the
diff against the previous request says what was appended, what left and why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from zoea_tui.config import Config, ContextConfig
from zoea_tui.core.composition import Composition, Item
from zoea_tui.core.request_diff import diff_requests
from zoea_tui.orchestrator.headless import simulate
from zoea_tui.orchestrator.requests import inspect_request
from zoea_tui.storage import Store
from zoea_tui.storage.story import request_page


@pytest.mark.parametrize("strategy", ["turn-aware", "sliding-window", "summarize"])
async def test_every_logged_request_recomposes_byte_identically(
    tmp_path: Path, strategy: str
) -> None:
    config = Config(
        context=ContextConfig(max_context_messages=6, window_margin=3, summarize_threshold=1500)
    )
    # Turns of ten rounds (the autopilot's own allowance is 100): eight turns fit a page.
    providers = dict(config.providers)
    providers["autopilot"] = replace(providers["autopilot"], max_tool_iterations=10)
    config = replace(config, providers=providers)
    db = tmp_path / "sim.db"
    await simulate(
        config, myses=1, turns=8, strategy=strategy, provider="autopilot", seed=5, db_path=db
    )
    store = await Store.open(db)
    try:
        mysis = (await store.list_myses())[0]
        page = await request_page(store, mysis.id, limit=500)
        assert len(page) >= 8
        # Today's settings differ from the logged ones: the recorded ones must win.
        today = replace(config.compose_settings(None), max_context_messages=40)
        reasons: set[str] = set()
        for summary in page:
            seen = await inspect_request(store, summary.id, today)
            assert seen is not None
            assert seen.identical is True, (summary.id, summary.strategy)
            assert len(seen.composition.messages) == summary.messages
            if summary.outcome == "ok":
                assert seen.answer is not None and seen.answer.role == "assistant"
            if seen.diff is not None:
                reasons.update(seen.diff.reasons)
        assert seen.previous is None and seen.diff is None  # the oldest one
        assert reasons, "a session this long moves its window at least once"
    finally:
        await store.close()


def _comp(*items: tuple[str, int | None, str, str]) -> Composition:
    built = tuple(Item(role, kind, "kept", 3, memory_id=mid) for role, mid, kind, _ in items)
    messages = tuple({"role": role, "content": text} for role, _, _, text in items)
    return Composition("sliding-window", messages, built, (), 3 * len(items))


def test_diff_names_what_was_appended_and_what_the_cut_removed() -> None:
    system = ("system", None, "system", "You are Ada.")
    before = _comp(system, ("user", 1, "memory", "mine"), ("assistant", 2, "memory", "ok"))
    grown = _comp(
        system,
        ("user", 1, "memory", "mine"),
        ("assistant", 2, "memory", "ok"),
        ("user", 3, "memory", "sell"),
    )
    diff = diff_requests(before, grown)
    assert (diff.kept, diff.count("appended"), diff.count("left"), diff.reasons) == (3, 1, 0, ())
    cut = _comp(system, ("assistant", 2, "memory", "ok"), ("user", 3, "memory", "sell"))
    diff = diff_requests(grown, cut)
    left = [line for line in diff.lines if line.status == "left"]
    assert [(line.memory_id, line.text) for line in left] == [(1, "mine")]
    assert "the cut moved" in left[0].reason
    assert any("cut moved" in reason for reason in diff.reasons)


def test_diff_blames_a_summary_and_a_new_turn() -> None:
    system = ("system", None, "system", "S")
    before = _comp(system, ("user", 1, "memory", "a"), ("assistant", 2, "memory", "b"))
    after = _comp(system, ("user", None, "summary", "Summary: a, b"), ("user", 3, "memory", "c"))
    diff = diff_requests(before, after, new_turn=True)
    assert {line.reason for line in diff.lines if line.status == "left"} == {
        "replaced by a summary"
    }
    assert diff.reasons[:2] == ("a new turn began", "a summary replaced the older history")

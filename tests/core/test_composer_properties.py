"""Property tests: the composer's guarantees hold for every strategy and history."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import Log, examples, history_of
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings, ContextTooSmallError
from zoea_tui.core.prompts import render_system_prompt
from zoea_tui.core.strategies import STRATEGIES
from zoea_tui.core.tokens import request_tokens
from zoea_tui.core.validator import validate

#: A 2 MB tool result (crush#3733 had 1.7 MB).
BIG = json.dumps(
    {"map": [{"system": f"sys_{i}", "pois": ["belt", "station"] * 8} for i in range(14_000)]}
)[:2_000_000]

TOOLS = [
    "get_ship",
    "get_status",
    "get_cargo",
    "mine",
    "travel",
    "login",
    "sell",
    "zoea_search_messages",
]
texts = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            "  ",
            "[bold]x[/b]",
            "\x1b[31mred\x1b[0m",
            "nul\x00byte",
            "مرحبا 🚀",
            '{"error": {"code": "cargo_full"}}',
        ]
    ),
)
call_ids = st.one_of(
    st.sampled_from(["", "call_0", "dup"]), st.text("abc123", min_size=4, max_size=8)
)
#: Call arguments as models write them: mostly objects, sometimes cut at ``max_tokens``
#: or not an object at all (the composer must send them as objects: V8).
arguments = st.one_of(
    st.integers(0, 9).map(lambda n: json.dumps({"n": n})),
    st.sampled_from(['{"target', "[1]", "", "null", '"go"', "{}", '{"a": {"b": [1, 2', "{}}"]),
)
result_modes = st.sampled_from(
    ["all", "all", "all", "none", "some", "reversed", "duplicate", "late", "big"]
)

op = st.one_of(
    st.tuples(st.just("direct"), texts),
    st.tuples(st.just("broadcast"), texts, st.sampled_from([None, "2"])),
    st.tuples(st.just("say"), texts),
    st.tuples(
        st.just("calls"),
        st.lists(st.tuples(call_ids, st.sampled_from(TOOLS), arguments), min_size=1, max_size=4),
        result_modes,
        texts,
    ),
    st.tuples(st.just("orphan"), call_ids, st.sampled_from(TOOLS)),
    st.tuples(st.just("system"), texts),
    st.tuples(st.just("summary"), texts),
)


def build(ops: list[tuple]) -> Log:
    log = Log()
    for o in ops:
        kind = o[0]
        if kind == "direct":
            log.direct(o[1])
        elif kind == "broadcast":
            log.broadcast(o[1], o[2])
        elif kind == "say":
            log.say(o[1])
        elif kind == "orphan":
            log.result(o[1], o[2], "orphaned result")
        elif kind == "system":
            log.add("system", "system", o[1])
        elif kind == "summary":
            log.add("user", "summary", o[1])
        else:
            _, calls, mode, text = o
            log.call(*[(cid, name, args) for cid, name, args in calls])
            results = [(cid, name) for cid, name, _ in calls]
            if mode == "none":
                results = []
            elif mode == "some":
                results = results[:1]
            elif mode == "reversed":
                results.reverse()
            elif mode == "duplicate":
                results = results + results[:1]
            elif mode == "late":
                log.direct("commander message in the middle of a loop")
            for cid, name in results:
                log.result(cid, name, BIG if mode == "big" else text or "{}")
    return log


compose_settings = st.builds(
    ComposeSettings,
    max_context_messages=st.integers(1, 30),
    tool_result_max_tokens=st.sampled_from([64, 500, 4000]),
    summarize_threshold=st.sampled_from([0, 300, 200_000]),
    context_window=st.sampled_from([2048, 8192, 32_768]),
    tools_tokens=st.sampled_from([0, 300]),
    nudge_level=st.integers(0, 3),
    token_scale=st.sampled_from([1.0, 1.0, 1.36, 0.8, 2.5]),
)


@settings(
    max_examples=examples(2000),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(ops=st.lists(op, max_size=40), cut=st.integers(0, 200), cfg=compose_settings)
def test_every_strategy_composes_valid_bounded_deterministic_requests(
    ops: list[tuple], cut: int, cfg: ComposeSettings
) -> None:
    memories = build(ops).memories
    memories = memories[: min(cut, len(memories))] if cut < len(memories) else memories
    for strategy in STRATEGIES:
        history = history_of(memories, cfg, strategy=strategy)
        try:
            first = compose(history, strategy, cfg)
        except ContextTooSmallError as error:
            # Nothing is sent rather than a mangled system prompt; the numbers say why.
            assert error.system + error.tools + error.history + error.answer > error.context
            assert error.context == cfg.context_window and error.answer == cfg.reserve_tokens
            with pytest.raises(ContextTooSmallError):  # the same history, the same verdict
                compose(history, strategy, cfg)
            continue
        again = compose(history, strategy, cfg)
        assert validate(first.messages) == [], (strategy, first.messages)
        roles = [m["role"] for m in first.messages]
        assert roles[0] == "system" and roles.count("system") == 1
        assert first.messages[0]["content"] == render_system_prompt(history.system_template)
        assert first.items[0].action == "synthetic"  # never cut
        assert json.dumps(first.messages) == json.dumps(again.messages), strategy
        assert first.items == again.items and first.dropped == again.dropped
        assert first.raw_tokens == request_tokens(list(first.messages), cfg.tools_tokens)
        assert first.tokens == cfg.engine_tokens(first.estimated_tokens)
        assert first.tokens <= cfg.context_window, (strategy, first.tokens)
        assert len(first.items) == len(first.messages)
        kept = {i.memory_id for i in first.items if i.memory_id is not None}
        assert kept.isdisjoint(d.memory_id for d in first.dropped)


def _realistic_log() -> Log:
    log = Log()
    log.direct("Log in, then mine and sell.")
    log.loop("l", "login", '{"username": "Ore", "session_id": "s1"}')
    log.call(("p1", "get_status"), ("p2", "get_cargo"))
    log.result("p2", "get_cargo", '{"cargo": []}')
    log.result("p1", "get_status", '{"player": {"current_poi": "main_belt"}}')
    for n in range(6):
        log.loop(f"m{n}", "mine", json.dumps({"quantity": n}))
    log.say("Hold is full.")
    log.broadcast("Sell at Sol Central.")
    log.loop("d", "dock", "{}")
    log.call(("s", "sell"), ("x", "get_ship"))
    log.result("s", "sell", '{"total_earned": 120}')
    log.direct("Report.")
    log.result("x", "get_ship", '{"ship": {}}')
    return log


def test_every_window_offset_of_a_realistic_history_composes_validly() -> None:
    memories = _realistic_log().memories
    for cut in range(len(memories) + 1):
        for n in range(1, len(memories) + 2):
            cfg = ComposeSettings(max_context_messages=n)
            for strategy in STRATEGIES:
                c = compose(history_of(memories[:cut], cfg, strategy=strategy), strategy, cfg)
                assert validate(c.messages) == [], (cut, n, strategy)


def test_a_2mb_tool_result_is_capped_with_a_pointer_in_every_strategy() -> None:
    log = Log()
    log.direct("Show me the map.")
    log.call(("g", "get_map"))
    big = log.result("g", "get_map", BIG)
    cfg = ComposeSettings(context_window=16_384)
    for strategy in STRATEGIES:
        c = compose(history_of(log.memories, cfg, strategy=strategy), strategy, cfg)
        result = next(m for m in c.messages if m["role"] == "tool")
        item = c.items[[m["role"] for m in c.messages].index("tool")]
        assert item.action == "truncated" and item.tokens <= cfg.tool_result_max_tokens + 10
        assert f"memory #{big.id}" in result["content"]
        assert c.tokens <= cfg.context_window

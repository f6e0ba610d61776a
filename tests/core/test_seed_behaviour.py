"""The original designs' own tests, re-expressed (docs/CONTEXT.md, 'The five strategies')."""

from __future__ import annotations

import json

import pytest

from tests.helpers import Log, history_of
from zoea_tui.core import prompts
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.loops import (
    extract_latest_tool_loop,
    find_last_user_prompt_index,
    select_prompt_source,
)
from zoea_tui.core.normalize import clean_messages
from zoea_tui.core.selection import keep
from zoea_tui.core.types import Turn
from zoea_tui.core.validator import validate

SETTINGS = ComposeSettings()


def ids(composition) -> list:
    return [i.memory_id for i in composition.items]


# -- seed 002: TestMysisContextCompaction ------------------------------------------


def test_snapshot_compaction_keeps_only_latest_get_ship_content() -> None:
    log = Log()
    log.direct("Report your ship.")
    for n in range(15):
        log.loop(f"c{n}", "get_ship", json.dumps({"ship": {"fuel": 100 - n}}))
    settings = ComposeSettings(max_context_messages=40)
    c = compose(history_of(log.memories, settings), "snapshot-compaction", settings)
    tool_messages = [m for m in c.messages if m["role"] == "tool"]
    # Each older get_ship call held nothing else: it leaves with its result.
    assert len(tool_messages) == 1 and '"fuel": 86' in tool_messages[0]["content"]
    assert [m["role"] for m in c.messages] == ["system", "user", "user", "assistant", "tool"]
    assert validate(c.messages) == []


def test_snapshot_compaction_leaves_non_snapshot_messages_alone() -> None:
    log = Log()
    log.direct("Mine.")
    log.loop("a", "get_ship", '{"ship": 1}')
    log.loop("b", "mine", '{"quantity": 5}')
    log.call(("c", "mine"), ("e", "get_ship"))
    log.result("c", "mine", '{"quantity": 6}')
    log.result("e", "get_ship", '{"ship": 2}')
    log.loop("d", "get_ship", '{"ship": 3}')
    c = compose(history_of(log.memories), "snapshot-compaction", SETTINGS)
    contents = [m["content"] for m in c.messages if m["role"] == "tool"]
    assert contents[0] == '{"quantity": 5}' and contents[1] == '{"quantity": 6}'
    # A superseded result whose call also made another call keeps its place.
    assert "a newer get_ship result follows" in contents[2] and contents[3] == '{"ship": 3}'
    assert len(contents) == 4, "the first get_ship left with its call"


# -- seed 004: TestFindLastUserPromptIndex (five cases) ----------------------------


def test_find_last_user_prompt_index_empty() -> None:
    assert find_last_user_prompt_index([]) == -1


def test_find_last_user_prompt_index_no_prompt() -> None:
    log = Log()
    log.loop("a", "get_status", "{}")
    log.say("ok")
    assert find_last_user_prompt_index(log.memories) == -1


def test_find_last_user_prompt_index_single_prompt_first() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", "{}")
    assert find_last_user_prompt_index(log.memories) == 0


def test_find_last_user_prompt_index_picks_most_recent() -> None:
    log = Log()
    log.direct("first")
    log.loop("a", "mine", "{}")
    log.broadcast("second")
    log.loop("b", "mine", "{}")
    assert find_last_user_prompt_index(log.memories) == 3


def test_find_last_user_prompt_index_ignores_summaries_and_system_rows() -> None:
    log = Log()
    log.direct("real order")
    log.add("user", "summary", "a summary")
    log.add("system", "system", "old system row")
    assert find_last_user_prompt_index(log.memories) == 0


# -- seed 004: CurrentTurnPreserved, NoUserPrompt, OnlyHistoricalTurns ----------


def test_turn_aware_current_turn_preserved() -> None:
    log = Log()
    log.direct("old question")
    log.loop("o1", "get_status", '{"old": 1}')
    log.loop("o2", "get_cargo", '{"old": 2}')
    turn = log.direct("Check ship status")
    log.loop("l1", "login", '{"session_id": "abc123", "username": "Ore"}')
    log.loop("s1", "get_status", '{"player": {"credits": 5}}')
    log.loop("n1", "get_notifications", '{"count": 0}')
    c = compose(history_of(log.memories), "turn-aware", SETTINGS)
    kept = [i for i in ids(c) if i is not None]
    historical = [m.id for m in log.memories[3:5]]  # only the latest loop of the old turn
    current = [m.id for m in log.memories if m.id >= turn.id]
    assert kept == historical + current
    assert "abc123" in json.dumps(c.messages)
    assert validate(c.messages) == []


def test_turn_aware_no_user_prompt_gets_synthetic_nudge() -> None:
    log = Log()
    log.loop("a", "get_status", "{}")
    log.loop("b", "mine", "{}")
    c = compose(history_of(log.memories), "turn-aware", ComposeSettings(nudge_level=1))
    assert c.uses_nudge
    nudges = [m for m, i in zip(c.messages, c.items, strict=True) if i.kind == "nudge"]
    assert nudges == [{"role": "user", "content": prompts.nudge_text(1)}]
    assert [i for i in ids(c) if i is not None] == [3, 4], "the latest loop is kept"
    assert validate(c.messages) == []


def test_turn_aware_only_historical_turns() -> None:
    log = Log()
    log.direct("q1")
    log.loop("a", "mine", "{}")
    log.say("done 1")
    log.direct("q2")
    log.loop("b", "sell", "{}")
    log.say("done 2")
    c = compose(history_of(log.memories), "turn-aware", SETTINGS)
    kept = [i for i in ids(c) if i is not None]
    assert kept == [2, 3, 5, 6, 7, 8]
    assert c.messages[-1]["role"] == "user", "a trailing answer gets the nudge"
    assert validate(c.messages) == []


def test_turn_aware_pins_prompt_of_a_turn_longer_than_the_window() -> None:
    log = Log()
    prompt = log.direct("Mine until full, then sell.")
    for n in range(20):
        log.loop(f"m{n}", "mine", json.dumps({"quantity": n}))
    settings = ComposeSettings(max_context_messages=10)
    c = compose(history_of(log.memories, settings), "turn-aware", settings)
    assert c.messages[1]["content"] == prompt.content
    assert c.items[2].kind == "state", "the turn's facts follow its opening"
    note = next(i for i, item in enumerate(c.items) if item.kind == "note")
    assert note > 3 and all(item.kind == "memory" for item in c.items[3:note])
    assert "not shown" in c.messages[note]["content"], "a note stands for the paged rounds"
    assert validate(c.messages) == []


def test_volatile_state_follows_the_turn_opening_and_never_enters_the_system_prompt() -> None:
    log = Log()
    log.direct("log in")
    log.loop("l", "login", '{"username": "Ore", "session_id": "s-1"}')
    log.direct("status?")
    log.loop("s", "get_status", '{"player": {"credits": 5}}')
    state = "- Game tick: 12\n- Location: sol / main_belt (2 ticks ago)"
    for strategy in ("turn-aware", "loop-slice", "sliding-window", "snapshot-compaction"):
        c = compose(
            history_of(log.memories, SETTINGS, game_state=state, latest_broadcast="regroup"),
            strategy,
            SETTINGS,
        )
        system = c.messages[0]["content"]
        assert "sol / main_belt" not in system and "regroup" not in system
        kinds = [i.kind for i in c.items]
        assert kinds.count("state") == 1, (strategy, kinds)
        at = kinds.index("state")
        assert c.messages[at - 1]["content"] == "status?", strategy  # right after the opening
        assert "sol / main_belt (2 ticks ago)" in c.messages[at]["content"]
        assert "regroup" in c.messages[at]["content"]
        assert c.state_text == c.messages[at]["content"]
        assert validate(c.messages) == []


def test_volatile_state_closes_the_request_when_the_opening_is_not_sent() -> None:
    log = Log()
    for n in range(30):
        log.loop(f"m{n}", "mine", '{"quantity": 1}')
    settings = ComposeSettings(max_context_messages=6, window_margin=1)
    nudge = Turn(1, 1, "nudge", 1, prompts.nudge_text(1), id=1)
    c = compose(
        history_of(log.memories, settings, game_state="- Credits: 5", turns=[nudge]),
        "sliding-window",
        settings,
    )
    assert c.items[-1].kind == "state" and c.state_text is None


# -- seed 000: loop extraction, prompt-source priority, synthetic nudge --------


def test_extract_latest_tool_loop_takes_call_and_following_results() -> None:
    log = Log()
    log.loop("a", "mine", "{}")
    log.call(("b", "get_status"), ("c", "get_cargo"))
    log.result("b", "get_status", "{}")
    log.result("c", "get_cargo", "{}")
    log.say("done")
    loop = extract_latest_tool_loop(log.memories)
    assert [m.id for m in loop] == [3, 4, 5]


def test_extract_latest_tool_loop_stops_at_first_non_tool() -> None:
    log = Log()
    log.call(("a", "mine"))
    log.result("a", "mine", "{}")
    log.direct("interrupt")
    log.result("a", "mine", "late")
    assert [m.id for m in extract_latest_tool_loop(log.memories)] == [1, 2]


def test_prompt_source_most_recent_wins() -> None:
    log = Log()
    log.direct("commander direct")
    log.broadcast("commander broadcast")
    swarm = log.broadcast("swarm broadcast", sender="7")
    assert select_prompt_source(log.memories) == swarm
    newer = log.direct("newest direct")
    assert select_prompt_source(log.memories) == newer


def test_loop_slice_is_system_prompt_source_and_latest_loop() -> None:
    log = Log()
    log.direct("old")
    log.loop("a", "mine", "{}")
    order = log.broadcast("sell everything")
    log.loop("b", "dock", "{}")
    log.loop("c", "sell", '{"total_earned": 50}')
    c = compose(history_of(log.memories), "loop-slice", SETTINGS)
    assert ids(c) == [None, order.id, None, 7, 8]  # the state follows the opening


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_loop_slice_synthetic_nudge_escalates(level: int) -> None:
    log = Log()
    log.loop("a", "mine", "{}")
    c = compose(history_of(log.memories), "loop-slice", ComposeSettings(nudge_level=level))
    nudge = c.messages[1]["content"]
    assert nudge.startswith(prompts.NUDGE_TEXTS[max(level, 1)])
    assert nudge.endswith("If you need past data, use zoea_search tools.")


def test_loop_slice_sends_an_order_still_in_the_window_in_a_nudge_turn() -> None:
    """Seed 000: the latest prompt in the window is the turn start; the nudge stands in
    only without one, so a nudge never hides the commander's order."""
    log = Log()
    order = log.direct("Sell everything at Sol Central.")
    log.loop("a", "dock", "{}")
    log.say("Docked.")
    nudged = Turn(1, len(log.memories) + 1, "nudge", 1, prompts.nudge_text(1), id=2)
    log.loop("b", "sell", '{"total_earned": 50}')
    turns = [Turn(1, order.id, "direct", id=1), nudged]
    c = compose(history_of(log.memories, SETTINGS, turns=turns), "loop-slice", SETTINGS)
    assert c.messages[1]["content"] == order.content
    assert not c.uses_nudge and "nudge" not in [i.kind for i in c.items]
    assert [i for i in ids(c) if i is not None] == [order.id, 5, 6], "then the latest loop"
    assert validate(c.messages) == []


def test_loop_slice_uses_the_turns_nudge_only_without_a_prompt_in_the_window() -> None:
    log = Log()
    log.direct("Mine at the main belt.")
    for n in range(12):
        log.loop(f"m{n}", "mine", '{"quantity": 1}')
    settings = ComposeSettings(max_context_messages=6, window_margin=1)
    nudged = Turn(1, len(log.memories) - 1, "nudge", 2, prompts.nudge_text(2), id=3)
    c = compose(history_of(log.memories, settings, turns=[nudged]), "loop-slice", settings)
    assert c.messages[1]["content"] == prompts.nudge_text(2), "the text the model was sent"
    assert c.uses_nudge and c.items[1].kind == "nudge"


def test_loop_slice_sends_every_stored_result_when_a_prompt_lands_between_them() -> None:
    log = Log()
    log.direct("Mine.")
    log.call(("a", "get_status"), ("b", "get_cargo"))
    log.result("a", "get_status", '{"player": {"credits": 7}}')
    order = log.direct("Stop and report.")
    log.result("b", "get_cargo", '{"cargo": []}')
    c = compose(history_of(log.memories), "loop-slice", SETTINGS)
    assert c.messages[1]["content"] == order.content, "the newest prompt starts the slice"
    tools = [m for m in c.messages if m["role"] == "tool"]
    assert [m["content"] for m in tools] == ['{"player": {"credits": 7}}', '{"cargo": []}']
    assert prompts.MISSING_TOOL_RESULT not in json.dumps(c.messages)
    assert validate(c.messages) == []


def test_latest_tool_loop_passes_over_a_prompt_but_not_a_later_answer() -> None:
    log = Log()
    log.call(("a", "mine"), ("b", "get_cargo"))
    log.result("a", "mine", "{}")
    log.direct("interrupt")
    log.result("b", "get_cargo", "{}")
    log.say("done")
    log.result("b", "get_cargo", "late")
    assert [m.id for m in extract_latest_tool_loop(log.memories)] == [1, 2, 4]


def test_nudge_texts_are_seed_000_verbatim() -> None:
    assert prompts.NUDGE_TEXTS == {
        1: "Continue your mission. Check notifications and coordinate with the swarm.",
        2: "You need to respond. Check your notifications and status.",
        3: "URGENT: Respond immediately. Check your system status.",
    }
    assert prompts.BREAKER_ERROR == "Failed to respond after 3 encouragements"


# -- seed 003: history cleaning ---------------------------------------------------


def test_clean_history_fills_missing_tool_responses() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "mine"), ("b", "get_cargo"))
    log.result("a", "mine", "{}")
    messages = clean_messages([keep(m) for m in log.memories], SETTINGS)
    assert messages[2] == {"role": "tool", "content": "{}", "tool_call_id": "a"}
    assert messages[-1]["role"] == "assistant", "never ends on a tool message"
    tools = [m for m in messages if m["role"] == "tool"]
    assert tools[1] == {"role": "tool", "content": "Tool no response", "tool_call_id": "b"}


def test_clean_history_never_ends_on_a_tool_message() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", "{}")
    messages = clean_messages([keep(m) for m in log.memories], SETTINGS)
    assert messages[-1] == {"role": "assistant", "content": "Understood."}


def test_summarize_requests_a_summary_past_the_threshold() -> None:
    log = Log()
    log.direct("Mine iron and report.")
    for n in range(30):
        log.loop(f"m{n}", "mine", json.dumps({"quantity": n, "pad": "x" * 200}))
    settings = ComposeSettings(summarize_threshold=1000)
    c = compose(history_of(log.memories, settings, strategy="summarize"), "summarize", settings)
    assert c.summary_request is not None
    assert c.summary_request.last_request == "Mine iron and report."
    assert c.summary_request.messages[-1]["content"] == prompts.SUMMARY_PROMPT
    assert validate(c.messages) == []


def test_summarize_composes_from_the_latest_summary() -> None:
    log = Log()
    log.direct("Mine iron and report.")
    log.loop("a", "mine", "{}")
    summary = log.add("user", "summary", "SUMMARY TEXT\n\nLast request from user was: Mine")
    log.loop("b", "sell", "{}")
    settings = ComposeSettings(summarize_threshold=100_000)
    c = compose(history_of(log.memories, settings, strategy="summarize"), "summarize", settings)
    assert ids(c) == [None, summary.id, 5, 6, None]  # the state message closes it
    assert c.items[1].kind == "summary"
    assert c.summary_request is None


def test_a_second_summary_summarises_the_first() -> None:
    """``summarize``: the earlier summary is part of the conversation being summarised."""
    log = Log()
    log.direct("Mine iron at the Vega belt and never sell below 12 credits.")
    log.add("user", "summary", "Summary: the commander wants iron from Vega; floor 12 cr.")
    for n in range(40):
        log.loop(f"m{n}", "mine", '{"quantity": 5, "ore": "iron"}' + " pad" * 400)
    settings = ComposeSettings(summarize_threshold=2_000)
    c = compose(history_of(log.memories, settings, strategy="summarize"), "summarize", settings)
    assert c.summary_request is not None
    contents = [m.get("content") or "" for m in c.summary_request.messages]
    assert any("floor 12 cr" in text for text in contents)
    assert contents[-1] == prompts.SUMMARY_PROMPT

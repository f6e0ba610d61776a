"""Seed 004 (``turn-aware``, the default): its "Test Coverage" section (turn boundary
detection, the current turn preserved, no user prompt, only historical turns) and its
stated rules, each quoted.

Requests are composed by the public ``compose`` and by ``zoea context --json``
(``tests/seeds/common.py``); the conversations carry no recorded turn, so the boundary is
found as the seed finds it, by scanning back for the most recent prompt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import Log
from tests.seeds.common import Chat, both, memory_ids, seed_001_violations
from zoea_tui.core import prompts
from zoea_tui.core.loops import find_last_user_prompt_index

STRATEGY = "turn-aware"


def _prompts(*kinds: str) -> list:
    log = Log()
    for kind in kinds:
        {
            "direct": lambda: log.direct("an order"),
            "broadcast": lambda: log.broadcast("news", "2"),
            "say": lambda: log.say("an answer"),
            "loop": lambda: log.loop(f"c{len(log.memories)}", "mine", "{}"),
            "summary": lambda: log.add("user", "summary", "a summary"),
        }[kind]()
    return log.memories


@pytest.mark.parametrize(
    ("kinds", "expected"),
    [
        ((), -1),
        (("say", "loop"), -1),
        (("direct", "say", "loop"), 0),
        (("direct", "loop", "broadcast", "loop", "say"), 3),
        (("direct", "loop", "summary", "say"), 0),
    ],
    ids=["empty", "no prompt", "single prompt first", "most recent wins", "not a summary"],
)
def test_find_last_user_prompt_index(kinds: tuple[str, ...], expected: int) -> None:
    """Seed 004: "`TestFindLastUserPromptIndex()` with 5 test cases" and
    "`findLastUserPromptIndex(memories []*Memory) int` - Scans backwards to find most
    recent user prompt - Returns index defining turn boundary - Returns -1 if no user
    prompt (generates synthetic nudge)"."""
    assert find_last_user_prompt_index(_prompts(*kinds)) == expected


def test_get_context_memories_current_turn_preserved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 004: "`TestGetContextMemories_CurrentTurnPreserved()` (key integration test)"
    that "verifies login→status tool sequence preserved": "Each tool can reference
    results from previous tools in the same turn" and "Session IDs from `login()` remain
    visible throughout the turn"."""
    chat = Chat()
    chat.direct("Check ship status")
    chat.loop("login", json.dumps({"session_id": "abc123"}))
    chat.loop("get_status", json.dumps({"credits": 120, "session_id": "abc123"}))
    chat.loop("get_notifications", json.dumps({"notifications": []}))
    for report in both(chat, tmp_path, capsys, STRATEGY):
        assert memory_ids(report) == [1, 2, 3, 4, 5, 6, 7]
        tools = [m["content"] for m in report["messages"] if m["role"] == "tool"]
        assert tools[0] == '{"session_id": "abc123"}', "the login result is still in view"
        assert len(tools) == 3


def test_get_context_memories_no_user_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 004: "`TestGetContextMemories_NoUserPrompt()` - synthetic nudge generation"
    ("Returns -1 if no user prompt (generates synthetic nudge)")."""
    chat = Chat()
    chat.say("Undocking.")
    chat.loop("undock", '{"action": "undock"}')
    for report in both(chat, tmp_path, capsys, STRATEGY):
        nudges = [i for i in report["items"] if i["kind"] == "nudge"]
        assert len(nudges) == 1 and nudges[0]["memory_id"] == "synthetic"
        index = report["items"].index(nudges[0])
        assert report["messages"][index]["content"] == prompts.nudge_text(1)


def test_get_context_memories_only_historical_turns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 004: "`TestGetContextMemories_OnlyHistoricalTurns()` - historical turn
    handling": "Historical turns: All messages before the turn boundary - Compressed using
    `extractLatestToolLoop()` - Only the most recent complete tool loop is included";
    here every stored round is historical (the newest prompt has no answer yet)."""
    chat = Chat()
    chat.direct("q1")
    chat.loop("mine", '{"quantity": 1}')
    chat.say("done 1")
    chat.direct("q2")
    chat.loop("get_cargo", '{"iron_ore": 1}')
    chat.calls(("sell", '{"credits": 10}'), ("get_status", '{"credits": 10}'))
    chat.say("done 2")
    new = chat.direct("q3")
    for report in both(chat, tmp_path, capsys, STRATEGY):
        assert memory_ids(report) == [8, 9, 10, new], "the latest loop, then the new turn"
        assert "q3" in [m["content"] for m in report["messages"]]


def test_the_current_turn_is_complete_and_earlier_turns_are_compressed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 004: "Context = `[system] + [historical compressed] + [current turn
    complete]`" and "Current Turn: All messages from turn boundary to present - Included
    WITHOUT compression - Preserves complete multi-step tool sequences"."""
    chat = Chat()
    chat.direct("old question")
    chat.loop("get_system", "result_1")
    chat.loop("get_poi", "result_2")
    chat.say("answered")
    turn = chat.direct("new question")
    for n in range(6):
        chat.loop("mine", json.dumps({"round": n}))
    for report in both(chat, tmp_path, capsys, STRATEGY):
        held = memory_ids(report)
        assert held[:2] == [4, 5], "only the latest loop of the earlier turn"
        assert held[2:] == list(range(turn, turn + 13)), "the whole current turn"


@pytest.mark.parametrize(("source", "sender"), [("direct", None), ("broadcast", "2")])
def test_the_turn_boundary_is_the_most_recent_prompt(
    source: str, sender: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 004: "Turn Boundary: Most recent user-initiated prompt (direct message,
    broadcast, or system nudge)"."""
    chat = Chat()
    chat.direct("first order")
    chat.loop("mine", "{}")
    opening = (
        chat.direct("second order")
        if source == "direct"
        else chat.broadcast("swarm: regroup", sender)
    )
    chat.loop("travel", "{}")
    for report in both(chat, tmp_path, capsys, STRATEGY):
        assert memory_ids(report) == [2, 3, opening, opening + 1, opening + 2]


def test_a_turn_longer_than_the_window_is_paged_with_its_opening_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 004: "MaxContextMessages Still Applies: If a single turn exceeds 20 messages,
    older messages will be truncated" and its enhancement "Turn-Based Pagination: If turn
    exceeds MaxContextMessages, compress early iterations within turn": the opening stays,
    a note stands for the early rounds, the newest rounds follow, the opening and the
    rounds within seed 001's "last 20"."""
    chat = Chat()
    opening = chat.direct("Mine until the hold is full.")
    for n in range(40):
        chat.loop("mine", json.dumps({"round": n}))
    for report in both(chat, tmp_path, capsys, STRATEGY):
        opened, *rounds = memory_ids(report)
        assert opened == opening and 0 < len(rounds) <= 19
        assert not seed_001_violations(report), "seed 001's 20 hold in a paged turn too"
        assert rounds == list(range(82 - len(rounds), 82)), "the newest rounds, in order"
        notes = [
            message["content"]
            for message, item in zip(report["messages"], report["items"], strict=True)
            if item["kind"] == "note"
        ]
        assert len(notes) == 1 and "are not shown to keep the context small" in notes[0]

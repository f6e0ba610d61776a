"""Seed 001 (``sliding-window``): "System Prompt (always included)" and "Recent Messages
(last 20)", ``MaxContextMessages = 20``, the search tools and the captain's log.

The seed has no test section; these are its stated rules, each quoted. The conversation
is composed by the public ``compose`` and by ``zoea context --json``
(``tests/seeds/common.py``); the window moves in steps below the maximum so that
requests between two cuts repeat each other (docs/CONTEXT.md, 'sliding-window').
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from tests.seeds.common import Chat, both, memory_ids, seed_001_violations, synthetic_kinds
from zoea_tui.config import Config
from zoea_tui.core import prompts
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.orchestrator.swarm_tools import ORCHESTRATOR_TOOLS

STRATEGY = "sliding-window"


def _chat(messages: int) -> Chat:
    """A commander order, then the model's rounds: ``messages`` memories in all."""
    chat = Chat()
    chat.direct("Mine iron ore and report each run.")
    n = 0
    while len(chat.log.memories) < messages:
        if len(chat.log.memories) + 2 <= messages and n % 3 != 2:
            chat.loop("mine", json.dumps({"run": n, "quantity": n % 7}))
        else:
            chat.say(f"Run {n} done.")
        n += 1
    return chat


def test_max_context_messages_is_20() -> None:
    """Seed 001: "const MaxContextMessages = 20" ("Value chosen to cover ~2 server ticks
    worth of activity")."""
    assert ComposeSettings().max_context_messages == 20
    assert Config().context.max_context_messages == 20


def test_a_61_message_chat_sends_the_system_prompt_and_at_most_the_last_20(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 001: "System Prompt (always included)" and "Recent Messages (last 20)": the
    61-message chat of issue 41 (it composed 21 memories when the window grew to 29)."""
    chat = _chat(61)
    for report in both(chat, tmp_path, capsys, STRATEGY):
        assert seed_001_violations(report) == []
        order, *window = memory_ids(report)
        assert order == 1, "the order scrolled out: put back in front, within the 20"
        newest = [m.id for m in chat.log.memories][-len(window) :]
        assert window == newest, "the most recent memories, in order"


def test_no_request_of_a_long_chat_holds_more_than_20_memories() -> None:
    """Seed 001: "MaxContextMessages limits how many recent messages to include in LLM
    context.": after every memory of a 120-memory chat, the order re-injected once it
    scrolled out (it counts within the 20)."""
    chat = _chat(120)
    for upto in range(1, 121):
        report = chat.compose(STRATEGY, upto=upto)
        assert seed_001_violations(report) == [], (upto, seed_001_violations(report))
        if upto <= 20:
            assert len(memory_ids(report)) == upto, "a short chat is sent whole"
    assert memory_ids(report)[0] == 1, "the order is put back in front"


def test_up_to_20_memories_the_request_holds_all_of_them() -> None:
    """Seed 001: "Fetch the N most recent memories from SQLite": a chat shorter than the
    window is sent whole."""
    chat = _chat(20)
    assert memory_ids(chat.compose(STRATEGY)) == list(range(1, 21))


def test_the_window_moves_in_steps_below_20_and_requests_repeat_between_cuts() -> None:
    """Seed 001's "last 20", kept cacheable: the window is cut back to
    ``max_context_messages - window_margin`` (10) plus the new memory and grows to 20;
    between two cuts each request is the one before with messages appended."""
    chat = Chat()
    for n in range(80):
        chat.say(f"note {n}")
    counts, requests = [], []
    for upto in range(1, 81):
        report = chat.compose(STRATEGY, upto=upto)
        counts.append(len(memory_ids(report)))
        requests.append(report["messages"])
    assert max(counts) == 20 and counts[20:31] == [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 11]
    cuts = [i for i, (a, b) in enumerate(itertools.pairwise(counts), 1) if b < a]
    assert cuts == [20, 30, 40, 50, 60, 70]
    for i, (a, b) in enumerate(itertools.pairwise(requests), 1):
        if i not in cuts:
            # The request before, less its closing nudge and state (they close every
            # request), is where this one starts.
            body = [m for m in a if m["content"] not in (b[-1]["content"], b[-2]["content"])]
            assert b[: len(body)] == body, i


def test_the_system_prompt_is_prepended_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 001: "If system prompt isn't already in recent memories, prepend it"."""
    for report in both(_chat(45), tmp_path, capsys, STRATEGY):
        roles = [m["role"] for m in report["messages"]]
        assert roles[0] == "system" and roles.count("system") == 1


def test_a_request_of_21_memories_fails_the_seed_001_check() -> None:
    """The check used above rejects the window that grew past 20 (as it did to 29): the
    same chat composed with a maximum of 21 holds 21 memories."""
    chat = _chat(61)
    grown = chat.compose(STRATEGY, ComposeSettings(max_context_messages=21, window_margin=1))
    assert len(memory_ids(grown)) == 21
    assert seed_001_violations(grown) == ["21 memories, more than the 20 of the window"]
    headless = dict(grown, messages=grown["messages"][1:], items=grown["items"][1:])
    assert "the system prompt is not first" in seed_001_violations(headless)


def test_labelled_notes_are_not_memories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a request holds beside its memories is labelled: the gap note when the window
    opens on the model's own message, and the game-state message."""
    chat = Chat()
    for n in range(45):
        chat.say(f"note {n}")
    for report in both(chat, tmp_path, capsys, STRATEGY):
        assert len(memory_ids(report)) <= 20
        assert report["messages"][1]["content"] == prompts.GAP_NOTE
        kinds = synthetic_kinds(report)
        assert kinds[:2] == ["system", "note"] and "state" in kinds


def test_older_memories_stay_searchable() -> None:
    """Seed 001: "All messages since agent creation / Searchable via zoea_search_messages
    tool" and "SearchBroadcasts searches broadcast messages by content text": both tools
    are offered with the seed's arguments (``query``, ``limit`` defaulting to 20)."""
    tools = {t["name"]: t for t in ORCHESTRATOR_TOOLS}
    for name in ("zoea_search_messages", "zoea_search_broadcasts"):
        properties = tools[name]["parameters"]["properties"]
        assert {"query", "limit"} <= set(properties)
        assert "default 20" in properties["limit"]["description"]


def test_the_system_prompt_points_to_the_captains_log() -> None:
    """Seed 001: "Use captain's log (captains_log_add) to remember: ... Discovered systems
    and their resources / Player encounters (friendly or hostile) / Current objectives and
    plans". (The seed's "Your password (CRITICAL)" is not asked of the model here: the
    client keeps and fills the credentials; docs/CONTEXT.md, 'turn-aware'.)"""
    system = prompts.render_system_prompt(prompts.SYSTEM_PROMPT_TEMPLATE)
    line = next(line for line in system.split("\n- ") if "captains_log_add" in line)
    for kept in ("discovered systems and their resources", "encounters", "objective and plan"):
        assert kept in line

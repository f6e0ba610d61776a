"""Seed 002 (``snapshot-compaction``), its "Testing & Verification" section as written.

Each test quotes the seed line it checks. The conversation is composed by the public
``compose`` and by ``zoea context --json`` (``tests/seeds/common.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.seeds.common import Chat, both, memory_ids, seed_002_violations, tool_results
from zoea_tui.core import prompts
from zoea_tui.core.composition import DEFAULT_SNAPSHOT_TOOLS, ComposeSettings

STRATEGY = "snapshot-compaction"


def _fifteen_get_ship() -> tuple[Chat, int, list[str]]:
    """A commander order, then 15 ``get_ship`` loops with a ``mine`` loop between each:
    the order's memory id and the ``mine`` results."""
    chat = Chat()
    order = chat.direct("Report your ship after every mining run.")
    mined = []
    for n in range(15):
        chat.loop("get_ship", json.dumps({"ship": {"fuel": 100 - n, "reading": n + 1}}))
        if n < 14:
            result = json.dumps({"mined": "iron_ore", "quantity": n + 1})
            chat.loop("mine", result)
            mined.append(result)
    return chat, order, mined


def _only_the_latest_get_ship(report: dict) -> None:
    ships = [(action, text) for name, action, text in tool_results(report) if name == "get_ship"]
    assert ships == [("kept", json.dumps({"ship": {"fuel": 86, "reading": 15}}))], ships
    assert seed_002_violations(report) == []


def test_inject_15_get_ship_results_and_only_the_latest_is_returned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 002: "Inject 15 `get_ship` tool results into a Mysis memory." and "Verify
    `getContextMemories()` returns only the latest `get_ship` result." """
    chat, _, _ = _fifteen_get_ship()
    for report in both(chat, tmp_path, capsys, STRATEGY):
        _only_the_latest_get_ship(report)


def test_every_request_holds_only_the_latest_result_of_each_snapshot_tool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 002: "Track the most recent result for each snapshot tool." and "If multiple
    results for the same tool exist in the window, keep only the latest one.": in every
    request of the session, whenever the newer result arrived (not only at a window cut),
    and for every snapshot tool of the seed's list."""
    chat = Chat()
    chat.direct("Watch everything while you mine.")
    for n in range(30):
        tool = ("get_ship", "get_system", "get_cargo", "get_poi", "get_nearby")[n % 5]
        chat.calls((tool, json.dumps({"tick": n})), ("mine", json.dumps({"tick": n})))
        report = chat.compose(STRATEGY)
        assert seed_002_violations(report) == [], (n, seed_002_violations(report))
    for report in both(chat, tmp_path, capsys, STRATEGY):
        assert seed_002_violations(report) == []


def test_an_older_result_whose_call_made_other_calls_stays_as_a_placeholder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 002: "Ensure chronological order is maintained for non-snapshot messages": a
    superseded ``get_ship`` called beside ``mine`` cannot leave without the mining
    result; it stays in its place as a placeholder naming the stored memory."""
    chat = Chat()
    chat.direct("Mine and watch the ship.")
    chat.calls(("mine", '{"quantity": 3}'), ("get_ship", '{"hull": 99}'))
    chat.loop("get_ship", '{"hull": 98}')
    for report in both(chat, tmp_path, capsys, STRATEGY):
        results = tool_results(report)
        assert results[0] == ("mine", "kept", '{"quantity": 3}')
        assert results[1][:2] == ("get_ship", "placeholder")
        assert results[1][2] == prompts.placeholder_superseded("get_ship", 4)
        assert results[2] == ("get_ship", "kept", '{"hull": 98}')
        assert seed_002_violations(report) == []


def test_the_seeds_snapshot_tools_are_compacted() -> None:
    """Seed 002: "Define a list of tools that return state snapshots: `get_ship`,
    `get_system`, `get_poi`, `get_nearby`, `get_cargo`, `zoea_swarm_status`." """
    seed = {"get_ship", "get_system", "get_poi", "get_nearby", "get_cargo", "zoea_swarm_status"}
    assert seed <= set(DEFAULT_SNAPSHOT_TOOLS)
    assert ComposeSettings().snapshot_tools == DEFAULT_SNAPSHOT_TOOLS


def test_the_system_prompt_is_still_present(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 002: "Verify system prompt is still present." and "Ensure the system prompt
    remains pinned at the top." """
    chat, _, _ = _fifteen_get_ship()
    for report in both(chat, tmp_path, capsys, STRATEGY):
        roles = [m["role"] for m in report["messages"]]
        assert roles[0] == "system" and roles.count("system") == 1
        assert report["items"][0]["kind"] == "system"


def test_non_snapshot_messages_are_unaffected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seed 002: "Verify non-snapshot messages are unaffected." and "Ensure chronological
    order is maintained for non-snapshot messages (user/assistant/other tools)." """
    chat, _, mined = _fifteen_get_ship()
    for report in both(chat, tmp_path, capsys, STRATEGY):
        mines = [(a, t) for name, a, t in tool_results(report) if name == "mine"]
        assert mines and all(action == "kept" for action, _ in mines)
        # The window holds the newest mining results, each as stored, in order.
        assert [t for _, t in mines] == mined[-len(mines) :]
        held = memory_ids(report)
        assert held == sorted(held), "chronological order"


def test_a_request_with_two_full_get_ship_results_fails_the_seed_002_check() -> None:
    """The check used above rejects what the seed forbids: the same window without
    compaction (``sliding-window``) sends every ``get_ship`` result in full; and a request
    whose latest ``get_ship`` is the placeholder is refused too."""
    chat, _, _ = _fifteen_get_ship()
    window = chat.compose("sliding-window")
    assert seed_002_violations(window)[0].endswith("full get_ship results, not only the latest")
    report = chat.compose(STRATEGY)
    swapped = dict(report, items=[dict(i) for i in report["items"]])
    last = max(i for i, m in enumerate(report["messages"]) if m["role"] == "tool")
    swapped["items"][last]["action"] = "placeholder"
    assert "the latest get_ship result is a placeholder" in seed_002_violations(swapped)


def test_the_system_prompt_says_when_and_how_to_use_the_search_tools() -> None:
    """Seed 002: "SystemPrompt: Add explicit instructions on when and how to use
    `zoea_search_messages` and `zoea_search_reasoning` to recover context removed by
    compaction." (and the seed's "TestSystemPromptContainsCaptainsLogExamples")."""
    system = prompts.render_system_prompt(prompts.SYSTEM_PROMPT_TEMPLATE)
    for tool in ("zoea_search_messages", "zoea_search_reasoning"):
        line = next(line for line in system.splitlines() if line.startswith(f"- {tool}("))
        assert "(query, limit)" in line
    assert "when a placeholder says a result was omitted" in system, "compaction's context"
    assert "captains_log_add" in system


@pytest.mark.parametrize("level", [1, 2, 3])
def test_the_continue_prompt_ends_with_the_search_reminder(level: int) -> None:
    """Seed 002: "ContinuePrompt: Append a reminder about the search tools: *"If you need
    past data, use zoea_search tools."*" """
    assert prompts.nudge_text(level).endswith(" If you need past data, use zoea_search tools.")

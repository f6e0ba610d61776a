"""A call cut by a quit shows as cancelled after a relaunch: in the request list and in
the pane's actions."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import Log
from zoea_tui.config import Config
from zoea_tui.core.types import ToolCall
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.context import next_composition
from zoea_tui.storage import NewMemory, Store
from zoea_tui.storage.requests import CUT_BY_QUIT
from zoea_tui.ui.activity import ActionTail, GameFacts, tail_from_memories
from zoea_tui.ui.screens.inspector import request_row
from zoea_tui.ui.widgets.mysis_pane import MysisPane, pane_text

from .helpers import seed, seeded_app, wait_for
from .test_panes import painted, view


async def test_a_call_left_pending_by_a_quit_is_cancelled_at_the_next_launch(
    tmp_path: Path, still_config: Config
) -> None:
    """Issue 40: calls cut by a quit stayed "⋯ pending" after a relaunch, above newer
    finished calls. The process ended before their outcome was written; the next
    launch records them as cancelled, with why."""
    db = tmp_path / "zoea.db"
    await seed(db)
    store = await Store.open(db)
    try:
        ada = (await store.list_myses())[0].id
        composition = await next_composition(
            store, ada, "turn-aware", still_config.compose_settings(None)
        )
        cut = await store.log_request(ada, composition, last_memory_id=None)
        finished = await store.log_request(ada, composition, last_memory_id=None)
        await store.finish_request(finished, outcome="ok", prompt_tokens=composition.tokens)
    finally:
        await store.close()

    async with seeded_app(still_config, db, (120, 40)) as (_pilot, app):
        commander = app.commander
        assert isinstance(commander, Commander)
        rows = {r.id: r for r in await commander.story.requests(ada)}
        assert rows[cut].outcome == "cancelled" and rows[cut].error == CUT_BY_QUIT
        assert rows[finished].outcome == "ok"
        line = request_row(rows[cut]).plain
        assert "cancelled" in line and "pending" not in line


def test_a_call_without_its_result_is_cancelled_once_a_newer_message_follows() -> None:
    log = Log()
    log.call(("a", "travel"))
    log.add("user", "nudge", "Continue your mission.")
    log.loop("b", "mine", '{"mined": 3}')
    log.call(("c", "dock"))
    memories = log.memories
    actions = list(tail_from_memories(memories, turn_since=3))
    assert [(a.name, a.status) for a in actions] == [
        ("travel", "cancelled"),
        ("mine", "ok"),
        ("dock", "running"),  # the newest, in the turn under way: nothing after it yet
    ]
    text = pane_text(view(), GameFacts(), ActionTail(actions), 100, 12, 32_768).plain
    assert "⊘ travel cancelled" in text and "⋯ dock" in text


@pytest.mark.parametrize("turn_since", [None, 6], ids=["no turn under way", "a newer turn"])
def test_the_newest_call_without_its_result_is_cancelled_outside_its_turn(
    turn_since: int | None,
) -> None:
    """A Mysis stopped (or the app quit) while its newest call ran: nothing came after
    it, but no turn is running it any more (issue 40: "⋯ sell" stayed after a relaunch)."""
    log = Log()
    log.loop("a", "mine", '{"mined": 3}')
    log.call(("b", "sell"))
    memories = log.memories
    actions = list(tail_from_memories(memories, turn_since=turn_since))
    assert [(a.name, a.status) for a in actions] == [("mine", "ok"), ("sell", "cancelled")]
    text = pane_text(view(), GameFacts(), ActionTail(actions), 100, 12, 32_768).plain
    assert "⊘ sell cancelled" in text and "⋯ sell" not in text


async def test_the_pane_shows_a_call_cut_by_a_quit_as_cancelled_after_a_relaunch(
    tmp_path: Path, still_config: Config
) -> None:
    db = tmp_path / "zoea.db"
    await seed(db)
    store = await Store.open(db)
    try:
        ada = (await store.list_myses())[0].id
        await store.add_memory(
            ada,
            NewMemory("assistant", "llm", "", tool_calls=(ToolCall("cut", "travel", "{}"),)),
        )
        await store.add_memory(ada, NewMemory("user", "direct", "report"))
    finally:
        await store.close()
    async with seeded_app(still_config, db, (200, 60)) as (pilot, app):
        pane = app.screen.query_one(f"#mysis-{ada}", MysisPane)
        await wait_for(pilot, lambda: "travel" in painted(pane), what="Ada's tail")
        assert "⊘ travel cancelled" in painted(pane) and "⋯" not in painted(pane)

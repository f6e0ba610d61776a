"""The swarm model: one copy of the swarm for every screen, typed messages, and one
checked request behind every preview of it."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import App, ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from zoea_tui.config import Config
from zoea_tui.core.composition import Composition
from zoea_tui.core.types import Memory, ToolCall
from zoea_tui.orchestrator.events import (
    BroadcastSent,
    Event,
    MessageStored,
    MysisChanged,
    MysisDeleted,
    MysisView,
    RequestComposed,
    StreamDelta,
    ToolCallStarted,
)
from zoea_tui.ui.screens.focus import FocusScreen
from zoea_tui.ui.swarm_model import SwarmModel
from zoea_tui.ui.widgets.context_preview import ContextPreview, PreviewLines, preview_lines

from .helpers import seeded_app, settle, wait_for


def _view(mysis_id: int, name: str, state: str = "running") -> MysisView:
    return MysisView(
        id=mysis_id,
        name=name,
        provider="autopilot",
        model="",
        provider_label="autopilot",
        strategy="turn-aware",
        state=state,  # type: ignore[arg-type]
    )


def _memory(memory_id: int, mysis_id: int) -> Memory:
    return Memory(id=memory_id, mysis_id=mysis_id, role="assistant", source="llm", content="hi")


class RosterScreen(Screen[None]):
    """A screen written from the swarm model and its messages alone: every Mysis's name
    and state, and how many memories the swarm stored while it was shown."""

    def __init__(self, swarm: SwarmModel) -> None:
        super().__init__()
        self.swarm = swarm
        self.stored = 0

    def compose(self) -> ComposeResult:
        yield Static(id="roster")

    def on_mount(self) -> None:
        self.swarm.subscribe(self)
        self._show()

    def _show(self) -> None:
        rows = [f"{v.name} {v.state}" for v in (self.swarm.views[i] for i in self.swarm.ids)]
        rows.append(f"stored {self.stored}")
        self.query_one("#roster", Static).update("\n".join(rows))

    @on(SwarmModel.MysesChanged)
    @on(SwarmModel.MysisRemoved)
    def _changed(self) -> None:
        self._show()

    @on(SwarmModel.MemoriesStored)
    def _stored(self, message: SwarmModel.MemoriesStored) -> None:
        self.stored += len(message.memories)
        self._show()


class RosterApp(App[None]):
    """Textual's own app around the roster: no commander, no Zoea app."""

    def __init__(self) -> None:
        super().__init__()
        self.swarm = SwarmModel()

    def on_mount(self) -> None:
        self.push_screen(RosterScreen(self.swarm))


def _roster(app: App[None]) -> str:
    return str(app.screen.query_one("#roster", Static).render())


async def test_a_new_screen_is_written_from_the_swarm_model_and_its_messages_alone() -> None:
    app = RosterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert _roster(app) == "stored 0"
        app.swarm.feed(
            (
                MysisChanged(mysis=_view(1, "Ada")),
                MysisChanged(mysis=_view(2, "Brin", "idle")),
                MessageStored(mysis_id=1, memory=_memory(10, 1)),
            )
        )
        await pilot.pause()
        assert _roster(app) == "Ada running\nBrin idle\nstored 1"
        app.swarm.feed((MysisDeleted(mysis_id=1, name="Ada"),))
        await pilot.pause()
        assert _roster(app) == "Brin idle\nstored 1"


class _Recorder(Screen[None]):
    def __init__(self, swarm: SwarmModel) -> None:
        super().__init__()
        self.seen: list[Message] = []
        self._swarm = swarm

    def on_mount(self) -> None:
        self._swarm.subscribe(self, *self.only)

    #: The kinds of message asked for (empty: all of them).
    only: tuple[type[Message], ...] = ()

    @on(SwarmModel.MysesChanged)
    @on(SwarmModel.ActionsChanged)
    @on(SwarmModel.RequestComposed)
    @on(SwarmModel.MemoriesStored)
    @on(SwarmModel.Streamed)
    @on(SwarmModel.MysisAdded)
    @on(SwarmModel.MysisRemoved)
    @on(SwarmModel.BroadcastSent)
    def record(self, message: Message) -> None:
        self.seen.append(message)


class _RecorderApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.swarm = SwarmModel()
        self.recorder = _Recorder(self.swarm)

    def on_mount(self) -> None:
        self.push_screen(self.recorder)


async def _recorded(events: tuple[Event, ...], before: tuple[Event, ...] = ()) -> list[Message]:
    app = _RecorderApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        app.swarm.feed(before)
        await pilot.pause()
        app.recorder.seen.clear()
        app.swarm.feed(events)
        await pilot.pause()
        return list(app.recorder.seen)


async def test_what_happened_keeps_its_order_and_state_changes_come_once_per_batch() -> None:
    call = ToolCall(id="c1", name="mine", arguments="{}")
    seen = await _recorded(
        (
            MysisChanged(mysis=_view(1, "Ada")),
            MessageStored(mysis_id=1, memory=_memory(10, 1)),
            MessageStored(mysis_id=2, memory=_memory(11, 2)),
            StreamDelta(mysis_id=1, text="thinking"),
            MessageStored(mysis_id=1, memory=_memory(12, 1)),
            ToolCallStarted(mysis_id=1, call=call),
            MysisChanged(mysis=_view(1, "Ada", "idle")),
            MysisChanged(mysis=_view(2, "Brin")),
        ),
        before=(MysisChanged(mysis=_view(1, "Ada")), MysisChanged(mysis=_view(2, "Brin"))),
    )
    kinds = [type(m).__name__ for m in seen]
    assert kinds == [
        "MemoriesStored",  # the two stored before the stream, as one message
        "Streamed",
        "MemoriesStored",
        "MysesChanged",
        "ActionsChanged",
        "RequestComposed",  # their answers (no tool calls) supersede what they sent
    ]
    first, _, second, changed, acted, superseded = seen
    assert isinstance(first, SwarmModel.MemoriesStored) and [m.id for _, m in first.memories] == [
        10,
        11,
    ]
    assert isinstance(second, SwarmModel.MemoriesStored) and second.of(1)[0].id == 12
    assert isinstance(changed, SwarmModel.MysesChanged) and changed.ids == {1, 2}
    assert isinstance(acted, SwarmModel.ActionsChanged) and acted.ids == {1}
    assert isinstance(superseded, SwarmModel.RequestComposed) and superseded.ids == {1, 2}


async def test_an_answer_or_a_prompt_supersedes_the_request_sent_and_a_tool_result_does_not() -> (
    None
):
    composition = Composition(strategy="turn-aware", messages=(), items=(), dropped=(), tokens=0)
    sent = RequestComposed(mysis_id=1, composition=composition, valid=True)
    app = _RecorderApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        swarm = app.swarm
        swarm.feed((MysisChanged(mysis=_view(1, "Ada")), sent))
        tool = Memory(id=5, mysis_id=1, role="tool", source="tool", content="{}")
        swarm.feed((MessageStored(mysis_id=1, memory=tool),))
        assert swarm.latest[1] is sent, "a tool result: the next request is the one sent"
        swarm.feed((MessageStored(mysis_id=1, memory=_memory(6, 1)),))
        assert 1 not in swarm.latest, "an answer ended the turn: the next one is composed"
        swarm.feed((sent,))
        prompt = Memory(id=7, mysis_id=1, role="user", source="direct", content="report")
        swarm.feed((MessageStored(mysis_id=1, memory=prompt),))
        assert 1 not in swarm.latest


async def test_a_mysis_deleted_leaves_the_model_and_is_not_announced_as_changed() -> None:
    composition = Composition(strategy="turn-aware", messages=(), items=(), dropped=(), tokens=0)
    app = _RecorderApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        swarm = app.swarm
        swarm.feed(
            (
                MysisChanged(mysis=_view(1, "Ada")),
                RequestComposed(mysis_id=1, composition=composition, valid=True),
                ToolCallStarted(mysis_id=1, call=ToolCall(id="c", name="mine", arguments="{}")),
            )
        )
        await pilot.pause()
        assert 1 in swarm.views and 1 in swarm.latest and 1 in swarm.tails
        app.recorder.seen.clear()
        swarm.feed(
            (MysisChanged(mysis=_view(1, "Ada", "idle")), MysisDeleted(mysis_id=1, name="Ada"))
        )
        await pilot.pause()
        assert not swarm.views and not swarm.latest and not swarm.tails
        assert [type(m).__name__ for m in app.recorder.seen] == ["MysisRemoved"]


async def test_a_new_mysis_and_a_broadcast_are_announced_as_they_happen() -> None:
    seen = await _recorded(
        (
            MysisChanged(mysis=_view(3, "Cass")),
            BroadcastSent(
                broadcast_id=1,
                sender_id=None,
                sender_name="commander",
                content="go",
                recipients=(3,),
            ),
        )
    )
    assert [type(m).__name__ for m in seen] == ["MysisAdded", "BroadcastSent", "MysesChanged"]


async def test_a_subscriber_told_only_of_some_kinds_gets_no_others() -> None:
    app = _RecorderApp()
    app.recorder.only = (SwarmModel.MysisRemoved,)
    async with app.run_test() as pilot:
        await pilot.pause()
        app.swarm.feed(
            (
                MysisChanged(mysis=_view(1, "Ada")),
                MysisChanged(mysis=_view(2, "Brin")),
                MessageStored(mysis_id=2, memory=_memory(10, 2)),
                MysisDeleted(mysis_id=1, name="Ada"),
            )
        )
        await pilot.pause()
        assert [type(m).__name__ for m in app.recorder.seen] == ["MysisRemoved"]


# -- one checked request behind every preview ------------------------------------------------


async def test_the_dashboard_and_the_focus_view_preview_one_request_with_the_same_figures(
    seeded_db: Path, still_config: Config
) -> None:
    async with seeded_app(still_config, seeded_db, (200, 60)) as (pilot, app):
        commander = app.commander
        assert commander is not None
        mysis_id = commander.myses()[0].id
        # As if it had sent a request that its next one repeats only in part.
        earlier = (await commander.preview(mysis_id)).messages
        commander._get(mysis_id).last_sent = (
            *earlier[:-1],
            {"role": "user", "content": "an order since answered"},
        )
        dashboard = app.screen
        dashboard.refresh_preview()  # type: ignore[attr-defined]
        await settle(pilot)
        beside = dashboard.query_one("#dash-preview", PreviewLines).data
        app.open_focus(mysis_id)
        await wait_for(pilot, lambda: isinstance(app.screen, FocusScreen))
        await settle(pilot)
        focused = app.screen.query_one(ContextPreview).data
        assert beside is not None and focused is not None
        # The dashboard's preview measured the reuse too (it used to skip it).
        shown, other = beside.request, focused.request
        assert shown.reuse is not None and 0 < shown.reuse.share < 1
        assert (shown.valid, shown.violations, shown.reuse) == (
            other.valid,
            other.violations,
            other.reuse,
        )
        assert preview_lines(beside).plain == preview_lines(focused).plain
        assert "of the last request" in preview_lines(beside).plain

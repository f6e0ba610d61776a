"""The dashboard: banner, broadcast history, the swarm list and the status bar."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from ...orchestrator.events import (
    BroadcastSent,
    Event,
    MysisChanged,
    MysisDeleted,
)
from ..widgets.banner import Banner
from ..widgets.broadcast_log import BroadcastLine, BroadcastLog
from ..widgets.mysis_list import MysisList
from ..widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from ..app import ZoeaApp


class DashboardScreen(Screen[None]):
    """The whole swarm at a glance; enter focuses the selected Mysis."""

    AUTO_FOCUS = "#myses"

    @property
    def zoea(self) -> ZoeaApp:
        """The app, typed."""
        return cast("ZoeaApp", self.app)

    @property
    def current_mysis_id(self) -> int | None:
        """The selected Mysis (the target of m, c, r, s, d, p)."""
        return self.query_one(MysisList).selected_id

    def compose(self) -> ComposeResult:
        """Banner, broadcasts, swarm, status, keys."""
        yield Banner(id="banner")
        yield BroadcastLog(id="broadcasts")
        yield MysisList(id="myses")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(MysisList).set_class(True, "-empty")
        self.zoea.ready_signal.subscribe(self, self._engine_ready)
        self.zoea.engine_events.subscribe(self, self._engine_events)
        if self.zoea.commander is not None:
            self._engine_ready(None)

    def _engine_ready(self, _: None) -> None:
        swarm = self.query_one(MysisList)
        swarm.set_windows(self.zoea.windows)
        swarm.set_myses(sorted(self.zoea.views.values(), key=lambda v: v.id))
        self.query_one(StatusBar).status = self.zoea.status
        self._load_broadcasts()

    @work(exclusive=True, group="dashboard-load", exit_on_error=False)
    async def _load_broadcasts(self) -> None:
        commander = self.zoea.commander
        if commander is None:
            return
        rows = await commander.broadcasts(50)
        names = self.zoea.names
        self.query_one(BroadcastLog).set_lines([
            BroadcastLine(at=b.created_at, tick=b.game_tick,
                          sender="commander" if b.sender_id is None
                          else names.get(str(b.sender_id), f"#{b.sender_id}"),
                          content=b.content)
            for b in rows
        ])

    def _engine_events(self, events: tuple[Event, ...]) -> None:
        swarm = self.query_one(MysisList)
        for event in events:
            if isinstance(event, MysisChanged):
                swarm.upsert(event.mysis)
            elif isinstance(event, MysisDeleted):
                swarm.remove_mysis(event.mysis_id)
            elif isinstance(event, BroadcastSent):
                self.query_one(BroadcastLog).add(BroadcastLine(
                    at=event.at, tick=self.zoea.status.tick, sender=event.sender_name,
                    content=event.content, recipients=len(event.recipients)))
        self.query_one(StatusBar).status = self.zoea.status

    def select(self, mysis_id: int) -> None:
        """Move the selection to ``mysis_id``."""
        self.query_one(MysisList).selected_id = mysis_id

    @on(MysisList.Opened)
    def _open(self, message: MysisList.Opened) -> None:
        self.zoea.open_focus(message.mysis_id)

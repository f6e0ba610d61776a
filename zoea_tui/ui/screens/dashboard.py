"""The dashboard: banner, broadcast history, the swarm panes (with the selected Mysis's
next request beside them on a wide terminal), the live meter of what the swarm's models
cost (once one was called) and the status bar."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.timer import Timer

from ...orchestrator.events import RequestComposed
from ..activity import facts_from_fields
from ..swarm_model import SwarmModel
from ..widgets.banner import Banner
from ..widgets.broadcast_log import BroadcastLine, BroadcastLog
from ..widgets.context_preview import PreviewLines
from ..widgets.key_bar import KeyBar
from ..widgets.spend_meter import SpendLine
from ..widgets.status_bar import StatusBar
from ..widgets.swarm_panes import SwarmPanes
from .base import ZoeaScreen

#: From this width the selected Mysis's next request is shown beside the panes.
PREVIEW_MIN_WIDTH = 160
#: Engine changes reach the panes at most this often (seconds).
FLUSH_S = 0.1
#: The request beside the panes follows the selected Mysis's requests this often at most.
PREVIEW_S = 0.5
#: Below this height the broadcast history gets fewer lines.
SHORT_HEIGHT = 30
#: The meter's rate is worked out again this often while nothing is billed (seconds).
SPEND_S = 5.0


class DashboardScreen(ZoeaScreen[None]):
    """The whole swarm at a glance; enter focuses the selected Mysis.

    It renders from the swarm model (:class:`~zoea_tui.ui.swarm_model.SwarmModel`): its
    messages say which Myses changed, and the panes show them at the next flush."""

    AUTO_FOCUS = "#myses"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # Myses whose views or actions changed wait here for the next flush (the panes
        # redraw FLUSH_S apart).
        self._changed: set[int] = set()
        self._touched: set[int] = set()
        self._composed: RequestComposed | None = None
        self._flush_timer: Timer | None = None
        self._preview_timer: Timer | None = None
        self._composed_next: RequestComposed | None = None

    @property
    def current_mysis_id(self) -> int | None:
        """The selected Mysis (the target of m, c, r, s, d, p)."""
        return self.query_one(SwarmPanes).selected_id

    def compose(self) -> ComposeResult:
        """Banner, broadcasts, swarm (and preview), status, keys."""
        yield Banner(id="banner")
        yield BroadcastLog(id="broadcasts")
        with Horizontal(id="dash-body"):
            yield SwarmPanes(id="myses")
            yield PreviewLines(id="dash-preview")
        yield SpendLine(id="spend")
        yield StatusBar(self.app, id="status")
        yield KeyBar()

    def on_mount(self) -> None:
        swarm = self.query_one(SwarmPanes)
        swarm.set_class(True, "-empty")
        self.watch(swarm, "selected_id", self._highlighted, init=False)
        self._layout(self.app.size.width)
        self.center.ready_signal.subscribe(self, self._engine_ready)
        # The messages it handles, no others (each is dispatched to every subscriber).
        self.center.swarm.subscribe(
            self,
            SwarmModel.MysisAdded,
            SwarmModel.MysesChanged,
            SwarmModel.MysisRemoved,
            SwarmModel.ActionsChanged,
            SwarmModel.RequestComposed,
            SwarmModel.BroadcastSent,
            SwarmModel.Spent,
        )
        self.set_interval(SPEND_S, self._show_spend)
        if self.center.commander is not None:
            self._engine_ready(None)

    def on_resize(self) -> None:
        self._layout(self.size.width)

    def _layout(self, width: int) -> None:
        self.set_class(self.app.size.height < SHORT_HEIGHT, "-short")
        preview = self.query_one("#dash-preview", PreviewLines)
        wide = width >= PREVIEW_MIN_WIDTH
        if preview.display != wide:
            preview.display = wide
            if wide:
                self.refresh_preview()

    @property
    def preview_shown(self) -> bool:
        """True when the selected Mysis's next request is on screen."""
        return bool(self.query_one("#dash-preview", PreviewLines).display)

    def _engine_ready(self, _: None) -> None:
        swarm = self.query_one(SwarmPanes)
        model = self.center.swarm
        swarm.set_myses([model.views[i] for i in model.ids])
        self._load_broadcasts()
        self._load_tails(swarm.ids)
        self.refresh_preview()
        self._show_spend()

    def _show_spend(self) -> None:
        """The swarm's spend and its rate now (nothing until a model call is billed)."""
        spend = self.center.swarm.spend()
        if spend.counted:
            self.query_one(SpendLine).show(spend)

    @on(SwarmModel.Spent)
    def _spent(self, message: SwarmModel.Spent) -> None:
        self._show_spend()

    @work(exclusive=True, group="dashboard-load", exit_on_error=False)
    async def _load_broadcasts(self) -> None:
        commander = self.center.commander
        if commander is None:
            return
        rows = await commander.broadcasts(50)
        names = self.center.swarm.names
        self.query_one(BroadcastLog).set_lines(
            [
                BroadcastLine(
                    at=b.created_at,
                    tick=b.game_tick,
                    sender="commander"
                    if b.sender_id is None
                    else names.get(str(b.sender_id), f"#{b.sender_id}"),
                    content=b.content,
                )
                for b in rows
            ]
        )

    @work(group="dashboard-tails", exit_on_error=False)
    async def _load_tails(self, ids: list[int]) -> None:
        """Fill each pane's action tail from its newest memories (once per Mysis)."""
        for mysis_id in ids:
            filled, answer = await self.center.swarm.fill_tail(mysis_id)
            if filled:
                self._show_facts(mysis_id, answer, at_once=True)

    def _show_facts(
        self, mysis_id: int, answer: str | None = None, *, at_once: bool = False
    ) -> None:
        model = self.center.swarm
        commander = model.commander
        if commander is None or mysis_id not in model.views:
            return
        self.query_one(SwarmPanes).show_facts(
            mysis_id,
            facts_from_fields(
                commander.game_fields(mysis_id),
                restored=commander.game_state_restored(mysis_id),
            ),
            tuple(model.tails.get(mysis_id, ())),
            answer,
            at_once=at_once,
        )

    # -- the swarm model's news: what changed waits for the next flush; a new or
    # -- deleted Mysis and a broadcast show at once

    def _added(self, mysis_id: int) -> None:
        view = self.center.swarm.views.get(mysis_id)
        if view is not None:
            self.query_one(SwarmPanes).upsert(view)
            self._load_tails([mysis_id])

    @on(SwarmModel.MysisAdded)
    def _mysis_added(self, message: SwarmModel.MysisAdded) -> None:
        if message.view.id not in self.query_one(SwarmPanes).ids:
            self._added(message.view.id)

    @on(SwarmModel.MysesChanged)
    def _myses_changed(self, message: SwarmModel.MysesChanged) -> None:
        shown = self.query_one(SwarmPanes).ids
        for mysis_id in message.ids:
            if mysis_id in shown:
                self._changed.add(mysis_id)
            else:  # a Mysis the UI created (its view came with the command's answer)
                self._added(mysis_id)
        self._flush_soon()

    @on(SwarmModel.MysisRemoved)
    def _mysis_removed(self, message: SwarmModel.MysisRemoved) -> None:
        self._changed.discard(message.mysis_id)
        self.query_one(SwarmPanes).remove_mysis(message.mysis_id)

    @on(SwarmModel.ActionsChanged)
    def _actions_changed(self, message: SwarmModel.ActionsChanged) -> None:
        self._touched |= message.ids
        self._flush_soon()

    @on(SwarmModel.RequestComposed)
    def _request_composed(self, message: SwarmModel.RequestComposed) -> None:
        selected = self.query_one(SwarmPanes).selected_id
        if selected not in message.ids:
            return
        self._composed = self.center.swarm.latest.get(selected)
        if self._composed is None:
            # The request sent last is superseded: show the next one, as the focus does.
            self._composed_next = None
            if self.preview_shown:
                self.refresh_preview()
        else:
            self._flush_soon()

    @on(SwarmModel.BroadcastSent)
    def _broadcast_sent(self, message: SwarmModel.BroadcastSent) -> None:
        broadcast = message.broadcast
        self.query_one(BroadcastLog).add(
            BroadcastLine(
                at=broadcast.at,
                tick=self.center.swarm.tick,
                sender=broadcast.sender_name,
                content=broadcast.content,
                recipients=len(broadcast.recipients),
            )
        )

    def _flush_soon(self) -> None:
        if self._flush_timer is None and (self._changed or self._touched or self._composed):
            self._flush_timer = self.set_timer(FLUSH_S, self._flush)

    def _flush(self) -> None:
        """Show what changed since the last flush, once per Mysis."""
        self._flush_timer = None
        swarm = self.query_one(SwarmPanes)
        views = self.center.swarm.views
        changed, self._changed = self._changed, set()
        touched, self._touched = self._touched, set()
        composed, self._composed = self._composed, None
        for mysis_id in sorted(changed):
            view = views.get(mysis_id)
            if view is not None:
                swarm.upsert(view)
        for mysis_id in touched:
            self._show_facts(mysis_id)
        if composed is not None and composed.mysis_id == swarm.selected_id and self.preview_shown:
            # Laying a new request out reflows the screen: at most every PREVIEW_S.
            if self._preview_timer is None:
                self._show_composed(composed)
                self._preview_timer = self.set_timer(PREVIEW_S, self._preview_due)
            else:
                self._composed_next = composed

    def _preview_due(self) -> None:
        self._preview_timer = None
        composed, self._composed_next = self._composed_next, None
        if composed is not None and composed.mysis_id == self.current_mysis_id:
            self._show_composed(composed)

    # -- the preview beside the panes ----------------------------------------------------

    def _show_composed(self, event: RequestComposed) -> None:
        # The Mysis's newest request sent, as every view shows it (None: superseded
        # meanwhile; the next one is being composed).
        sent = self.center.swarm.sent_request(event.mysis_id)
        if sent is not None:
            self.query_one("#dash-preview", PreviewLines).data = sent

    @work(exclusive=True, group="dashboard-preview", exit_on_error=False)
    async def refresh_preview(self) -> None:
        """Compose the selected Mysis's next request (nothing is written or sent)."""
        commander = self.center.commander
        mysis_id = self.current_mysis_id
        preview = self.query_one("#dash-preview", PreviewLines)
        if commander is None or mysis_id is None or not preview.display:
            return
        self._title_preview(mysis_id)
        data, error = await self.center.ahead.compose_preview(mysis_id)
        if error is not None:
            preview.show_error(error)
        elif data is not None and mysis_id == self.current_mysis_id:
            preview.data = data

    def _title_preview(self, mysis_id: int) -> None:
        view = self.center.swarm.views.get(mysis_id)
        self.query_one("#dash-preview", PreviewLines).show_for(view.name if view else None)

    def _highlighted(self, mysis_id: int | None) -> None:
        """The selection moved (watched, so this runs before the frame that shows it)."""
        if not self.preview_shown or mysis_id is None:
            return
        latest = self.center.swarm.latest.get(mysis_id)
        if latest is None:
            self.refresh_preview()
            return
        # The Mysis's newest request (its title and header say whether it was sent or
        # is next) in the frame that moves the selection; a composition is no faster.
        self.workers.cancel_group(self, "dashboard-preview")
        self._title_preview(mysis_id)
        self._show_composed(latest)

    def when_rested(self) -> None:
        """Read the selected Mysis's focus view ahead: ``enter`` then only shows it."""
        mysis_id = self.current_mysis_id
        if mysis_id is not None:
            self.center.ahead.want([mysis_id])

    def select(self, mysis_id: int) -> None:
        """Move the selection to ``mysis_id``."""
        self.query_one(SwarmPanes).selected_id = mysis_id

    @on(SwarmPanes.Opened)
    def _open(self, message: SwarmPanes.Opened) -> None:
        self.center.open_focus(message.mysis_id)

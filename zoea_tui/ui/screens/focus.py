"""The focus view: one Mysis's conversation, its game state and its next request."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive

from ...orchestrator.events import MysisView
from .. import formatting as fmt
from ..commands import BY_NAME, EVERYWHERE
from ..read_ahead import PAGE, FocusContent, empty_content
from ..sanitize import clip, one_line
from ..swarm_model import SwarmModel
from ..widgets.context_preview import ContextPreview
from ..widgets.conversation import ConversationLog
from ..widgets.game_state import GameStateSidebar
from ..widgets.key_bar import KeyBar
from ..widgets.spend_meter import SpendSparks, bill_piece
from ..widgets.status_bar import StatusBar
from ..widgets.text_block import TextBlock
from .base import ZoeaScreen

__all__ = ["PAGE", "FocusContent", "FocusScreen", "header_text"]

#: Below this width the game-state sidebar is hidden unless asked for (i).
SIDEBAR_MIN_WIDTH = 140


def header_text(view: MysisView, position: tuple[int, int], window: int, width: int = 0) -> Text:
    """The focus header: who, what it is doing, on which model, and how full its context
    is; in lines of ``width`` cells (0: one line), each part whole on a line."""
    glyph = fmt.state_glyph(view)
    who = Text()
    who.append("◆ MYSIS ", style=f"bold {fmt.BRAND}")
    who.append(one_line(view.name, 40), style=f"bold {fmt.TEAL}")
    who.append(f"  ({position[0]}/{position[1]})", style=fmt.MUTED)
    state = Text(f"{glyph.char} ", style=glyph.style)
    state.append(view.state, style=fmt.state_style(view.state))
    if view.state == "running" and view.activity:
        state.append(f" · {one_line(view.activity, 40)}", style=fmt.TEXT)
    if retry := fmt.retry_countdown(view):
        state.append(f" · {retry}", style=fmt.WARNING)
    provider = fmt.provider_text(view)
    if view.provider_note:
        provider.append(f" · {one_line(view.provider_note, 120)}", style=fmt.WARNING)
    account = Text(
        f"@{one_line(view.account, 40)}" if view.account else "not logged in",
        style=fmt.TEXT if view.account else fmt.DIM,
    )
    nudges = Text(
        f"nudges {view.nudges}/{view.max_nudges}", style=fmt.WARNING if view.nudges else fmt.MUTED
    )
    last = view.last_request
    tokens = Text("last request ", style=fmt.MUTED)
    tokens.append_text(fmt.token_gauge(last.shown, window))
    if last.shown:
        tokens.append(f" {last.which}", style=fmt.MUTED)
    if last.cached is not None:
        tokens.append(f" · server cached {fmt.compact(last.cached)}", style=fmt.MUTED)
    strategy = Text.assemble(("strategy ", fmt.MUTED), (view.strategy, fmt.TEAL))
    pieces = [who, state, provider, account, nudges, tokens, strategy]
    if spend := bill_piece(view.spend):
        pieces.append(Text.assemble(("spent ", fmt.MUTED), spend))
    lines = fmt.pack(pieces, width if width > 0 else sum(p.cell_len + 3 for p in pieces), "   ")
    text = Text("\n").join(lines)
    if view.last_error:
        text.append("\n")
        text.append("✖ error: ", style=f"bold {fmt.ERROR}")
        text.append(clip(view.last_error, 4000).text, style=fmt.ERROR)
    return text


class FocusScreen(ZoeaScreen[None]):
    """One Mysis in full; ``[``/``]`` move to the previous/next Mysis without leaving.

    The app builds one and keeps it (switching to a screen that exists costs a tenth of
    building one): each open reads the next Mysis's content first, then shows it all at
    once with :meth:`show`. It reads through the app's
    :class:`~zoea_tui.ui.read_ahead.ReadAhead`: while the commander rests, the content an
    open or a step would read is read ahead, and the key only shows it. It renders from
    the swarm model and its messages.
    """

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Focus view", EVERYWHERE)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("left_square_bracket", "step(-1)", "Prev"),
        Binding("right_square_bracket", "step(1)", "Next"),
        Binding("v", "expand_all", "Expand all", show=False),
        Binding("e", "expand_preview", "Whole msgs", show=False),
        Binding("i", "toggle_sidebar", "Game state", show=False),
        # The app's search and inspector, on this screen's key bar too.
        BY_NAME["search"].binding(from_screen=True, bar=True),
        BY_NAME["requests"].binding(from_screen=True, bar=True),
    ]

    #: None: shown when the terminal is wide enough; True/False: the user's choice.
    sidebar_wanted: reactive[bool | None] = reactive(None, init=False)

    def __init__(self, mysis_id: int, *, at: int | None = None) -> None:
        super().__init__()
        #: The Mysis shown (its content may still be on its way: see :meth:`read`).
        self.mysis_id = mysis_id
        #: The memory to open the conversation at (a search hit), else the newest page.
        self._at = at
        #: The Mysis whose content is on its way (asked for, being read), and its
        #: memories stored meanwhile; None once it is shown.
        self._reading: FocusContent | None = None
        #: Which part of the story is on screen, for benchmarks (``bench/ui.py``).
        self.bench_state = ""
        #: What the swarm model's news asks to show again, once its messages are in.
        self._due: set[str] = set()

    @property
    def current_mysis_id(self) -> int | None:
        """The focused Mysis (the target of m, c, r, s, d, p)."""
        return self.mysis_id

    def compose(self) -> ComposeResult:
        """Header; its Mysis's spend per request (once a model call of it was billed);
        sidebar, log and preview side by side; status; keys."""
        yield TextBlock(id="focus-header")
        yield SpendSparks(id="focus-spend")
        with Horizontal(id="focus-body"):
            yield GameStateSidebar(id="game-state")
            yield ConversationLog(id="conversation")
            yield ContextPreview(id="preview")
        yield StatusBar(self.app, id="status")
        yield KeyBar()

    def on_mount(self) -> None:
        # The messages it handles, no others (each is dispatched to every subscriber).
        self.center.swarm.subscribe(
            self,
            SwarmModel.MemoriesStored,
            SwarmModel.MysesChanged,
            SwarmModel.RequestComposed,
            SwarmModel.Streamed,
            SwarmModel.RequestsFinished,
            SwarmModel.ErrorRaised,
            SwarmModel.NudgeSent,
            SwarmModel.MysisRemoved,
            SwarmModel.Ticked,
        )
        self._layout(self.app.size.width)
        self.center.ahead.shown_in(self)
        self.retarget(self.mysis_id, self._at)
        self._at = None
        self.query_one(ConversationLog).focus()

    def on_resize(self) -> None:
        self._layout(self.size.width)
        # The header's parts are laid out in lines of its new width, once it has it.
        self.call_after_refresh(self._refresh_header)

    def _layout(self, width: int) -> None:
        wanted = self.sidebar_wanted
        show = width >= SIDEBAR_MIN_WIDTH if wanted is None else wanted
        self.query_one(GameStateSidebar).display = show

    def watch_sidebar_wanted(self) -> None:
        self._layout(self.size.width or self.app.size.width)

    # -- filling -------------------------------------------------------------------------

    def _view(self) -> MysisView | None:
        return self.center.swarm.views.get(self.mysis_id)

    def _refresh_header(self) -> None:
        view = self._view()
        if view is None:
            return
        ids = self.center.swarm.ids
        position = (ids.index(view.id) + 1 if view.id in ids else 0, len(ids))
        header = self.query_one("#focus-header", TextBlock)
        width = header.content_size.width or max(self.app.size.width - 2, 1)
        header.show(header_text(view, position, self.center.swarm.window(view.id), width))
        self.query_one(SpendSparks).show(self.center.swarm.bills(view.id))

    def _refresh_sidebar(self) -> None:
        commander = self.center.commander
        if commander is None or self.mysis_id not in self.center.swarm.views:
            return
        self.query_one(GameStateSidebar).show_state(
            commander.game_state(self.mysis_id), self.center.swarm.tick
        )

    def retarget(self, mysis_id: int, at: int | None = None, *, on_top: bool = False) -> None:
        """Show Mysis ``mysis_id`` (its newest page, or the page around memory ``at``)
        once its content is read; ``on_top`` (an open, the view not shown): then put
        this view on top, all of it in one frame."""
        self.center.ahead.stop()  # what was read ahead around the last Mysis
        self._begin_reading(mysis_id, at)
        self._read_and_show(mysis_id, at, on_top)

    @work(exclusive=True, group="focus-open", exit_on_error=False)
    async def _read_and_show(self, mysis_id: int, at: int | None, on_top: bool) -> None:
        content = await self.read(mysis_id, at)
        if not on_top or self._on_stack:
            self.show(content)
        elif mysis_id in self.center.swarm.views:  # not deleted meanwhile
            self.show(content)
            self.app.push_screen(self)

    async def read(self, mysis_id: int, at: int | None = None) -> FocusContent:
        """What :meth:`show` needs for Mysis ``mysis_id`` (:meth:`ReadAhead.open
        <zoea_tui.ui.read_ahead.ReadAhead.open>`: what was read ahead for it, else a page
        of its story and its next request read now); memories stored meanwhile gather in
        it."""
        reading = self._begin_reading(mysis_id, at)
        if self.center.commander is None:
            return reading
        content = await self.center.ahead.open(mysis_id, at, reading.arrived)
        if self._reading is not None and self._reading.mysis_id == mysis_id:
            self._reading = content
        return content

    def when_rested(self) -> None:
        """Read ahead the Myses a step would show, and the page beyond the edge the
        conversation is near."""
        self.center.ahead.want(self.neighbours())
        # The screen can be on the stack before its widgets are mounted (a push under way).
        logs = self.query(ConversationLog)
        if self._reading is None and logs:
            direction = logs.first().want_ahead()
            if direction is not None:
                self.center.ahead.want_page(self._fill_page(self.mysis_id, direction))

    def neighbours(self) -> list[int]:
        """The Myses a step would show next (``]``, then ``[``), once the shown one is."""
        ids = self.center.swarm.ids
        if self._reading is not None or self.mysis_id not in ids or len(ids) < 2:
            return []
        index = ids.index(self.mysis_id)
        return list(dict.fromkeys([ids[(index + 1) % len(ids)], ids[index - 1]]))

    def _begin_reading(self, mysis_id: int, at: int | None) -> FocusContent:
        """Note that Mysis ``mysis_id`` is on its way (keeping the memories already
        gathered for it)."""
        if self._reading is None or self._reading.mysis_id != mysis_id:
            self._reading = empty_content(mysis_id, at)
        return self._reading

    def show(self, content: FocusContent) -> None:
        """Show ``content`` at once: header, sidebar, conversation, next request."""
        if self._reading is not None and self._reading.mysis_id == content.mysis_id:
            self._reading = None
        self.mysis_id = content.mysis_id
        view = self._view()
        log = self.query_one(ConversationLog)
        log.names = self.center.names
        if view is not None:
            log.border_title = Content(f"CONVERSATION · {one_line(view.name, 30)}")
        self._refresh_header()
        self._refresh_sidebar()
        page = content.page
        log.show_page(page, focus_id=content.focus_id)
        if page.at_end:
            newest = page.memories[-1].id if page.memories else 0
            for memory in content.arrived:
                if memory.id > newest:
                    log.add_memory(memory)
        preview = self.query_one(ContextPreview)
        sent = self.center.swarm.sent_request(content.mysis_id)
        if sent is not None:
            # The request the Mysis sent is still its newest: the one the dashboard shows.
            preview.data = sent
        elif content.preview_error is not None:
            preview.show_error(content.preview_error)
        else:
            preview.data = content.preview
        self._note_page()
        if self.is_current:  # a step: read ahead around the new Mysis once the commander rests
            self.center.ahead.soon()

    @on(ConversationLog.PageWanted)
    def _page_wanted(self, event: ConversationLog.PageWanted) -> None:
        self._load_page(self.mysis_id, event.direction)

    @work(exclusive=True, group="focus-page", exit_on_error=False)
    async def _load_page(self, mysis_id: int, direction: str) -> None:
        await self._fill_page(mysis_id, direction)

    async def _fill_page(self, mysis_id: int, direction: str) -> None:
        """Fetch the page the log asked for (by id, in a worker) and show it."""
        commander = self.center.commander
        if commander is None:
            return
        log = self.query_one(ConversationLog)
        shown = log.memories
        if direction == "older" and shown:
            page = await self.center.ahead.read_page(mysis_id, before_id=shown[0].id)
        elif direction == "newer" and shown:
            page = await self.center.ahead.read_page(mysis_id, after_id=shown[-1].id)
        elif direction == "first":
            page = await self.center.ahead.read_page(mysis_id, after_id=0)
        else:
            page = await self.center.ahead.read_page(mysis_id)
        if mysis_id != self.mysis_id:
            return
        if direction == "older" and shown:
            log.prepend_page(page)
        elif direction == "newer" and shown:
            log.append_page(page)
        else:
            log.show_page(page, top=direction == "first")
        self._note_page()

    def _note_page(self) -> None:
        """Say which part of the story is on screen (benchmarks read ``bench_state``)."""
        span = self.query_one(ConversationLog).span
        self.bench_state = f"page {span[0]}-{span[1]}" if span else "page empty"

    @on(ConversationLog.PageShown)
    def _page_shown(self) -> None:
        self._note_page()

    @work(exclusive=True, group="focus-preview", exit_on_error=False)
    async def refresh_preview(self) -> None:
        """Compose the Mysis's next request now (nothing is written or sent)."""
        mysis_id = self.mysis_id
        data, error = await self.center.ahead.compose_preview(mysis_id)
        if mysis_id != self.mysis_id:
            return
        preview = self.query_one(ContextPreview)
        if error is not None:
            preview.show_error(error)
        elif data is not None:
            preview.data = data

    # -- the swarm model's news ------------------------------------------------------------

    @property
    def _on_stack(self) -> bool:
        """Shown or under other screens; else kept for the next open, which reads
        everything afresh."""
        return self in self.app.screen_stack

    def _soon(self, what: str) -> None:
        """Show ``what`` ("header", "sidebar", "preview": composed anew) again once the
        messages of the batch now queued are handled: once per batch, as many as ask."""
        if not self._due:
            self.call_later(self._show_due)
        self._due.add(what)

    def _show_due(self) -> None:
        due, self._due = self._due, set()
        if not self._on_stack:
            return
        if "header" in due:
            self._refresh_header()
        if "sidebar" in due:
            self._refresh_sidebar()
        if "preview" in due:
            self.refresh_preview()

    @on(SwarmModel.MemoriesStored)
    def _memories_stored(self, message: SwarmModel.MemoriesStored) -> None:
        reading = self._reading
        if reading is not None:
            known = {m.id for m in reading.arrived}
            reading.arrived.extend(m for m in message.of(reading.mysis_id) if m.id not in known)
        if not self._on_stack:
            return
        mine = message.of(self.mysis_id)
        if not mine:
            return
        log = self.query_one(ConversationLog)
        # Content read ahead may hold some already (gathered before this message came).
        shown = log.memories
        newest = shown[-1].id if shown and log.at_end else 0
        sidebar = False
        for memory in (m for m in mine if m.id > newest):
            log.add_memory(memory)
            sidebar = sidebar or memory.role == "tool"
        if sidebar:
            self._soon("sidebar")

    @on(SwarmModel.MysesChanged)
    def _myses_changed(self, message: SwarmModel.MysesChanged) -> None:
        if self._on_stack and self.mysis_id in message.ids:
            self._soon("header")

    @on(SwarmModel.RequestComposed)
    def _request_composed(self, message: SwarmModel.RequestComposed) -> None:
        if not self._on_stack or self.mysis_id not in message.ids:
            return
        sent = self.center.swarm.sent_request(self.mysis_id)
        if sent is None:
            # The request sent last is superseded (``swarm_model.supersedes``): compose
            # the next one (a worker; the newest one wins), as the dashboard does.
            self._soon("preview")
            return
        self.query_one(ContextPreview).data = sent

    @on(SwarmModel.Streamed)
    def _streamed(self, message: SwarmModel.Streamed) -> None:
        delta = message.delta
        if not self._on_stack or delta.mysis_id != self.mysis_id:
            return
        text = Text()
        text.append("AI ⋯ ", style=f"bold {fmt.ASSISTANT}")
        if delta.reasoning and not delta.text:
            text.append(one_line(delta.reasoning, 300), style=f"italic {fmt.MUTED}")
        text.append(clip(delta.text, 2000).text, style=fmt.TEXT)
        self.query_one(ConversationLog).show_stream(text)

    @on(SwarmModel.RequestsFinished)
    def _requests_finished(self, message: SwarmModel.RequestsFinished) -> None:
        # A call cut or failed mid-stream leaves no answer: what it streamed goes too.
        if self._on_stack and any(
            r.mysis_id == self.mysis_id and r.outcome != "ok" for r in message.requests
        ):
            self.query_one(ConversationLog).show_stream(None)

    @on(SwarmModel.ErrorRaised)
    def _error_raised(self, message: SwarmModel.ErrorRaised) -> None:
        error = message.error
        retry = " (will retry)" if error.transient else ""
        head = Text(f" ERROR{retry}", style=f"bold {fmt.ERROR}")
        body = clip(error.message, 20_000).text
        self._add_note(error.mysis_id, error.at, head, body, fmt.ERROR, "-error")

    @on(SwarmModel.NudgeSent)
    def _nudge_sent(self, message: SwarmModel.NudgeSent) -> None:
        nudge = message.nudge
        head = Text.assemble(
            (f" NUDGE {nudge.level}", f"bold {fmt.WARNING}"),
            ("  (synthetic, not stored)", fmt.DIM),
        )
        body = clip(nudge.text, 2000).text
        self._add_note(nudge.mysis_id, nudge.at, head, body, fmt.WARNING, "-nudge")

    def _add_note(
        self, mysis_id: int | None, at: float, head: Text, body: str, style: str, classes: str
    ) -> None:
        """A line of the log that is no memory (an error, a nudge), if it is of the Mysis
        shown: when, ``head``, and below it ``body`` in ``style``."""
        if not self._on_stack or mysis_id != self.mysis_id:
            return
        text = fmt.stamp(at, self.center.swarm.tick)
        text.append_text(head)
        text.append("\n  ")
        text.append(body, style=style)
        self.query_one(ConversationLog).add_note(text, classes)

    @on(SwarmModel.MysisRemoved)
    def _mysis_removed(self, message: SwarmModel.MysisRemoved) -> None:
        if self._on_stack and message.mysis_id == self.mysis_id:
            self._left_behind()

    @on(SwarmModel.Ticked)
    def _ticked(self) -> None:
        if self._on_stack:
            self._soon("sidebar")

    def _left_behind(self) -> None:
        """The focused Mysis was deleted: show another one, or go back."""
        ids = self.center.swarm.ids
        if not ids:
            self.dismiss()
            return
        later = [i for i in ids if i > self.mysis_id]
        self.retarget(later[0] if later else ids[-1])

    # -- actions -----------------------------------------------------------------------

    def action_back(self) -> None:
        """Back to the dashboard (with this Mysis selected)."""
        self.center.select_on_dashboard(self.mysis_id)
        self.dismiss()

    def action_step(self, delta: int) -> None:
        """The previous (-1) or next (+1) Mysis, wrapping around."""
        ids = self.center.swarm.ids
        if not ids:
            return
        # From the Mysis on its way, if a step is still being read.
        current = self._reading.mysis_id if self._reading is not None else self.mysis_id
        index = ids.index(current) if current in ids else 0
        self.retarget(ids[(index + delta) % len(ids)])

    def action_expand_all(self) -> None:
        """Expand or collapse every entry of the log."""
        self.query_one(ConversationLog).action_toggle_all()

    def action_expand_preview(self) -> None:
        """Show whole messages in the preview (or compact ones again)."""
        preview = self.query_one(ContextPreview)
        preview.expanded = not preview.expanded

    def action_toggle_sidebar(self) -> None:
        """Show or hide the game-state sidebar."""
        shown = self.query_one(GameStateSidebar).display
        self.sidebar_wanted = not shown

"""The focus view: one Mysis's conversation, its game state and its next request."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static

from ...core.cache import reuse
from ...core.composition import DEFAULT_CONTEXT_WINDOW
from ...core.validator import validate
from ...orchestrator.events import (
    ErrorRaised,
    Event,
    GameTick,
    MessageStored,
    MysisChanged,
    MysisDeleted,
    MysisView,
    NudgeSent,
    RequestComposed,
    StreamDelta,
)
from .. import formatting as fmt
from ..sanitize import clip, one_line
from ..widgets.context_preview import ContextPreview, PreviewData
from ..widgets.conversation import ConversationLog
from ..widgets.game_state import GameStateSidebar
from ..widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from ..app import ZoeaApp

#: Memories loaded when a Mysis is opened: the newest FIRST_SLICE at once, then older
#: ones SLICE at a time, SLICE_PAUSE_S apart (each frame stays short).
HISTORY = 150
FIRST_SLICE = 25
SLICE = 25
SLICE_PAUSE_S = 0.03
#: Below this width the game-state sidebar is hidden unless asked for (i).
SIDEBAR_MIN_WIDTH = 140


def header_text(view: MysisView, position: tuple[int, int], window: int) -> Text:
    """The focus header: who, what it is doing, on which model, and how full its context is."""
    glyph = fmt.state_glyph(view)
    text = Text()
    text.append("◆ MYSIS ", style=f"bold {fmt.BRAND}")
    text.append(one_line(view.name, 40), style=f"bold {fmt.TEAL}")
    text.append(f"  ({position[0]}/{position[1]})  ", style=fmt.MUTED)
    text.append(f"{glyph.char} ", style=glyph.style)
    text.append(view.state, style=fmt.state_style(view.state))
    if view.state == "running" and view.activity:
        text.append(f" · {one_line(view.activity, 40)}", style=fmt.TEXT)
    text.append("   ")
    text.append(one_line(view.provider_label or view.provider, 60), style=fmt.SYSTEM)
    if view.model and view.model not in (view.provider_label or ""):
        text.append(f" · {one_line(view.model, 40)}", style=fmt.SYSTEM)
    text.append("   ")
    text.append(f"@{one_line(view.account, 40)}" if view.account else "not logged in",
                style=fmt.TEXT if view.account else fmt.DIM)
    text.append("   ")
    text.append(f"nudges {view.nudges}/{view.max_nudges}",
                style=fmt.WARNING if view.nudges else fmt.MUTED)
    text.append("   last request ", style=fmt.MUTED)
    text.append_text(fmt.token_gauge(view.last_tokens, window))
    if view.last_cached_tokens is not None:
        text.append(f" · server cached {fmt.compact(view.last_cached_tokens)}",
                    style=fmt.MUTED)
    text.append("   strategy ", style=fmt.MUTED)
    text.append(view.strategy, style=fmt.TEAL)
    if view.last_error:
        text.append("\n")
        text.append("✖ error: ", style=f"bold {fmt.ERROR}")
        text.append(clip(view.last_error, 4000).text, style=fmt.ERROR)
    return text


class FocusScreen(Screen[None]):
    """One Mysis in full; ``[``/``]`` move to the previous/next Mysis without leaving."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("left_square_bracket", "step(-1)", "Prev"),
        Binding("right_square_bracket", "step(1)", "Next"),
        Binding("v", "expand_all", "Expand all", show=False),
        Binding("e", "expand_preview", "Whole msgs", show=False),
        Binding("i", "toggle_sidebar", "Game state", show=False),
    ]

    mysis_id: reactive[int] = reactive(0, init=False)
    #: None: shown when the terminal is wide enough; True/False: the user's choice.
    sidebar_wanted: reactive[bool | None] = reactive(None, init=False)

    def __init__(self, mysis_id: int) -> None:
        super().__init__()
        self.set_reactive(FocusScreen.mysis_id, mysis_id)

    @property
    def zoea(self) -> ZoeaApp:
        """The app, typed."""
        return cast("ZoeaApp", self.app)

    @property
    def current_mysis_id(self) -> int | None:
        """The focused Mysis (the target of m, c, r, s, d, p)."""
        return self.mysis_id

    def compose(self) -> ComposeResult:
        """Header; sidebar, log and preview side by side; status; keys."""
        yield Static(id="focus-header")
        with Horizontal(id="focus-body"):
            yield GameStateSidebar(id="game-state")
            yield ConversationLog(id="conversation")
            yield ContextPreview(id="preview")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.zoea.engine_events.subscribe(self, self._engine_events)
        self._layout(self.app.size.width)
        self._load()
        self.query_one(ConversationLog).focus()

    def on_resize(self) -> None:
        self._layout(self.size.width)

    def _layout(self, width: int) -> None:
        wanted = self.sidebar_wanted
        show = width >= SIDEBAR_MIN_WIDTH if wanted is None else wanted
        self.query_one(GameStateSidebar).display = show

    def watch_sidebar_wanted(self) -> None:
        self._layout(self.size.width or self.app.size.width)

    def watch_mysis_id(self) -> None:
        self._load()

    # -- filling -------------------------------------------------------------------------

    def _view(self) -> MysisView | None:
        return self.zoea.views.get(self.mysis_id)

    def _refresh_header(self) -> None:
        view = self._view()
        if view is None:
            return
        ids = sorted(self.zoea.views)
        position = (ids.index(view.id) + 1 if view.id in ids else 0, len(ids))
        header = self.query_one("#focus-header", Static)
        header.update(header_text(view, position, self._window(view)))
        self.sub_title = view.name

    def _refresh_sidebar(self) -> None:
        commander = self.zoea.commander
        if commander is None or self.mysis_id not in self.zoea.views:
            return
        self.query_one(GameStateSidebar).show(commander.game_state(self.mysis_id),
                                              self.zoea.status.tick)

    def _window(self, view: MysisView | None) -> int:
        """The context window of a Mysis's model (the default when unknown)."""
        if view is None:
            return DEFAULT_CONTEXT_WINDOW
        return self.zoea.windows.get(view.provider, DEFAULT_CONTEXT_WINDOW)

    def _load(self) -> None:
        view = self._view()
        log = self.query_one(ConversationLog)
        log.names = self.zoea.names
        if view is not None:
            log.border_title = Content(f"CONVERSATION · {one_line(view.name, 30)}")
        self._refresh_header()
        self._refresh_sidebar()
        self.query_one(ContextPreview).data = None
        self._load_memories(self.mysis_id)
        self.refresh_preview()

    @work(exclusive=True, group="focus-memories", exit_on_error=False)
    async def _load_memories(self, mysis_id: int) -> None:
        commander = self.zoea.commander
        if commander is None:
            return
        memories = await commander.memories(mysis_id, HISTORY)
        turns = await commander.turns(mysis_id, after_id=memories[0].id - 1 if memories else 0)
        if mysis_id != self.mysis_id:
            return
        log = self.query_one(ConversationLog)
        log.turns = turns
        # The newest entries first (the visible part), then older slices frame by frame.
        older = memories[:-FIRST_SLICE]
        log.set_memories(memories[-FIRST_SLICE:], previous_id=older[-1].id if older else None)
        while older:
            await asyncio.sleep(SLICE_PAUSE_S)
            if mysis_id != self.mysis_id:
                return
            part, older = older[-SLICE:], older[:-SLICE]
            log.prepend_memories(part, previous_id=older[-1].id if older else None)

    @work(exclusive=True, group="focus-preview", exit_on_error=False)
    async def refresh_preview(self) -> None:
        """Compose the Mysis's next request now (nothing is written or sent)."""
        commander = self.zoea.commander
        view = self._view()
        if commander is None or view is None:
            return
        mysis_id = view.id
        try:
            composition = await commander.preview(mysis_id)
        except Exception as exc:  # shown in place: the preview is advisory
            self.query_one(ContextPreview).show_error(str(exc))
            return
        if mysis_id != self.mysis_id:
            return
        violations = tuple(validate(composition.messages))
        last = commander.last_sent(mysis_id)
        self.query_one(ContextPreview).data = PreviewData(
            composition, self._window(view), upcoming=True,
            valid=not violations, violations=violations,
            reuse=reuse(last, composition.messages) if last else None)

    def _engine_events(self, events: tuple[Event, ...]) -> None:
        mine = self.mysis_id
        log = self.query_one(ConversationLog)
        header = sidebar = upcoming = False
        for event in events:
            if isinstance(event, MysisChanged):
                header = header or event.mysis.id == mine
            elif isinstance(event, MessageStored) and event.mysis_id == mine:
                log.add_memory(event.memory)
                sidebar = sidebar or event.memory.role == "tool"
                memory = event.memory
                # A turn ended or a prompt arrived: the next request is no longer the one
                # just sent, so compose the upcoming one (a worker; the newest one wins).
                upcoming = upcoming or memory.role == "user" or (
                    memory.role == "assistant" and not memory.tool_calls)
            elif isinstance(event, RequestComposed) and event.mysis_id == mine:
                view = self._view()
                window = self._window(view)
                self.query_one(ContextPreview).data = PreviewData(
                    event.composition, window, upcoming=event.preview, at=event.at,
                    tick=self.zoea.status.tick, valid=event.valid,
                    violations=event.violations, reuse=event.reuse)
            elif isinstance(event, StreamDelta) and event.mysis_id == mine:
                text = Text()
                text.append("AI ⋯ ", style=f"bold {fmt.ASSISTANT}")
                if event.reasoning and not event.text:
                    text.append(one_line(event.reasoning, 300), style=f"italic {fmt.MUTED}")
                text.append(clip(event.text, 2000).text, style=fmt.TEXT)
                log.show_stream(text)
            elif isinstance(event, ErrorRaised) and event.mysis_id == mine:
                text = fmt.stamp(event.at, self.zoea.status.tick)
                text.append(" ERROR" + (" (will retry)" if event.transient else ""),
                            style=f"bold {fmt.ERROR}")
                text.append("\n  ")
                text.append(clip(event.message, 20_000).text, style=fmt.ERROR)
                log.add_note(text, "-error")
            elif isinstance(event, NudgeSent) and event.mysis_id == mine:
                text = fmt.stamp(event.at, self.zoea.status.tick)
                text.append(f" NUDGE {event.level}", style=f"bold {fmt.WARNING}")
                text.append("  (synthetic, not stored)", style=fmt.DIM)
                text.append("\n  ")
                text.append(clip(event.text, 2000).text, style=fmt.WARNING)
                log.add_note(text, "-nudge")
            elif isinstance(event, MysisDeleted) and event.mysis_id == mine:
                self._left_behind()
                return
            elif isinstance(event, GameTick):
                sidebar = True
        if header:
            self._refresh_header()
        if sidebar:
            self._refresh_sidebar()
        if upcoming:
            self.refresh_preview()
        self.query_one(StatusBar).status = self.zoea.status

    def _left_behind(self) -> None:
        """The focused Mysis was deleted: show another one, or go back."""
        ids = sorted(self.zoea.views)
        if not ids:
            self.dismiss()
            return
        later = [i for i in ids if i > self.mysis_id]
        self.mysis_id = later[0] if later else ids[-1]

    # -- actions -----------------------------------------------------------------------

    def action_back(self) -> None:
        """Back to the dashboard (with this Mysis selected)."""
        self.zoea.select_on_dashboard(self.mysis_id)
        self.dismiss()

    def action_step(self, delta: int) -> None:
        """The previous (-1) or next (+1) Mysis, wrapping around."""
        ids = sorted(self.zoea.views)
        if not ids:
            return
        index = ids.index(self.mysis_id) if self.mysis_id in ids else 0
        self.mysis_id = ids[(index + delta) % len(ids)]

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

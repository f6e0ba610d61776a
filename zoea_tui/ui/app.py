"""The Zoea Nova app: a thin shell around an injected :class:`Commander`.

One worker opens the engine (so the first paint does not wait for it), one worker
reads the engine's event bus and posts :class:`EngineBatch` messages, and the app
hands each batch to the swarm model (:class:`SwarmModel`), which keeps the swarm once
for every screen and tells them what changed with typed messages. Reading ahead is the
app's :class:`ReadAhead`. Every action calls the commander in a worker; a refusal comes
back as an error notification.

Start it with :func:`run_app`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from importlib import import_module
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from rich.text import Text
from textual import events, on, work
from textual.app import SystemCommand
from textual.binding import BindingType
from textual.driver import Driver
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.signal import Signal
from textual.theme import Theme
from textual.worker import Worker, WorkerCancelled, WorkerFailed, WorkerState

from ..config import Config
from ..orchestrator.events import MysisView, Subscription
from ..orchestrator.refusals import CommandRefused
from ..resources import data_dir
from ..storage.story import StoryHit
from . import formatting as fmt
from . import textual_compat
from .commands import BY_NAME, COMMANDS, EVERYWHERE, Command, OpenedScreen, When, app_bindings
from .input_history import InputHistory
from .messages import EngineBatch
from .read_ahead import ReadAhead
from .sanitize import clean, one_line
from .screens.base import CommandCenter, OpaqueScreensApp, ZoeaScreen
from .screens.confirm import ConfirmScreen
from .screens.dashboard import DashboardScreen
from .screens.focus import FocusScreen
from .screens.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen
from .swarm_model import SwarmModel
from .textual_compat.frame_marks import FrameMarks
from .textual_compat.screens import build_unseen
from .theme import ZOEA_THEME
from .widgets.status_bar import SwarmStatus
from .worker_groups import ENGINE_EVENTS_GROUP, ENGINE_GROUP

if TYPE_CHECKING:
    # The engine is imported when it opens, after the first paint (see run_app).
    from ..orchestrator.commander import Commander
    from .screens.search import SearchScreen

log = logging.getLogger(__name__)

#: A commander, or a coroutine function that opens one (the app then owns and closes it).
EngineSource: TypeAlias = "Commander | Callable[[], Awaitable[Commander]]"

#: Most engine events handled as one batch.
BATCH_SIZE = 256
#: The bridge waits while this many messages are queued in the app (backpressure).
QUEUE_HIGH_WATER = 4
#: How long quitting waits for turns in flight before the engine stops them: not at all,
#: the commander is gone at once; a cut call is logged as cancelled and answered "Tool no
#: response" at the next launch, where the swarm resumes.
SHUTDOWN_S = 0.0
#: The same notification is not repeated within this many seconds.
NOTICE_REPEAT_S = 3.0
#: The commander's input: each holds the swarm's next steps a moment.
COMMANDER_INPUT = (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)

_SEVERITY = {"info": "information", "warning": "warning", "error": "error"}
#: The Keys panel the command palette opens: a widget in the screen, not a screen.
KEYS_PANEL = "HelpPanel"


class ZoeaApp(OpaqueScreensApp):
    """The command center. ``ZoeaApp(commander)`` or ``ZoeaApp(opener)``."""

    TITLE = "Zoea Nova"
    SUB_TITLE = "command center"
    CSS_PATH: ClassVar[list[str | PurePath]] = [data_dir("styles") / "zoea.tcss"]

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = (EVERYWHERE,)
    BINDINGS: ClassVar[list[BindingType]] = [*app_bindings()]

    #: What the status bars show; they watch it (built from the engine's events).
    status: reactive[SwarmStatus] = reactive(SwarmStatus)

    def __init__(
        self,
        engine: EngineSource,
        *,
        owns_engine: bool | None = None,
        tune_gc: bool = False,
        prebuild: bool = False,
    ) -> None:
        textual_compat.install()
        super().__init__()
        self._source = engine
        self.tune_gc = tune_gc
        #: Build the focus view and the search unseen once the swarm is shown.
        self.prebuild = prebuild
        self.owns_engine = callable(engine) if owns_engine is None else owns_engine
        self.commander: Commander | None = None
        #: The swarm as every screen shows it, fed by the bridge.
        self.swarm = SwarmModel()
        #: What a next key may show, read while the commander rests; the screens use it.
        self.ahead = ReadAhead(self, self.swarm)
        self.history = {"message": InputHistory(), "broadcast": InputHistory()}
        #: Published once, when the commander is open.
        self.ready_signal: Signal[None] = Signal(self, "engine-ready")
        self._recent_notices: dict[str, float] = {}
        self._engine_closing: asyncio.Task[None] | None = None
        #: The focus view and the search once built (kept and shown again).
        self._focus: FocusScreen | None = None
        self._search: SearchScreen | None = None
        #: Benchmark marks (``ZOEA_FRAME_MARKS``), None in normal use.
        self.frame_marks: FrameMarks | None = None

    # -- lifecycle --------------------------------------------------------------------

    def get_default_screen(self) -> Screen[Any]:
        """The dashboard."""
        return DashboardScreen(id="dashboard")

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform; on Linux and macOS, one that reports a
        lone Escape when it is due instead of up to 100 ms later (``textual_compat.driver``)."""
        from .textual_compat.driver import driver_class

        return driver_class(super().get_driver_class())

    #: The theme's name and the theme, while neither changes.
    _theme_in_use: tuple[str, Theme] | None = None

    @property
    def current_theme(self) -> Theme:
        """The theme in use, looked up once per theme set or registered.

        Textual looks it up for every line it paints (for its ANSI palette), each time
        among two fresh copies of every registered theme: 3.6 µs a line here, about 1 ms
        of a full frame of the focus view.
        """
        cached = self._theme_in_use
        if cached is None or cached[0] != self.theme:
            cached = self._theme_in_use = (self.theme, super().current_theme)
        return cached[1]

    def register_theme(self, theme: Theme) -> None:
        """Register ``theme`` (a new one under the current name is used from now on)."""
        self._theme_in_use = None
        super().register_theme(theme)

    def unregister_theme(self, theme_name: str) -> None:
        """Unregister the theme named ``theme_name``."""
        self._theme_in_use = None
        super().unregister_theme(theme_name)

    def on_mount(self) -> None:
        self.register_theme(ZOEA_THEME)
        self.theme = ZOEA_THEME.name
        self._guard_size(self.size.width, self.size.height)
        self.frame_marks = FrameMarks.from_env(self)
        if self.frame_marks is not None:
            self.frame_marks.start()
        self.open_engine()

    async def on_event(self, event: events.Event) -> None:
        """Every event. The commander's keys and clicks go before the swarm's next steps;
        a key also asks for a benchmark mark when marks are on."""
        if (
            isinstance(event, COMMANDER_INPUT)
            and not event.is_forwarded  # else a key bubbling back up
            and self.commander is not None
        ):
            self.commander.commander_input()
            self.ahead.soon()
        if self.frame_marks is not None and isinstance(event, events.Key):
            self.frame_marks.poke()
        await super().on_event(event)

    @work(group=ENGINE_GROUP, name="open-engine", exit_on_error=False)
    async def open_engine(self) -> None:
        """Open (or adopt) the commander, then start the event bridge."""
        source = self._source
        commander = await source() if callable(source) else source
        subscription = commander.bus.subscribe()
        self.commander = commander
        self.swarm.open(commander)
        self.swarm.subscribe(self, SwarmModel.Noticed, SwarmModel.ErrorRaised)
        self._refresh_status()
        self._bridge(subscription)
        self.ready_signal.publish(None)
        self.refresh_bindings()
        if self.prebuild:
            self.call_after_refresh(self._prebuild_screens)
        if self.tune_gc:
            quiet_collector()

    @work(group="prebuild", exit_on_error=False)
    async def _prebuild_screens(self) -> None:
        """Build the focus view and the search once, unseen, while nobody waits for them.

        Textual composes, styles and mounts a screen the first time it is pushed: 200-300
        ms for the focus view at 200x60, the longest stall of a session and the slowest
        open, and its first layout cost as much again. Started and laid out here without
        being pushed (Textual's own first steps of a push; Textual is pinned), each is
        kept as after a first visit: read, laid out and styled, so its first open only
        paints."""
        view = next(iter(sorted(self.views.values(), key=lambda v: v.id)), None)
        if view is None:
            return
        screens: list[ZoeaScreen[Any]] = [
            self._kept_focus(view.id),
            self._kept_search(view.id, view.name),
        ]
        built = [screen for screen in screens if not screen.is_running]
        for screen in built:
            await build_unseen(self, screen)  # composed and mounted (its CSS loaded)
        # What each reads when mounted is shown first (a new header height lays it out).
        for worker in [w for w in self.workers if w.node in built]:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        for screen in built:  # styled by the whole stylesheet: the last screen's CSS is in
            screen.ready_unseen(self.size)
        self.ahead.soon()

    def _kept_focus(self, mysis_id: int, at: int | None = None) -> FocusScreen:
        """The focus view, kept once built (built for Mysis ``mysis_id`` if there is none)."""
        if self._focus is None:
            self._focus = FocusScreen(mysis_id, at=at)
            self.install_screen(self._focus, name="focus")
        return self._focus

    def _kept_search(self, mysis_id: int, name: str) -> SearchScreen:
        """The search, kept once built (built for Mysis ``mysis_id`` if there is none)."""
        from .screens.search import SearchScreen

        if self._search is None:
            self._search = SearchScreen(mysis_id, name)
            self.install_screen(self._search, name="search")
        return self._search

    @work(group=ENGINE_EVENTS_GROUP, name="engine-events", exit_on_error=False)
    async def _bridge(self, subscription: Subscription) -> None:
        """Read the bus and post events in batches (never one message per event). News
        waits while the commander's key is handled (as the swarm's next steps do), so
        its frames come after the key's."""
        try:
            while True:
                batch = [await subscription.get()]
                while self.commander is not None and (left := self.commander.input_held_for()):
                    await asyncio.sleep(left)
                while len(batch) < BATCH_SIZE:
                    event = subscription.get_nowait()
                    if event is None:
                        break
                    batch.append(event)
                self.post_message(EngineBatch(tuple(batch)))
                while self.message_queue_size > QUEUE_HIGH_WATER:
                    await asyncio.sleep(0.005)
        except StopAsyncIteration:
            return
        finally:
            subscription.close()

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state != WorkerState.ERROR:
            return
        error = worker.error
        if worker.name == "open-engine":
            self.exit(return_code=2, message=f"zoea: cannot start the swarm: {error}")
        else:
            log.error("worker %s failed: %r", worker.name, error)
            self.notify(
                f"{worker.name} failed: {error}", severity="error", markup=False, timeout=10
            )

    async def close_engine(self) -> None:
        """Shut the commander down if this app owns it (once; safe to call again)."""
        if self._engine_closing is None:
            self._engine_closing = asyncio.create_task(self._close_engine())
        await asyncio.shield(self._engine_closing)

    async def _close_engine(self) -> None:
        commander = self.commander
        if commander is None or not self.owns_engine:
            return
        try:
            await asyncio.wait_for(commander.shutdown(timeout=SHUTDOWN_S), SHUTDOWN_S + 10)
        except Exception:  # closing must finish: log and go on
            log.exception("shutting the swarm down failed")

    async def on_unmount(self) -> None:
        await self.close_engine()
        if self.frame_marks is not None:
            self.frame_marks.close()

    # -- the size guard ------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._guard_size(event.size.width, event.size.height)

    def _guard_size(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        guard = next((s for s in self.screen_stack if isinstance(s, TooSmallScreen)), None)
        if small and guard is None:
            self.push_screen(TooSmallScreen())
        elif small and guard is not None:
            guard.show_size(width, height)
        elif not small and guard is not None and self.screen is guard:
            self.pop_screen()

    # -- engine events -------------------------------------------------------------------

    @property
    def views(self) -> dict[int, MysisView]:
        """The newest view of every Mysis (the swarm model's)."""
        return self.swarm.views

    def on_engine_batch(self, message: EngineBatch) -> None:
        """Hand the batch to the swarm model (which tells the screens), then show the
        new status."""
        self.swarm.feed(message.events)
        self._refresh_status()

    @on(SwarmModel.Noticed)
    def _noticed(self, message: SwarmModel.Noticed) -> None:
        notice = message.notice
        self.say(notice.message, _SEVERITY.get(notice.level, "information"))

    @on(SwarmModel.ErrorRaised)
    def _error_raised(self, message: SwarmModel.ErrorRaised) -> None:
        error = message.error
        if error.transient:
            return
        if error.mysis_id is None:  # the swarm's own (a full disk): on screen until read
            self.notify(clean(error.message), severity="error", markup=False, timeout=3600)
            return
        who = self.views.get(error.mysis_id)
        prefix = f"{who.name}: " if who else ""
        self.say(prefix + error.message, "error")

    def _refresh_status(self) -> None:
        counts = {"running": 0, "idle": 0, "stopped": 0, "errored": 0}
        for view in self.views.values():
            counts[view.state] = counts.get(view.state, 0) + 1
        commander = self.commander
        self.status = SwarmStatus(
            llm=self.swarm.network[0],
            mcp=self.swarm.network[1],
            tick=self.swarm.tick,
            counts=counts,
            total=len(self.views),
            max_myses=commander.config.swarm.max_myses if commander else 0,
            connected=commander is not None,
        )

    @property
    def names(self) -> dict[str, str]:
        """Mysis names by id as text (how memories and broadcasts name their sender)."""
        return self.swarm.names

    def say(self, message: str, severity: str = "information") -> None:
        """A notification with untrusted text (cleaned, never markup), not repeated."""
        text = clean(message).strip()
        now = time.monotonic()
        if now - self._recent_notices.get(text, -1e9) < NOTICE_REPEAT_S:
            return
        self._recent_notices = {
            k: t for k, t in self._recent_notices.items() if now - t < NOTICE_REPEAT_S
        }
        self._recent_notices[text] = now
        timeout = 10.0 if severity == "error" else 5.0
        self.notify(text, severity=severity, markup=False, timeout=timeout)  # type: ignore[arg-type]

    # -- commands ------------------------------------------------------------------------

    def run_command(
        self,
        what: str,
        call: Callable[[], Awaitable[Any]],
        *,
        done: str | Callable[[Any], str] | None = None,
    ) -> Worker[Any]:
        """Run an engine call in a worker; refusals and failures become notifications."""
        return self.run_worker(
            self._command(what, call, done), name=what, group="commands", exit_on_error=False
        )

    async def _command(
        self, what: str, call: Callable[[], Awaitable[Any]], done: str | Callable[[Any], str] | None
    ) -> Any:
        try:
            result = await call()
        except CommandRefused as exc:
            self.say(exc.message, "error")
            return None
        except Exception as exc:
            log.exception("%s failed", what)
            self.say(f"could not {what}: {exc}", "error")
            return None
        if done is not None:
            self.say(done if isinstance(done, str) else done(result))
        return result

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A command's key works as its row in the table says (:class:`When`): the
        engine's wait for the engine and stay quiet under dialogs."""
        name = parameters[0] if action == "open" and parameters else action
        command = BY_NAME.get(name) if isinstance(name, str) else None
        if command is None or not command.keys:  # not ours, or a key Textual binds (ctrl+p)
            return True
        top = self.screen
        when = command.when
        if when is When.KEYS_PANEL:
            # Off (the key goes on to the screen's own esc, and its key bar shows that)
            # unless the panel is open; matched by name: importing it costs 30 ms.
            return bool(top.query_children(KEYS_PANEL))
        if when is When.NOT_ASKING:
            return not isinstance(top, ConfirmScreen)
        if isinstance(top, ModalScreen | TooSmallScreen):
            return False
        return None if when is When.ENGINE and self.commander is None else True

    def _target(self) -> MysisView | None:
        """The Mysis the current screen points at (warns when there is none)."""
        mysis_id: int | None = None
        for screen in reversed(self.screen_stack):  # the top screen first
            if isinstance(screen, ZoeaScreen):
                mysis_id = screen.current_mysis_id
                if mysis_id is not None:
                    break
        view = self.views.get(mysis_id) if mysis_id is not None else None
        if view is None:
            self.say("no Mysis selected: press n to create one", "warning")
        return view

    def action_relaunch(self) -> None:
        """Start the Mysis again (idle, stopped or errored)."""
        self._on_target("relaunch", lambda engine, i: engine.relaunch_mysis(i), "relaunched")

    def action_stop(self) -> None:
        """Stop the Mysis."""
        self._on_target("stop", lambda engine, i: engine.stop_mysis(i), "stopped")

    def _on_target(
        self, what: str, call: Callable[[Commander, int], Awaitable[object]], done: str
    ) -> None:
        """Run ``call`` (the engine, the Mysis's id) on the Mysis the current screen points
        at; say ``done`` after its name once it has."""
        view = self._target()
        commander = self.commander
        if view is None or commander is None:
            return
        mysis_id = view.id
        self.run_command(
            what, lambda: call(commander, mysis_id), done=f"{one_line(view.name, 40)} {done}"
        )

    def action_search(self) -> None:
        """Search the Mysis's memories and the broadcasts; a hit opens the conversation."""
        view = self._target()
        if view is None:
            return
        mysis_id = view.id

        def chosen(hit: StoryHit | None) -> None:
            if hit is not None:
                self.open_focus(mysis_id, at=hit.id)

        search = self._kept_search(mysis_id, view.name)
        if search in self.screen_stack:
            return
        search.retarget(mysis_id, view.name)  # a screen not yet mounted only notes it
        self.push_screen(search, chosen)

    def action_open(self, name: str) -> None:
        """Show command ``name``'s screen (:attr:`Command.screen`), for the Mysis the
        current screen points at if it acts on one; not again over itself."""
        command = BY_NAME[name]
        module, _, class_name = command.screen.rpartition(".")
        screen_class: type[OpenedScreen] = getattr(
            import_module(f"{__package__}.screens.{module}"), class_name
        )
        if isinstance(self.screen, screen_class):
            return
        view = self._target() if command.target else None
        if view is not None or not command.target:
            self.push_screen(screen_class.opened(view))

    def action_close_keys(self) -> None:
        """Close the Keys panel the command palette opens (esc, while it is open: see
        :meth:`check_action`)."""
        self.screen.query_children(KEYS_PANEL).remove()
        self.screen.refresh_bindings()

    async def action_quit(self) -> None:
        """Quit; asks first while Myses are running."""
        running = self.commander.running_count() if self.commander is not None else 0
        if not running:
            await self._quit()
            return
        question = Text()
        question.append(
            f"{running} Mys{'is is' if running == 1 else 'es are'} running.\n", style=fmt.TEXT
        )
        question.append(
            "Quit? Calls in flight are cut; the swarm resumes at the next launch.",
            style=fmt.MUTED,
        )

        async def answer(yes: bool | None) -> None:
            if yes:
                await self._quit()

        self.push_screen(ConfirmScreen(question, yes="Quit", no="Stay"), answer)

    async def _quit(self) -> None:
        if self.commander is not None and self.owns_engine:
            self.notify("stopping the swarm…", timeout=30)
        await self.close_engine()
        self.exit()

    # -- navigation -----------------------------------------------------------------------

    def open_focus(self, mysis_id: int, *, at: int | None = None) -> None:
        """Show the focus view of a Mysis (its conversation at memory ``at``, if given).

        The focus view is built once and kept: later opens read the Mysis's content
        first and switch to the screen with all of it in place, in one frame
        (:meth:`FocusScreen.retarget`)."""
        if mysis_id not in self.views:
            return
        self.ahead.stop()
        focus = self._kept_focus(mysis_id, at)
        if not focus.is_running:
            self.push_screen(focus)  # built now: its mount reads its Mysis's content
            return
        while focus in self.screen_stack and self.screen is not focus:
            self.pop_screen()  # a view opened over it (help, a search)
        focus.retarget(mysis_id, at, on_top=True)

    def select_on_dashboard(self, mysis_id: int) -> None:
        """Select a Mysis on the dashboard (for when the user returns to it)."""
        for screen in self.screen_stack:
            if isinstance(screen, DashboardScreen):
                screen.select(mysis_id)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette: every command of the table (those of the engine once it
        is open), each Mysis, then Textual's own (a command of the same title instead)."""
        ours = {c.title: c for c in COMMANDS if c.palette}
        inherited = list(super().get_system_commands(screen))
        theirs = {system.title for system in inherited}
        for command in ours.values():
            if command.title not in theirs and (
                self.commander is not None or command.when is not When.ENGINE
            ):
                yield self._palette_entry(command)
        if self.commander is not None:
            for view in sorted(self.views.values(), key=lambda v: v.id):
                yield SystemCommand(
                    f"Focus {one_line(view.name, 40)}",
                    f"open {one_line(view.name, 40)}'s conversation and context",
                    lambda i=view.id: self.open_focus(i),
                )
        for system in inherited:
            instead = ours.get(system.title)
            yield system if instead is None else self._palette_entry(instead)

    def _palette_entry(self, command: Command) -> SystemCommand:
        """Command ``command`` as the palette offers it."""
        help_text = f"{' '.join(command.shown_keys.split())} · {command.help}"
        if command.screen:
            return SystemCommand(command.title, help_text, partial(self.action_open, command.name))
        return SystemCommand(command.title, help_text, getattr(self, f"action_{command.name}"))


def quiet_collector() -> None:
    """Keep garbage-collector pauses out of the frames (process-wide, so only for a real run).

    A full collection over the heap that imports and the open engine leave behind takes
    over 100 ms; frozen, that heap is no longer scanned, and young objects are collected
    in fewer, still short, passes.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)


def _a_command_center(app: ZoeaApp) -> CommandCenter:
    """Never called: mypy checks here that the app is all a screen may use of it."""
    return app


def run_app(config: Config, db_path: Path, *, debug: bool = False) -> int:
    """Run the command center on ``db_path`` until the user quits; the exit code.

    The app opens the commander itself (after its first paint) and shuts it down
    when it exits. ``debug`` keeps Textual's devtools hooks on (``textual console``).
    """

    async def open_commander() -> Commander:
        # The engine's modules (the MCP SDK among them) take about a second to import:
        # in a thread, after the first paint, so the screen never waits for them.
        engine = await asyncio.to_thread(_engine_class)
        return await engine.open(config, db_path=db_path)

    refusal = textual_compat.version_refusal()
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 2
    app = ZoeaApp(open_commander, tune_gc=True, prebuild=True)
    app.run()
    if app.return_code:
        return app.return_code
    return 0


def _engine_class() -> type[Commander]:
    """The :class:`Commander` class, imported on first use."""
    from ..orchestrator.commander import Commander

    return Commander

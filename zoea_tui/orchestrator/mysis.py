"""One Mysis alive: its state machine, its turn loop and its nudges.

States (docs/ARCHITECTURE.md, 'Mysis states'): ``idle`` waits for a message;
``running`` plays (a turn, then waiting for a prompt or the nudge interval);
``stopped`` was stopped by the commander and stays so across launches;
``errored`` failed in a way waiting cannot heal and keeps its error visible. Only
idle and running accept messages; a message wakes an idle Mysis.

A model call that fails in a way that heals by waiting (unreachable, timed out, a
5xx, rate-limited, cut short: what the provider marks ``retryable``) is tried again
under the swarm's ``model_retry`` policy (``core/retry.py``): in the command center it
keeps trying, each wait longer up to a minute, the next try's time on the pane
(``MysisView.next_try_at``), and the Mysis plays on from the first answer; ``r`` tries
at once. Every backoff and every stop is logged with the server's words.

A turn: compose → call the model → store the assistant message → run each
tool call in order, storing each result → compose again, up to
``max_tool_iterations`` rounds; then the turn ends gracefully. A prompt that
arrives during a turn ends it after the round under way, and opens the next turn,
unless the turn's next request already carried it (docs/CONTEXT.md, 'Turns and
nudges'). Every request is logged with its composition. A stop during a call never
becomes an error.

A runtime sees its swarm only through :class:`~.services.SwarmServices`; its
transient failures are retried under the one policy of ``core/retry.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from ..config import NudgeConfig
from ..core import prompts
from ..core.composition import ComposeSettings, Composition, ContextTooSmallError
from ..core.failures import failure_label
from ..core.game_tool import ToolsMode, effective_call, with_fitting_tools
from ..core.retry import with_retries
from ..core.tokens import RequestTokens, tools_tokens
from ..core.types import Memory, Turn
from ..game.router import RoutedResult, ToolRouter
from ..game.session import GameSession
from ..game.waits import WAIT_CODES
from ..providers.base import (
    ChatRequest,
    ChatResponse,
    Provider,
    ProviderError,
    ProviderSettings,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
)
from ..storage import MysisRecord, NewMemory
from .calibration import Engine, engine_of
from .checked import check_request
from .context import next_composition
from .events import (
    ErrorRaised,
    MessageStored,
    MysisChanged,
    MysisState,
    MysisView,
    Notice,
    NudgeSent,
    RequestComposed,
    RequestFinished,
    StateChanged,
    StreamDelta,
    TokenUsage,
    ToolCallFinished,
    ToolCallStarted,
)
from .services import SwarmServices
from .summaries import summarizer_for
from .turns import next_turn
from .warm_start import WAITING as WARM_WAITING

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: Why a request was cut (its log's error): an order from the commander came before the
#: answer, which would have been written without it (``MysisRuntime.deliver``).
CUT_BY_ORDER = "cut: the commander's order came before the answer"

ACTIVITY_BY_TOOL = {
    "travel": "traveling",
    "jump": "jumping",
    "mine": "mining",
    "dock": "docking",
    "undock": "undocking",
    "sell": "trading",
    "buy": "trading",
    "refuel": "refueling",
    "repair": "repairing",
}


@dataclass(frozen=True, slots=True)
class _Asked:
    """A model's answer with the request it answers, before it is recorded."""

    response: ChatResponse
    composition: Composition
    #: The engine's count of the request moved the scale (its usage is not learnt again).
    learnt: bool
    engine: Engine


#: A request that fits: its composition, the engine's count of it (None: not counted
#: while fitting), its tools and the settings it was composed with.
_Fitted = tuple[Composition, int | None, list[dict[str, Any]], ComposeSettings]


class _NoTools(Exception):
    """The game's tool list could not be had (the Mysis is already errored)."""


class _Unreachable(Exception):
    """A tool call's result that says the game server could not be reached."""

    def __init__(self, result: RoutedResult) -> None:
        super().__init__(result.error_message)
        self.result = result


#: The class of a stop for a context too small for the system prompt and the tools (told
#: in ``ErrorRaised.kind``, ``zoea simulate``'s failures and an arena run's error).
CONTEXT_TOO_SMALL = "context_too_small"


def _retryable(error: Exception) -> bool:
    return isinstance(error, ProviderError) and error.retryable


def _retry_after(error: Exception) -> float | None:
    return error.retry_after if isinstance(error, ProviderError) else None


def _heard(message: str, said: str | None) -> str:
    """The server's own words for the log, when the message does not hold them already."""
    if not said or said in message:
        return ""
    return f" (the server said: {' '.join(said.split())})"


def _any_failure(error: Exception) -> bool:
    return True


def provider_note(provider: Provider) -> str:
    """What a provider says of itself as it runs (``HttpProvider.notes``), in one line."""
    notes: dict[str, str] = getattr(provider, "notes", {})
    return "; ".join(notes.values())


class MysisRuntime:
    """The live part of a Mysis; the commander owns one per stored Mysis."""

    def __init__(
        self,
        swarm: SwarmServices,
        record: MysisRecord,
        provider: Provider,
        session: GameSession,
        router: ToolRouter,
    ) -> None:
        self.swarm = swarm
        self.record = record
        self.provider = provider
        self.session = session
        self.router = router
        self.state: MysisState = record.state  # type: ignore[assignment]
        self.last_error = record.last_error
        self.nudges = 0
        self.activity = "idle" if self.state != "stopped" else "stopped"
        self.last_line = ""
        self.last_tokens = 0
        #: Prompt tokens the server reported for the last request (None: not yet).
        self.last_reported_tokens: int | None = None
        self.game_tick: int | None = None
        self.wake = asyncio.Event()
        self.prompt_pending = False
        #: The turn being played (None between turns).
        self.turn: Turn | None = None
        #: True from a start until the first turn begins (a ``start`` turn when no prompt).
        self._fresh = False
        #: The newest memory a sent request had seen (None: not read from the log yet).
        self._sent_upto: int | None = None
        #: True while the game said the Mysis must wait (travel, cooldown, pending action).
        self.waiting_on_game = False
        self.wait_hint: float | None = None
        self.task: asyncio.Task[None] | None = None
        #: Set between turns, cleared while one is played (a shutdown waits for it).
        self.between_turns = asyncio.Event()
        self.between_turns.set()
        self._checked = False
        #: The tool list of each mode asked for, with its estimated tokens.
        self._tools: dict[ToolsMode, tuple[list[dict[str, Any]], int]] = {}
        #: The tools mode of the request composed last (None: none yet, or the engine
        #: changed): under ``tools = "auto"``, compact once it fell back (it then stays).
        self.tools_mode: ToolsMode | None = None
        #: Turns completed since this runtime was created.
        self.turns = 0
        #: The first line of the latest answer that ended a turn.
        self.last_answer = ""
        #: Prompt tokens the server reported it served from its cache, last call.
        self.last_cached_tokens: int | None = None
        #: Wall-clock time of the next nudge while waiting (for the dashboard).
        self.next_nudge_at: float | None = None
        #: The messages of the last request sent (what the next one is compared with).
        self.last_sent: tuple[dict[str, Any], ...] = ()
        self._publishing: set[asyncio.Task[None]] = set()
        #: The summary whose pause the commander was told of (``summarize``).
        self._paused_told: int | None = None
        #: The environment variable whose convention added the provider ("" if none).
        self.provider_origin = ""
        #: Wall-clock time of the next try of a failed model call (None: not backing off).
        self.next_try_at: float | None = None
        #: Whether the backoff under way waits a server's ``Retry-After`` (real time).
        self._server_wait = False
        #: Set by ``r`` during a backoff: the next try goes at once.
        self._try_now = asyncio.Event()
        #: Model calls failed in a row, and the orchestrator-clock time of the first.
        self._failed_tries = 0
        self._failing_since = 0.0
        #: The request under way, from its composing to its answer (an order cuts it).
        self._asking: asyncio.Task[_Asked | None] | None = None
        #: Why ``_asking`` was cut (None: it was not).
        self._cut: str | None = None
        #: Whether an order may still cut ``_asking``: not once its answer has come.
        self._cuttable = False

    # -- views ----------------------------------------------------------------

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def name(self) -> str:
        return self.record.name

    def view(self) -> MysisView:
        """The snapshot watchers see."""
        return MysisView(
            id=self.record.id,
            name=self.record.name,
            provider=self.record.provider,
            model=self.record.model,
            provider_label=self.provider.label,
            strategy=self.record.strategy,
            state=self.state,
            last_error=self.last_error,
            account=self.router.account or self.record.account,
            nudges=self.nudges,
            max_nudges=self.swarm.nudge.max_encouragements,
            last_tokens=self.last_tokens,
            last_reported_tokens=self.last_reported_tokens,
            activity=self.activity,
            last_line=self.last_line,
            game_tick=self.game_tick,
            last_answer=self.last_answer,
            next_nudge_at=self.next_nudge_at,
            waiting_on_game=self.waiting_on_game,
            last_cached_tokens=self.last_cached_tokens,
            provider_note=provider_note(self.provider),
            provider_origin=self.provider_origin,
            next_try_at=self.next_try_at,
            spend=self.swarm.spend.of(self.id),
            context_window=self.swarm.fitted_settings(self.record)[0].context_window,
        )

    async def changed(self, reason: str = "") -> None:
        await self.swarm.bus.publish(MysisChanged(mysis=self.view(), reason=reason))

    # -- lifecycle --------------------------------------------------------------

    async def start(self, *, prompt: bool = True) -> None:
        """Run (from idle, stopped or errored): reset the error and the nudge counter.

        A running Mysis waiting to try a failed model call again tries it now.
        """
        if self.state == "running" and self.task is not None and not self.task.done():
            if self.next_try_at is not None:
                log.info("%s: the commander asked for the next try now", self.name)
                self._try_now.set()
            return
        await self.halt()
        if self.router.account is None:
            # A free account of the pool becomes this Mysis's for good (it logs in to it).
            account = await self.swarm.store.claim_account(self.id, self.router.server)
            if account is not None:
                self.router.account = account.username
                self.record = await self.swarm.store.get_mysis(self.id)
        self.nudges = 0
        self.last_error = None
        self.tools_mode = None  # the server may have been given a larger context
        self.prompt_pending = prompt or self.prompt_pending
        self._fresh = True
        await self._set_state("running", None)
        self.task = asyncio.create_task(self._run(), name=f"mysis-{self.name}")

    async def stop(self, timeout: float = 5.0) -> None:
        """Stop: the state changes first, so a failing in-flight call cannot override it."""
        await self._set_state("stopped", None)
        self.activity = "stopped"
        await self.halt(timeout)
        await self.changed("stopped")

    async def halt(self, timeout: float = 5.0) -> None:
        """Cancel the loop and wait (bounded) for it to end; the state is left as it is."""
        task, self.task = self.task, None
        if task is not None and task.done() and not task.cancelled():
            task.exception()  # retrieved: a loop whose last write failed (a full disk) ended
        if task is None or task.done() or task is asyncio.current_task():
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError, Exception):
            await asyncio.wait_for(task, timeout)

    async def wait_turn(self, timeout: float) -> None:
        """Wait (bounded, in real time) for an in-flight turn to end: a graceful shutdown."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.between_turns.wait(), timeout)

    async def _set_state(self, new: MysisState, error: str | None) -> None:
        old = self.state
        self.state = new
        self.last_error = error
        self.record = await self.swarm.store.update_mysis(self.id, state=new, last_error=error)
        if new in ("idle", "stopped", "errored"):
            self.activity = new if new != "idle" else "idle"
        if old != new or error:
            await self.swarm.bus.publish(
                StateChanged(mysis_id=self.id, name=self.name, old=old, new=new, error=error)
            )
        await self.changed(f"state {new}")

    async def _fail(self, message: str, kind: str | None = None, said: str | None = None) -> None:
        """Become errored, unless the commander stopped the Mysis meanwhile (logged with
        the server's words, ``said``, when they are not in the message already)."""
        if self.state == "stopped":
            return
        self._cuttable = False  # an order does not cut the failure being recorded
        heard = _heard(message, said)
        log.warning("%s stopped (errored): %s%s", self.name, message, heard)
        await self.swarm.bus.publish(ErrorRaised(mysis_id=self.id, message=message, kind=kind))
        await self._set_state("errored", message)

    async def _provider_failed(self, error: ProviderError) -> None:
        """Become errored with the provider's failure told in its class and its words."""
        await self._fail(
            f"{self.provider.label}: {error.describe()}", kind=error.kind, said=error.said
        )

    def deliver(self, *, order: bool = False) -> None:
        """A prompt was stored for this Mysis: run a turn soon.

        An ``order`` (the commander's word) cuts a request under way: its answer would
        be written without the order, and stored after it, it would read as the order's
        answer (docs/CONTEXT.md, 'Turns and nudges'). A game call under way is not cut:
        it runs, and the order opens the next turn after the round.
        """
        self.prompt_pending = True
        self.nudges = 0
        self.wake.set()
        asking = self._asking
        if not order or self.state != "running" or asking is None or asking.done():
            return
        if self._cuttable:
            self._cut, self._cuttable = CUT_BY_ORDER, False  # cut once
            asking.cancel()

    # -- the loop -------------------------------------------------------------------

    async def _run(self) -> None:
        clock = self.swarm.clock
        nudge = self.swarm.nudge
        try:
            if not await self._preflight():
                return
            while self.state == "running":
                if self.prompt_pending or self._fresh:
                    self.prompt_pending = False
                    self.wake.clear()
                    upcoming = await self.upcoming_turn(answering=True)
                    if upcoming.kind != "nudge":  # else the prompt was already sent
                        self._fresh = False
                        await self._turn(upcoming)
                    continue
                self.activity = "cooldown" if self.waiting_on_game else "waiting"
                interval = self._interval(nudge)
                self.next_nudge_at = time.time() + interval
                await self.changed("waiting")
                woke = await clock.wait_for(self.wake, interval)
                self.wake.clear()
                self.next_nudge_at = None
                if woke or self.prompt_pending or self.state != "running":
                    continue
                if self.nudges >= nudge.max_encouragements:
                    await self._go_idle(prompts.breaker_error(nudge.max_encouragements))
                    return
                upcoming = await self.upcoming_turn()
                self.nudges = upcoming.nudge_level
                await self.swarm.bus.publish(
                    NudgeSent(mysis_id=self.id, level=self.nudges, text=upcoming.text or "")
                )
                await self._turn(upcoming)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the loop must never die silently
            log.exception("Mysis %s failed", self.name)
            await self._fail(f"{type(exc).__name__}: {exc}")

    async def upcoming_turn(self, *, answering: bool = False) -> Turn:
        """The turn the next request belongs to: the running one, or the one to begin.

        A prompt nobody has sent yet starts a turn at that prompt; a Mysis just
        started with nothing to answer begins a ``start`` turn; otherwise the next
        turn is the nudge at the next encouragement level. The preview composes
        with this same turn, so what it shows is what the turn will send.
        """
        if self.turn is not None:
            return self.turn
        if self._sent_upto is None:
            self._sent_upto = await self.swarm.store.last_sent_memory_id(self.id)
        return await next_turn(
            self.swarm.store,
            self.id,
            sent_upto=self._sent_upto,
            nudges=self.nudges,
            max_nudges=self.swarm.nudge.max_encouragements,
            fresh=self._fresh or self.state != "running",
            answering=answering or self.prompt_pending,
        )

    async def _preflight(self) -> bool:
        """Check once that the model exists (Ollama: ``/api/tags``), before the first call."""
        # The server's own context, when it tells it (engine fit: calibration.py).
        configured = self.swarm.settings_for(self.record)[1]
        await self.swarm.fit.discover(
            engine_of(self.record.provider, configured), self.provider, configured.context_window
        )
        check = getattr(self.provider, "check_model", None)
        if check is None or self._checked:
            return True

        async def checked() -> bool:
            await check()
            return True

        # A server not up yet is waited for like a failed call.
        self._checked = await self._model_call(checked) is not None
        return self._checked

    def _interval(self, nudge: NudgeConfig) -> float:
        """The idle interval, or the wait-state one (shortened by the game's hint).

        See docs/CONTEXT.md, 'Turns and nudges'.
        """
        if not self.waiting_on_game:
            return nudge.idle_seconds
        if self.wait_hint is not None:
            return min(nudge.wait_state_seconds, max(1.0, self.wait_hint))
        return nudge.wait_state_seconds

    async def _go_idle(self, reason: str) -> None:
        self.activity = "idle"
        await self._set_state("idle", reason)

    async def _turn(self, upcoming: Turn) -> None:
        """One turn: up to ``max_tool_iterations`` rounds of model and tools."""
        self.between_turns.clear()
        self.waiting_on_game, self.wait_hint = False, None
        self.turn = await self.swarm.store.begin_turn(
            self.id,
            upcoming.kind,
            upcoming.first_memory_id,
            nudge_level=upcoming.nudge_level,
            text=upcoming.text if upcoming.synthetic else None,
            game_tick=self.game_tick,
        )
        try:
            rounds = (
                self.swarm.settings_for(self.record)[1].turn_rounds
                or self.swarm.max_tool_iterations
            )
            for iteration in range(rounds):
                if self.swarm.closing():
                    return  # quitting: end the turn at this round's boundary
                level = upcoming.nudge_level if iteration == 0 else 0
                response = await self._ask_model(level, iteration + 1)
                if response is None:
                    return
                if not response.tool_calls:
                    return
                for call in response.tool_calls:
                    # Every call of an answer runs, so no stored call lacks its result,
                    # unless the Mysis was stopped (the composer then says "no response").
                    if self.state != "running":
                        return
                    await self._run_tool(call, cut=response.finish_reason == "length")
                if self.prompt_pending:
                    # A prompt arrived during this round: the turn starts at the most recent
                    # prompt (seed 004), so it ends here and the prompt opens the next one.
                    if await self._prompt_unsent():
                        return
                    # One stored before this round's request was composed was sent in it:
                    # no turn would open at it, so this one goes on answering it.
                    self.prompt_pending = False
            self.last_line = f"turn ended after {rounds} tool rounds"
            await self.changed("turn limit")
        finally:
            self.turn = None
            self.turns += 1
            self.between_turns.set()
            self.swarm.turn_finished(self.id, self.turns)

    async def _prompt_unsent(self) -> bool:
        """Whether a delivered prompt is still to be sent. One that arrived after a round's
        tools ran went in this turn's next request: the model is answering it in this turn
        (perhaps with a call first), so the turn goes on; ended, the prompt would be lost,
        the next turn being a nudge since it was sent (issue 40)."""
        sent = self._sent_upto or 0
        return await self.swarm.store.first_prompt_after(self.id, sent) is not None

    def remember_request(self, tokens: RequestTokens) -> None:
        """Take up the figures of the last request sent before a relaunch (what the
        views show of it until this run sends one)."""
        self.last_tokens = tokens.estimated
        self.last_reported_tokens = tokens.reported
        self.last_cached_tokens = tokens.cached

    async def _ask_model(
        self, nudge_level: int, turn_round: int | None = None
    ) -> ChatResponse | None:
        """Compose, call the model (with retries), store the answer; None when nothing
        was answered (the Mysis failed, or an order cut the request: ``deliver``)."""
        await self.swarm.step_gate.ready()
        self._cut, self._cuttable = None, True
        asking = self._asking = asyncio.ensure_future(self._ask(nudge_level, turn_round))
        try:
            asked = await asking
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._cut is None or (current is not None and current.cancelling()):
                raise  # a stop or a quit, not an order
            await self._was_cut()
            return None
        finally:
            self._asking, self._cuttable = None, False
        if asked is None:
            return None
        return await self._answered(asked)

    async def _ask(self, nudge_level: int, turn_round: int | None) -> _Asked | None:
        """Compose the request and call the model (with retries): the part an order cuts."""
        settings, provider_settings = self.swarm.fitted_settings(self.record)  # engine fit
        settings = replace(settings, nudge_level=nudge_level)
        engine = engine_of(self.record.provider, provider_settings)
        fitted = await self._fitting(settings, provider_settings, engine, turn_round)
        if fitted is None:
            return None
        composition, counted, tools, settings = fitted
        # A server that counts prompts (llama-server) counts this one before it goes (once:
        # the least request was counted while fitting): the scale is learnt from it, and a
        # request over the slot is composed again to fit.
        draft = ChatRequest(composition.messages, tools, provider_settings, turn_round=turn_round)
        if counted is None:
            counted = await self.swarm.fit.count(engine, self.provider, composition, draft)
        # What the engine counted was learnt from (it moved the scale): its answer's
        # usage is not learnt from again. A request composed again was not counted.
        learnt = counted is not None
        if counted is not None and counted > settings.budget:
            refit = self.swarm.fitted_settings(self.record)[0]
            settings = replace(refit, nudge_level=nudge_level)
            log.info(
                "%s: the engine counts %d prompt tokens, over its %d; composed again",
                self.record.name,
                counted,
                settings.budget,
            )
            fitted = await self._fitting(settings, provider_settings, engine, turn_round)
            if fitted is None:
                return None
            composition, _, tools, settings = fitted
            learnt = False
        await self._tell_paused_summaries(composition)
        checked = await check_request(composition, self.last_sent)
        await self.swarm.bus.publish(RequestComposed.of(self.id, checked, tools=len(tools)))
        # A new request: its figures are the estimate until the server answers.
        self.last_tokens, self.last_reported_tokens = composition.tokens, None
        self.last_cached_tokens = None
        last_id = composition.last_memory_id
        self._sent_upto = max(self._sent_upto or 0, last_id or 0)
        turn = self.turn
        if (
            turn is not None
            and turn.id is not None
            and turn.state is None
            and composition.state_text is not None
        ):
            # The facts after the opening stay as the turn's first request had them.
            await self.swarm.store.set_turn_state(turn.id, composition.state_text)
            self.turn = replace(turn, state=composition.state_text)
        self.last_sent = composition.messages
        request = (
            draft
            if learnt
            else ChatRequest(composition.messages, tools, provider_settings, turn_round=turn_round)
        )
        turn_id = self.turn.id if self.turn is not None else None

        async def attempt() -> ChatResponse:
            # The first request to a cold engine goes first (warm_start.py).
            async with self.swarm.warm_start.first(
                engine, self.provider, on_wait=self._waiting_for_warm_prefix
            ):
                return await self._call_model(
                    request, composition, last_id, nudge_level, settings, turn_id
                )

        response = await self._model_call(attempt)
        if response is None:
            return None
        return _Asked(response, composition, learnt, engine)

    async def _was_cut(self) -> None:
        """The pane says the request under way gave way to an order."""
        self.last_line = "cut by an order: answering it"
        await self.changed("cut")

    async def _answered(self, asked: _Asked) -> ChatResponse | None:
        """Record the answer: its bill and usage, what the engine's count taught, the
        stored memory and the pane's line. None when an order came after its request was
        composed: the answer, written without it, is dropped like a cut request's."""
        response, composition = asked.response, asked.composition
        # A model's call is billed; the autopilot's usage is an estimate: it costs nothing.
        bill = (
            None
            if getattr(self.provider, "usage_is_estimate", False)
            else self.swarm.spend.record(self.id, self.record.provider, response.usage)
        )
        await self.swarm.bus.publish(
            TokenUsage(
                mysis_id=self.id,
                estimated=composition.tokens,
                prompt_tokens=response.usage.prompt_tokens,
                completion_tokens=response.usage.completion_tokens,
                latency_s=response.latency_s,
                cached_tokens=response.usage.cached_tokens,
                cache_write_tokens=response.usage.cache_write_tokens,
                bill=bill,
            )
        )
        self.last_cached_tokens = response.usage.cached_tokens
        self.last_reported_tokens = response.usage.prompt_tokens
        # Engine fit: the engine's own count calibrates the swarm's estimate of it.
        if not asked.learnt:
            self.swarm.fit.observe(asked.engine, self.provider, composition, response.usage)
        if response.content.strip() or response.tool_calls:
            self.nudges = 0  # a productive answer resets the encouragements
        answer = NewMemory(
            "assistant",
            "llm",
            response.content,
            reasoning=response.reasoning,
            tool_calls=response.tool_calls,
            game_tick=self.game_tick,
        )
        stored = await self.swarm.store.add_answer(
            self.id, answer, composed_upto=composition.last_memory_id
        )
        if stored is None:
            said = response.content.strip()[:80] or ", ".join(c.name for c in response.tool_calls)
            log.info("%s: an order came before this answer, dropped: %s", self.name, said)
            await self._was_cut()
            return None
        await self.swarm.bus.publish(MessageStored(mysis_id=self.id, memory=stored))
        if response.content.strip():
            self.last_line = response.content.strip().splitlines()[0]
            if not response.tool_calls:
                self.last_answer = self.last_line
        elif response.tool_calls:
            self.last_line = "→ " + ", ".join(effective_call(c).name for c in response.tool_calls)
        await self.changed("answered")
        return response

    async def _fitting(
        self,
        settings: ComposeSettings,
        provider_settings: ProviderSettings,
        engine: Engine,
        turn_round: int | None,
    ) -> _Fitted | None:
        """The request to send, composed to fit, with the engine's count of it when one
        was asked for here, its tools and the settings it was composed with; None when
        nothing can be sent.

        When the system prompt and the tools leave no room for the history and the
        answer, nothing is sent (a system prompt cut to fit is no request to send) and
        waiting will not make room: the Mysis is errored with the numbers and the fix.
        The estimate's one scale can misjudge the fixed part, so an engine that counts
        prompts (llama-server) is asked first whether the least request fits after all.
        The tools are the setting's (``tools_modes``): ``"auto"`` sends the compact ones
        when the least request with the full ones does not fit, and says so once.
        """

        async def attempt(mode: ToolsMode) -> _Fitted:
            tools = await self._tool_schemas(mode)
            if tools is None:
                raise _NoTools
            known = self._tools.get(mode)
            if known is None or known[0] is not tools:  # the same list until it changes
                self._tools[mode] = (tools, tools_tokens(tools))
            fitted = self.with_tools(settings, mode)
            try:
                return await self.compose(fitted, provider_settings), None, tools, fitted
            except ContextTooSmallError as error:
                least = error.least
                if least is not None:
                    draft = ChatRequest(
                        least.messages, tools, provider_settings, turn_round=turn_round
                    )
                    counted = await self.swarm.fit.count(engine, self.provider, least, draft)
                    if counted is not None and counted <= fitted.budget:
                        log.info(
                            "%s: by the estimate %s, but the engine counts the least "
                            "request at %d of its %d tokens: sent",
                            self.name,
                            error,
                            counted,
                            fitted.budget,
                        )
                        return least, counted, tools, fitted
                raise

        setting = provider_settings.tools
        try:
            fitted, mode = await with_fitting_tools(
                setting, attempt, fell_back=self.tools_fell_back
            )
        except _NoTools:
            return None
        except ContextTooSmallError as error:
            await self._fail(f"{self.provider.label}: {error}", kind=CONTEXT_TOO_SMALL)
            return None
        fell_back = setting == "auto" and mode == "compact" and not self.tools_fell_back
        self.tools_mode = mode
        if fell_back:
            context = f"{settings.context_window:,}".replace(",", " ")
            said = (
                f"{self.name}: the full tools do not fit the server's {context} tokens: "
                "compact tools"
            )
            log.info("%s", said)
            await self.swarm.bus.publish(Notice(level="info", message=said, mysis_id=self.id))
        return fitted

    async def _tell_paused_summaries(self, composition: Composition) -> None:
        """Tell the commander, once per summary, that summaries are paused and why."""
        gauge = composition.summary_gauge
        if gauge is None or gauge.paused is None or gauge.summary_id == self._paused_told:
            return
        self._paused_told = gauge.summary_id
        await self.swarm.bus.publish(
            Notice(
                level="warning",
                message=f"{self.name}: summaries paused: {gauge.paused}.",
                mysis_id=self.id,
            )
        )

    async def _call_model(
        self,
        request: ChatRequest,
        composition: Composition,
        last_id: int | None,
        nudge_level: int,
        settings: ComposeSettings,
        turn_id: int | None,
    ) -> ChatResponse:
        """One try of one request: logged before, its outcome recorded after.

        A cut that comes while the request is being logged still finds it logged (the
        write goes on in the database's thread) and records it as cancelled: no request
        is left pending by a quit.
        """
        logging = asyncio.ensure_future(
            self.swarm.store.log_request(
                self.id,
                composition,
                last_memory_id=last_id,
                nudge_level=nudge_level,
                tools_tokens=settings.tools_tokens,
                turn_id=turn_id,
                settings=settings,
                turn_state=self.turn.state if self.turn is not None else None,
            )
        )
        started = time.perf_counter()
        try:
            request_id = await asyncio.shield(logging)
        except asyncio.CancelledError:
            before = self._cut or "stopped before the call"
            with contextlib.suppress(Exception):
                request_id = await logging
                await self._finish_request(request_id, "cancelled", None, started, before)
            raise
        outcome, kind, response = "cancelled", None, None
        error: str | None = "stopped before the call"
        try:
            self.activity = "thinking"
            await self.changed("thinking")
            outcome, error = "error", None
            async with self.swarm.in_flight("llm"):
                response = await self.provider.chat(request, on_event=self._stream_sink())
            # Answered: an order that comes now is stored before the answer or after it
            # (``Store.add_answer``), and the call is not cut.
            self._cuttable = False
            outcome = "ok"
            return response
        except asyncio.CancelledError:
            if outcome != "cancelled":
                outcome, error = "cancelled", self._cut or "stopped during the call"
            else:
                error = self._cut or error  # cut before the call went
            raise
        except ProviderError as exc:
            # The log says how the call ended before the state does.
            error, kind = exc.message, exc.kind
            raise
        finally:
            if outcome != "ok":
                for publishing in list(self._publishing):  # no stream after its end
                    publishing.cancel()
            await self._finish_request(request_id, outcome, response, started, error, kind)

    async def _waiting_for_warm_prefix(self) -> None:
        """The request waits for the first one to its engine (``warm_start.py``): the
        pane says so, rather than looking idle."""
        self.activity = WARM_WAITING
        await self.changed("warm wait")

    async def _model_call(self, call: Callable[[], Awaitable[_T]]) -> _T | None:
        """``call`` under the swarm's ``model_retry`` policy, backing off between tries;
        None once it failed for good (the Mysis is then errored)."""
        try:
            result = await with_retries(
                call,
                self.swarm.model_retry,
                sleep=self._back_off,
                transient=_retryable,
                hint=_retry_after,
                on_retry=self._retrying,
            )
        except ProviderError as exc:
            self._failed_tries = 0
            await self._provider_failed(exc)
            return None
        self._answered_again()
        return result

    async def _retrying(self, error: Exception, wait: float) -> None:
        """A model call failed in a way that heals by waiting: say so, and when the next
        try goes (the pane: "unreachable · next try in 40s"; zoea.log: the server's words)."""
        message = error.describe() if isinstance(error, ProviderError) else str(error)
        said = error.said if isinstance(error, ProviderError) else None
        if not self._failed_tries:
            self._failing_since = self.swarm.clock.now()
        self._failed_tries += 1
        heard = _heard(message, said)
        log.log(
            logging.WARNING if self._failed_tries == 1 else logging.INFO,
            "%s: %s: %s%s; try %d failed, the next in %.1f s",
            self.name,
            self.provider.label,
            message,
            heard,
            self._failed_tries,
            wait,
        )
        kind = error.kind if isinstance(error, ProviderError) else None
        # A wait the server named passes in its time, even on a simulated clock.
        self._server_wait = _retry_after(error) is not None
        self.activity = failure_label(kind)
        self.last_line = f"{self.provider.label}: {message}"
        self.next_try_at = time.time() + wait
        await self.changed("retry")

    async def _back_off(self, seconds: float) -> None:
        """Wait on the swarm's clock before the next try, unless ``r`` asks for it now.

        Nothing is in flight meanwhile, so a quit does not wait for the backoff to end.
        """
        self.between_turns.set()
        clock = self.swarm.clock
        try:
            wait = clock.wait_outside if self._server_wait else clock.wait_for
            await wait(self._try_now, seconds)
        finally:
            self._try_now.clear()
            self.between_turns.clear()
            self.next_try_at = None

    def _answered_again(self) -> None:
        """The model answered: a backoff under way ends, told in the log."""
        if self._failed_tries:
            log.info(
                "%s: %s answered again after %d failed tries (%.0f s)",
                self.name,
                self.provider.label,
                self._failed_tries,
                self.swarm.clock.now() - self._failing_since,
            )
            self._failed_tries = 0

    async def _finish_request(
        self,
        request_id: int,
        outcome: str,
        response: ChatResponse | None,
        started: float,
        error: str | None,
        error_kind: str | None = None,
    ) -> None:
        """Record how a logged call ended (with the server's token counts when it answered,
        the class of its failure, and whether it went unstreamed). The write is carried
        through a cancel that comes meanwhile (a stop after a cut, a quit): no request is
        left pending, and its end is told."""
        usage = response.usage if response is not None and outcome == "ok" else None

        recording = asyncio.ensure_future(
            self.swarm.store.finish_request(
                request_id,
                outcome=outcome,
                prompt_tokens=usage.prompt_tokens if usage else None,
                completion_tokens=usage.completion_tokens if usage else None,
                latency_ms=(time.perf_counter() - started) * 1000,
                error=error,
                cached_tokens=usage.cached_tokens if usage else None,
                cache_write_tokens=usage.cache_write_tokens if usage else None,
                error_kind=error_kind,
                streamed=getattr(self.provider, "streaming", None),
            )
        )
        told = RequestFinished(mysis_id=self.id, request_id=request_id, outcome=outcome)
        try:
            await asyncio.shield(recording)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await recording  # the write ends whatever cancelled its wait
            # Told in a task of its own: a watcher slow to read must not hold up a quit.
            telling = asyncio.ensure_future(self.swarm.bus.publish(told))
            self._publishing.add(telling)
            telling.add_done_callback(self._publishing.discard)
            raise
        await self.swarm.bus.publish(told)

    async def compose(
        self, settings: ComposeSettings, provider_settings: ProviderSettings
    ) -> Composition:
        """The next request, writing a due summary through the Mysis's own model."""
        return await next_composition(
            self.swarm.store,
            self.id,
            self.record.strategy,
            settings,
            summarizer=summarizer_for(self.provider, provider_settings),
            game_state=self.swarm.game_state(self.router.account),
            turn=self.turn,
        )

    @property
    def tools_tokens(self) -> int:
        """Estimated tokens of the tools the request composed last carried (0: none yet)."""
        return self.known_tools_tokens(self.tools_mode) if self.tools_mode else 0

    def with_tools(self, settings: ComposeSettings, mode: ToolsMode) -> ComposeSettings:
        """``settings`` for a request that carries ``mode``'s tools, as this Mysis knows
        them (the runtime and the preview compose alike)."""
        return replace(
            settings, tools_tokens=self.known_tools_tokens(mode), compact_tools=mode == "compact"
        )

    @property
    def tools_fell_back(self) -> bool:
        """Whether the requests went on with the compact tools (``tools = "auto"``: they
        stay there until the engine changes)."""
        return self.tools_mode == "compact"

    def known_tools_tokens(self, mode: ToolsMode) -> int:
        """Estimated tokens of the tools this Mysis sent in ``mode`` (0: none sent yet)."""
        known = self._tools.get(mode)
        return known[1] if known is not None else 0

    async def _tool_schemas(self, mode: ToolsMode) -> list[dict[str, Any]] | None:
        """The game's tool list; None once the retries failed (the Mysis is then errored)."""

        async def attempt() -> list[dict[str, Any]]:
            async with self.swarm.in_flight("mcp"):
                return await self.router.tool_schemas(mode)

        try:  # connection trouble: back off, then give up
            return await with_retries(
                attempt, self.swarm.retry, sleep=self.swarm.clock.sleep, transient=_any_failure
            )
        except Exception as exc:
            await self._game_unreachable(str(exc))
            return None

    async def _game_unreachable(self, detail: str) -> None:
        """Become errored, naming the game's endpoint and what went wrong."""
        await self._fail(f"game server unreachable at {self.router.server}: {detail}")

    async def _run_tool(self, call: Any, *, cut: bool = False) -> None:
        """Run one call (``cut``: its answer ended at ``max_tokens``, see ToolRouter.execute)."""
        await self.swarm.step_gate.ready()
        await self.swarm.bus.publish(ToolCallStarted(mysis_id=self.id, call=call))
        runs = effective_call(call).name  # a compact game call: the command it names
        self.activity = ACTIVITY_BY_TOOL.get(runs, f"calling {runs}")
        await self.changed("tool")
        started = time.perf_counter()

        async def attempt() -> RoutedResult:
            async with self.swarm.in_flight("mcp"):
                routed = await self.router.execute(call, cut_off=cut)
            if routed.unreachable:
                raise _Unreachable(routed)
            return routed

        try:
            result = await with_retries(
                attempt,
                self.swarm.retry,
                sleep=self.swarm.clock.sleep,
                transient=lambda e: isinstance(e, _Unreachable),
            )
        except _Unreachable as gone:
            result = gone.result
        if result.tick is not None:
            self.game_tick = result.tick
            await self.swarm.saw_tick(result.tick)
        if result.error_code in WAIT_CODES:
            self.waiting_on_game, self.wait_hint = True, result.wait_seconds
        elif result.wait_ticks is not None:
            seconds = self.swarm.tick_seconds
            self.waiting_on_game = True
            self.wait_hint = result.wait_ticks * seconds if result.wait_ticks and seconds else None
        await self._store(
            NewMemory(
                "tool",
                "tool",
                result.content,
                tool_call_id=call.id,
                tool_name=runs,
                game_tick=self.game_tick,
            )
        )
        await self.swarm.bus.publish(
            ToolCallFinished(
                mysis_id=self.id,
                call=call,
                is_error=result.is_error,
                error_code=result.error_code,
                latency_s=time.perf_counter() - started,
            )
        )
        if result.unreachable:
            await self._game_unreachable(result.error_message or "no answer")

    async def _store(self, memory: NewMemory) -> Memory:
        stored = await self.swarm.store.add_memory(self.id, memory)
        await self.swarm.bus.publish(MessageStored(mysis_id=self.id, memory=stored))
        return stored

    def _stream_sink(self) -> Any:
        text: list[str] = []
        reasoning: list[str] = []
        bus = self.swarm.bus
        loop = asyncio.get_running_loop()

        def sink(event: StreamEvent) -> None:
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, ReasoningDelta):
                reasoning.append(event.text)
            else:
                return
            delta = StreamDelta(mysis_id=self.id, text="".join(text), reasoning="".join(reasoning))
            task = loop.create_task(bus.publish(delta))
            self._publishing.add(task)  # keep a reference until it is done
            task.add_done_callback(self._publishing.discard)

        return sink

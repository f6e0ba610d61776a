"""Playing the arena: one run of a scenario, and a whole arena of them.

A run is a fresh seeded embedded world on the simulated clock (docs/ARCHITECTURE.md,
'Command line': ``zoea simulate``'s machinery) with one scored Mysis, given the
scenario's task, plus autopilot companions when the
scenario needs someone to talk to; the task goes to the swarm as a commander broadcast.
It ends when the scenario's tick budget is spent
(:mod:`.meter`) or when the scored Mysis stops running (idle after unanswered nudges,
errored), and is scored from the world and the run's tool calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..config import Config
from ..core.game_tool import effective_call
from ..core.strategies import STRATEGIES
from ..game.backend import GameBackend
from ..orchestrator.clock import VirtualClock
from ..orchestrator.commander import Commander
from ..orchestrator.events import (
    ErrorRaised,
    MessageStored,
    StateChanged,
    TokenUsage,
    ToolCallFinished,
    retry_notice,
)
from ..providers.base import Provider
from ..providers.registry import build_provider
from ..storage import MysisRecord
from ..storage.arena import ArenaRun
from . import scoring
from .estimate import cost
from .meter import CALIBRATION_BUDGETS, SMBENCH_REQUESTS, MeteredProvider, Progress, TickMeter
from .metrics import CallTally, run_metrics
from .scenarios import Scenario
from .smbench import Checkout

#: Not a strategy of the composer: ``sliding-window`` with a window of every memory
#: (still cut to the model's context window), the arena's full-history reference.
FULL_HISTORY = "full-history"
FULL_HISTORY_MESSAGES = 100_000
#: The strategies ``--strategy all`` means.
ALL_STRATEGIES: tuple[str, ...] = tuple(STRATEGIES)
ARENA_STRATEGIES: tuple[str, ...] = (*STRATEGIES, FULL_HISTORY)
#: Results of these tools are kept to read combat outcomes from.
_COMBAT_TOOLS = frozenset({"attack", "fight", "engage", "combat"})
#: The provider of companion Myses: the built-in autopilot.
COMPANION_PROVIDER = "autopilot"
#: The files SQLite keeps beside a database.
SIDE = ("-wal", "-shm", "-journal")


@dataclass(frozen=True, slots=True)
class RunResult(ArenaRun):
    """One scored run, as its batch played it."""

    wall_s: float = 0.0
    #: The scored Mysis's provider failed (its class and the server's words in
    #: ``error``): the run is shown as errored and, as SMBench counts it, scored on what
    #: it did before (in means, pass rates and composites; ``error_free`` leaves it out).
    errored: bool = False
    error: str | None = None
    #: Requests the scored Mysis's provider answered.
    answered: int = 0

    @classmethod
    def from_stored(
        cls,
        scenario: str,
        strategy: str,
        run: dict[str, Any],
    ) -> RunResult:
        """A run back from what the store keeps of it (``to_json`` and the metrics)."""
        metrics = dict(run["metrics"])
        return cls(
            scenario.split("-", 1)[0],
            strategy,
            int(metrics.get("seed", 0)),
            float(run["score"]),
            bool(run["pass"]),
            metrics,
            tokens_in=int(run.get("tokens_in", 0)),
            tokens_out=int(run.get("tokens_out", 0)),
            uncached_tokens=int(run.get("uncached_tokens", 0)),
            requests=int(run.get("requests", 0)),
            invalid_requests=int(run.get("invalid_requests", 0)),
            wall_s=float(metrics.get("wall_s", 0.0)),
            errored=bool(run.get("errored", metrics.get("errored", False))),
            error=run.get("error", metrics.get("error")),
            answered=int(run.get("answered") or metrics.get("answered") or 0),
        )

    def to_json(self) -> dict[str, Any]:
        """The run as the JSON contract has it."""
        return {
            "score": self.score,
            # SMBench's pass: a score of at least 20. The success level is "level".
            "pass": self.passed,
            "level": str(self.metrics.get("level", "none")),
            "errored": self.errored,
            "error": self.error,
            "answered": self.answered,
            "metrics": self.metrics,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "uncached_tokens": self.uncached_tokens,
            "requests": self.requests,
            "invalid_requests": self.invalid_requests,
        }


@dataclass(slots=True)
class RunHooks:
    """What a watcher (the CLI, the app) is told during a run."""

    #: ``(ticks played, budget)``.
    on_progress: Progress | None = None
    #: The run's commander and the scored Mysis's id, once it exists.
    on_start: Callable[[Commander, int], Any] | None = None
    #: Called with each finished run (awaited when it returns an awaitable).
    on_run: Callable[[RunResult], Any] | None = None
    #: Called before each run with (scenario, strategy, run index, runs).
    on_begin: Callable[[Scenario, str, int, int], Any] | None = None
    #: Told each model call of the scored Mysis about to be tried again, in one line
    #: ("arena: rate limited · next try in 5 s", ``events.retry_notice``).
    on_retry: Callable[[str], Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def composer_strategy(config: Config, strategy: str) -> tuple[Config, str]:
    """The configuration and composer strategy an arena strategy plays with."""
    if strategy == FULL_HISTORY:
        context = replace(config.context, max_context_messages=FULL_HISTORY_MESSAGES)
        return replace(config, context=context), "sliding-window"
    return config, strategy


def _provider_factory(
    config: Config, meter: TickMeter, scored: str
) -> Callable[[MysisRecord], Provider]:
    def build(record: MysisRecord) -> Provider:
        cfg = config.provider(record.provider)
        if record.model and record.model != cfg.model and cfg.has_model:
            cfg = replace(cfg, model=record.model)
        return MeteredProvider(build_provider(cfg), meter, drives_clock=record.name == scored)

    return build


async def play(
    config: Config,
    scenario: Scenario,
    *,
    provider: str,
    strategy: str,
    seed: int,
    ticks: int | None = None,
    hooks: RunHooks | None = None,
    workdir: Path | None = None,
    budget_kind: str = "smbench",
    world: str = "smbench",
    checkout: Checkout | None = None,
) -> RunResult:
    """Play one run of ``scenario`` and score it.

    With ``checkout`` (an SMBench checkout, :mod:`.smbench`) the scored Mysis is told its
    task as SMBench's client tells it: the client's system prompt with the scenario file
    in it, ``Begin your mission: …`` as the first message, one ``game`` tool (``tools =
    "compact"``); without, the task is the arena's own words (:attr:`Scenario.task`).

    ``world`` is the embedded world's profile: ``"smbench"``, calibrated against SMBench's
    published runs (``zoea_tui/sim/profiles.py``), or ``"classic"``, the app's own.

    ``budget_kind`` is ``"smbench"`` (SMBench's: the scored Mysis's first turn, at most
    :data:`SMBENCH_REQUESTS` model requests, within the tick budget) or ``"ticks"`` (the
    whole tick budget, turn after turn); ``"requests"`` (calibration only) is the first
    :data:`SMBENCH_REQUESTS` requests over as many turns as they take.
    """
    if budget_kind not in CALIBRATION_BUDGETS:
        known = ", ".join(CALIBRATION_BUDGETS)
        raise ValueError(f"unknown budget {budget_kind!r}; expected one of: {known}")
    hooks = hooks or RunHooks()
    budget = ticks or scenario.budget
    one_turn = budget_kind == "smbench"
    task, system_prompt = scenario.task, None
    if checkout is not None:
        if scenario.key not in checkout.scenarios:
            raise ValueError(f"{checkout.root} has no scenario file for {scenario.id}")
        task = checkout.task(scenario.key)
        # SMBench's client offers one game(command, args) tool: so does the scored Mysis.
        providers = dict(config.providers)
        providers[provider] = replace(providers[provider], tools="compact")
        config = replace(config, providers=providers)
    config, composer = composer_strategy(config, strategy)
    context = config.context
    if one_turn:  # SMBench's client: one turn of up to 30 tool rounds
        context = replace(context, max_tool_iterations=SMBENCH_REQUESTS)
    config = replace(
        config,
        context=context,
        game=replace(config.game, seed=seed, endpoint="embedded", world=world),
        swarm=replace(config.swarm, max_myses=max(config.swarm.max_myses, scenario.companions + 1)),
    )
    backend = GameBackend.from_config(config.game, data_dir=None, simulated=True)
    assert backend.host is not None
    if checkout is not None:
        commands = [spec["name"] for spec in backend.host.tool_specs()]
        system_prompt = checkout.system_prompt(scenario.key, commands)
    meter = TickMeter(
        backend.host,
        budget,
        hooks.on_progress,
        max_requests=SMBENCH_REQUESTS if budget_kind != "ticks" else None,
    )
    scored = f"arena-{scenario.key}"
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        folder = workdir or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="zoea-arena-"))
        )
        # Kept when ``workdir`` is given: the run's whole conversation and request log.
        transcript = folder / f"{scenario.key}-{strategy}-{seed}.db"
        folder.mkdir(parents=True, exist_ok=True)
        for stale in (transcript, *(transcript.with_name(transcript.name + s) for s in SIDE)):
            stale.unlink(missing_ok=True)  # a run cut short before: played again from scratch
        commander = await Commander.open(
            config,
            db_path=transcript,
            clock=VirtualClock(),
            backend=backend,
            starter_swarm=False,
            provider_factory=_provider_factory(config, meter, scored),
        )
        outcome = await _run(
            commander,
            scenario,
            meter,
            hooks,
            provider=provider,
            strategy=composer,
            scored=scored,
            one_turn=one_turn,
            task=task,
            system_prompt=system_prompt,
        )
    tally, username = outcome.tally, outcome.username
    assert backend.host is not None
    metrics = run_metrics(backend.host.world, username, tally, ticks=meter.played, budget=budget)
    metrics["level"] = scenario.level(metrics)
    metrics["levels"] = scenario.achieved(metrics)
    metrics["seed"] = seed
    metrics["budget_kind"] = budget_kind
    metrics["world"] = world
    metrics["prompt"] = "smbench" if checkout is not None else "arena"
    metrics["cached_tokens"] = meter.cached_tokens
    metrics["cache_write_tokens"] = meter.cache_write_tokens
    metrics["answered"] = outcome.answered
    metrics["transcript"] = str(transcript) if workdir is not None else None
    # Per request, for the arena screen's sparklines: prompt tokens, the server's cached
    # tokens (None when it does not say), the prefix a cache could reuse.
    metrics["series"] = {
        "prompt_tokens": meter.series_tokens,
        "cached_tokens": meter.series_cached,
        "reuse": meter.series_reuse,
    }
    metrics["max_requests"] = meter.max_requests
    metrics["turns"] = outcome.turns
    wall = round(time.perf_counter() - started, 3)
    metrics["wall_s"] = wall
    metrics["cost_usd"] = cost(
        config.provider(provider),
        meter.tokens_in,
        meter.cached_tokens,
        meter.tokens_out,
        meter.cache_write_tokens,
    )
    # SMBench scores every run its client played, one whose model call failed included.
    score = scoring.score_run(scenario.key, metrics)
    errored = outcome.failure is not None
    result = RunResult(
        scenario.key,
        strategy,
        seed,
        score,
        scoring.run_passed(scenario.key, metrics),
        metrics,
        tokens_in=meter.tokens_in,
        tokens_out=meter.tokens_out,
        uncached_tokens=meter.uncached_tokens,
        requests=meter.requests,
        invalid_requests=meter.invalid_requests,
        wall_s=wall,
        errored=errored,
        error=outcome.failure,
        answered=outcome.answered,
    )
    if hooks.on_run is not None:
        stored = hooks.on_run(result)
        if inspect.isawaitable(stored):  # e.g. the CLI stores each run as it ends
            await stored
    return result


@dataclass(slots=True)
class _Outcome:
    """What watching a run's scored Mysis gathered."""

    tally: CallTally = field(default_factory=CallTally)
    username: str | None = None
    #: Its provider's failure as the commander is told it; None when it never failed.
    failure: str | None = None
    answered: int = 0
    #: Turns the scored Mysis ended.
    turns: int = 0


async def _run(
    commander: Commander,
    scenario: Scenario,
    meter: TickMeter,
    hooks: RunHooks,
    *,
    provider: str,
    strategy: str,
    scored: str,
    one_turn: bool = False,
    task: str = "",
    system_prompt: str | None = None,
) -> _Outcome:
    """Create the Myses, give the task, wait for the end; what the scored Mysis did.

    With ``one_turn`` the run ends when the scored Mysis ends its first turn, as
    SMBench's client ends a run when its one turn is over."""
    sub = commander.bus.subscribe(maxsize=100_000)
    outcome = _Outcome()
    tally = outcome.tally
    ended = asyncio.Event()
    main_id: list[int] = []
    call_names: dict[str, str] = {}

    def handle(event: object) -> None:
        if hooks.on_retry is not None and (notice := retry_notice(event)) is not None:
            hooks.on_retry(notice)
        if not main_id or getattr(event, "mysis_id", None) != main_id[0]:
            return
        if isinstance(event, ToolCallFinished):
            # A compact provider's game(command, args) counts as the command it runs.
            tally.add(effective_call(event.call).name, event.is_error)
        elif isinstance(event, MessageStored):
            memory = event.memory
            for call in memory.tool_calls:
                call_names[call.id] = effective_call(call).name
            name = call_names.get(memory.tool_call_id or "", "")
            if memory.role == "tool" and name in _COMBAT_TOOLS:
                tally.results.append((name, memory.content or ""))
        elif isinstance(event, TokenUsage):
            outcome.answered += 1
        elif isinstance(event, ErrorRaised) and event.kind is not None:
            outcome.failure = outcome.failure or event.message
        elif isinstance(event, StateChanged) and event.new in ("idle", "errored", "stopped"):
            ended.set()

    async def watch() -> None:
        async for event in sub:
            handle(event)

    watcher = asyncio.create_task(watch())
    try:
        companion = (
            COMPANION_PROVIDER if COMPANION_PROVIDER in commander.config.providers else provider
        )
        for index in range(scenario.companions):
            await commander.create_mysis(
                f"pilot-{index + 1}", provider=companion, strategy=strategy, start=False
            )
        view = await commander.create_mysis(
            scored, provider=provider, strategy=strategy, start=False, system_prompt=system_prompt
        )
        main_id.append(view.id)

        def turn_ended(runtime: Any) -> None:
            if runtime.id == view.id and not (one_turn and ended.is_set()):
                outcome.turns += 1
                if one_turn:  # SMBench's client stops after its one turn: nothing more counts
                    meter.finished.set()
                    ended.set()

        commander.on_turn = turn_ended
        if hooks.on_start is not None:
            hooks.on_start(commander, view.id)
        # A commander broadcast: it starts every Mysis, and as the swarm's latest broadcast
        # it stands in every request's state message, whatever the strategy keeps.
        await commander.broadcast(task or scenario.task)
        finished = asyncio.create_task(meter.finished.wait())
        stopped = asyncio.create_task(ended.wait())
        await asyncio.wait({finished, stopped}, return_when=asyncio.FIRST_COMPLETED)
        for waiter in (finished, stopped):
            waiter.cancel()
        runtime = commander._myses.get(view.id)
        outcome.username = runtime.router.account if runtime is not None else None
        for runtime in list(commander._myses.values()):
            await runtime.stop(timeout=1.0)
    finally:
        await commander.shutdown(timeout=2.0)
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        while (event := sub.get_nowait()) is not None:
            handle(event)
        sub.close()
    return outcome


async def run_arena(
    config: Config,
    scenarios: Sequence[Scenario],
    *,
    provider: str,
    strategies: Sequence[str],
    runs: int = 1,
    seed: int = 0,
    ticks: int | None = None,
    hooks: RunHooks | None = None,
    budget_kind: str = "smbench",
    world: str = "smbench",
    checkout: Checkout | None = None,
    jobs: int = 1,
    keep: Path | None = None,
    skip: Callable[[Scenario, str, int], bool] | None = None,
) -> list[RunResult]:
    """Every run of every scenario under every strategy, in that order.

    ``jobs`` runs are played side by side (each on its own world and its own Mysis; an
    engine with as many slots, or a hosted API, answers them at once). With ``keep`` each
    run's own database (its whole conversation and request log) is kept in that folder
    instead of being deleted with the run. ``skip(scenario, strategy, seed)`` leaves a run
    out (``--resume``: the runs already stored).
    """
    hooks = hooks or RunHooks()
    plan = [
        (scenario, strategy, index)
        for scenario in scenarios
        for strategy in strategies
        for index in range(runs)
        if skip is None or not skip(scenario, strategy, seed + index)
    ]
    slots = asyncio.Semaphore(max(1, jobs))

    async def one(scenario: Scenario, strategy: str, index: int) -> RunResult:
        async with slots:
            if hooks.on_begin is not None:
                hooks.on_begin(scenario, strategy, index, runs)
            return await play(
                config,
                scenario,
                provider=provider,
                strategy=strategy,
                seed=seed + index,
                ticks=ticks,
                hooks=hooks,
                budget_kind=budget_kind,
                world=world,
                checkout=checkout,
                workdir=keep,
            )

    if jobs <= 1:
        return [await one(*spec) for spec in plan]
    return list(await asyncio.gather(*(one(*spec) for spec in plan)))

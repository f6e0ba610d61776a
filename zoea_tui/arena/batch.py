"""One arena batch, whoever plays it (``zoea arena`` or the arena screen; issue 44).

A batch is planned (:func:`new_plan`: what it records of how it was begun, so it can be
resumed), played (:meth:`Batch.play`: each run stored the moment it ends, the batch's report
kept as it goes, a batch already begun playing only the runs it has not stored) and
reported (the report :meth:`Batch.play` returns is the one stored). The callers only say what
happened: the CLI on standard error, the screen in its tables.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..storage.arena import ArenaBatch, ArenaRunRecord
from .estimate import Measured, actual, estimate, remaining
from .report import all_errored, build_report, first_error, store_run
from .runner import ALL_STRATEGIES, RunHooks, RunResult, run_arena
from .scenarios import Scenario, resolve
from .transcripts import folder_for

if TYPE_CHECKING:
    from ..config import Config
    from ..storage.arena_runs import ArenaTables
    from .smbench import Checkout

#: What a batch records of how it was begun, so ``--resume`` plays it the same way.
PLAN_KEYS = ("scenario", "strategy", "runs", "seed", "ticks", "budget", "world", "smbench")


class BatchError(Exception):
    """A batch that cannot be resumed (the message is one line, for the user)."""


def new_plan(
    scenario: str,
    strategies: Sequence[str],
    *,
    runs: int = 1,
    seed: int = 0,
    ticks: int | None = None,
    budget: str = "smbench",
    world: str = "smbench",
    smbench: str | None = None,
) -> dict[str, Any]:
    """How a batch is begun, as it is stored (the keys of :data:`PLAN_KEYS`)."""
    return {
        "scenario": scenario,
        "strategy": "all" if len(strategies) > 1 else strategies[0],
        "runs": runs,
        "seed": seed,
        "ticks": ticks,
        "budget": budget,
        "world": world,
        "smbench": smbench,
    }


def strategies_of(plan: dict[str, Any]) -> list[str]:
    """The strategies a plan plays ("all": every one)."""
    strategy = str(plan.get("strategy") or "")
    return list(ALL_STRATEGIES) if strategy == "all" else [strategy]


def planned_runs(plan: dict[str, Any]) -> int:
    """How many runs a plan plays in all."""
    scenarios = resolve(str(plan.get("scenario") or "all"))
    return len(scenarios) * len(strategies_of(plan)) * int(plan.get("runs") or 1)


async def resumed(
    store: ArenaTables, batch_id: int, where: object
) -> tuple[ArenaBatch, dict[str, Any]]:
    """A stored batch to carry on and its plan; :class:`BatchError` when there is none
    (``where``: the database, named in the error) or it kept no plan."""
    batch = await store.get_arena_batch(batch_id)
    if batch is None:
        raise BatchError(f"no arena batch #{batch_id} in {where}")
    kept = batch.report.get("plan")
    if not isinstance(kept, dict):
        raise BatchError(
            f"batch #{batch_id} was played before batches kept their plan; it cannot be resumed"
        )
    return batch, kept


def baseline_due(config: Config, provider: str, report: dict[str, Any]) -> bool:
    """Whether the autopilot is played after ``provider``'s batch, as a baseline: the
    provider answered, not every run errored, it is not the autopilot itself, and an
    autopilot is configured."""
    return (
        first_error(report) is None
        and not all_errored(report)
        and config.providers[provider].type != "autopilot"
        and "autopilot" in config.providers
    )


@dataclass(frozen=True)
class Played:
    """A batch played: its id, its report as stored, how many runs this play played, and
    whether it was stopped (cancelled) before its runs were all played."""

    batch: int
    report: dict[str, Any]
    count: int
    stopped: bool


@dataclass
class Batch:
    """A batch begun (or taken up again) and ready to play: its runs left and their
    estimate. :meth:`begin` makes it; :meth:`play` plays it."""

    store: ArenaTables
    config: Config
    plan: dict[str, Any]
    provider: str
    id: int
    jobs: int
    #: The runs not stored yet: (scenario, strategy, seed).
    todo: list[tuple[Scenario, str, int]]
    #: The runs already stored (a batch resumed), as results.
    earlier: list[RunResult]
    #: The estimate of the runs left (``estimate.estimate``).
    guess: dict[str, Any]
    #: What earlier plays of this batch took: (seconds, invocations).
    before: tuple[float, int]

    @classmethod
    async def begin(
        cls,
        store: ArenaTables,
        config: Config,
        plan: dict[str, Any],
        provider: str,
        *,
        batch: int | None = None,
        jobs: int = 1,
    ) -> Batch:
        """A new batch of ``plan`` for ``provider``, stored with its plan (for
        ``--resume``); or, with ``batch``, that stored batch, to play what it has not."""
        runs, seed, ticks = int(plan["runs"]), int(plan["seed"]), plan["ticks"]
        if batch is None:
            batch = await store.begin_arena_batch(provider, runs, seed=seed, ticks=ticks)
            await store.finish_arena_batch(batch, {"plan": plan})  # for --resume
        stored = await store.list_arena_runs(batch_id=batch)
        done = {(r.scenario, r.strategy, r.seed) for r in stored}
        todo = [
            (s, st, seed + i)
            for s in resolve(str(plan["scenario"]))
            for st in strategies_of(plan)
            for i in range(runs)
            if (s.id, st, seed + i) not in done
        ]
        budget = str(plan["budget"])
        history = Measured.of(await store.list_arena_runs(provider=provider), budget_kind=budget)
        begun = await store.get_arena_batch(batch)
        so_far = (begun.report if begun else {}).get("actual") or {}
        guess = estimate(
            config.providers[provider],
            len(todo),
            [ticks or s.budget for s, _, _ in todo],
            budget_kind=budget,
            measured=history,
            jobs=jobs,
        )
        earlier = [RunResult.from_stored(r.scenario, r.strategy, stored_run(r)) for r in stored]
        before = (float(so_far.get("seconds") or 0.0), int(so_far.get("invocations") or 0))
        return cls(store, config, plan, provider, batch, jobs, todo, earlier, guess, before)

    async def play(
        self,
        *,
        hooks: RunHooks | None = None,
        on_stored: Callable[[RunResult, dict[str, Any], int, float | None], Any] | None = None,
        checkout: Checkout | None = None,
        told: dict[str, Any] | None = None,
        keep_stopped: bool = True,
    ) -> Played:
        """Play the runs left, storing each the moment it ends and the batch's report
        after it; the report is stored once more at the end and returned as stored.

        ``on_stored(run, its cell, runs left, seconds they should take, None before
        one ended)`` is told each run
        once stored. ``told``: which client prompt was read (``--smbench``), kept in the
        report. With ``keep_stopped`` a cancellation stops the batch and
        :attr:`Played.stopped` says so; without, it goes on (the report kept so far stays).
        """
        plan, provider = self.plan, self.provider
        scenarios = resolve(str(plan["scenario"]))
        strategies = strategies_of(plan)
        runs, seed, budget = int(plan["runs"]), int(plan["seed"]), str(plan["budget"])
        cfg = self.config.providers[provider]
        left = {(s.id, st, run_seed) for s, st, run_seed in self.todo}
        played: list[RunResult] = []
        order = {
            (s.key, st, seed + i): n
            for n, (s, st, i) in enumerate(
                (s, st, i) for s in scenarios for st in strategies for i in range(runs)
            )
        }
        started = time.perf_counter()
        took_before, invocations = self.before

        def current() -> dict[str, Any]:
            """The batch's report as it stands: every run stored so far, and ``actual``
            over the whole batch (earlier invocations, --resume, included)."""
            results = sorted(
                [*self.earlier, *played],
                key=lambda r: order.get((r.scenario, r.strategy, r.seed), 0),
            )
            report = build_report(provider, runs, results, budget=budget)
            report["plan"] = plan
            if told is not None:
                report["smbench"] = told  # which client prompt was read, beside SMBench's
            report["estimate"] = self.guess
            wall = time.perf_counter() - started
            report["actual"] = actual(cfg, results, took_before + wall, invocations=invocations + 1)
            return report

        async def kept(result: RunResult) -> None:
            cell = await store_run(self.store, self.id, provider, result, budget)
            played.append(result)
            # Kept as it goes: a batch killed outright still counts what it played.
            await self.store.finish_arena_batch(self.id, current())
            if on_stored is not None:
                # The speed this batch is measured at, for what is left of it.
                count = len(self.todo) - len(played)
                on_stored(result, cell, count, remaining(played, count, self.jobs))

        def skip(scenario: Scenario, strategy: str, run_seed: int) -> bool:
            return (scenario.id, strategy, run_seed) not in left

        stopped = False
        try:
            await run_arena(
                self.config,
                scenarios,
                provider=provider,
                strategies=strategies,
                runs=runs,
                seed=seed,
                ticks=plan["ticks"],
                hooks=replace(hooks or RunHooks(), on_run=kept),
                budget_kind=budget,
                world=str(plan.get("world") or "smbench"),
                checkout=checkout,
                jobs=self.jobs,
                keep=folder_for(self.store.path, self.id),
                skip=skip,
            )
        except asyncio.CancelledError:  # what ended is stored; the report is kept below
            if not keep_stopped:
                raise
            stopped = True
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()  # the batch's report is still to be stored
        report = current()
        await self.store.finish_arena_batch(self.id, report)
        stored_batch = await self.store.get_arena_batch(self.id)
        assert stored_batch is not None
        return Played(self.id, stored_batch.report, len(played), stopped)


def stored_run(record: ArenaRunRecord) -> dict[str, Any]:
    """A stored run (``ArenaRunRecord``) as ``RunResult.to_json`` had it."""
    metrics = dict(record.metrics)
    return {
        "score": record.score,
        "pass": record.passed,
        "errored": bool(metrics.get("errored", False)),
        "error": metrics.get("error"),
        "answered": metrics.get("answered", 0),
        "metrics": metrics,
        "tokens_in": record.tokens_in,
        "tokens_out": record.tokens_out,
        "uncached_tokens": record.uncached_tokens,
        "requests": record.requests,
        "invalid_requests": record.invalid_requests,
    }

"""``zoea arena``: SMBench's scenarios on the embedded world, scored (issue 14).

Kept beside ``cli.py`` so the command's flags and output live in one small module;
``cli.py`` only registers it. Bad flags exit 2 with one line, like every command.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from .cli_parsing import (
    SQLITE_INT_MAX,
    UsageError,
    add_config_flag,
    emit_json,
    look_at_database,
    say,
    seed_flag,
)
from .cli_progress import Progress
from .config import Config, ConfigError, db_path, load_config
from .storage.errors import full_disk
from .storage.lock import DatabaseLock


def add_parser(sub: Any) -> None:
    """Register ``zoea arena`` on the subcommands of ``zoea``."""
    p = sub.add_parser("arena", help="play SMBench's scenarios on the embedded world, scored")
    p.add_argument("--scenario", help="s1 … s6, or all")
    p.add_argument("--provider", help="a configured provider (autopilot included)")
    p.add_argument(
        "--strategy", help="a strategy, full-history, or all (default: the configured strategy)"
    )
    p.add_argument("--runs", type=int, default=1, help="runs per scenario and strategy")
    p.add_argument(
        "--seed",
        type=seed_flag,
        default=0,
        help="seed of the first run's world (run i plays seed K+i)",
    )
    p.add_argument(
        "--budget",
        choices=("smbench", "ticks"),
        default="smbench",
        help="smbench (default): one client turn of at most 30 model requests, as SMBench's "
        "published runs; ticks: the scenario's whole tick budget",
    )
    p.add_argument(
        "--world",
        choices=("smbench", "classic"),
        default="smbench",
        help="smbench (default): the world calibrated against SMBench's published runs; "
        "classic: the app's own embedded world",
    )
    p.add_argument(
        "--smbench",
        type=Path,
        metavar="DIR",
        help="your SMBench checkout: send its scenario files and its client's prompt "
        "(with one game tool) instead of the arena's own words",
    )
    p.add_argument(
        "--ticks",
        type=int,
        help="play at most this many ticks instead of each scenario's budget (quick checks)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="play this many runs side by side (an engine with as many slots, or a hosted API)",
    )
    p.add_argument(
        "--resume",
        type=int,
        metavar="BATCH",
        help="carry on a stopped batch: play the runs it has not stored yet, as it was begun",
    )
    add_config_flag(p)
    p.add_argument(
        "--db", type=Path, help="store the results in this database (default: the app's)"
    )
    p.add_argument("--out", type=Path, help="write arena.json and leaderboard.md here")
    p.add_argument("--json", action="store_true", help="print the JSON report")
    p.add_argument(
        "--no-baseline",
        action="store_true",
        help="do not play the autopilot baseline after another provider",
    )


def _options(args: argparse.Namespace, config: Config) -> tuple[list[Any], list[str], str]:
    from .arena.runner import ALL_STRATEGIES, ARENA_STRATEGIES
    from .arena.scenarios import resolve

    if args.scenario is None:
        raise UsageError("--scenario is required (s1 … s6, or all), or --resume BATCH")
    try:
        scenarios = resolve(args.scenario)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.provider is None:
        raise UsageError("--provider is required (a configured provider, e.g. autopilot)")
    if args.provider not in config.providers:
        raise UsageError(
            f"unknown provider {args.provider!r}; configured: {', '.join(config.providers)}"
        )
    strategy = args.strategy or config.swarm.strategy
    if strategy == "all":
        strategies = list(ALL_STRATEGIES)
    elif strategy in ARENA_STRATEGIES:
        strategies = [strategy]
    else:
        raise UsageError(
            f"unknown strategy {strategy!r}; expected one of: {', '.join(ARENA_STRATEGIES)}, all"
        )
    if not 1 <= args.runs <= 100:
        raise UsageError("--runs must be between 1 and 100")
    if not 1 <= args.jobs <= 64:
        raise UsageError("--jobs must be between 1 and 64")
    if args.ticks is not None and not 1 <= args.ticks <= 10_000:
        raise UsageError("--ticks must be between 1 and 10000")
    if args.seed + args.runs - 1 > SQLITE_INT_MAX:
        raise UsageError(
            f"--seed plus --runs must stay within {SQLITE_INT_MAX} (what SQLite stores)"
        )
    _check_out(args.out)
    if args.smbench is not None:
        from .arena.smbench import CheckoutError, load

        try:
            args.checkout = load(args.smbench)
        except CheckoutError as exc:
            raise UsageError(str(exc)) from None
        missing = [s.id for s in scenarios if s.key not in args.checkout.scenarios]
        if missing:
            raise UsageError(f"{args.smbench} has no scenario file for {', '.join(missing)}")
        from .arena.smbench import provenance
        from .sim.engine import World

        # Which client prompt this is, beside the one SMBench's published runs were told.
        args.provenance = provenance(args.checkout, [s.key for s in scenarios], World.tool_specs())
    return scenarios, strategies, args.provider


def _check_out(out: Path | None) -> None:
    """Refuse, before anything is played, an ``--out`` that cannot be a folder (the
    write after the batch can still fail; then every run is in the database, said so)."""
    if out is None:
        return
    existing = next((p for p in (out, *out.parents) if p.exists()), None)
    if existing is None or existing.is_dir():
        return
    if existing == out:
        raise UsageError(f"--out {out} is a file; give a folder (it is made if missing)")
    raise UsageError(f"--out {out} cannot be made: {existing} is a file, not a folder")


#: What a batch records of how it was begun, so ``--resume`` plays it the same way.
PLAN_KEYS = ("scenario", "strategy", "runs", "seed", "ticks", "budget", "world", "smbench")


def _plan(args: argparse.Namespace, strategies: list[str]) -> dict[str, Any]:
    plan = {key: getattr(args, key) for key in PLAN_KEYS}
    plan["strategy"] = "all" if len(strategies) > 1 else strategies[0]
    plan["smbench"] = str(args.smbench) if args.smbench is not None else None
    return plan


def _replan(args: argparse.Namespace, plan: dict[str, Any]) -> None:
    """Set the flags a stopped batch was begun with."""
    for key in PLAN_KEYS:
        if key in plan:
            setattr(args, key, Path(plan[key]) if key == "smbench" and plan[key] else plan[key])


async def cmd_arena(args: argparse.Namespace) -> int:
    """Play, score, print; store the results and write ``--out`` files; bad input is a
    :class:`UsageError` (one line, exit 2)."""
    try:
        config = load_config(args.config)
        database = db_path(config, args.db, None)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    quiet = args.json
    # Every flag is checked before the database is made or opened (a batch to resume
    # has its flags in the database: that database must exist).
    checked = _options(args, config) if args.resume is None else None
    if args.resume is not None and not database.exists():
        raise UsageError(f"no arena batch #{args.resume}: database {database} does not exist")
    with DatabaseLock.take(database):  # one writer: not beside the app or another arena
        await asyncio.to_thread(look_at_database, database)  # before a byte is written
        return await _arena(args, config, database, quiet, checked)


async def _arena(
    args: argparse.Namespace,
    config: Config,
    database: Path,
    quiet: bool,
    checked: tuple[list[Any], list[str], str] | None,
) -> int:
    """:func:`cmd_arena` on its locked database (``checked``: the flags' :func:`_options`,
    None when they come from the batch resumed)."""
    from .arena.estimate import Measured, actual, describe, duration, estimate, remaining
    from .arena.report import (
        all_errored,
        build_report,
        first_error,
        leaderboard,
        store_run,
        table,
        to_json,
    )
    from .arena.runner import RunHooks, RunResult, run_arena
    from .arena.transcripts import folder_for
    from .storage import Store

    # The database is opened (and refused, if it must be) before anything is played.
    async with await Store.open(database) as store:
        resumed = None
        if args.resume is not None:
            resumed = await store.get_arena_batch(args.resume)
            if resumed is None:
                raise UsageError(f"no arena batch #{args.resume} in {database}")
            plan = resumed.report.get("plan")
            if not isinstance(plan, dict):
                raise UsageError(
                    f"batch #{args.resume} was played before batches kept their plan; "
                    "it cannot be resumed"
                )
            _replan(args, plan)
            args.provider = resumed.provider
        scenarios, strategies, provider = checked or _options(args, config)
        checkout = getattr(args, "checkout", None)
        plan = _plan(args, strategies)
        told = getattr(args, "provenance", None)
        if told is not None and not quiet:
            from .arena.smbench import provenance_lines

            for line in provenance_lines(told):
                say(f"zoea arena: --smbench: {line}", sys.stderr)

        def said(result: RunResult, left: str = "") -> None:
            if quiet:
                return
            where = f"  {result.scenario} · {result.strategy} · seed {result.seed}:"
            if result.errored:
                say(
                    f"{where} errored: {result.error} in {result.wall_s:.1f} s "
                    f"(scored {result.score:.1f} on what it did, as SMBench scores it){left}",
                    sys.stderr,
                )
                return
            say(
                f"{where} score {result.score:.1f} ({'≥' if result.passed else '<'} 20, level "
                f"{result.metrics.get('level')}) in {result.wall_s:.1f} s{left}",
                sys.stderr,
            )

        async def measure(name: str, batch: int | None = None) -> tuple[int, dict[str, Any], bool]:
            """Play a batch for provider ``name``, storing each run the moment it ends; a
            batch already begun plays only the runs it has not stored. The flag: the
            batch was stopped (Ctrl-C) before its runs were all played."""
            if batch is None:
                batch = await store.begin_arena_batch(
                    name, args.runs, seed=args.seed, ticks=args.ticks
                )
                await store.finish_arena_batch(batch, {"plan": plan})  # for --resume
            stored = await store.list_arena_runs(batch_id=batch)
            done = {(r.scenario, r.strategy, r.seed) for r in stored}
            cfg = config.providers[name]
            todo = [
                (s, st, args.seed + i)
                for s in scenarios
                for st in strategies
                for i in range(args.runs)
                if (s.id, st, args.seed + i) not in done
            ]
            history = Measured.of(
                await store.list_arena_runs(provider=name), budget_kind=args.budget
            )
            before = await store.get_arena_batch(batch)
            took_before = float(
                ((before.report if before else {}).get("actual") or {}).get("seconds") or 0.0
            )
            invocations = int(
                ((before.report if before else {}).get("actual") or {}).get("invocations") or 0
            )
            guess = estimate(
                cfg,
                len(todo),
                [args.ticks or s.budget for s, _, _ in todo],
                budget_kind=args.budget,
                measured=history,
                jobs=args.jobs,
            )
            if not quiet and todo:
                say(f"zoea arena: {name}: {describe(guess, before=True)}", sys.stderr)

            played: list[RunResult] = []
            earlier = [
                RunResult.from_stored(r.scenario, r.strategy, _stored_run(r)) for r in stored
            ]
            order = {
                (s.key, st, args.seed + i): n
                for n, (s, st, i) in enumerate(
                    (s, st, i) for s in scenarios for st in strategies for i in range(args.runs)
                )
            }

            def current() -> dict[str, Any]:
                """The batch's report as it stands: every run stored so far, and
                ``actual`` over the whole batch (earlier invocations, --resume, included)."""
                results = sorted(
                    [*earlier, *played],
                    key=lambda r: order.get((r.scenario, r.strategy, r.seed), 0),
                )
                report = build_report(name, args.runs, results, budget=args.budget)
                report["plan"] = plan
                if told is not None and name == provider:
                    report["smbench"] = told  # which client prompt was read, beside SMBench's
                report["estimate"] = guess
                wall = time.perf_counter() - started
                report["actual"] = actual(
                    cfg, results, took_before + wall, invocations=invocations + 1
                )
                return report

            progress = Progress(f"arena: {name}", len(todo), "runs")

            def begun(scenario: Any, strategy: str, index: int, runs: int) -> None:
                progress.update(
                    len(played), note=f"{scenario.id} · {strategy} · seed {args.seed + index}"
                )

            def ticked(ticks: int, budget: int) -> None:
                # Within the run being played; side by side (--jobs) only runs ended count.
                within = ticks / budget if budget and args.jobs == 1 else 0.0
                progress.update(len(played) + within)

            async def keep(result: RunResult) -> None:
                await store_run(store, batch, name, result, args.budget)
                played.append(result)
                progress.update(len(played))
                # Kept as it goes: a batch killed outright still counts what it played.
                await store.finish_arena_batch(batch, current())
                # The speed this batch is measured at, for what is left of it.
                count = len(todo) - len(played)
                left = remaining(played, count, args.jobs)
                runs = f"{count} run{'s' if count != 1 else ''}"
                more = f"; ~{duration(left)} left ({runs})" if left else ""
                said(result, more)  # once it is safe

            started = time.perf_counter()
            stopped = False
            with progress:  # on standard error; gone before the lines below
                try:
                    await run_arena(
                        config,
                        scenarios,
                        provider=name,
                        strategies=strategies,
                        runs=args.runs,
                        seed=args.seed,
                        ticks=args.ticks,
                        hooks=RunHooks(
                            on_run=keep,
                            on_begin=begun,
                            on_progress=ticked,
                            on_retry=lambda line: say(f"zoea arena: {line}", sys.stderr),
                        ),
                        budget_kind=args.budget,
                        world=args.world,
                        checkout=checkout,
                        jobs=args.jobs,
                        keep=folder_for(database, batch),
                        skip=lambda s, st, seed: (s.id, st, seed) in done,
                    )
                except asyncio.CancelledError:  # Ctrl-C: what ended is stored; say so below
                    stopped = True
                    task = asyncio.current_task()
                    if task is not None:
                        task.uncancel()  # the batch's report is still to be stored
            report = current()
            if not quiet and played:
                say(f"zoea arena: {name}: {describe(report['actual'], before=False)}", sys.stderr)
            await store.finish_arena_batch(batch, report)
            kept = await store.get_arena_batch(batch)
            assert kept is not None
            return batch, kept.report, stopped

        batch, report, stopped = await measure(
            provider, resumed.id if resumed is not None else None
        )
        if stopped:
            return _stopped(args, database, batch, report)
        silence = first_error(report)
        baseline = None
        if (
            silence is None
            and not all_errored(report)
            and not args.no_baseline
            and config.providers[provider].type != "autopilot"
            and "autopilot" in config.providers
        ):
            baseline_batch, baseline, stopped = await measure("autopilot")
            if stopped:
                return _stopped(args, database, baseline_batch, baseline)
    # The baseline travels with the report (absent with --no-baseline, or when the
    # provider is the autopilot itself); it is stored as a batch of its own.
    printed = {**report, "baseline": baseline} if baseline is not None else report
    if args.out is not None:  # written from what is stored
        try:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "arena.json").write_text(to_json(printed) + "\n", encoding="utf-8")
            boards = [r for r in (baseline, report) if r is not None]
            (args.out / "leaderboard.md").write_text(leaderboard(boards), encoding="utf-8")
        except OSError as exc:
            stored = f"every run is stored in {database} as batch #{batch}"
            full = full_disk(exc, exc.filename or args.out)
            if full is not None:
                raise UsageError(f"the disk is full: {full.path}; {stored}") from None
            raise UsageError(
                f"cannot write to {args.out}: {exc.strerror or exc}; {stored} "
                "(the arena screen, A, shows it)"
            ) from None
    if args.json:
        emit_json(to_json(printed))
    else:
        say(table(report, baseline))
    if silence is not None:
        say(f"zoea arena: the provider answered none of its requests: {silence}", sys.stderr)
        return 3
    if all_errored(report):
        say(f"zoea arena: every run errored: {all_errored(report)}", sys.stderr)
        return 3
    return 0


#: The exit status of a batch stopped by Ctrl-C (128 + SIGINT, as shells report it).
STOPPED = 130


def _stopped(args: argparse.Namespace, database: Path, batch: int, report: dict[str, Any]) -> int:
    """Say what a stopped batch kept and the exact command that carries it on."""
    played = sum(len(cell["runs"]) for cell in report.get("cells") or ())
    plan = report.get("plan") or {}
    from .arena.scenarios import resolve

    total = (
        len(resolve(str(plan.get("scenario") or "all")))
        * (len(_strategies(plan)))
        * int(plan.get("runs") or 1)
    )
    command = ["zoea", "arena", "--resume", str(batch), "--db", str(database)]
    if getattr(args, "config", None) is not None:
        command += ["--config", str(args.config)]
    if args.jobs != 1:
        command += ["--jobs", str(args.jobs)]
    say(
        f"zoea arena: stopped: batch #{batch} keeps the {played} of its {total} runs that "
        f"ended; carry it on with: {shlex.join(command)}",
        sys.stderr,
    )
    return STOPPED


def _strategies(plan: dict[str, Any]) -> list[str]:
    from .arena.runner import ALL_STRATEGIES

    strategy = str(plan.get("strategy") or "")
    return list(ALL_STRATEGIES) if strategy == "all" else [strategy]


def _stored_run(record: Any) -> dict[str, Any]:
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

"""``zoea arena``: SMBench's scenarios on the embedded world, scored (issue 14).

Kept beside ``cli.py`` so the command's flags and output live in one small module;
``cli.py`` only registers it. Bad flags exit 2 with one line, like every command.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
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


def _plan(args: argparse.Namespace, strategies: list[str]) -> dict[str, Any]:
    from .arena.batch import new_plan

    flags = {key: getattr(args, key) for key in ("runs", "seed", "ticks", "budget", "world")}
    smbench = str(args.smbench) if args.smbench is not None else None
    return new_plan(args.scenario, strategies, smbench=smbench, **flags)


def _replan(args: argparse.Namespace, plan: dict[str, Any]) -> None:
    """Set the flags a stopped batch was begun with."""
    from .arena.batch import PLAN_KEYS

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
    from .arena.batch import Batch, BatchError, baseline_due, resumed
    from .arena.estimate import describe
    from .arena.report import all_errored, first_error, leaderboard, table, to_json
    from .arena.runner import RunHooks, RunResult
    from .core.durations import duration_text
    from .storage import Store

    # The database is opened (and refused, if it must be) before anything is played.
    async with await Store.open(database) as store:
        carried = None
        if args.resume is not None:
            try:
                carried, kept_plan = await resumed(store, args.resume, database)
            except BatchError as exc:
                raise UsageError(str(exc)) from None
            _replan(args, kept_plan)
            args.provider = carried.provider
        _, strategies, provider = checked or _options(args, config)
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

        async def measure(
            name: str, batch_id: int | None = None
        ) -> tuple[int, dict[str, Any], bool]:
            """Play a batch for provider ``name`` (:class:`Batch`), saying how it goes on
            standard error. The flag: the batch was stopped (Ctrl-C) before its runs were
            all played."""
            batch = await Batch.begin(store, config, plan, name, batch=batch_id, jobs=args.jobs)
            if not quiet and batch.todo:
                say(f"zoea arena: {name}: {describe(batch.guess, before=True)}", sys.stderr)
            progress = Progress(f"arena: {name}", len(batch.todo), "runs")
            ended = 0

            def begun(scenario: Any, strategy: str, index: int, runs: int) -> None:
                progress.update(
                    ended, note=f"{scenario.id} · {strategy} · seed {args.seed + index}"
                )

            def ticked(ticks: int, budget: int) -> None:
                # Within the run being played; side by side (--jobs) only runs ended count.
                within = ticks / budget if budget and args.jobs == 1 else 0.0
                progress.update(ended + within)

            def stored(
                result: RunResult, cell: dict[str, Any], count: int, left: float | None
            ) -> None:
                nonlocal ended
                ended += 1
                progress.update(ended)
                runs = f"{count} run{'s' if count != 1 else ''}"
                said(result, f"; ~{duration_text(left, rough=True)} left ({runs})" if left else "")

            with progress:  # on standard error; gone before the lines below
                played = await batch.play(
                    hooks=RunHooks(
                        on_begin=begun,
                        on_progress=ticked,
                        on_retry=lambda line: say(f"zoea arena: {line}", sys.stderr),
                    ),
                    on_stored=stored,
                    checkout=checkout,
                    told=told if name == provider else None,
                )
            if not quiet and played.count:
                actual = played.report["actual"]
                say(f"zoea arena: {name}: {describe(actual, before=False)}", sys.stderr)
            return played.batch, played.report, played.stopped

        batch, report, stopped = await measure(
            provider, carried.id if carried is not None else None
        )
        if stopped:
            return _stopped(args, database, batch, report)
        silence = first_error(report)
        baseline = None
        if not args.no_baseline and baseline_due(config, provider, report):
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
    from .arena.batch import planned_runs

    played = sum(len(cell["runs"]) for cell in report.get("cells") or ())
    total = planned_runs(report.get("plan") or {})
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

"""The ``zoea`` command: the TUI, and headless subcommands (docs/ARCHITECTURE.md, 'Command line').

Every command exits 0 on success and 2 on bad input, with a one-line error
on standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import __version__, cli_arena, cli_probe
from .cli_parsing import (
    OneLineParser,
    OutputError,
    UsageError,
    add_config_flag,
    emit_json,
    fit_streams,
    flush_output,
    holds_unicode,
    int_flag,
    look_at_database,
    look_at_world,
    require_output,
    say,
    seed_flag,
    text_flag,
    writable_folder,
)
from .cli_progress import Progress
from .config import Config, ConfigError, load_config
from .config.model import EMBEDDED
from .core.composition import ComposeSettings
from .core.redaction import mask_data
from .core.strategies import STRATEGIES
from .core.validator import validate
from .orchestrator.refusals import CommandRefused
from .storage import MysisRecord, Store, StoreError
from .storage.errors import full_disk
from .storage.interchange import ImportFormatError, memory_to_json, parse_conversation
from .storage.lock import DatabaseLock

#: The data folder's folder of the worlds ``sim serve`` saved without ``--state``.
SERVED_WORLDS = "sim-worlds"

#: What ``zoea --help`` says first: plain words (the module's docstring is for readers
#: of the code, and its RST backticks would be printed as they are).
DESCRIPTION = (
    "Zoea Nova: the command center of a swarm of LLM agents playing SpaceMolt. With no "
    "command, the TUI; the commands below run without it (docs/CLI.md)."
)


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="zoea", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"zoea {__version__}")
    parser.add_argument("--config", type=Path, help="configuration file (TOML)")
    parser.add_argument("--db", type=Path, help="database file")
    parser.add_argument("--data-dir", type=Path, help="data folder")
    parser.add_argument("--debug", action="store_true", help="verbose log file")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)

    p = sub.add_parser("import", help="import a conversation (JSONL) as memories")
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--mysis", required=True, type=text_flag)
    p.add_argument("file", type=Path, metavar="JSONL")

    p = sub.add_parser("export", help="print all memories of a Mysis as JSONL")
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--mysis", required=True, type=text_flag)

    p = sub.add_parser("context", help="show the next request of a Mysis")
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--mysis", required=True, type=text_flag)
    p.add_argument("--strategy", choices=list(STRATEGIES))
    p.add_argument("--json", action="store_true", help="machine-readable output")

    p = sub.add_parser("simulate", help="run a swarm headless on the embedded world")
    p.add_argument("--myses", type=int, default=4, help="how many Myses (default 4)")
    p.add_argument(
        "--turns", type=int_flag(1, 1_000_000), default=10, help="turns per Mysis (default 10)"
    )
    p.add_argument("--strategy", choices=list(STRATEGIES))
    p.add_argument("--provider", help="a configured provider (default: swarm.default_provider)")
    add_config_flag(p)
    p.add_argument("--seed", type=seed_flag, default=0, help="world seed")
    p.add_argument("--db", type=Path, help="database file (default: a temporary one)")
    p.add_argument("--json", action="store_true", help="machine-readable report")

    p = sub.add_parser("replay", help="recompose every logged request under a strategy")
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--mysis", type=text_flag, help="only this Mysis")
    p.add_argument("--strategy", choices=list(STRATEGIES), required=True)
    add_config_flag(p)
    p.add_argument("--json", action="store_true", help="machine-readable report")

    p = sub.add_parser(
        "vacuum", help="apply [storage] request_log, reclaim the space, say how much"
    )
    p.add_argument(
        "--db", type=Path, default=argparse.SUPPRESS, help="database file (default: zoea's own)"
    )
    add_config_flag(p)
    p.add_argument(
        "--request-log",
        metavar="KEEP",
        help='what to keep in full this time: "all", "7d" or a number of requests per Mysis '
        "(default: [storage] request_log)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable report")

    p = sub.add_parser("sim", help="the embedded SpaceMolt world")
    sim = p.add_subparsers(dest="sim_command", required=True, parser_class=OneLineParser)
    p = sim.add_parser(
        "serve",
        help="serve the embedded world: MCP at /mcp, SpaceMolt's HTTP API at /api/v2",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: loopback only)"
    )
    p.add_argument("--port", type=int, default=8765, help="port (0 picks a free one)")
    p.add_argument("--seed", type=seed_flag, default=0, help="world seed")
    p.add_argument(
        "--tick-seconds",
        type=float,
        default=1.0,
        help="length of a game tick in seconds (0: advance on demand)",
    )
    p.add_argument(
        "--state",
        type=Path,
        help="load the world from this file and save it there (default: a new world, saved "
        f"on exit to {SERVED_WORLDS}/seed-K-TIME.json in the data folder)",
    )
    p.add_argument(
        "--world",
        choices=("smbench", "classic"),
        help="the world of a new game: smbench, calibrated against SMBench's published runs "
        "(19 systems; the default: SpaceMolt's client and SMBench play it), or classic, the "
        "app's 8 systems (a --state file keeps its own)",
    )
    p.add_argument(
        "--admin-token",
        type=text_flag,
        help="bearer token of the benchmark admin endpoints (default: a new one, printed)",
    )
    cli_arena.add_parser(sub)
    cli_probe.add_parser(sub)
    return parser


async def _open_existing(path: Path, *, writes: bool = False) -> Store:
    """The Zoea database at ``path`` for a command that reads it (``writes``: and
    rewrites it, as ``vacuum``): a missing or empty file is refused untouched (opening
    would make it a new database, 176 KB of schema)."""
    if not path.exists():
        raise UsageError(f"database {path} does not exist")
    # A refusal (not Zoea's, damaged, newer) is a one-line StoreError naming the file.
    if await asyncio.to_thread(look_at_database, path, writes=writes) == 0:
        raise UsageError(
            f"{path} holds no Zoea database (it is empty): nothing to read; it was left untouched"
        )
    return await Store.open(path)


async def _cmd_import(args: argparse.Namespace) -> int:
    if args.file.is_char_device() or args.file.is_block_device():  # /dev/zero never ends
        raise UsageError(f"cannot read {args.file}: it is a device, not a conversation file")
    try:
        text = args.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {args.file}: {exc}") from None
    lines = text.splitlines()
    with Progress("import", 0, "memories") as progress:
        progress.update(0, note=f"checking {len(lines):,} lines")
        try:
            conversation = parse_conversation(lines)
        except ImportFormatError as exc:
            raise UsageError(f"{args.file}: {exc}; nothing was imported") from None
        if not conversation.memories and conversation.system_prompt is None:
            raise UsageError(
                f"{args.file} holds no conversation (it is empty); nothing was imported"
            )
        progress.update(0, total=len(conversation.memories), note="storing")
        with DatabaseLock.take(args.db):  # one writer: a second is refused naming this one
            await asyncio.to_thread(look_at_database, args.db)  # before a byte is written
            store = await Store.open(args.db)  # a refusal is a one-line StoreError naming it
            async with store:
                mysis, count = await store.import_conversation(
                    args.mysis,
                    conversation.memories,
                    system_prompt=conversation.system_prompt,
                    on_progress=lambda done, _: progress.update(done),
                )
    say(f"imported {count} memories into Mysis {mysis.name!r}", sys.stderr)
    return 0


async def _find(store: Store, name: str) -> MysisRecord:
    mysis = await store.find_mysis(name)
    if mysis is None:
        raise UsageError(f"no Mysis named {name!r} in {store.path}")
    return mysis


async def _cmd_export(args: argparse.Namespace) -> int:
    async with await _open_existing(args.db) as store:
        mysis = await _find(store, args.mysis)
        # Secrets out of sight: the pool's passwords and every secret's field are masked.
        known = [account.password for account in await store.list_accounts()]

        def line(data: dict[str, Any]) -> None:
            emit_json(json.dumps(mask_data(data, known), ensure_ascii=False))

        if mysis.system_prompt is not None:
            line({"role": "system", "content": mysis.system_prompt})
        async for memory in store.iter_memories(mysis.id):
            line(memory_to_json(memory))
    return 0


async def _cmd_context(args: argparse.Namespace) -> int:
    from .config import NudgeConfig
    from .orchestrator.context import next_composition
    from .orchestrator.turns import next_turn

    settings = ComposeSettings()
    async with await _open_existing(args.db) as store:
        mysis = await _find(store, args.mysis)
        strategy = args.strategy or mysis.strategy
        # The next request of a Mysis that finished its turns: the turn it would begin
        # (a prompt not yet answered, else the first nudge); with no turn on record (an
        # imported conversation) the composer infers one from the history.
        turn = None
        if await store.latest_turn(mysis.id) is not None:
            turn = await next_turn(
                store,
                mysis.id,
                sent_upto=await store.last_sent_memory_id(mysis.id),
                nudges=0,
                max_nudges=NudgeConfig().max_encouragements,
                fresh=False,
                answering=True,
            )
        composition = await next_composition(store, mysis.id, strategy, settings, turn=turn)
    violations = validate(composition.messages)
    if args.json:
        report = {
            "mysis": mysis.name,
            **composition.to_dict(),
            "valid": not violations,
            "violations": violations,
        }
        emit_json(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    say(
        f"Mysis {mysis.name} · strategy {strategy} · {len(composition.messages)} messages · "
        f"~{composition.tokens:,} tokens estimated · {'valid' if not violations else 'INVALID'}"
    )
    for message, item in zip(composition.messages, composition.items, strict=True):
        origin = f"#{item.memory_id}" if item.memory_id is not None else item.kind
        note = f" ({item.reason})" if item.reason else ""
        say(f"\n── {message['role']} · {origin} · {item.action}{note} · {item.tokens} tok")
        for call in message.get("tool_calls") or ():
            say(f"   → {call['function']['name']}({call['function']['arguments']})")
        text = message.get("content") or ""
        say(text if len(text) <= 2000 else text[:2000] + f"\n… ({len(text):,} chars)")
    for line in violations:
        say(f"violation: {line}")
    return 0


def _config(args: argparse.Namespace) -> Config:
    try:
        return load_config(getattr(args, "config", None))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


async def _cmd_simulate(args: argparse.Namespace) -> int:
    import tempfile

    from .orchestrator.headless import bill_words, provider_silence, simulate, to_json
    from .sim.host import WorldFileError

    config = _config(args)
    if not 1 <= args.myses <= 100:
        raise UsageError("--myses must be between 1 and 100")
    if args.turns < 1:
        raise UsageError("--turns must be at least 1")
    provider = args.provider or config.swarm.default_provider
    if provider not in config.providers:
        raise UsageError(
            f"unknown provider {provider!r}; configured: {', '.join(config.providers)}"
        )
    strategy = args.strategy or config.swarm.strategy
    with tempfile.TemporaryDirectory(prefix="zoea-simulate-") as tmp:
        db = args.db or Path(tmp) / "simulate.db"
        with (
            DatabaseLock.take(db),  # the database and its world file, for this run alone
            Progress("simulate", args.myses * args.turns, "turns") as progress,
        ):
            await asyncio.to_thread(look_at_database, db)  # before a byte is written
            try:
                report = await simulate(
                    config,
                    myses=args.myses,
                    turns=args.turns,
                    strategy=strategy,
                    provider=provider,
                    seed=args.seed,
                    db_path=db,
                    on_progress=lambda done, total, requests: progress.update(
                        done, total=total, note=f"{requests:,} requests"
                    ),
                    on_retry=lambda line: say(f"zoea simulate: {line}", sys.stderr),
                )
            except WorldFileError as exc:  # refused before the database is opened
                raise UsageError(str(exc)) from None
    silence = provider_silence(report)
    if args.json:
        emit_json(to_json(report))
    else:
        tokens = report["prompt_tokens"]
        score = report["score"].get("total", {})
        say(
            f"{report['myses']} Myses × {report['turns']} turns · {strategy} · {provider}: "
            f"{report['requests']} requests ({report['answered']} answered, "
            f"{len(report['failures'])} provider failures), prompt tokens mean "
            f"{tokens['mean']:,} p95 {tokens['p95']:,} max {tokens['max']:,}; "
            f"{report['violations']} violations; {report['tool_calls']} tool calls "
            f"({report['tool_errors']} game errors); {report['nudges']} nudges; score "
            f"{score.get('score', 0)} (ore sold {score.get('ore_sold', 0)}); "
            f"{report['wall_s']} s"
        )
        if report["bill"]["requests"]:
            say(f"  billed: {bill_words(report['bill'])}")
        for failure in report["failures"][:5]:
            say(f"  {failure['mysis']}: {failure['message']}")
        for note in sorted(set(report["provider_notes"].values())):
            say(f"  {provider}: {note}")
    if silence is not None:
        say(f"zoea simulate: {silence}", sys.stderr)
        return 3
    return 0


async def _cmd_replay(args: argparse.Namespace) -> int:
    from .orchestrator.headless import bill_words, replay, to_json

    config = _config(args)
    async with await _open_existing(args.db) as store:
        with Progress("replay", 0, "requests") as progress:
            try:
                report = await replay(
                    store,
                    strategy=args.strategy,
                    mysis_name=args.mysis,
                    config=config,
                    on_progress=lambda done, total: progress.update(done, total=total),
                )
            except ValueError as exc:
                raise UsageError(str(exc)) from None
    if args.json:
        emit_json(to_json(report))
        return 0
    if not report["requests"]:
        whose = f"Mysis {args.mysis!r}" if args.mysis else "any Mysis"
        say(f"0 requests to replay: {whose} in {args.db} has sent none yet")
        return 0
    tokens = report["prompt_tokens"]
    say(
        f"{report['requests']} requests under {args.strategy}: prompt tokens mean "
        f"{tokens['mean']:,} p95 {tokens['p95']:,} max {tokens['max']:,}; "
        f"{report['violations']} violations; {report['ratio_to_full_history']} of the full "
        "history"
    )
    if report["bill"]["requests"]:
        say(f"  as sent: {bill_words(report['bill'])}")
        say(f"  under {args.strategy} (estimated): {bill_words(report['strategy_bill'])}")
    return 0


async def _cmd_vacuum(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from .config import db_path, parse_request_log
    from .config.paths import database_bytes, size_text
    from .orchestrator.retention import vacuum

    config = _config(args)
    policy = config.storage.request_log
    if args.request_log is not None:
        try:
            policy = parse_request_log(args.request_log)
        except ValueError as exc:
            raise UsageError(f"--request-log: {exc}") from None
    try:
        path = db_path(config, getattr(args, "db", None), args.data_dir)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if not path.exists():
        raise UsageError(f"database {path} does not exist")
    with DatabaseLock.take(path):  # not beside the app or a command that writes
        before = database_bytes(path)  # opening may migrate it: the size the user had
        async with await _open_existing(path, writes=True) as store:
            report = await vacuum(store, policy, bytes_before=before)
    # Closed, as it was before: no shared-memory index beside it.
    report = replace(report, bytes_after=database_bytes(path))
    if args.json:
        emit_json(json.dumps(report.to_json()))
        return 0
    say(
        f"{path}: {size_text(report.bytes_before)} → {size_text(report.bytes_after)}, "
        f"reclaimed {size_text(report.reclaimed)} ({report.reclaimed:,} bytes); "
        f"request log kept in full: {policy.describe()} ({report.thinned:,} requests thinned "
        "now); memories are never dropped"
    )
    return 0


async def _cmd_sim(args: argparse.Namespace) -> int:
    from .sim.api_sessions import ApiSettings
    from .sim.host import WorldFileError, WorldHost
    from .sim.serve import SERVED_WORLD, serve_forever

    if args.tick_seconds < 0:
        raise UsageError("--tick-seconds must be 0 or more")
    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be between 0 and 65535")
    if args.admin_token is not None and not args.admin_token.strip():
        raise UsageError("--admin-token must not be empty")
    api = ApiSettings(
        admin_token=args.admin_token or secrets.token_urlsafe(18),
        clock=time.time,
        new_id=lambda: secrets.token_hex(16),
    )
    state = args.state if args.state is not None else _served_world_file(args)
    try:
        host = WorldHost.open(
            seed=args.seed,
            tick_seconds=args.tick_seconds,
            state_path=state,
            world_profile=args.world or SERVED_WORLD,
            full_catalogue=True,  # every command SpaceMolt's client's guide names
            secret=secrets.token_hex,  # served: passwords and session ids nobody can guess
        )
    except WorldFileError as exc:
        raise UsageError(str(exc)) from None
    saved = host.world.profile.name
    if args.world is not None and args.world != saved:
        raise UsageError(
            f"{args.state} holds a {saved} world, not {args.world}: leave out --world to "
            f"go on with it, or give another --state for a new {args.world} world"
        )
    try:
        await serve_forever(host, bind=args.host, port=args.port, api=api)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(
                f"cannot serve on {args.host}:{args.port}: the port is in use; "
                "choose another with --port (0 picks a free one)"
            ) from None
        reason = exc.strerror or exc
        raise UsageError(f"cannot serve on {args.host}:{args.port}: {reason}") from None
    return 0


def _served_world_file(args: argparse.Namespace) -> Path:
    """Where ``sim serve`` without ``--state`` saves its world: a new file for each run in
    the data folder's ``sim-worlds/``, named by seed and start time (UTC), so that no run
    overwrites another's world and none is loaded unasked (``--state FILE`` carries on)."""
    from datetime import UTC, datetime

    from .config import data_dir

    folder = data_dir(_config(args), args.data_dir) / SERVED_WORLDS
    # Made when the world is first saved; refused now if it could not be, before the
    # world is played in (nothing is made for a server that never serves).
    writable_folder(folder, advice="choose a file with --state, or a data folder with --data-dir")
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path = folder / f"seed-{args.seed}-{stamp}.json"
    n = 1
    while path.exists():  # two runs in the same second
        n += 1
        path = folder / f"seed-{args.seed}-{stamp}-{n}.json"
    return path


_COMMANDS = {
    "import": _cmd_import,
    "export": _cmd_export,
    "context": _cmd_context,
    "simulate": _cmd_simulate,
    "replay": _cmd_replay,
    "vacuum": _cmd_vacuum,
    "sim": _cmd_sim,
    "arena": cli_arena.cmd_arena,
    "probe": cli_probe.cmd_probe,
}


def _run_tui(args: argparse.Namespace) -> int:
    """``zoea``: the command center, logging to a file in the data folder."""
    from .config import db_path

    screen = sys.__stderr__  # where Textual draws
    if screen is not None and not holds_unicode(screen):
        say(
            f"zoea: the terminal's encoding ({screen.encoding}) cannot show the command "
            "center's characters; start it in a UTF-8 locale (LANG=C.UTF-8, for one)",
            sys.stderr,
        )
        return 2
    try:
        config = load_config(args.config)
        database = db_path(config, args.db, args.data_dir)
    except ConfigError as exc:
        say(f"zoea: {exc}", sys.stderr)
        return 2
    try:
        if args.db is None:  # the data folder's: say so, not --db, if it cannot be made
            writable_folder(
                database.parent, advice="choose another with --data-dir or ZOEA_DATA_DIR"
            )
        # One writer per database: a second app (or simulate, arena…) is refused here,
        # before the screen is taken, naming the process that holds it.
        with DatabaseLock.take(database):
            return _run_app_on(config, database, args)
    except (StoreError, UsageError) as exc:
        say(f"zoea: {exc}", sys.stderr)
        return 2


def _run_app_on(config: Config, database: Path, args: argparse.Namespace) -> int:
    """The app on its locked ``database``: every file it would open looked at first (a
    refusal raises before the log, the database's ``-wal`` or a new world is made, and
    before the screen is taken)."""
    from .logs import setup_logging

    look_at_database(database)
    if config.game.endpoint == EMBEDDED:
        look_at_world(database.parent / "world.json")
    try:
        log_file = setup_logging(database.parent, debug=args.debug)
    except OSError as exc:
        say(
            f"zoea: cannot use the data folder {database.parent}: {exc.strerror or exc}; "
            "choose another with --data-dir or ZOEA_DATA_DIR",
            sys.stderr,
        )
        return 2
    from .ui.app import run_app

    try:
        return run_app(config, database, debug=args.debug)
    except StoreError:
        raise
    except Exception as exc:  # the terminal is restored by now: say what happened
        say(f"zoea: {type(exc).__name__}: {exc} (details in {log_file})", sys.stderr)
        import logging

        logging.getLogger(__name__).exception("the app failed")
        return 1


def _unexpected(args: argparse.Namespace, exc: BaseException) -> int:
    """One line for a failure nobody foresaw, never a traceback; ``--debug`` logs it."""
    line = f"zoea {args.command}: unexpected {type(exc).__name__}: {exc}"
    if args.debug:
        import logging

        from .config import data_dir
        from .logs import setup_logging

        try:
            log_file = setup_logging(data_dir(Config(), args.data_dir), debug=True)
            logging.getLogger(__name__).error("zoea %s failed", args.command, exc_info=exc)
            line += f" (the traceback is in {log_file})"
        except (OSError, ConfigError):
            line += " (the data folder could not take the log)"
    else:
        line += " (run with --debug to log the traceback)"
    say(line, sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``zoea`` console script."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        return _run_tui(args)
    fit_streams()  # not for the TUI: "->" for "→" would move its columns
    try:
        require_output()
        code = asyncio.run(_COMMANDS[args.command](args))
        flush_output()
        if args.command == "sim" and code == 0:
            _leave_now(code)  # served until Ctrl-C or SIGTERM; the world is saved
        return code
    except (UsageError, StoreError, CommandRefused) as exc:
        say(f"zoea {args.command}: {exc}", sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader (head, less) went away: not an error of ours
        _drop_output()
        return 0
    except OutputError as exc:
        _drop_output()
        say(f"zoea {args.command}: {exc}", sys.stderr)
        return 2
    except OSError as exc:  # a file of the command's own: the world, an output, a log
        full = full_disk(exc, exc.filename or "a file this command writes")
        if full is None:
            return _unexpected(args, exc)
        say(f"zoea {args.command}: {full}", sys.stderr)
        return 2
    except Exception as exc:
        return _unexpected(args, exc)


def _leave_now(code: int) -> NoReturn:
    """End the process at once, its logs and output flushed: ``sim serve`` stopped by a
    signal has saved its world and said so, and the interpreter's own teardown (freeing
    the world, the MCP server, uvicorn: 0.3 s of CPU) kept the prompt waiting 2-3 s more
    on a loaded machine."""
    import logging
    import os

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    os._exit(code)


def _drop_output() -> None:
    """Send what standard output still buffers nowhere, so that Python's flush at exit
    does not fail again with a second message."""
    import os

    if sys.stdout is not None:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())

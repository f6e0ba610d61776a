"""Soak: 16 Myses for a day of play on a simulated clock, then the real app on what it left.

**The day** runs headless in one process: the default configuration (1 s game ticks,
30 s idle nudges, 2 min in a wait state), the built-in autopilot on the embedded world,
the real commander, store and turn loop, on an *event clock*: when every running Mysis
waits on the clock (its action's tick, a travel's arrival, a nudge interval, a backoff)
time jumps to the earliest deadline and the world's ticks with it. Sixteen Myses waiting
for the next tick together cost one simulated second, as on a wall clock, and none of
real waiting. Every composed request is validated. At each simulated hour it samples
RSS, the database file and its WAL, requests and memories logged, and the wall time.
A run that would take longer than ``--budget-minutes`` of wall time stops at the last
whole hour and says so (``conditions``).

**Keys at the start and at the end**: the database as it was after the first simulated
hour (copied while the swarm waited) and as the day left it are each opened by the real
app in tmux (160x50, real clock, the 16 Myses resuming on the autopilot), and keys are
timed from just before ``tmux send-keys`` to the app's mark of the complete frame
(``ZOEA_FRAME_MARKS``, as ``bench/ui.py`` does): moving between panes, opening the
focus view, stepping in it, leaving it.

Reported: database bytes per request and per memory, growth per simulated hour, RSS at
the start, after an hour and at the end (target: the end within 20 % of the hour), the
WAL's size, and the keypress figures at the start and the end. Writes
bench/results/soak.json.

Usage: python bench/soak.py [--hours 24] [--myses 16] [--budget-minutes 150]
                            [--key-rounds 4] [--no-keys]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.config import Config  # noqa: E402
from zoea_tui.game.backend import GameBackend  # noqa: E402
from zoea_tui.orchestrator.clock import ManualClock  # noqa: E402
from zoea_tui.orchestrator.commander import Commander  # noqa: E402
from zoea_tui.orchestrator.events import RequestComposed  # noqa: E402
from zoea_tui.sim.engine import World  # noqa: E402
from zoea_tui.sim.host import WorldHost  # noqa: E402

HOUR = 3600.0
#: RSS after the day may differ from RSS after the first hour by at most this share.
RSS_TOLERANCE = 0.20
SIZE = (160, 50)


def _bench(name: str) -> Any:
    """``bench/NAME.py`` as a module (``ui``: its frame-mark reader and statistics;
    ``storage``: what each table is for)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def file_size(path: Path) -> int:
    with contextlib.suppress(OSError):
        return path.stat().st_size
    return 0


class EventClock(ManualClock):
    """Simulated time that moves to the next deadline once every running Mysis waits on
    it (a discrete-event clock): concurrent waits overlap as on a wall clock."""

    def next_deadline(self) -> float | None:
        pending = [due for due, future in self._waiters if not future.done()]
        return min(pending) if pending else None


class EventWorldHost(WorldHost):
    """The embedded world with ticks of ``tick_seconds`` (1 s, the default) on the event
    clock: an action is answered once its tick has resolved and ``travel`` once the ship
    has arrived, as on a real clock, and a caller waiting for a tick waits on the event
    clock (so it counts as waiting when the clock decides to move)."""

    def __init__(
        self, world: World, clock: EventClock, *, tick_seconds: float, state_path: Path
    ) -> None:
        super().__init__(world, tick_seconds=tick_seconds, state_path=state_path)
        self.clock = clock
        self.origin = world.current_tick

    async def start(self) -> None:
        """No ticker: the world moves with the event clock (:meth:`catch_up`)."""

    def catch_up(self) -> None:
        """Advance the world to the tick the clock has reached."""
        due = self.origin + int(self.clock.now() // self.tick_seconds)
        if due > self.world.current_tick:
            self.advance(due - self.world.current_tick)

    async def wait_for_tick(self, tick: int) -> None:
        generation = self._generation
        while self.world.current_tick < tick and self._generation == generation:
            await self.clock.sleep((tick - self.origin) * self.tick_seconds - self.clock.now())
            self.catch_up()


#: Wall seconds without any Mysis waiting on the clock after which it is moved anyway
#: (counted as ``forced_advances``: a Mysis held by something else than the clock).
STUCK_S = 30.0


async def drive(
    clock: EventClock, commander: Commander, host: EventWorldHost, until: float, tally: dict
) -> None:
    """Advance ``clock`` (and the world with it) whenever every running Mysis waits on
    it, up to ``until``."""
    moved = time.monotonic()
    while clock.now() < until:
        await asyncio.sleep(0.002)  # the swarm works meanwhile
        running = commander.running_count()
        due = clock.next_deadline()
        stuck = time.monotonic() - moved > STUCK_S
        if running == 0:  # nobody plays any more: the rest of the hour passes unplayed
            clock.advance(until - clock.now())
            host.catch_up()
            tally["idle_swarm"] += 1
        elif due is not None and (clock.waiting >= running or stuck):
            clock.advance(min(due, until) - clock.now())
            host.catch_up()
            tally["forced_advances"] += int(stuck and clock.waiting < running)
            moved = time.monotonic()


def counts(db: Path) -> tuple[int, int]:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return (
            conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0],
            conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0],
        )


async def play_day(
    workdir: Path, hours: int, myses: int, budget_s: float
) -> tuple[dict[str, Any], Path | None]:
    """The headless day; its figures and the folder holding the first hour's copy."""
    db = workdir / "soak.db"
    clock = EventClock()
    config = Config()
    host = EventWorldHost(
        World(config.game.seed, starting_credits=config.game.starting_credits),
        clock,
        tick_seconds=config.game.tick_seconds,
        state_path=workdir / "world.json",
    )
    backend = GameBackend("embedded", host=host, read_timeout=config.game.timeout)
    started = time.monotonic()
    commander = await Commander.open(
        config, db_path=db, clock=clock, backend=backend, starter_swarm=False
    )
    sub = commander.bus.subscribe(maxsize=1_000_000)
    seen = {"requests": 0, "invalid": 0}

    async def reader() -> None:
        async for event in sub:
            if isinstance(event, RequestComposed) and not event.preview:
                seen["requests"] += 1
                seen["invalid"] += int(not event.valid)

    watcher = asyncio.create_task(reader())
    for n in range(myses):
        await commander.create_mysis(f"soak{n:02d}")
    samples: list[dict[str, Any]] = []
    tally = {"forced_advances": 0, "idle_swarm": 0}

    def sample(hour: int) -> dict[str, Any]:
        requests, memories = counts(db)
        row = {
            "hour": hour,
            "wall_s": round(time.monotonic() - started, 1),
            "rss_mb": round(rss_mb(), 1),
            "db_mb": round(file_size(db) / 1e6, 2),
            "wal_mb": round(file_size(db.with_name(db.name + "-wal")) / 1e6, 2),
            "requests": requests,
            "memories": memories,
            "invalid": seen["invalid"],
            "states": commander.state_counts(),
        }
        print(json.dumps(row), flush=True)
        return row

    samples.append(sample(0))
    first_hour: Path | None = None
    stopped_by_budget = False
    for hour in range(1, hours + 1):
        await drive(clock, commander, host, hour * HOUR, tally)
        samples.append(sample(hour))
        if hour == 1:
            first_hour = workdir / "hour-1"
            first_hour.mkdir()
            # The swarm waits on the clock now (the driver does not move it): a
            # consistent copy of the database and the world, as the app would find them.
            with (
                contextlib.closing(sqlite3.connect(db)) as src,
                contextlib.closing(sqlite3.connect(first_hour / "zoea.db")) as dst,
            ):
                src.backup(dst)
            host.save(first_hour / "world.json")
        spent = time.monotonic() - started
        if hour < hours and spent / hour * (hour + 1) > budget_s:
            stopped_by_budget = True
            break
    await commander.shutdown(timeout=2.0)
    watcher.cancel()
    closed = {"db": file_size(db), "wal": file_size(db.with_name(db.name + "-wal"))}
    requests, memories = counts(db)
    shares = _bench("storage").breakdown(db, requests)["bytes_per_request_by_share"]
    reached = samples[-1]["hour"]
    whole = closed["db"] + closed["wal"]
    rss = {
        "start": samples[0]["rss_mb"],
        "after_1h": samples[1]["rss_mb"] if len(samples) > 1 else None,
        "end": samples[-1]["rss_mb"],
    }
    return {
        "simulated_hours": reached,
        "stopped_by_wall_budget": stopped_by_budget,
        "wall_s": round(time.monotonic() - started, 1),
        "requests": requests,
        "memories": memories,
        "invalid_requests": seen["invalid"],
        "database_bytes": closed,
        "bytes_per_request": round(whole / max(requests, 1), 1),
        "bytes_per_memory": round(whole / max(memories, 1), 1),
        "bytes_per_request_by_share": shares,
        "growth_mb_per_hour": round(
            (
                samples[-1]["db_mb"]
                + samples[-1]["wal_mb"]
                - samples[1]["db_mb"]
                - samples[1]["wal_mb"]
            )
            / max(reached - 1, 1),
            2,
        )
        if reached > 1
        else None,
        "requests_per_hour": round(requests / max(reached, 1)),
        "wal_mb_max": max(s["wal_mb"] for s in samples),
        "rss_mb": rss,
        "rss_end_vs_1h": round(rss["end"] / rss["after_1h"] - 1, 4) if rss["after_1h"] else None,
        "rss_within_target": (
            abs(rss["end"] / rss["after_1h"] - 1) <= RSS_TOLERANCE if rss["after_1h"] else None
        ),
        "world_tick": host.world.current_tick,
        "score": host.world.score()["total"],
        **tally,
        "samples": samples,
    }, first_hour


def time_keys(folder: Path, rounds: int, ui: Any) -> dict[str, Any]:
    """The real app on ``folder``'s database: keys timed to their complete frame."""
    work = Path(tempfile.mkdtemp(prefix="zoea-soak-keys-"))
    session = f"zoea-soak-{os.getpid()}-{folder.name}"
    try:
        shutil.copy(folder / "zoea.db", work / "zoea.db")
        if (folder / "world.json").exists():
            shutil.copy(folder / "world.json", work / "world.json")
        (work / "config.toml").write_text("")
        fifo = work / "marks"
        os.mkfifo(fifo)
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        marks = ui.Marks(fd)
        command = (
            f"env ZOEA_FRAME_MARKS={fifo} ZOEA_CONFIG={work / 'config.toml'} "
            f"TERM=xterm-256color PYTHONPATH={os.environ.get('PYTHONPATH', '')} "
            f"{sys.executable} -m zoea_tui.cli --db {work / 'zoea.db'} --data-dir {work}"
        )
        width, height = SIZE
        subprocess.run(
            [
                *("tmux", "new-session", "-d", "-s", session),
                *("-x", str(width), "-y", str(height), "-c", str(ROOT), command),
            ],
            check=True,
        )
        marks.wait(lambda m: m.kind == "first", 60)
        deadline = time.monotonic() + 60
        while "soak15" not in ui.pane_text(session):
            if time.monotonic() > deadline:
                raise TimeoutError("the swarm never showed:\n" + ui.pane_text(session))
            time.sleep(0.05)
        time.sleep(5)  # the swarm resumes
        kinds: dict[str, list[float]] = {
            "pane-move": [],
            "open-focus": [],
            "focus-step": [],
            "close-focus": [],
        }
        client: list[float] = []

        def timed(kind: str, key: str, screen: str, mysis: int) -> None:
            marks.drain()
            start = ui.type_keys(session, (key,), client)
            mark = marks.wait(
                lambda m: (
                    m.kind == "mark"
                    and m.at >= start
                    and m.fields[0] == screen
                    and m.fields[1] == str(mysis)
                )
            )
            kinds[kind].append((mark.at - start) * 1000)
            time.sleep(0.25)  # a commander reads the screen between keys

        for _ in range(rounds):
            timed("open-focus", "Enter", "FocusScreen", 1)
            timed("focus-step", "]", "FocusScreen", 2)
            timed("focus-step", "[", "FocusScreen", 1)
            timed("close-focus", "Escape", "DashboardScreen", 1)
            for target in range(2, 7):
                timed("pane-move", "Right", "DashboardScreen", target)
            for target in range(5, 0, -1):
                timed("pane-move", "Left", "DashboardScreen", target)
        os.close(fd)
        every = [x for values in kinds.values() for x in values]
        requests, memories = counts(folder / "zoea.db")
        return {
            "database": {"requests": requests, "memories": memories},
            "keypress_to_complete_frame_ms": {
                "all": ui.stats(every),
                **{k: ui.stats(v) for k, v in kinds.items()},
            },
            "tmux_send_keys_ms": ui.stats(client),
        }
    finally:
        ui.kill_session(session)
        shutil.rmtree(work, ignore_errors=True)


def write_report(args: argparse.Namespace, day: dict[str, Any], keys: dict[str, Any]) -> None:
    """Write the JSON report to ``args.out``."""
    reached = day["simulated_hours"]
    conditions = (
        f"{args.myses} Myses, autopilot (turns of up to 100 rounds), embedded world, "
        "default config (1 s ticks, idle nudge 30 s, wait state 120 s, request_log "
        '"all"), one process on an event clock (time and the world\'s ticks jump when '
        f"every running Mysis waits on them); {reached} simulated hours of "
        f"{args.hours} asked"
    )
    if day["stopped_by_wall_budget"]:
        conditions += (
            f" (stopped at the last whole hour before the {args.budget_minutes:g}-minute "
            "wall budget: the machine's 2 cores, shared, could not play a whole day in it)"
        )
    if keys:
        conditions += (
            f"; keys: the real app in tmux ({SIZE[0]}x{SIZE[1]}, real clock, the Myses "
            f"resuming), {args.key_rounds} rounds on the database after 1 h and after "
            f"{reached} h"
        )
    report = {
        "benchmark": "soak",
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared; load average "
        f"{os.getloadavg()[0]:.1f} at the end)",
        "conditions": conditions,
        **day,
        "rss_tolerance": RSS_TOLERANCE,
        "keys": keys,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=int, default=24)
    parser.add_argument("--myses", type=int, default=16)
    parser.add_argument("--budget-minutes", type=float, default=150)
    parser.add_argument("--key-rounds", type=int, default=4)
    parser.add_argument("--no-keys", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "soak.json")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="zoea-soak-"))
    keys: dict[str, Any] = {}
    try:
        day, first_hour = asyncio.run(
            play_day(workdir, args.hours, args.myses, args.budget_minutes * 60)
        )
        write_report(args, day, keys)  # the day is kept whatever the keys do
        if not args.no_keys and first_hour is not None:
            ui = _bench("ui")
            keys["start"] = time_keys(first_hour, args.key_rounds, ui)
            end = workdir / "end"
            end.mkdir()
            shutil.copy(workdir / "soak.db", end / "zoea.db")
            shutil.copy(workdir / "world.json", end / "world.json")
            keys["end"] = time_keys(end, args.key_rounds, ui)
            write_report(args, day, keys)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    rss = day["rss_mb"]
    print(
        f"{args.myses} Myses for {day['simulated_hours']} simulated h ({day['wall_s']} s "
        f"wall): {day['requests']} requests ({day['invalid_requests']} invalid), "
        f"{day['memories']} memories; {day['bytes_per_request']} B/request, "
        f"{day['bytes_per_memory']} B/memory, {day['growth_mb_per_hour']} MB/h; RSS "
        f"{rss['start']} → {rss['after_1h']} (1 h) → {rss['end']} MB; WAL max "
        f"{day['wal_mb_max']} MB"
    )
    for when, figures in keys.items():
        every = figures["keypress_to_complete_frame_ms"]["all"]
        print(f"keys at the {when}: median {every['median']} ms, p95 {every['p95']} ms")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""Quit benchmark: with 16 Myses running, how long from the confirmation to the process gone.

The real app in a real terminal: ``zoea`` runs in a tmux session (160x50) on a database
of 16 running Myses; after ``--warmup`` seconds of play, ``q`` is typed, the confirmation
dialog is awaited on screen ("Quit?"), then ``y`` is typed and the clock runs from just
before ``tmux send-keys`` to the moment the app's process is gone (its ``/proc`` entry,
polled every millisecond; the tmux client's own time, a few ms, is included and
reported apart). Each round launches the app again on the same database: the swarm
resumes where the last quit cut it, and the database is checked after every quit
(``integrity_check``, every Mysis still running, the cut requests logged as cancelled).

Two swarms: ``autopilot`` (the built-in pilot, what a newcomer runs) and ``stalled``
(every Mysis on an OpenAI-compatible server on loopback that takes each request and
never answers: the quit waits until all 16 model calls are in flight).

Target (issue 33): at most 1 s from the confirmation. Writes bench/results/quit.json.

Usage: python bench/quit.py [--rounds 5] [--warmup 15] [--swarm autopilot|stalled|both]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.storage import Store  # noqa: E402

MYSES = 16
SIZE = (160, 50)
TARGET_S = 1.0
ZOEA = [sys.executable, "-m", "zoea_tui.cli"]


class StalledServer:
    """An HTTP server on loopback that reads each request and never answers it."""

    def __init__(self) -> None:
        self.port = 0
        self.requests = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                await reader.readuntil(b"\r\n\r\n")
                self.requests += 1
                await reader.read()  # until the client goes away
            writer.close()

        async def main() -> None:
            server = await asyncio.start_server(handle, "127.0.0.1", 0)
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            async with server:
                await server.serve_forever()

        self._loop = asyncio.new_event_loop()
        with contextlib.suppress(RuntimeError):
            self._loop.run_until_complete(main())

    def start(self) -> StalledServer:
        self._thread.start()
        self._ready.wait(10)
        return self


def make_swarm(db: Path, provider: str) -> None:
    """16 Myses in the running state (they play as soon as the app opens)."""

    async def create() -> None:
        store = await Store.open(db)
        try:
            for n in range(MYSES):
                record = await store.create_mysis(f"Quit{n:02d}", provider=provider)
                await store.update_mysis(record.id, state="running")
        finally:
            await store.close()

    asyncio.run(create())


def tmux(*args: str) -> str:
    return subprocess.run(
        ["tmux", *args], check=True, capture_output=True, text=True, timeout=30
    ).stdout


def wait_for_text(session: str, needle: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while needle not in tmux("capture-pane", "-p", "-t", session):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{needle!r} never appeared on screen")
        time.sleep(0.05)


def alive(pid: int) -> bool:
    """True while the process exists and has not exited (a zombie has exited)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def one_quit(
    workdir: Path, session: str, warmup: float, in_flight: Callable[[], bool] | None = None
) -> dict[str, Any]:
    """Launch, play ``warmup`` s (and until ``in_flight()``), quit; the time from the
    confirmation to the process gone."""
    command = (
        f"env ZOEA_CONFIG={workdir / 'config.toml'} TERM=xterm-256color "
        f"PYTHONPATH={os.environ.get('PYTHONPATH', '')} "
        f"{' '.join(ZOEA)} --db {workdir / 'zoea.db'} --data-dir {workdir}"
    )
    width, height = SIZE
    tmux(
        *("new-session", "-d", "-s", session, "-x", str(width), "-y", str(height)),
        *("-c", str(ROOT), command),
    )
    pid = int(tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip())
    try:
        wait_for_text(session, f"{MYSES} running", 60)
        time.sleep(warmup)
        deadline = time.monotonic() + 60
        while in_flight is not None and not in_flight():
            if time.monotonic() > deadline:
                raise RuntimeError("the model calls never were all in flight")
            time.sleep(0.05)
        tmux("send-keys", "-t", session, "q")
        wait_for_text(session, "Quit?", 10)
        start = time.monotonic()
        tmux("send-keys", "-t", session, "y")
        client = time.monotonic() - start
        while alive(pid):
            if time.monotonic() - start > 30:
                screen = tmux("capture-pane", "-p", "-t", session)
                raise RuntimeError(f"the app did not quit within 30 s:\n{screen}")
            time.sleep(0.001)
        gone = time.monotonic() - start
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    return {"quit_s": round(gone, 3), "tmux_client_s": round(client, 3)}


def check_store(db: Path) -> dict[str, Any]:
    """The database after a quit: whole, every Mysis still running, what was cut."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return {
            "integrity": conn.execute("PRAGMA integrity_check").fetchone()[0],
            "states": dict(conn.execute("SELECT state, COUNT(*) FROM myses GROUP BY state")),
            "requests": conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0],
            "cancelled": conn.execute(
                "SELECT COUNT(*) FROM requests WHERE outcome = 'cancelled'"
            ).fetchone()[0],
            "pending": conn.execute(
                "SELECT COUNT(*) FROM requests WHERE outcome = 'pending'"
            ).fetchone()[0],
            "memories": conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0],
        }


def run_swarm(kind: str, rounds: int, warmup: float) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"zoea-bench-quit-{kind}-"))
    server = StalledServer().start() if kind == "stalled" else None
    try:
        config = ""
        provider = "autopilot"
        if server is not None:
            provider = "stalled"
            config = (
                f'[swarm]\ndefault_provider = "stalled"\n\n[providers.stalled]\n'
                f'type = "openai"\nendpoint = "http://127.0.0.1:{server.port}/v1"\n'
                'model = "never"\ntimeout = 600\nstream = false\n'
            )
        (workdir / "config.toml").write_text(config)
        make_swarm(workdir / "zoea.db", provider)
        quits, checks = [], []
        for n in range(rounds):
            in_flight = None
            if server is not None:
                calls = server.requests
                in_flight = lambda calls=calls: server.requests >= calls + MYSES  # noqa: E731
            quits.append(one_quit(workdir, f"zoea-quit-{os.getpid()}-{n}", warmup, in_flight))
            checks.append(check_store(workdir / "zoea.db"))
            print(f"{kind} round {n + 1}: {quits[-1]} {checks[-1]}", flush=True)
        times = sorted(q["quit_s"] for q in quits)
        return {
            "swarm": kind,
            "rounds": quits,
            "after_each_quit": checks,
            "median_s": round(statistics.median(times), 3),
            "max_s": times[-1],
            "within_target": times[-1] <= TARGET_S,
            "model_calls_received": server.requests if server is not None else None,
        }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--swarm", choices=["autopilot", "stalled", "both"], default="both")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "quit.json")
    args = parser.parse_args()
    kinds = ["autopilot", "stalled"] if args.swarm == "both" else [args.swarm]
    report = {
        "benchmark": "quit",
        "python": platform.python_version(),
        "machine": f"{os.cpu_count()} cores (shared; load average {os.getloadavg()[0]:.1f} "
        "at the start)",
        "conditions": (
            f"the real app in tmux ({SIZE[0]}x{SIZE[1]}), real clock, {MYSES} running Myses, "
            f"{args.warmup:g} s of play before each quit, {args.rounds} launches per swarm "
            "on the same database; time from just before `tmux send-keys y` (the "
            "confirmation) to the app's process gone"
        ),
        "target_s": TARGET_S,
        "swarms": [run_swarm(kind, args.rounds, args.warmup) for kind in kinds],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for swarm in report["swarms"]:
        print(
            f"{swarm['swarm']}: quit in {swarm['median_s']} s median, {swarm['max_s']} s max "
            f"(target {TARGET_S} s)"
        )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

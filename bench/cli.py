"""The times the README and docs/ state, measured as a newcomer meets them.

- **first minutes**: the default swarm (three Myses on the autopilot, the embedded world
  ticking every second, a fresh data folder: what ``make run`` opens) on the real clock;
  the seconds from the start to each Mysis's first successful ``register``, ``mine`` and
  ``sell`` (the README's "register, mine and sell within …"). Headless: the app draws
  what the commander does, so these are the times the panes show, without the app's own
  start (its first paint, about 1.25 s, is ``bench/ui.py``'s).
- **simulate** and **replay**: the commands of docs/CLI.md's example, run as a user runs
  them (``zoea simulate --myses 4 --turns 50 --db FILE``, then ``zoea replay --db FILE
  --strategy sliding-window``, each with ``--json`` to count its requests), their wall
  time, the CPU time they used and the machine's load beside them.

tests/docs/test_doc_times.py checks that the README and docs/CLI.md state these figures.

Usage: python bench/cli.py [--myses 4] [--turns 50] [--seconds 60] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import platform
import resource
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
from zoea_tui.orchestrator.commander import Commander  # noqa: E402
from zoea_tui.orchestrator.events import ToolCallFinished  # noqa: E402

#: The first successes the README names, in the order a Mysis reaches them.
MILESTONES = ("register", "mine", "sell")


async def first_minutes(seconds: float) -> dict[str, Any]:
    """The default swarm on the real clock until every Mysis has sold once (or
    ``seconds``): when each first registered, mined and sold, from the start."""
    config = Config()
    with tempfile.TemporaryDirectory(prefix="zoea-bench-cli-") as folder:
        data = Path(folder)
        loop = asyncio.get_running_loop()
        start = loop.time()
        backend = GameBackend.from_config(config.game, data_dir=data)
        commander = await Commander.open(config, db_path=data / "zoea.db", backend=backend)
        sub = commander.bus.subscribe(maxsize=100_000)
        firsts: dict[int, dict[str, float]] = {}
        try:
            while loop.time() - start < seconds:
                left = max(0.0, seconds - (loop.time() - start))
                try:
                    event = await asyncio.wait_for(sub.get(), timeout=left)
                except TimeoutError:
                    break
                if not isinstance(event, ToolCallFinished) or event.is_error:
                    continue
                if event.call.name in MILESTONES:
                    reached = firsts.setdefault(event.mysis_id, {})
                    reached.setdefault(event.call.name, round(loop.time() - start, 2))
                myses = commander.myses()
                if len(firsts) == len(myses) and all("sell" in f for f in firsts.values()):
                    break
            names = {view.id: view.name for view in commander.myses()}
        finally:
            await commander.shutdown(timeout=0)
    by_mysis = {names[i]: firsts.get(i, {}) for i in sorted(names)}
    worst = {
        step: max((f.get(step, float("inf")) for f in by_mysis.values()), default=float("inf"))
        for step in MILESTONES
    }
    return {
        "seconds_at_most": seconds,
        "by_mysis": by_mysis,
        # The slowest Mysis of the swarm: every pane shows it by then.
        "all_registered_s": worst["register"] if worst["register"] != float("inf") else None,
        "all_mined_s": worst["mine"] if worst["mine"] != float("inf") else None,
        "all_sold_s": worst["sell"] if worst["sell"] != float("inf") else None,
    }


def timed(args: list[str]) -> dict[str, Any]:
    """``zoea ARGS`` in its own process: wall and CPU time, the load beside it, its JSON."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "zoea_tui.cli", *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "ZOEA_PROGRESS_SECONDS": "0"},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(done.stdout)
    return {
        # As docs/CLI.md writes it: the database in /tmp.
        "command": "zoea "
        + " ".join("/tmp/sim.db" if a.endswith("sim.db") else a for a in args if a != "--json"),
        "wall_s": round(wall, 1),
        "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1),
        "load_before": round(load_before, 1),
        "load_after": round(os.getloadavg()[0], 1),
        "requests": report["requests"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--myses", type=int, default=4)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "cli.json")
    args = parser.parse_args()
    first = asyncio.run(first_minutes(args.seconds))
    with tempfile.TemporaryDirectory(prefix="zoea-bench-cli-") as folder:
        db = str(Path(folder) / "sim.db")
        sim = ["simulate", "--myses", str(args.myses), "--turns", str(args.turns), "--db", db]
        simulate = timed([*sim, "--json"])
        replay = timed(["replay", "--db", db, "--strategy", "sliding-window", "--json"])
    report = {
        "benchmark": "cli",
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "first_minutes": first,
        "simulate": simulate,
        "replay": replay,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(
        f"every Mysis registered by {first['all_registered_s']} s, mined by "
        f"{first['all_mined_s']} s, sold by {first['all_sold_s']} s; simulate "
        f"{simulate['wall_s']} s ({simulate['cpu_s']} s CPU, {simulate['requests']} requests); "
        f"replay {replay['wall_s']} s ({replay['cpu_s']} s CPU); wrote {args.out}"
    )


if __name__ == "__main__":
    main()

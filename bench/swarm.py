"""Swarm benchmark: the orchestrator under load on the embedded world.

N Myses play with the built-in autopilot (a model with no latency to speak of)
on the simulated clock, until they have finished T turns in all. Reports turns
and requests per second, event-loop lag (a 5 ms heartbeat's lateness, p50 and
p99), events published vs delivered to a subscriber (none may be dropped;
coalesced high-rate events are counted apart), and the process's memory
(RSS) sampled along the run, to show it stays flat. Writes bench/results/swarm.json.

Usage: python bench/swarm.py [--myses 16] [--turns 10000] [--big-myses 100]
                             [--big-turns 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.config import Config  # noqa: E402
from zoea_tui.game.backend import GameBackend  # noqa: E402
from zoea_tui.orchestrator.clock import VirtualClock  # noqa: E402
from zoea_tui.orchestrator.commander import Commander  # noqa: E402
from zoea_tui.orchestrator.events import Notice  # noqa: E402


def rss_mb() -> float:
    """Resident memory of this process in MB (Linux /proc)."""
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


async def run(myses: int, total_turns: int) -> dict:
    base = Config()
    config = replace(base, swarm=replace(base.swarm, max_myses=max(myses, 16)))
    with tempfile.TemporaryDirectory(prefix="zoea-bench-swarm-") as tmp:
        backend = GameBackend.from_config(config.game, simulated=True)
        commander = await Commander.open(config, db_path=Path(tmp) / "swarm.db",
                                         clock=VirtualClock(), backend=backend,
                                         starter_swarm=False)
        sub = commander.bus.subscribe(maxsize=10_000)
        received = 0
        turns = 0
        done = asyncio.Event()
        memory: list[tuple[int, float]] = []

        def on_turn(_runtime: object) -> None:
            nonlocal turns
            turns += 1
            if turns % max(1, total_turns // 20) == 0:
                memory.append((turns, round(rss_mb(), 1)))
            if turns >= total_turns:
                done.set()

        async def reader() -> None:
            nonlocal received
            async for event in sub:
                received += 1
                if isinstance(event, Notice) and event.message == "bench-end":
                    return

        lags: list[float] = []

        async def heartbeat() -> None:
            loop = asyncio.get_running_loop()
            while not done.is_set():
                start = loop.time()
                await asyncio.sleep(0.005)
                lags.append(max(0.0, loop.time() - start - 0.005))

        commander.on_turn = on_turn
        reading = asyncio.create_task(reader())
        beating = asyncio.create_task(heartbeat())
        started = time.perf_counter()
        for i in range(myses):
            await commander.create_mysis(f"b{i:03d}")
        await done.wait()
        wall = time.perf_counter() - started
        requests = len(await commander.store.list_requests())
        for view in commander.myses():
            await commander.stop_mysis(view.id)
        await commander.bus.publish(Notice(level="info", message="bench-end"))
        await asyncio.wait_for(reading, 60)
        beating.cancel()
        published = commander.bus.published
        coalesced = sub.coalesced
        await commander.shutdown(timeout=5)
    lags.sort()
    first, last = memory[len(memory) // 4][1], memory[-1][1]
    return {
        "myses": myses,
        "turns": turns,
        "requests": requests,
        "wall_s": round(wall, 2),
        "turns_per_s": round(turns / wall, 1),
        "requests_per_s": round(requests / wall, 1),
        "loop_lag_ms": {"p50": round(statistics.median(lags) * 1e3, 2),
                        "p99": round(lags[int(len(lags) * 0.99)] * 1e3, 2),
                        "max": round(lags[-1] * 1e3, 2)},
        "events": {"published": published, "delivered": received, "coalesced": coalesced,
                   "dropped": published - received - coalesced},
        "rss_mb_by_turn": memory,
        "rss_growth_mb_after_warmup": round(last - first, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--myses", type=int, default=16)
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--big-myses", type=int, default=100)
    parser.add_argument("--big-turns", type=int, default=2_000)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "swarm.json")
    args = parser.parse_args()
    report = {"benchmark": "swarm", "python": platform.python_version(),
              "model": "autopilot (rule-based)", "clock": "simulated",
              "runs": [asyncio.run(run(args.myses, args.turns)),
                       asyncio.run(run(args.big_myses, args.big_turns))],
              "targets": {"loop_lag_p99_ms": 20, "dropped_events": 0}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for r in report["runs"]:
        print(f"{r['myses']:4} Myses: {r['turns']} turns in {r['wall_s']} s "
              f"({r['turns_per_s']} turns/s, {r['requests_per_s']} requests/s); loop lag p99 "
              f"{r['loop_lag_ms']['p99']} ms; events dropped {r['events']['dropped']}; "
              f"RSS growth after warm-up {r['rss_growth_mb_after_warmup']} MB")


if __name__ == "__main__":
    main()

"""Soak: 16 Myses on the embedded default, in real time, for a long while.

The default configuration (1 s ticks, 30 s idle nudges) and the built-in
autopilot, on a real clock, as a newcomer would run it — only without the UI.
Samples every minute: RSS, event-loop lag, database size, requests per
minute, and every composed request is validated. Writes bench/results/soak.json.

Usage: python bench/soak.py [--minutes 30] [--myses 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.config import Config  # noqa: E402
from zoea_tui.orchestrator.commander import Commander  # noqa: E402
from zoea_tui.orchestrator.events import RequestComposed  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


async def soak(minutes: float, myses: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="zoea-soak-") as tmp:
        db = Path(tmp) / "soak.db"
        commander = await Commander.open(Config(), db_path=db, starter_swarm=False)
        sub = commander.bus.subscribe()
        counts = {"requests": 0, "invalid": 0}
        lags: list[float] = []

        async def reader() -> None:
            async for event in sub:
                if isinstance(event, RequestComposed) and not event.preview:
                    counts["requests"] += 1
                    counts["invalid"] += int(not event.valid)

        async def heartbeat() -> None:
            loop = asyncio.get_running_loop()
            while True:
                start = loop.time()
                await asyncio.sleep(0.05)
                lags.append(max(0.0, loop.time() - start - 0.05))

        tasks = [asyncio.create_task(reader()), asyncio.create_task(heartbeat())]
        for i in range(myses):
            await commander.create_mysis(f"soak{i:02d}")
        samples = []
        started = time.monotonic()
        last_requests = 0
        while time.monotonic() - started < minutes * 60:
            await asyncio.sleep(min(60, minutes * 60))
            window = sorted(lags)
            lags.clear()
            size = sum(p.stat().st_size for p in Path(tmp).glob("soak.db*"))
            samples.append(
                {
                    "minute": round((time.monotonic() - started) / 60, 1),
                    "rss_mb": round(rss_mb(), 1),
                    "db_mb": round(size / 1e6, 2),
                    "requests_per_min": counts["requests"] - last_requests,
                    "loop_lag_p99_ms": round(window[int(len(window) * 0.99)] * 1e3, 2)
                    if window
                    else None,
                    "states": commander.state_counts(),
                }
            )
            last_requests = counts["requests"]
            print(json.dumps(samples[-1]), flush=True)
        score = commander.backend.host.world.score()["total"]
        await commander.shutdown()
        for task in tasks:
            task.cancel()
    hours = max(samples[-1]["minute"] / 60, 1e-9)
    warm = samples[min(2, len(samples) - 1)]
    return {
        "minutes": minutes,
        "myses": myses,
        "samples": samples,
        "requests": counts["requests"],
        "invalid_requests": counts["invalid"],
        "requests_per_min_mean": round(statistics.mean(s["requests_per_min"] for s in samples), 1),
        "rss_growth_mb_after_warmup": round(samples[-1]["rss_mb"] - warm["rss_mb"], 1),
        "db_mb_per_hour": round(samples[-1]["db_mb"] / hours, 2),
        "loop_lag_p99_ms_max": max((s["loop_lag_p99_ms"] or 0) for s in samples),
        "score": score,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--myses", type=int, default=16)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "soak.json")
    args = parser.parse_args()
    report = {
        "benchmark": "soak",
        "python": platform.python_version(),
        **asyncio.run(soak(args.minutes, args.myses)),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(
        f"{args.myses} Myses for {args.minutes} min: {report['requests']} requests "
        f"({report['invalid_requests']} invalid), {report['requests_per_min_mean']}/min; "
        f"RSS growth {report['rss_growth_mb_after_warmup']} MB; DB "
        f"{report['db_mb_per_hour']} MB/h; loop lag p99 ≤ {report['loop_lag_p99_ms_max']} ms"
    )


if __name__ == "__main__":
    main()

"""World benchmark: tool calls per second through the full MCP path.

16 concurrent game sessions (``GameSession`` → SDK client → low-level MCP
server → ``WorldHost`` → ``World``), in-process and over Streamable HTTP on
loopback. Each session registers, then repeats a mix of read calls
(``get_status``, ``get_cargo``, ``get_system``, ``view_market``, ``get_poi``);
reads never wait for a tick, so the figure is the path's cost, not the game's
pacing. Writes bench/results/world.json.

Usage: python bench/world.py [--sessions 16] [--calls 200] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.game.connect import http_connector, in_process_connector  # noqa: E402
from zoea_tui.game.session import GameSession  # noqa: E402
from zoea_tui.sim.host import WorldHost  # noqa: E402
from zoea_tui.sim.mcp_server import in_process_server  # noqa: E402
from zoea_tui.sim.serve import HttpWorldServer  # noqa: E402

READS = ("get_status", "get_cargo", "get_system", "view_market", "get_poi")


async def _drive(sessions: list[GameSession], calls: int) -> dict:
    async def one(index: int, session: GameSession) -> list[float]:
        await session.call("register", {"username": f"bench{index:03d}", "empire": "solarian"})
        latencies: list[float] = []
        for i in range(calls):
            start = time.perf_counter()
            await session.call(READS[i % len(READS)])
            latencies.append(time.perf_counter() - start)
        return latencies

    for session in sessions:  # connect and list tools first: steady state only
        await session.list_tools()
    start = time.perf_counter()
    results = await asyncio.gather(*(one(i, s) for i, s in enumerate(sessions)))
    wall = time.perf_counter() - start
    latencies = sorted(x for r in results for x in r)
    total = len(latencies) + len(sessions)
    return {
        "sessions": len(sessions),
        "calls": total,
        "wall_s": round(wall, 3),
        "calls_per_s": round(total / wall, 1),
        "latency_ms": {
            "p50": round(statistics.median(latencies) * 1e3, 3),
            "p95": round(latencies[int(len(latencies) * 0.95)] * 1e3, 3),
        },
    }


async def in_process(n: int, calls: int) -> dict:
    host = WorldHost.open(seed=1, tick_seconds=0)
    sessions = [
        GameSession(in_process_connector(lambda: in_process_server(host))) for _ in range(n)
    ]
    try:
        return await _drive(sessions, calls)
    finally:
        for s in sessions:
            await s.aclose()


async def over_http(n: int, calls: int) -> dict:
    host = WorldHost.open(seed=1, tick_seconds=0)
    async with HttpWorldServer(host) as server:
        sessions = [GameSession(http_connector(server.url)) for _ in range(n)]
        try:
            return await _drive(sessions, calls)
        finally:
            for s in sessions:
                await s.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--calls", type=int, default=200, help="calls per session")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "world.json")
    args = parser.parse_args()
    report = {
        "benchmark": "world",
        "python": platform.python_version(),
        "in_process": asyncio.run(in_process(args.sessions, args.calls)),
        "http": asyncio.run(over_http(args.sessions, args.calls // 2)),
        "targets": {"in_process_calls_per_s": 500, "http_calls_per_s": 200},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for name in ("in_process", "http"):
        r = report[name]
        print(
            f"{name:10} {r['sessions']} sessions: {r['calls_per_s']:8.1f} calls/s "
            f"(p50 {r['latency_ms']['p50']} ms, p95 {r['latency_ms']['p95']} ms)"
        )


if __name__ == "__main__":
    main()

"""Arena jobs: a batch played one run at a time, then four side by side, against an
engine with four slots.

The engine is a fake OpenAI-compatible server on loopback (``tests/fakes/llm_servers.py``)
that works on at most four requests at once and answers each after a fixed latency
(``--latency``, default 0.1 s), always with one tool call (``get_status``): every run is
SMBench's budget, 30 requests. The same batch (``--runs`` runs of s2, seeds 0…) is played
with ``--jobs 1`` and ``--jobs 4``; the target (issue 28) is that four jobs take at most
40 % of one job's time. Writes ``bench/results/arena_jobs.json``.

Usage: python bench/arena_jobs.py [--runs N] [--latency S] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.llm_servers import Call, FakeOpenAIServer, RecordedRequest, Reply  # noqa: E402
from zoea_tui.arena.runner import run_arena  # noqa: E402
from zoea_tui.arena.scenarios import SCENARIOS  # noqa: E402
from zoea_tui.config import Config, ProviderConfig  # noqa: E402

SLOTS = 4


class SlotServer(FakeOpenAIServer):
    """A fake engine with :data:`SLOTS` slots: a chat request waits for a free one."""

    def __init__(self, slots: int) -> None:
        super().__init__()
        self.slots = slots
        self._free: asyncio.Semaphore | None = None
        self.busy = 0
        self.most = 0

    async def _respond(self, request: RecordedRequest, conn: Any) -> None:
        if not self._is_chat(request):
            await super()._respond(request, conn)
            return
        if self._free is None:
            self._free = asyncio.Semaphore(self.slots)
        async with self._free:
            self.busy += 1
            self.most = max(self.most, self.busy)
            try:
                await super()._respond(request, conn)
            finally:
                self.busy -= 1


async def batch(config: Config, runs: int, jobs: int) -> tuple[float, list[float]]:
    """Wall time of the batch and each run's score."""
    started = time.perf_counter()
    results = await run_arena(
        config,
        [SCENARIOS["s2"]],
        provider="engine",
        strategies=["turn-aware"],
        runs=runs,
        jobs=jobs,
    )
    return time.perf_counter() - started, [r.score for r in results]


def main() -> None:
    """Run both batches and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "arena_jobs.json")
    args = parser.parse_args()
    server = SlotServer(SLOTS)
    server.default = Reply("", tool_calls=[Call("get_status", {})], delay=args.latency)
    with server.running_in_thread():
        engine = ProviderConfig("engine", "openai", endpoint=server.url, model="m")
        base = Config()
        config = replace(base, providers={**base.providers, "engine": engine})
        one, scores_one = asyncio.run(batch(config, args.runs, 1))
        four, scores_four = asyncio.run(batch(config, args.runs, 4))
    ratio = four / one
    report = {
        "benchmark": "arena_jobs",
        "engine": f"fake OpenAI-compatible server on loopback, {SLOTS} slots, "
        f"{args.latency} s a request, always one tool call",
        "scenario": "s2-navigation",
        "budget": "smbench (30 requests a run)",
        "runs": args.runs,
        "requests": len(server.chat_requests),
        "most_at_once": server.most,
        "jobs_1_s": round(one, 2),
        "jobs_4_s": round(four, 2),
        "ratio": round(ratio, 3),
        "target_ratio": 0.4,
        "meets_target": ratio <= 0.4,
        "same_scores": scores_one == scores_four,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("jobs_1_s", "jobs_4_s", "ratio", "meets_target")}))


if __name__ == "__main__":
    main()

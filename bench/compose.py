"""Composer benchmark: load + compose cost by history size, and prompt tokens per strategy.

Part 1 stores one Mysis with 1 000 … 1 000 000 memories in a real SQLite file
and times ``Store.load_history`` + ``compose`` per strategy (median and p95).
Part 2 builds a 500-step game history from the real SMBench play logs in
``shared/data`` (their command sequences, error texts and result sizes),
imports it, and recomposes the request after every step under every strategy
(``up_to_id``, the path ``zoea replay`` uses) against sending the full history.

Usage: python bench/compose.py [--sizes 1000,10000,...] [--runs N] [--out FILE]
       python bench/compose.py --tokens-only   (part 2 only; part 1 kept from --out)
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.core.cache import ReuseTally  # noqa: E402
from zoea_tui.core.compose import compose  # noqa: E402
from zoea_tui.core.composition import ComposeSettings  # noqa: E402
from zoea_tui.core.strategies import STRATEGIES  # noqa: E402
from zoea_tui.core.tokens import (  # noqa: E402
    MESSAGE_OVERHEAD,
    TOOL_CALL_OVERHEAD,
    count_tokens,
    encoding_name,
)
from zoea_tui.core.types import ToolCall  # noqa: E402
from zoea_tui.core.validator import validate  # noqa: E402
from zoea_tui.orchestrator.context import next_composition  # noqa: E402
from zoea_tui.storage import NewMemory, Store  # noqa: E402

CACHE = ROOT / "bench" / ".cache"
DATA = ROOT.parent / "shared" / "data" / "smbench-run2"
WORDS = (
    "iron_ore",
    "copper_ore",
    "credits",
    "fuel",
    "hull",
    "sol",
    "main_belt",
    "station",
    "cargo",
    "quantity",
    "price_each",
    "remaining",
    "system",
    "poi",
    "player",
    "ship",
    "shield",
    "speed",
    "market",
    "nickel_ore",
    "titanium",
    "jump",
    "travel",
    "tick",
)


def filler(size: int, seed: int) -> str:
    """JSON-looking text of ``size`` characters that tokenises like a game result."""
    rng = random.Random(seed)
    parts = ['{"result": {']
    length = len(parts[0])
    while length < size - 3:
        word = f'"{rng.choice(WORDS)}": {rng.randint(0, 99999)}, '
        parts.append(word)
        length += len(word)
    return ("".join(parts) + "}}")[:size]


def game_steps() -> list[dict]:
    """The LLM-call steps of the play logs: each with its tool calls and results."""
    steps: list[dict] = []
    for path in sorted(glob.glob(str(DATA / "*.jsonl"))):
        current: dict | None = None
        for line in Path(path).read_text().splitlines():
            event = json.loads(line)
            kind = event.get("event")
            if kind == "llm_call":
                current = {"calls": []}
                steps.append(current)
            elif kind in ("tool_call", "tool_error") and current is not None:
                current["calls"].append(event)
    return [s for s in steps if s["calls"]]


def game_history(steps: int) -> list[NewMemory]:
    """A ``steps``-step conversation: commander orders every 25 steps, real calls."""
    memories: list[NewMemory] = []
    orders = [
        "Mine ore at the nearest belt and sell it.",
        "Report your status and cargo.",
        "All Myses: refuel, then head for the richest belt.",
        "Keep a captain's log.",
    ]
    for index, step in enumerate(game_steps()[:steps]):
        if index % 25 == 0:
            source = "broadcast" if index % 50 else "direct"
            memories.append(NewMemory("user", source, orders[(index // 25) % len(orders)]))
        calls = tuple(
            ToolCall(f"call_{index}_{n}", e["command"], json.dumps(e.get("args", {})))
            for n, e in enumerate(step["calls"])
        )
        memories.append(NewMemory("assistant", "llm", "", tool_calls=calls))
        for call, event in zip(calls, step["calls"], strict=True):
            if event["event"] == "tool_error":
                content = event["error"]
            else:
                content = filler(int(event.get("result_chars") or 20), hash(call.id) & 0xFFFF)
            memories.append(
                NewMemory("tool", "tool", content, tool_call_id=call.id, tool_name=call.name)
            )
    return memories


def summary_every(memories: list[NewMemory], settings: ComposeSettings) -> int:
    """How many memories lie between two summaries of a live ``summarize`` Mysis.

    A summary is written when the request would pass ``min(summarize_threshold,
    budget)`` tokens: with the default 32 768-token window that is the budget, not
    the 200 000 threshold. The sized histories carry a summary that often, and the
    measured loads see half a cycle since the latest one.
    """
    per_memory = statistics.mean(
        MESSAGE_OVERHEAD
        + count_tokens(m.content)
        + sum(count_tokens(c.arguments) + TOOL_CALL_OVERHEAD for c in m.tool_calls)
        for m in memories
    )
    trigger = min(settings.summarize_threshold, settings.budget)
    return max(10, int(trigger / per_memory))


SUMMARY = NewMemory(
    "user",
    "summary",
    "Summary of your earlier conversation:\n\n"
    + filler(2400, 7)
    + "\n\nLast request from user was: Mine and sell.",
)


async def sized_store(size: int) -> tuple[Store, int]:
    """A cached database holding one Mysis with ``size`` memories."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"compose-v4-{size}.db"
    if not path.exists():
        partial = path.with_suffix(".partial")
        for leftover in CACHE.glob(f"compose-v4-{size}.partial*"):
            leftover.unlink()
        store = await Store.open(partial)
        base = game_history(500)
        every = summary_every(base, ComposeSettings())
        chunk: list[NewMemory] = []
        written = 0
        while written < size:
            for memory in base:
                # Mid-cycle: the loads measured see half a cycle since the summary.
                chunk.append(SUMMARY if written % every == every // 2 else memory)
                written += 1
                if written == size:
                    break
            if len(chunk) >= 50_000 or written == size:
                await store.import_conversation("bench", chunk)
                chunk = []
        await store.close()
        for suffix in ("-wal", "-shm"):
            Path(str(partial) + suffix).unlink(missing_ok=True)
        partial.rename(path)
    store = await Store.open(path)
    mysis = await store.find_mysis("bench")
    assert mysis is not None
    return store, mysis.id


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)]


async def bench_sizes(sizes: list[int], runs: int) -> dict:
    settings = ComposeSettings()
    results: dict = {}
    for size in sizes:
        store, mysis_id = await sized_store(size)
        async with store:
            per_strategy = {}
            for strategy in STRATEGIES:
                for _ in range(5):  # warm the page cache and token caches
                    compose(
                        await store.load_history(mysis_id, settings, strategy=strategy),
                        strategy,
                        settings,
                    )
                times = []
                for _ in range(runs):
                    start = time.perf_counter()
                    history = await store.load_history(mysis_id, settings, strategy=strategy)
                    compose(history, strategy, settings)
                    times.append((time.perf_counter() - start) * 1000)
                per_strategy[strategy] = {
                    "median_ms": round(statistics.median(times), 3),
                    "p95_ms": round(percentile(times, 0.95), 3),
                    "max_ms": round(max(times), 3),
                }
            results[str(size)] = per_strategy
        print(
            f"size {size:>9,}: "
            + ", ".join(
                f"{s} {v['median_ms']:.2f}/{v['p95_ms']:.2f} ms" for s, v in per_strategy.items()
            ),
            flush=True,
        )
    if len(sizes) > 1:
        small, large = str(sizes[0]), str(sizes[-1])
        results["ratio_largest_to_smallest"] = {
            s: round(results[large][s]["median_ms"] / results[small][s]["median_ms"], 3)
            for s in STRATEGIES
        }
    return results


async def bench_tokens(steps: int) -> dict:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / "tokens.db"
    path.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    store = await Store.open(path)
    async with store:
        memories = game_history(steps)
        mysis, _ = await store.import_conversation("game", memories)
        stored = [m async for m in store.iter_memories(mysis.id)]
        # A request is composed after every step (after the step's last result).
        ends = [
            m.id
            for i, m in enumerate(stored)
            if m.role == "tool" and (i + 1 == len(stored) or stored[i + 1].role != "tool")
        ]
        settings = ComposeSettings(context_window=200_000, reserve_tokens=4096)
        full = ComposeSettings(
            max_context_messages=10**6,
            context_window=10**9,
            tool_result_max_tokens=10**9,
            summarize_threshold=0,
        )
        series: dict[str, list[int]] = {s: [] for s in STRATEGIES}
        series["full-history"] = []
        tallies = {s: ReuseTally() for s in STRATEGIES}
        violations = 0
        for end in ends:
            for strategy in STRATEGIES:
                if strategy == "summarize":
                    continue
                history = await store.load_history(
                    mysis.id, settings, strategy=strategy, up_to_id=end
                )
                composition = compose(history, strategy, settings)
                violations += bool(validate(composition.messages))
                series[strategy].append(composition.tokens)
                tallies[strategy].add(0, composition.messages)
            history = await store.load_history(mysis.id, full, up_to_id=end)
            series["full-history"].append(compose(history, "sliding-window", full).tokens)
        series["summarize"], summaries, bad = await live_summarize(
            memories, settings, tallies["summarize"]
        )
        violations += bad
    n = len(ends)
    report: dict = {
        "steps": n,
        "memories": len(stored),
        "violations": violations,
        "summaries_written": summaries,
        "encoding": encoding_name(),
        "per_strategy": {},
    }
    final_full = series["full-history"][-1]
    for name, values in series.items():
        early = values[min(99, n - 1) : min(150, n)]
        late = values[max(n - 50, 0) :]
        report["per_strategy"][name] = {
            "mean": round(statistics.mean(values)),
            "p50": round(statistics.median(values)),
            "p95": round(percentile(values, 0.95)),
            "max": max(values),
            "at_end": values[-1],
            "end_vs_full_history": round(values[-1] / final_full, 4),
            "total_vs_full_history": round(sum(values) / sum(series["full-history"]), 4),
            "mean_steps_100_150": round(statistics.mean(early)) if early else None,
            "mean_last_50_steps": round(statistics.mean(late)) if late else None,
            **(tallies[name].report() if name in tallies else {}),
        }
    for name, row in report["per_strategy"].items():
        reuse = row.get("prefix_reuse", {}).get("median")
        print(
            f"{name:>20}: end {row['at_end']:>8,} tok ({row['end_vs_full_history']:.1%} of full)"
            f", p95 {row['p95']:>7,}, steps 100-150 mean {row['mean_steps_100_150']}, "
            f"last 50 mean {row['mean_last_50_steps']}, prefix reuse median {reuse}",
            flush=True,
        )
    return report


async def live_summarize(
    memories: list[NewMemory], settings: ComposeSettings, tally: ReuseTally
) -> tuple[list[int], int, int]:
    """``summarize`` played forward: summaries are written as they fall due.

    Returns the tokens of the request after each step, how many summaries
    were written and how many requests broke a rule.
    """
    path = CACHE / "summarize.db"
    path.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    tokens: list[int] = []
    bad = 0
    async with await Store.open(path) as store:
        mysis = await store.create_mysis("live", strategy="summarize")
        step: list[NewMemory] = []
        for index, memory in enumerate(memories):
            step.append(memory)
            following = memories[index + 1] if index + 1 < len(memories) else None
            if memory.role != "tool" or (following is not None and following.role == "tool"):
                continue
            await store.add_memories(mysis.id, step)
            step = []
            composition = await next_composition(store, mysis.id, "summarize", settings)
            bad += bool(validate(composition.messages))
            tokens.append(composition.tokens)
            tally.add(0, composition.messages)
        async with store.connection.execute(
            "SELECT COUNT(*) FROM memories WHERE source = 'summary'"
        ) as cur:
            row = await cur.fetchone()
    return tokens, int(row[0]) if row else 0, bad


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "compose.json")
    parser.add_argument(
        "--tokens-only",
        action="store_true",
        help="run part 2 only and keep part 1's figures from --out",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.tokens_only:
        timings = json.loads(args.out.read_text())["load_and_compose"]
    else:
        timings = await bench_sizes(sizes, args.runs)
    report = {
        "benchmark": "compose",
        "python": sys.version.split()[0],
        "clock": "real (perf_counter); part 2 counts tokens, no clock",
        "load_average_before": list(os.getloadavg()),
        "load_and_compose": timings,
        "game_history_tokens": await bench_tokens(args.steps),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    asyncio.run(main())

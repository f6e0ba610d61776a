"""Why a request missed the engine's prompt cache: the engine's tokenizer, no evaluation.

For each strategy (and ``tools = "full"``), an autopilot game's requests are recomposed
byte for byte as Zoea sent them (as in ``bench/engine.py``), rendered by llama-server's
own chat template (``POST /apply-template``) and tokenized by it (``POST /tokenize``).
On one slot the engine reuses the longest common token prefix of a request with the one
before, and then, when the request asks for it (``n_cache_reuse``, the provider's
``cache_reuse``), each further run of at least that many tokens of the request that it
finds later in its cache, moved into place (``tools/server/server-context.cpp``; its loop
is repeated token for token by ``core.cache.served_from_cache``). Both are computed here
(``timings.cache_n``), with the first message where the request departs from the one
before and what that message was. On the measured runs of ``bench/engine.py``
(``replay/turn-aware/compact``, 60 requests, with ``cache_reuse`` 256 and 0) the
prediction gave the engine's ``prompt_n + cache_n`` and ``cache_n`` exactly for every
request, in seconds instead of the evaluation's many minutes. Several slots, several
Myses and the engine's RAM prompt cache are not modelled: those figures come from
``bench/engine.py`` only.

Writes ``bench/results/engine_prefix.json``: per scenario the cache share after the first
request (mean, median, worst, of all tokens), the engine's count against Zoea's calibrated
estimate (``EngineFit``, learning from each count as the swarm does), and per request:
prompt tokens, predicted cached tokens, the message the prefix broke at and why.

With ``--bodies FILE ...`` it reads request bodies recorded by ``bench/cache.py --save``
(a scripted session that re-reads four snapshots every turn) instead of playing autopilot
games, and gives each file's cache share by the same loop, with ``n_cache_reuse`` 256 and
with the prefix only.

Usage: python bench/engine_prefix.py [--requests N] [--out FILE]
       python bench/engine_prefix.py --bodies FILE ... --out FILE
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cache import served_shares  # noqa: E402
from engine import (  # noqa: E402
    STRATEGIES,
    Scenario,
    autopilot_game,
    build_server,
    llama_server,
)

from zoea_tui.core.cache import served_from_cache  # noqa: E402
from zoea_tui.orchestrator.calibration import EngineFit  # noqa: E402
from zoea_tui.providers.base import ChatRequest, ProviderSettings, Usage  # noqa: E402
from zoea_tui.providers.local import find_model_path  # noqa: E402
from zoea_tui.providers.openai_compat import request_body  # noqa: E402


def _break(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Where ``after`` stops being ``before`` plus new messages (None: it extends it)."""
    same = 0
    while same < min(len(before), len(after)) and before[same] == after[same]:
        same += 1
    if same == len(before):
        return None
    was, now = before[same], after[same] if same < len(after) else None
    return {
        "message": same,
        "was": f"{was['role']}: {str(was.get('content') or '')[:90]}",
        "now": f"{now['role']}: {str(now.get('content') or '')[:90]}" if now else None,
    }


async def predict(url: str, play: Scenario, requests: int, folder: Path) -> dict[str, Any]:
    played = await autopilot_game(play, requests, folder)
    settings = ProviderSettings(temperature=0.0, max_tokens=1)
    fit, engine = EngineFit(), ("engine", "smollm2")
    rows: list[list[Any]] = []
    errors: list[float] = []
    last: dict[str, tuple[list[int], list[dict[str, Any]]]] = {}
    async with httpx.AsyncClient(timeout=120.0) as client:
        for who, composition in played.requests:
            messages = list(composition.messages)
            body = request_body(ChatRequest(messages, played.tools, settings, stream=False), "x")
            prompt = (await client.post(f"{url}/apply-template", json=body)).json()["prompt"]
            counted = await client.post(
                f"{url}/tokenize",
                json={"content": prompt, "add_special": True, "parse_special": True},
            )
            tokens = counted.json()["tokens"]
            scale = fit.scale(engine)
            estimate = round(composition.estimated_tokens * scale)
            if scale != 1.0:
                errors.append(abs(estimate - len(tokens)) / len(tokens))
            fit.observe(engine, object(), composition, Usage(prompt_tokens=len(tokens)))  # type: ignore[arg-type]
            cached = prefix = 0
            broke = None
            if who in last:
                before, sent = last[who]
                prefix = min(served_from_cache(before, tokens, 0), len(tokens) - 1)
                # The engine evaluates the prompt's last token whatever it holds.
                cached = min(served_from_cache(before, tokens, play.cache_reuse), len(tokens) - 1)
                broke = _break(sent, messages)
            last[who] = (tokens, messages)
            rows.append([who, len(tokens), cached, prefix, estimate, broke])
    return {"cache_reuse": play.cache_reuse, **report(rows, errors, played.tools)}


def report(rows: list[list[Any]], errors: list[float], tools: list[Any]) -> dict[str, Any]:
    later = rows[1:]
    shares = [r[2] / r[1] for r in later]
    prefix_shares = [r[3] / r[1] for r in later]
    return {
        "tools_offered": len(tools),
        "requests": len(rows),
        "prompt_tokens": {
            "mean": round(statistics.fmean(r[1] for r in rows)),
            "first": rows[0][1],
            "max": max(r[1] for r in rows),
        },
        "cache_share_after_first": {
            "mean": round(statistics.fmean(shares), 4),
            "median": round(statistics.median(shares), 4),
            "worst": round(min(shares), 4),
            "of_all_tokens": round(sum(r[2] for r in later) / sum(r[1] for r in later), 4),
        },
        "cache_share_after_first_prefix_only": {
            "mean": round(statistics.fmean(prefix_shares), 4),
            "median": round(statistics.median(prefix_shares), 4),
            "worst": round(min(prefix_shares), 4),
        },
        "requests_that_rewrote_their_prefix": sum(r[5] is not None for r in later),
        "estimate_vs_engine_after_first_count": {
            "mean_abs_error": round(statistics.fmean(errors), 4),
            "worst_abs_error": round(max(errors), 4),
            "within_5_percent": sum(x <= 0.05 for x in errors),
            "of": len(errors),
        },
        "per_request": {
            "columns": [
                "mysis",
                "prompt_tokens",
                "cached_tokens",
                "prefix_tokens",
                "zoea_estimate",
                "broke",
            ],
            "rows": rows,
        },
    }


async def recorded(url: str, bodies: list[dict[str, Any]], chunk: int) -> dict[str, Any]:
    """The engine's tokens of recorded request bodies, and the share of each request after
    the first that one slot holding the request before serves (``chunk``: its
    ``n_cache_reuse``; and the prefix only)."""
    tokens: list[list[int]] = []
    async with httpx.AsyncClient(timeout=120.0) as client:
        for body in bodies:
            sent = {"messages": body["messages"], "tools": body.get("tools") or []}
            prompt = (await client.post(f"{url}/apply-template", json=sent)).json()["prompt"]
            counted = await client.post(
                f"{url}/tokenize",
                json={"content": prompt, "add_special": True, "parse_special": True},
            )
            tokens.append(counted.json()["tokens"])
    out: dict[str, Any] = {
        "requests": len(bodies),
        "prompt_tokens_mean": round(statistics.fmean(len(t) for t in tokens)),
    }
    for name, reuse in ((f"n_cache_reuse_{chunk}", chunk), ("prefix_only", 0)):
        out[name] = served_shares(tokens, reuse, evaluates_one=True)
    return out


async def run_recorded(files: list[Path]) -> dict[str, Any]:
    """``--bodies``: the recorded sessions' cache shares on one slot."""
    folder = build_server()
    gguf = find_model_path("smollm2-135m")
    out: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="zoea-bench-prefix-") as tmp,
        llama_server(folder, gguf, slots=1, log=Path(tmp) / "server.log", threads=1) as url,
    ):
        for path in files:
            out[path.name] = await recorded(url, json.loads(path.read_text()), 256)
            print(json.dumps({path.name: out[path.name]}), flush=True)
    return {
        "engine": "llama-server's /apply-template and /tokenize (SmolLM2, Qwen2.5 template)",
        "model": gguf.name,
        "source": "request bodies recorded by bench/cache.py --save",
        "sessions": out,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = build_server()
    gguf = find_model_path("smollm2-135m")
    plays = [
        *(Scenario(f"{s}/compact", strategy=s) for s in STRATEGIES),
        Scenario("turn-aware/full", tools="full"),
    ]
    out: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="zoea-bench-prefix-") as tmp,
        llama_server(folder, gguf, slots=1, log=Path(tmp) / "server.log", threads=1) as url,
    ):
        for play in plays:
            work = Path(tmp) / play.name.replace("/", "_")
            work.mkdir()
            out[play.name] = await predict(url, play, args.requests, work)
            brief = {k: v for k, v in out[play.name].items() if k != "per_request"}
            print(json.dumps({play.name: brief}), flush=True)
    return {
        "engine": "llama-server's /apply-template and /tokenize (SmolLM2, Qwen2.5 template)",
        "model": gguf.name,
        "requests_per_scenario": args.requests,
        "scenarios": out,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "engine_prefix.json"
    )
    parser.add_argument("--bodies", type=Path, nargs="+", help="recorded request bodies")
    args = parser.parse_args()
    report_ = asyncio.run(run_recorded(args.bodies) if args.bodies else run(args))
    args.out.write_text(json.dumps(report_, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""Anthropic prompt-cache benchmark: what a 16-Mysis swarm on Claude pays for its prompts,
with and without the ``anthropic`` provider's cache breakpoints.

``zoea simulate`` plays a swarm of Myses on the embedded world against the loopback
Messages API of the tests (``tests/fakes/anthropic_api.py``, every request checked by the
``anthropic`` SDK's ``MessageCreateParams``), through the real ``anthropic`` provider and
the real composer. Its model is scripted by the request: a Mysis's first answer registers
it under the name the game-state note gives; every later turn is three rounds of game
calls (status; cargo and system; a POI look) and a one-line answer, so each request of a
turn is the one before plus the calls and their results, as a model's turns are.

The requests, as sent, are then priced by the simulated Anthropic cache
(``AnthropicCache``: prefix match at breakpoints, a 20-block lookback, a 5-minute TTL
renewed by each read, 1 024 tokens at least; tokens counted with the cl100k estimate, not
Claude's own tokenizer) on a modelled clock: a Mysis's requests ``--latency`` seconds
apart within a turn (an answer and its game calls), a new turn ``--nudge`` seconds after
the last (the nudge's idle wait), the Myses staggered by a second. Each request is priced
with its breakpoints as placed by the provider's rules (``providers/anthropic.py``
``RULES``): none (what a swarm pays without them: every prompt token in full), the
system prompt only, the system prompt and the last block, and all four as sent.

Reported per rule set: the share of each Mysis's prompt tokens read from the cache after
its first request (median and worst Mysis; target ≥ 85 %), what each Mysis's first
request read (the second Mysis's reads the shared tools and system prompt), and the
prompt's cost relative to no cache (reads at 0.1, writes at 1.25 of an input token).
Writes bench/results/anthropic_cache.json.

Usage: python bench/anthropic_cache.py [--myses 16] [--turns 10] [--strategy turn-aware]
                                      [--latency 8] [--nudge 30]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes import Call, Reply  # noqa: E402
from tests.fakes.anthropic_api import (  # noqa: E402
    AnthropicCache,
    FakeAnthropicServer,
    RecordedRequest,
    _Connection,
)
from zoea_tui.core.pricing import Prices  # noqa: E402
from zoea_tui.core.tokens import count_tokens  # noqa: E402
from zoea_tui.providers.anthropic import RULES, place_breakpoints  # noqa: E402

MODEL = "claude-bench"
#: A turn's rounds of calls before its one-line answer.
ROUNDS = (
    [Call("get_status", {})],
    [Call("get_cargo", {}), Call("get_system", {})],
    [Call("get_poi", {})],
)
#: What a cache read and a cache write cost, in input tokens (Anthropic's prices).
READ_RATE, WRITE_RATE = 0.1, 1.25
#: The rule sets priced: none, then each rule added in the provider's order.
RULE_SETS = {"none": (), **{"+".join(RULES[:n]): RULES[:n] for n in range(1, len(RULES) + 1)}}
_NAME = re.compile(r"sim-\d+")


def mysis_of(body: dict[str, Any]) -> str:
    """The Mysis a request is from: the name its game-state note gives (``sim-NN``)."""
    found = _NAME.search(json.dumps(body.get("messages")))
    return found.group(0) if found else "?"


def turn_starts(body: dict[str, Any]) -> bool:
    """Whether the request opens a turn: its last message holds text (a nudge or the
    commander's words), not only the results of calls."""
    last = (body.get("messages") or [{}])[-1]
    return any(b.get("type") == "text" for b in last.get("content") or ())


class ScriptedClaude(FakeAnthropicServer):
    """The loopback Messages API with a model that answers by the request (see above)."""

    async def _respond(self, request: RecordedRequest, conn: _Connection) -> None:
        if self._is_chat(request):
            self.script(self.answer(request.json()))
        await super()._respond(request, conn)

    @staticmethod
    def answer(body: dict[str, Any]) -> Reply:
        """The scripted model's answer to ``body``."""
        turns = body.get("messages") or []
        called = any(b.get("type") == "tool_use" for t in turns for b in t.get("content") or ())
        if not called:
            name = mysis_of(body)
            return Reply(
                "", tool_calls=[Call("register", {"username": name, "empire": "solarian"})]
            )
        # Rounds of this turn so far: assistant messages after the turn's opening.
        rounds = 0
        for turn in reversed(turns):
            if turn["role"] == "assistant":
                rounds += 1
            elif any(b.get("type") == "text" for b in turn["content"]):
                break
        if rounds < len(ROUNDS):
            return Reply("", tool_calls=list(ROUNDS[rounds]))
        return Reply("Looked around; credits and cargo unchanged.")


def play(
    myses: int, turns: int, workdir: Path, strategy: str = "turn-aware"
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run ``zoea simulate`` on the scripted Messages API; its request bodies, in the
    order they arrived, and simulate's report."""
    server = ScriptedClaude(models=[MODEL])
    with server.running_in_thread():
        config = workdir / "claude.toml"
        config.write_text(
            f'[providers.claude]\ntype = "anthropic"\nendpoint = "{server.url}"\n'
            f'model = "{MODEL}"\ncontext_window = 200000\n'
        )
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "zoea_tui.cli",
                "simulate",
                "--myses",
                str(myses),
                "--turns",
                str(turns),
                "--provider",
                "claude",
                "--strategy",
                strategy,
                "--config",
                str(config),
                "--db",
                str(workdir / "bench.db"),
                "--json",
            ],
            cwd=workdir,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
    if done.returncode != 0:
        raise SystemExit(f"simulate failed: {done.stderr.strip()[-2000:]}")
    if server.refused:
        raise SystemExit(f"the API refused {len(server.refused)} requests: {server.refused[0]}")
    return [r.json() for r in server.chat_requests], json.loads(done.stdout)


def unmarked(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` without its breakpoints."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "cache_control"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    stripped: dict[str, Any] = strip(copy.deepcopy(body))
    return stripped


def schedule(bodies: list[dict[str, Any]], latency: float, nudge: float) -> list[tuple[float, int]]:
    """Each request's time on the modelled clock, and its index, in time order."""
    clock: dict[str, float] = {}
    order: list[str] = []
    timed = []
    for index, body in enumerate(bodies):
        mysis = mysis_of(body)
        if mysis not in clock:
            order.append(mysis)
            clock[mysis] = float(len(order) - 1)  # staggered by a second
        else:
            clock[mysis] += latency + (nudge if turn_starts(body) else 0.0)
        timed.append((clock[mysis], index))
    return sorted(timed)


def price(
    bodies: list[dict[str, Any]], rules: tuple[str, ...], latency: float, nudge: float
) -> dict[str, Any]:
    """The swarm's prompts billed by the simulated cache with ``rules``' breakpoints."""
    cache = AnthropicCache(count=count_tokens)
    per_mysis: dict[str, list[tuple[int, int, int]]] = {}
    for at, index in schedule(bodies, latency, nudge):
        body = unmarked(bodies[index])
        place_breakpoints(body, rules)
        used = cache.use(body, at)
        per_mysis.setdefault(mysis_of(body), []).append(
            (used.input_tokens, used.read, used.written)
        )
    shares = {}
    firsts = {}
    for mysis, billed in per_mysis.items():
        later = billed[1:]
        prompt = sum(sum(b) for b in later)
        shares[mysis] = sum(b[1] for b in later) / prompt if prompt else 0.0
        fresh, read, written = billed[0]
        firsts[mysis] = {"prompt": fresh + read + written, "read": read, "written": written}
    every = [b for billed in per_mysis.values() for b in billed]
    prompt = sum(sum(b) for b in every)
    # Billed by the app's one pricing, at rates relative to an uncached input token.
    rates = Prices(input=1.0, cached=READ_RATE, cache_write=WRITE_RATE, output=0.0)
    fresh = sum(b[0] for b in every)
    read = sum(b[1] for b in every)
    written = sum(b[2] for b in every)
    cost = rates.cost(uncached=fresh, cache_read=read, cache_write=written) or 0.0
    no_cache = rates.cost(uncached=prompt) or 0.0
    ordered = sorted(per_mysis)
    return {
        "rules": list(rules),
        "read_share_after_first": {
            "median": round(statistics.median(shares.values()), 4),
            "worst": round(min(shares.values()), 4),
            "worst_mysis": min(shares, key=lambda m: shares[m]),
        },
        "first_requests": {m: firsts[m] for m in ordered[:3]},
        "second_mysis_first_read": firsts[ordered[1]]["read"] if len(ordered) > 1 else None,
        "prompt_tokens": prompt,
        "read_tokens": read,
        "written_tokens": written,
        "fresh_tokens": fresh,
        "cost_vs_no_cache": round(cost / no_cache, 4) if no_cache else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--myses", type=int, default=16)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--strategy", default="turn-aware", help="the composer's strategy")
    parser.add_argument(
        "--latency", type=float, default=8.0, help="seconds between a turn's requests"
    )
    parser.add_argument("--nudge", type=float, default=30.0, help="seconds between turns")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "anthropic_cache.json"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        bodies, simulated = play(args.myses, args.turns, Path(folder), args.strategy)
    myses = {mysis_of(b) for b in bodies}
    report: dict[str, Any] = {
        "benchmark": "anthropic_cache",
        "session": f"{args.myses} Myses × {args.turns} turns of zoea simulate "
        f"({args.strategy}), "
        "scripted model (register; then 3 rounds of game calls and a one-line answer per "
        "turn), through the anthropic provider to the loopback Messages API",
        "clock": f"modelled: {args.latency:g} s between a turn's requests, {args.nudge:g} s "
        "more between turns, Myses staggered by 1 s; cache TTL 300 s, minimum 1 024 tokens, "
        "lookback 20 blocks",
        "tokens": "cl100k estimate (zoea_tui.core.tokens.count_tokens) of each block's JSON",
        "requests": len(bodies),
        "myses": len(myses),
        "answered": simulated.get("answered"),
        "violations": simulated.get("violations"),
        "target": "read share after each Mysis's first request >= 0.85 (median and worst)",
        "by_rules": {
            name: price(bodies, rules, args.latency, args.nudge)
            for name, rules in RULE_SETS.items()
        },
        "idle_past_ttl": price(bodies, RULES, args.latency, 330.0),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    for name, priced in report["by_rules"].items():
        share = priced["read_share_after_first"]
        print(
            f"{name:>28}: read share after first median {share['median']:.1%}, worst "
            f"{share['worst']:.1%}; second Mysis's first read "
            f"{priced['second_mysis_first_read']}; cost {priced['cost_vs_no_cache']:.1%} "
            "of no cache",
            flush=True,
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

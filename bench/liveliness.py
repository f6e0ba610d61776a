"""Liveliness benchmark: how much of the time the dashboard shows a Mysis waiting.

The default a newcomer gets (``make run`` on a fresh machine): the starter swarm of three
Myses on the built-in autopilot, the embedded world ticking every second, nudges after
30 s of silence (2 min in a game wait, or the game's own hint). The commander runs
headless on the **real clock** (the world's ticks, trips and the nudge intervals take
their real time; nothing is simulated), and the Myses' views, what the panes draw, are
sampled every ``--every`` seconds for ``--seconds`` (300: five minutes).

A pane shows a Mysis waiting when it reads "waiting · next nudge in …" (its turn ended and
it waits for a prompt or the nudge) or "cooldown · game wait · next nudge in …" (its turn
ended in a wait the game imposed): ``MysisView.next_nudge_at`` is set. The share of
samples with a waiting Mysis is the figure; each activity's share, the turns, the
nudges and the model requests are reported beside it.

Target (issue 29): at most 30 % of the time waiting.

Usage: python bench/liveliness.py [--seconds 300] [--every 0.25] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.config import Config  # noqa: E402
from zoea_tui.game.backend import GameBackend  # noqa: E402
from zoea_tui.orchestrator.commander import Commander  # noqa: E402
from zoea_tui.orchestrator.events import NudgeSent  # noqa: E402

TARGET = 0.30


async def watch(seconds: float, every: float) -> dict[str, Any]:
    """Run the default swarm on the real clock and sample what the panes show."""
    config = Config()
    with tempfile.TemporaryDirectory(prefix="zoea-bench-live-") as folder:
        data = Path(folder)
        backend = GameBackend.from_config(config.game, data_dir=data)
        commander = await Commander.open(config, db_path=data / "zoea.db", backend=backend)
        sub = commander.bus.subscribe(maxsize=100_000)
        nudges = 0
        samples = 0
        waiting = Counter[str]()
        activity = Counter[str]()
        per_mysis: dict[str, Counter[str]] = {}
        try:
            loop = asyncio.get_running_loop()
            start = loop.time()
            next_at = start
            while loop.time() - start < seconds:
                next_at += every
                await asyncio.sleep(max(0.0, next_at - loop.time()))
                for view in commander.myses():
                    samples += 1
                    shown = view.state if view.state != "running" else view.activity
                    activity[shown] += 1
                    mine = per_mysis.setdefault(view.name, Counter())
                    mine["samples"] += 1
                    if view.next_nudge_at is not None:
                        kind = "game wait" if view.waiting_on_game else "idle wait"
                        waiting[kind] += 1
                        mine["waiting"] += 1
                while (event := sub.get_nowait()) is not None:
                    nudges += isinstance(event, NudgeSent)
            turns = {r.name: r.turns for r in commander._myses.values()}
            requests = 0
            answers: dict[str, str] = {}
            for view in commander.myses():
                requests += len(await commander.store.list_requests(view.id))
                answers[view.name] = view.last_answer
            states = {v.name: v.state for v in commander.myses()}
        finally:
            await commander.shutdown(timeout=0)
    total_waiting = sum(waiting.values())
    share = total_waiting / samples if samples else 0.0
    return {
        "waiting_share": round(share, 4),
        "waiting_by_kind": {k: round(v / samples, 4) for k, v in sorted(waiting.items())},
        "waiting_by_mysis": {
            name: round(c["waiting"] / c["samples"], 4) for name, c in sorted(per_mysis.items())
        },
        "activity_share": {k: round(v / samples, 4) for k, v in activity.most_common()},
        "samples": samples,
        "turns": turns,
        "requests": requests,
        "nudges": nudges,
        "states_at_end": states,
        "last_answers": answers,
        "target": TARGET,
        "pass": share <= TARGET,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--every", type=float, default=0.25)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "liveliness.json")
    args = parser.parse_args()
    started = time.perf_counter()
    result = asyncio.run(watch(args.seconds, args.every))
    report = {
        "benchmark": "liveliness",
        "clock": "real (the world ticks every 1 s, nudges after their real intervals)",
        "setup": "the default: starter swarm of 3 Myses, autopilot, embedded world, "
        "turn-aware, fresh data folder",
        "seconds": args.seconds,
        "sample_every_s": args.every,
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (load average "
        f"{os.getloadavg()[0]:.1f} at the end)",
        "wall_s": round(time.perf_counter() - started, 1),
        **result,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(
        f"waiting {report['waiting_share']:.1%} of the time (target ≤ {TARGET:.0%}); "
        f"by kind {report['waiting_by_kind']}; turns {report['turns']}; "
        f"nudges {report['nudges']}; wrote {args.out}"
    )


if __name__ == "__main__":
    main()

"""UI benchmark: responsiveness of the command center with 16 Myses running.

The real app drives the real commander (embedded world, autopilot, default config) with
16 Myses playing. Measured:

- keypress-to-paint: from a key event entering the app to the end of the first frame
  that shows its effect (dashboard selection, opening and leaving the focus view,
  stepping between Myses in the focus view); the frame includes encoding it for the
  terminal, which the headless driver otherwise skips;
- frame stalls: the longest time the event loop was blocked (a 5 ms probe) and the
  slowest frames while the swarm plays;
- startup to first paint: in a fresh interpreter, from before importing the app to the
  first frame, and to the first frame that shows the swarm's rows.

Targets (issue 6): median keypress-to-paint ≤ 50 ms, no stall over 100 ms, first paint
≤ 1.5 s. Writes bench/results/ui.json.

Usage: python bench/ui.py [--myses 16] [--presses 40] [--out FILE]
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()  # before the app's imports: the startup measurement starts here

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual import events  # noqa: E402
from textual._compositor import CompositorUpdate  # noqa: E402

from zoea_tui.config import Config  # noqa: E402
from zoea_tui.orchestrator.commander import Commander  # noqa: E402
from zoea_tui.ui.app import ZoeaApp  # noqa: E402
from zoea_tui.ui.screens.dashboard import DashboardScreen  # noqa: E402
from zoea_tui.ui.screens.focus import FocusScreen  # noqa: E402
from zoea_tui.ui.widgets.mysis_list import MysisList, MysisRow  # noqa: E402


class FrameProbe:
    """Times every frame the app paints (wrapping ``App._display``, a private hook)."""

    def __init__(self, app: ZoeaApp) -> None:
        self.app = app
        self.frames: list[tuple[float, float]] = []  # (end time, duration of display)
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[float]]] = []
        original = app._display

        def display(screen, renderable) -> None:  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            original(screen, renderable)
            if isinstance(renderable, CompositorUpdate) and app.is_headless:
                renderable.render_segments(app.console)  # what a terminal would get
            end = time.perf_counter()
            if renderable is not None:
                self.frames.append((end, end - start))
            for predicate, future in list(self._waiters):
                if not future.done() and predicate():
                    future.set_result(end)
                    self._waiters.remove((predicate, future))

        app._display = display  # type: ignore[method-assign]

    def next_frame_where(self, predicate: Callable[[], bool]) -> asyncio.Future[float]:
        """A future holding the end time of the first frame painted once ``predicate()``."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        return future


async def loop_lag_probe(stop: asyncio.Event, lags: list[float]) -> None:
    """How late a 5 ms sleep wakes up: the time the loop was blocked."""
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.005)
        lags.append(time.perf_counter() - start - 0.005)


async def press(app: ZoeaApp, probe: FrameProbe, key: str,
                done: Callable[[], bool]) -> float:
    """Post ``key`` as the terminal would; seconds until a frame shows ``done()``."""
    future = probe.next_frame_where(done)
    start = time.perf_counter()
    app.post_message(events.Key(key, None))
    end = await asyncio.wait_for(future, 10)
    return end - start


async def responsiveness(n_myses: int, presses: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        commander = await Commander.open(Config(), db_path=Path(tmp) / "zoea.db")
        try:
            for i in range(n_myses - len(commander.myses())):
                await commander.create_mysis(f"Bench{i:02d}")
            app = ZoeaApp(commander, tune_gc=True)  # as run_app does
            lags: list[float] = []
            stop = asyncio.Event()
            async with app.run_test(size=(160, 50)) as pilot:
                probe = FrameProbe(app)
                while app.commander is None or len(app.screen.query(MysisRow)) < n_myses:
                    await pilot.pause(0.05)
                await asyncio.sleep(3.0)  # let the swarm get going
                monitor = asyncio.create_task(loop_lag_probe(stop, lags))
                frames_before = len(probe.frames)
                t_start = time.perf_counter()
                by_kind: dict[str, list[float]] = {"dashboard-move": [], "open-focus": [],
                                                   "focus-step": [], "close-focus": []}
                swarm = app.screen.query_one(MysisList)
                swarm.focus()
                await pilot.pause()
                for i in range(presses):
                    key = "down" if (i // 8) % 2 == 0 else "up"
                    before = swarm.selected_id
                    ids = swarm.ids
                    idx = ids.index(before) + (1 if key == "down" else -1)
                    target = ids[max(0, min(len(ids) - 1, idx))]
                    if target == before:
                        continue
                    by_kind["dashboard-move"].append(await press(
                        app, probe, key, lambda t=target: swarm.selected_id == t))
                    await asyncio.sleep(0.05)
                for _ in range(max(presses // 8, 3)):
                    by_kind["open-focus"].append(await press(
                        app, probe, "enter", lambda: isinstance(app.screen, FocusScreen)))
                    await asyncio.sleep(0.3)
                    for _ in range(3):
                        screen = app.screen
                        assert isinstance(screen, FocusScreen)
                        ids = sorted(app.views)
                        target = ids[(ids.index(screen.mysis_id) + 1) % len(ids)]
                        by_kind["focus-step"].append(await press(
                            app, probe, "right_square_bracket",
                            lambda s=screen, t=target: s.mysis_id == t))
                        await asyncio.sleep(0.3)
                    by_kind["close-focus"].append(await press(
                        app, probe, "escape", lambda: isinstance(app.screen, DashboardScreen)))
                    await asyncio.sleep(0.3)
                elapsed = time.perf_counter() - t_start
                stop.set()
                await monitor
                frames = probe.frames[frames_before:]
                running = sum(1 for v in commander.myses() if v.state == "running")
        finally:
            await commander.shutdown(timeout=3)
    all_presses = [x for values in by_kind.values() for x in values]
    durations = sorted(d for _, d in frames)
    return {
        "myses": n_myses,
        "running_at_end": running,
        "keypress_to_paint_ms": {
            "median": round(statistics.median(all_presses) * 1000, 1),
            "p95": round(sorted(all_presses)[int(len(all_presses) * 0.95) - 1] * 1000, 1),
            "max": round(max(all_presses) * 1000, 1),
            "presses": len(all_presses),
            "by_kind_median": {k: round(statistics.median(v) * 1000, 1)
                               for k, v in by_kind.items() if v},
            "by_kind_max": {k: round(max(v) * 1000, 1) for k, v in by_kind.items() if v},
        },
        "frames_written": {
            "note": "writing a composed frame out (ANSI encoding); composing is in the stalls",
            "count": len(frames),
            "per_second": round(len(frames) / elapsed, 1),
            "median_ms": round(statistics.median(durations) * 1000, 2),
            "max_ms": round(durations[-1] * 1000, 1),
            "over_100ms": sum(1 for d in durations if d > 0.1),
        },
        "loop_stall_ms": {
            "max": round(max(lags) * 1000, 1),
            "p99": round(sorted(lags)[int(len(lags) * 0.99) - 1] * 1000, 1),
            "over_100ms": sum(1 for lag in lags if lag > 0.1),
        },
        "measured_s": round(elapsed, 1),
    }


async def startup_child() -> dict:
    """Run in a fresh interpreter: time to the first frame and to the first swarm frame."""
    with tempfile.TemporaryDirectory() as tmp:

        async def open_commander() -> Commander:
            return await Commander.open(Config(), db_path=Path(tmp) / "zoea.db")

        app = ZoeaApp(open_commander, tune_gc=True)
        result: dict = {"import_s": round(time.perf_counter() - _T0, 3)}
        async with app.run_test(size=(160, 50)) as pilot:
            probe = FrameProbe(app)
            first = probe.next_frame_where(lambda: True)
            swarm = probe.next_frame_where(lambda: len(app.screen.query(MysisRow)) >= 3)
            result["first_paint_s"] = round(await asyncio.wait_for(first, 10) - _T0, 3)
            result["swarm_paint_s"] = round(await asyncio.wait_for(swarm, 10) - _T0, 3)
            await pilot.pause()
            await app.close_engine()
    return result


def startup(runs: int) -> dict:
    samples = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, __file__, "--startup-child"], check=True,
                             capture_output=True, text=True, timeout=60).stdout
        samples.append(json.loads(out.strip().splitlines()[-1]))
    return {
        "runs": runs,
        "import_s": statistics.median(s["import_s"] for s in samples),
        "first_paint_s": statistics.median(s["first_paint_s"] for s in samples),
        "first_paint_max_s": max(s["first_paint_s"] for s in samples),
        "swarm_paint_s": statistics.median(s["swarm_paint_s"] for s in samples),
        "note": "from before importing the app (interpreter start not included)",
    }


def main() -> int:
    """Run both measurements and write the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--myses", type=int, default=16)
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--startup-runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ui.json")
    parser.add_argument("--startup-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.startup_child:
        print(json.dumps(asyncio.run(startup_child())))
        return 0
    report = {
        "bench": "ui",
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores",
        "responsiveness": asyncio.run(responsiveness(args.myses, args.presses)),
        "startup": startup(args.startup_runs),
    }
    r, s = report["responsiveness"], report["startup"]
    report["targets"] = {
        "keypress_to_paint_median_le_50ms": r["keypress_to_paint_ms"]["median"] <= 50,
        "no_stall_over_100ms": r["loop_stall_ms"]["over_100ms"] == 0
        and r["frames_written"]["over_100ms"] == 0,
        "first_paint_le_1_5s": s["first_paint_max_s"] <= 1.5,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

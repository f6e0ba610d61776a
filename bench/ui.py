"""UI benchmark: the real app in a real terminal, keys typed, clocks stopped at complete frames.

``zoea`` runs in a tmux session (200×60 by default) on a copy of a cached database
(``bench/.cache/ui-v1.db``): 16 autopilot Myses, all running, the first of them with
1 000 000 stored memories. Keys are typed with ``tmux send-keys``; the app, started with
``ZOEA_FRAME_MARKS`` (``zoea_tui/ui/textual_compat/frame_marks.py``), writes a mark once a
key's whole effect is on screen: every finite worker it started has finished (the conversation and
the context preview loaded, the page read, the search answered) and the frame after it
is painted. The clock runs from just before ``tmux send-keys`` (its client's own start,
a few ms, is included and reported apart) to that mark; both sides read
``time.monotonic()``. After each key the pane's text (``tmux capture-pane``) is checked
for what the key should show.

Reported per kind of key: median, p95 and max. Kinds: moving between panes (with the
selected Mysis's next request beside them), opening the focus view (the Mysis with a
million memories first in each round), stepping to the next Mysis there, leaving it;
then, on the Mysis with a million memories, paging its conversation (``home`` to memory
#1, ``end`` back to the newest page, ``pageup`` through older pages, each loading by id
where it must) and searching (``/`` opens the search, the last letter typed shows the
ranked hits). A screen says what it shows in ``bench_state`` (the page's span, the
number of hits) and the mark carries it, so each key is checked to have done its work.
Also: the event loop's lateness inside the app (a 5 ms probe; longest stall, stalls
over 50 ms) for the whole session, and first paint from the process's launch.

Targets (issue 12): keypress-to-complete-frame p95 ≤ 50 ms, no stall over 50 ms, first
paint ≤ 1 s. Writes bench/results/ui.json.

Each figure is measured several ways (``--ways``): ``on`` (as shipped, every override of
``zoea_tui/ui/textual_compat/`` on; the targets are checked on it), ``stock``
(``ZOEA_STOCK_TEXTUAL=1``: stock Textual) and, for each override, the app with only that one
off (``ZOEA_STOCK_TEXTUAL=<name>``): what each override is worth. The sessions of the ways
take turns (``--passes`` times each), so a change of the machine's load falls on all of
them. ``by_way`` has every way's figures; ``worth_ms`` each override's p95 and median
with it off minus with all on, per kind of key, and the same for the median of the app's
CPU time from key to mark (``app_cpu_ms``: the figure a loaded machine changes least).
A way written ``WAY@DIR`` runs the app from the source tree ``DIR`` instead of this one
(another commit, laid out apart with ``git worktree add`` or ``git archive``): a change's
before and after then take turns, under the same load (``--ways on,on@../before``).

Usage: python bench/ui.py [--rounds 6] [--passes 1] [--ways on,stock,...] [--size 200x60]
[--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import select
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.storage import Store  # noqa: E402
from zoea_tui.ui.widgets.context_preview import NEXT_TITLE, SENT_TITLE  # noqa: E402

CACHE = ROOT / "bench" / ".cache"
SEED_DB = CACHE / "ui-v1.db"
MYSES = 16
DEEP_MEMORIES = 1_000_000
#: The app's command; ``ZOEA_WRAP`` names a script to run instead (a profiler that ends by
#: calling ``zoea_tui.cli.main``).
ZOEA = (
    [sys.executable, os.environ["ZOEA_WRAP"]]
    if os.environ.get("ZOEA_WRAP")
    else [sys.executable, "-m", "zoea_tui.cli"]
)
#: The word searched for (in every tool result of the deep history).
SEARCH_WORD = "iron"
#: The request beside the panes: the next one, or (a Mysis at work) the last one sent.
PREVIEW_TITLES = (NEXT_TITLE, SENT_TITLE)


# -- the cached database ------------------------------------------------------------------


def _deep_rows(mysis_id: int, count: int, t0: float):  # type: ignore[no-untyped-def]
    """A long game history: calls and results (no prompt, so the Mysis starts fresh)."""
    rng = random.Random(12)
    tools = ("get_status", "mine", "sell", "travel", "get_cargo", "refuel", "get_system")
    seq = 0
    while seq < count:
        tool = rng.choice(tools)
        call_id = f"call_{seq}"
        args = json.dumps({"poi": rng.choice(("main_belt", "sol_station", "outer_ring"))})
        seq += 1
        yield (
            mysis_id,
            "assistant",
            "llm",
            None,
            "",
            "",
            json.dumps([{"id": call_id, "name": tool, "arguments": args}]),
            None,
            None,
            t0 + seq,
            seq // 3,
            12,
            seq,
        )
        if seq >= count:
            break
        seq += 1
        content = json.dumps(
            {
                "result": {
                    "tool": tool,
                    "credits": rng.randint(0, 99999),
                    "cargo": rng.randint(0, 50),
                    "tick": seq // 3,
                    "note": rng.choice(("iron ore", "copper ore", "fuel low", "docked")),
                }
            }
        )
        yield (
            mysis_id,
            "tool",
            "tool",
            None,
            content,
            "",
            None,
            call_id,
            tool,
            t0 + seq,
            seq // 3,
            len(content) // 4,
            seq,
        )


def seeded_db() -> Path:
    """The cached database (built once: a few minutes for the million memories)."""
    if SEED_DB.exists():
        return SEED_DB
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = SEED_DB.with_suffix(".partial")
    for leftover in CACHE.glob("ui-v1.partial*"):
        leftover.unlink()

    async def create() -> list[int]:
        store = await Store.open(partial)
        try:
            ids = []
            for n in range(MYSES):
                record = await store.create_mysis(
                    "Deep" if n == 0 else f"Bench{n:02d}",
                    provider="autopilot",
                    strategy="turn-aware",
                )
                await store.update_mysis(record.id, state="running")
                ids.append(record.id)
            return ids
        finally:
            await store.close()

    ids = asyncio.run(create())
    db = sqlite3.connect(partial)
    with db:
        db.executemany(
            "INSERT INTO memories (mysis_id, role, source, sender_id, content, reasoning, "
            "tool_calls, tool_call_id, tool_name, created_at, game_tick, tokens, seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            _deep_rows(ids[0], DEEP_MEMORIES, time.time() - DEEP_MEMORIES),
        )
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    for suffix in ("-wal", "-shm"):
        Path(str(partial) + suffix).unlink(missing_ok=True)
    partial.rename(SEED_DB)
    return SEED_DB


# -- marks ----------------------------------------------------------------------------------


@dataclass
class Mark:
    """One line the app wrote."""

    kind: str
    at: float
    fields: list[str]


class Marks:
    """Reads the app's marks from a FIFO as they come."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.all: list[Mark] = []
        self._next = 0

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return
        try:
            chunk = os.read(self.fd, 65536)
        except BlockingIOError:
            return
        if not chunk:
            time.sleep(min(timeout, 0.005))  # no writer yet
            return
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            kind, at, *fields = line.decode().split("\t")
            self.all.append(Mark(kind, float(at), fields))

    def wait(self, predicate: Callable[[Mark], bool], timeout: float = 20.0) -> Mark:
        """The next mark (not seen by an earlier wait) that satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        while True:
            while self._next < len(self.all):
                mark = self.all[self._next]
                self._next += 1
                if predicate(mark):
                    return mark
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no such mark")
            self._read(min(left, 0.05))

    def drain(self) -> None:
        """Read what is there and skip it."""
        self._read(0)
        self._next = len(self.all)


# -- the session ------------------------------------------------------------------------------


class Session:
    """The app in a tmux session."""

    def __init__(
        self,
        name: str,
        width: int,
        height: int,
        workdir: Path,
        fifo: Path,
        stock: str = "",
        tree: Path = ROOT,
    ) -> None:
        self.name = name
        env = (
            f"env ZOEA_FRAME_MARKS={fifo} ZOEA_CONFIG=/nonexistent-zoea-config TERM=xterm-256color"
            f" ZOEA_STOCK_TEXTUAL={stock}"
        )
        command = f"{env} {' '.join(ZOEA)} --db {workdir / 'zoea.db'} --data-dir {workdir}"
        config = workdir / "config.toml"
        config.write_text("")  # the defaults, whatever the machine's own config says
        command = command.replace("/nonexistent-zoea-config", str(config))
        self.launched = time.monotonic()
        subprocess.run(
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                name,
                "-x",
                str(width),
                "-y",
                str(height),
                "-c",
                str(tree),  # ``python -m`` imports the package of the folder it starts in
                command,
            ],
            check=True,
        )
        self.client_ms: list[float] = []

    def keys(self, *keys: str) -> float:
        """Type keys; the time just before (the clock starts there)."""
        return type_keys(self.name, keys, self.client_ms)

    def text(self) -> str:
        """The pane's text now."""
        return pane_text(self.name)

    def close(self) -> None:
        """End the session (the app is killed with it)."""
        kill_session(self.name)


def type_keys(session: str, keys: tuple[str, ...], client_ms: list[float]) -> float:
    """Type ``keys`` into tmux ``session``; the time just before (the clock starts
    there). The tmux client's own time goes to ``client_ms``."""
    start = time.monotonic()
    subprocess.run(["tmux", "send-keys", "-t", session, *keys], check=True)
    client_ms.append((time.monotonic() - start) * 1000)
    return start


def pane_text(session: str) -> str:
    """The text of tmux ``session``'s pane now."""
    return subprocess.run(
        ["tmux", "capture-pane", "-p", "-t", session],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def kill_session(session: str) -> None:
    """End tmux ``session`` (its program is killed with it)."""
    subprocess.run(["tmux", "kill-session", "-t", session], check=False, capture_output=True)


def stats(values: list[float]) -> dict:
    """Median, p95 and max in ms."""
    ordered = sorted(values)
    if not ordered:
        return {"n": 0}
    return {
        "n": len(ordered),
        "median": round(statistics.median(ordered), 1),
        "p95": round(ordered[max(0, int(len(ordered) * 0.95 + 0.5) - 1)], 1),
        "max": round(ordered[-1], 1),
    }


def _newest(state: str) -> bool:
    """A page far from memory #1 (the newest page of the deep history)."""
    return state.startswith("page ") and not state.startswith("page 1-")


def measure(
    rounds: int, width: int, height: int, warmup: float, stock: str = "", tree: Path = ROOT
) -> dict:
    """One session (``stock``: the value of ``ZOEA_STOCK_TEXTUAL``; ``tree``: the source tree
    the app runs from): first paint, then rounds of keys; every figure in ms, and the raw
    samples under ``samples``."""
    workdir = Path(tempfile.mkdtemp(prefix="zoea-bench-ui-"))
    session: Session | None = None
    try:
        shutil.copy(seeded_db(), workdir / "zoea.db")
        fifo = workdir / "marks"
        os.mkfifo(fifo)
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        marks = Marks(fd)
        session = Session(f"zoea-bench-{os.getpid()}", width, height, workdir, fifo, stock, tree)
        first = marks.wait(lambda m: m.kind == "first", 30)
        deadline = time.monotonic() + 30
        while f"Bench{MYSES - 1:02d}" not in session.text():
            if time.monotonic() > deadline:
                raise TimeoutError("the swarm never showed:\n" + session.text())
            time.sleep(0.02)
        swarm_visible = time.monotonic()
        time.sleep(warmup)  # the swarm plays
        marks.drain()
        t_measure = time.monotonic()
        kinds: dict[str, list[float]] = {
            "pane-move": [],
            "open-focus": [],
            "focus-step": [],
            "close-focus": [],
        }
        checks: dict[str, list[bool]] = {k: [] for k in kinds}
        #: The app's CPU time from each key to its mark (ms).
        cpu: dict[str, list[float]] = {}
        failed: list[dict] = []

        def timed(
            kind: str,
            keys: list[str],
            screen: str,
            mysis: int | None,
            expect: str | tuple[str, ...],
            state: Callable[[str], bool] = lambda _: True,
        ) -> None:
            # The screen shows the key's effect when it shows one of ``expect``.
            wanted = (expect,) if isinstance(expect, str) else expect

            def seen(text: str) -> bool:
                return any(w in text for w in wanted)

            marks.drain()
            start = session.keys(*keys)
            try:
                mark = marks.wait(
                    lambda m: (
                        m.kind == "mark"
                        and m.at >= start
                        and m.fields[0] == screen
                        and (mysis is None or m.fields[1] == str(mysis))
                        and state(m.fields[-1])
                    )
                )
            except TimeoutError:
                seen = [m for m in marks.all if m.kind == "mark"][-5:]
                raise TimeoutError(
                    f"{kind} {keys}: no mark of {screen} {mysis}; last marks "
                    f"{seen}\n{session.text()}"
                ) from None
            kinds.setdefault(kind, []).append((mark.at - start) * 1000)
            cpu.setdefault(kind, []).append(float(mark.fields[2]))
            shown = session.text()
            checks.setdefault(kind, []).append(seen(shown))
            if not seen(shown):
                # Kept whole: tmux may still be drawing the frame (then the second look
                # has it), or the screen is wrong.
                time.sleep(0.2)
                failed.append(
                    {
                        "kind": kind,
                        "expected": expect,
                        "screen": shown,
                        "shown_200ms_later": seen(session.text()),
                    }
                )
            time.sleep(0.25)  # a commander reads the screen between keys

        ids = list(range(1, MYSES + 1))
        for _ in range(rounds):
            # The dashboard starts on Deep (id 1): open it, step twice, leave.
            timed("open-focus", ["Enter"], "FocusScreen", 1, "CONVERSATION")
            timed("focus-step", ["]"], "FocusScreen", 2, "CONVERSATION")
            timed("focus-step", ["["], "FocusScreen", 1, "CONVERSATION")
            timed("close-focus", ["Escape"], "DashboardScreen", 1, "MYSIS SWARM")
            for target in ids[1:6]:
                timed("pane-move", ["Right"], "DashboardScreen", target, PREVIEW_TITLES)
            timed("open-focus", ["Enter"], "FocusScreen", ids[5], "CONVERSATION")
            timed("close-focus", ["Escape"], "DashboardScreen", ids[5], "MYSIS SWARM")
            for target in reversed(ids[:5]):
                timed("pane-move", ["Left"], "DashboardScreen", target, PREVIEW_TITLES)
        for _ in range(rounds):
            # The story of Deep (a million memories), from the dashboard where it is selected.
            timed("open-focus", ["Enter"], "FocusScreen", 1, "CONVERSATION")
            timed(
                "page-first",
                ["Home"],
                "FocusScreen",
                1,
                "#1–",
                lambda s: s.startswith("page 1-"),
            )
            timed("page-newest", ["End"], "FocusScreen", 1, "CONVERSATION", _newest)
            for _ in range(4):
                timed("page-up", ["PageUp"], "FocusScreen", 1, "CONVERSATION")
            timed("close-focus", ["Escape"], "DashboardScreen", 1, "MYSIS SWARM")
            timed("open-search", ["/"], "SearchScreen", 1, "SEARCH")
            session.keys(*SEARCH_WORD[:-1])
            time.sleep(0.5)
            timed(
                "search",
                [SEARCH_WORD[-1]],
                "SearchScreen",
                1,
                SEARCH_WORD,
                lambda s: s.startswith("search ") and s != "search 0",
            )
            timed("close-search", ["Escape"], "DashboardScreen", 1, "MYSIS SWARM")
        measured = time.monotonic() - t_measure
        marks._read(1.2)  # the last second's probe report
        lags: list[float] = []
        samples = 0
        for mark in marks.all:
            if mark.kind == "lag" and mark.at >= t_measure:
                samples += int(mark.fields[0])
                lags.extend(float(x) for x in mark.fields[1:])
        os.close(fd)
        every = [x for values in kinds.values() for x in values]
        return {
            "terminal": f"{width}x{height} (tmux)",
            "myses": MYSES,
            "deep_memories": DEEP_MEMORIES,
            "first_paint_s": round(first.at - session.launched, 3),
            "swarm_visible_s": round(swarm_visible - session.launched, 3),
            "keypress_to_complete_frame_ms": {
                "all": stats(every),
                **{k: stats(v) for k, v in kinds.items() if v},
            },
            "screen_checks_passed": {k: f"{sum(v)}/{len(v)}" for k, v in checks.items()},
            "screen_checks_failed": failed,
            "tmux_send_keys_ms": stats(session.client_ms),
            "loop": {
                "probe_samples": samples,
                "longest_stall_ms": round(max(lags, default=0.0), 1),
                "stalls_over_50ms": sum(1 for x in lags if x > 50),
                "stalls_over_20ms": sum(1 for x in lags if x > 20),
                "longest": sorted(lags, reverse=True)[:5],
            },
            "measured_s": round(measured, 1),
            "samples": kinds,
            "cpu_samples": cpu,
            "lags": lags,
            "first_paint": first.at - session.launched,
        }
    finally:
        if session is not None:
            session.close()
        shutil.rmtree(workdir, ignore_errors=True)


#: The ways measured by default: as shipped, stock Textual, and each override off alone.
WAYS = ("on", "stock", "strips", "driver", "screens", "prebuild", "views")


def _switch(way: str) -> str:
    """The value of ``ZOEA_STOCK_TEXTUAL`` for ``way``."""
    way = way.partition("@")[0]
    return {"on": "", "stock": "1"}.get(way, way)


def _tree(way: str) -> Path:
    """The source tree ``way`` runs the app from (``WAY@DIR``; else this one)."""
    _, at, tree = way.partition("@")
    if not at:
        return ROOT
    path = Path(tree).resolve()
    if not (path / "zoea_tui" / "cli.py").is_file():
        raise SystemExit(f"ui bench: {way}: {path} holds no zoea_tui source tree")
    return path


def merge(runs: list[dict]) -> dict:
    """One way's figures from its sessions (samples pooled)."""
    kinds: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    lags: list[float] = []
    for run in runs:
        for kind, values in run["samples"].items():
            kinds.setdefault(kind, []).extend(values)
        for kind, values in run["cpu_samples"].items():
            cpu.setdefault(kind, []).extend(values)
        lags.extend(run["lags"])
    every = [x for values in kinds.values() for x in values]
    last = runs[-1]
    return {
        "sessions": len(runs),
        "first_paint_s": round(max(r["first_paint"] for r in runs), 3),
        "swarm_visible_s": max(r["swarm_visible_s"] for r in runs),
        "keypress_to_complete_frame_ms": {
            "all": stats(every),
            **{k: stats(v) for k, v in kinds.items() if v},
        },
        "app_cpu_ms": {
            "all": stats([x for values in cpu.values() for x in values]),
            **{k: stats(v) for k, v in cpu.items() if v},
        },
        "screen_checks_passed": last["screen_checks_passed"],
        # The first failed check whole (its screen), and how many there were.
        "screen_checks_failed": [f for r in runs for f in r["screen_checks_failed"]][:1],
        "screen_checks_failed_count": sum(len(r["screen_checks_failed"]) for r in runs),
        "loop": {
            "longest_stall_ms": round(max(lags, default=0.0), 1),
            "stalls_over_50ms": sum(1 for x in lags if x > 50),
            "stalls_over_20ms": sum(1 for x in lags if x > 20),
        },
        "measured_s": round(sum(r["measured_s"] for r in runs), 1),
    }


def worth(by_way: dict[str, dict]) -> dict[str, dict[str, dict[str, float]]]:
    """Per way other than ``on``, per kind of key: its p95 and median minus ``on``'s (ms; a
    positive figure is what the overrides it turns off buy)."""
    on = by_way["on"]["keypress_to_complete_frame_ms"]
    out: dict[str, dict[str, dict[str, float]]] = {}
    for way, figures in by_way.items():
        if way == "on":
            continue
        keys = figures["keypress_to_complete_frame_ms"]
        out[way] = {
            kind: {
                "p95": round(keys[kind]["p95"] - on[kind]["p95"], 1),
                "median": round(keys[kind]["median"] - on[kind]["median"], 1),
            }
            for kind in on
            if kind in keys
        }
        on_cpu, cpu = by_way["on"]["app_cpu_ms"], figures["app_cpu_ms"]
        out[way]["cpu_median"] = {
            kind: round(cpu[kind]["median"] - on_cpu[kind]["median"], 1)
            for kind in on_cpu
            if kind in cpu
        }
        out[way]["stalls_over_20ms"] = {
            "count": figures["loop"]["stalls_over_20ms"] - by_way["on"]["loop"]["stalls_over_20ms"]
        }
    return out


def main() -> int:
    """Run the sessions and write the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--passes", type=int, default=1, help="sessions per way, in turns")
    parser.add_argument("--ways", default=",".join(WAYS))
    parser.add_argument("--size", default="200x60")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ui.json")
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    ways = [w.strip() for w in args.ways.split(",") if w.strip()]
    if "on" not in ways:
        ways.insert(0, "on")
    trees = {way: _tree(way) for way in ways}
    seeded_db()
    runs: dict[str, list[dict]] = {way: [] for way in ways}
    loads: list[float] = []
    for _ in range(args.passes):
        for way in ways:
            print(f"ui bench: {way}", file=sys.stderr, flush=True)
            runs[way].append(
                measure(args.rounds, width, height, args.warmup, _switch(way), trees[way])
            )
            loads.append(os.getloadavg()[0])
    by_way = {way: merge(sessions) for way, sessions in runs.items()}
    result = by_way["on"]
    keys = result["keypress_to_complete_frame_ms"]
    report = {
        "bench": "ui",
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {len(os.sched_getaffinity(0))} cores "
        f"(load average {min(loads):.1f}-{max(loads):.1f} after each session)",
        "clock": "time.monotonic() in both processes; from before tmux send-keys to the "
        "app's mark after the complete frame",
        "terminal": f"{width}x{height} (tmux)",
        "myses": MYSES,
        "deep_memories": DEEP_MEMORIES,
        "rounds": args.rounds,
        "passes": args.passes,
        **result,
        "targets": {
            "keypress_p95_le_50ms": all(v["p95"] <= 50 for v in keys.values()),
            "no_stall_over_50ms": result["loop"]["stalls_over_50ms"] == 0,
            "first_paint_le_1s": result["first_paint_s"] <= 1.0,
        },
        "ways": {way: _switch(way) or "(unset)" for way in ways},
        "trees": {way: str(tree) for way, tree in trees.items()},
        "worth_ms": worth(by_way),
        "by_way": by_way,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The arena screen: play SMBench's scenarios for a provider and strategies, watch the
scored Mysis live, read the results, reopen past batches (issues 14 and 28).

Runs are played by :mod:`zoea_tui.arena` in a worker, each on its own fresh world; the
engine reports through callbacks that only post messages to this screen. Each run is
stored in the app's database the moment it ends, and keeps its own database beside it
(its whole conversation); past batches are listed at the bottom (select one to reopen
it). Beside the live conversation: the cells (mean, 95 % interval, levels, what the runs
achieved), the score
per scenario × strategy as bars, the runs (enter opens a run's requests in the request
inspector) and, for the highlighted run, its prompt tokens per request and the share of
each request served from the server's cache (else the prefix a cache could reuse).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, DataTable, Label, ProgressBar, Select, Sparkline, Static

from ...arena.batch import Batch, new_plan
from ...arena.report import (
    bars,
    composite_text,
    context_line,
    levels_text,
    outcomes_text,
    score_text,
)
from ...arena.runner import ALL_STRATEGIES, ARENA_STRATEGIES, RunHooks, RunResult
from ...arena.scenarios import SCENARIOS
from ...arena.transcripts import Transcript
from ...core.pricing import usd_text
from ...core.types import Memory
from ...orchestrator.events import MessageStored
from ..sanitize import one_line
from ..widgets.conversation import ConversationLog
from ..widgets.key_bar import KeyBar
from .base import ZoeaScreen
from .inspector import InspectorScreen

if TYPE_CHECKING:
    from ...orchestrator.commander import Commander


#: How many runs (over seeds 0 … N-1) the screen offers to play.
RUN_CHOICES = (1, 2, 3, 5, 10)


def played_text(report: dict[str, Any]) -> str:
    """How a batch was played: "budget smbench · world smbench · prompt arena · seeds
    0–2 · 3 run(s)/cell" (a batch that ended before its first run: its plan)."""
    plan = report.get("plan") or {}
    budget = report.get("budget") or plan.get("budget") or "ticks"
    shown = {"world": plan.get("world", "smbench"), "runs": plan.get("runs", 1), **report}
    if "prompt" not in report:
        shown["prompt"] = "smbench" if plan.get("smbench") else "arena"
    return f"budget {budget} · {context_line(shown)}"


def composites_text(report: dict[str, Any]) -> str:
    """Each strategy's composite, or its partial mean named by its scenarios."""
    strategies = [*(report.get("composite") or {}), *(report.get("partial") or {})]
    if not strategies:
        return "no composite"
    return ", ".join(
        f"{s} {'composite ' if s in (report.get('composite') or {}) else ''}"
        f"{composite_text(report, s, named=True)}"
        for s in strategies
    )


def series_label(
    tokens: list[int], share: list[float], *, reported: bool, cost_usd: float | None
) -> str:
    """What a run's sparklines show: its tokens per request, its mean cache share (as
    the server reported it, else the prefix a cache could reuse) and, when its provider
    has prices, what the run cost."""
    what = "cached by the server" if reported else "prefix a cache can reuse"
    mean = sum(share) / len(share) if share else 0.0
    cost = f" · cost {usd_text(cost_usd)}" if cost_usd is not None else ""
    return (
        f"tokens/request {min(tokens):,}–{max(tokens):,} · {what} {mean:.0%} "
        f"(mean over {len(tokens)} requests){cost}"
    )


class ArenaScreen(ZoeaScreen[None]):
    """Choose a scenario, provider and strategies; run; compare with past batches."""

    DEFAULT_CSS = """
    ArenaScreen #arena-form { height: 3; }
    ArenaScreen #arena-form Select { width: 1fr; }
    ArenaScreen #arena-form Button { width: 10; }
    ArenaScreen #arena-form #arena-scenario { width: 28; }
    ArenaScreen #arena-form #arena-count { width: 13; }
    ArenaScreen #arena-status { height: 1; padding: 0 1; }
    ArenaScreen #arena-progress { height: 1; padding: 0 1; }
    ArenaScreen #arena-main { height: 1fr; }
    ArenaScreen #arena-conversation { width: 1fr; }
    ArenaScreen #arena-side { width: 1fr; }
    ArenaScreen #arena-results { height: 1fr; }
    ArenaScreen #arena-bars { height: auto; max-height: 7; padding: 0 1; }
    ArenaScreen #arena-runs { height: 1fr; }
    ArenaScreen #arena-spark { height: 2; }
    ArenaScreen #arena-spark Sparkline { width: 1fr; margin: 0 1; }
    ArenaScreen #arena-spark-label { height: 1; padding: 0 1; }
    ArenaScreen #arena-past-title { height: 1; padding: 0 1; }
    ArenaScreen #arena-past { height: 6; }
    """

    #: Ticks per run instead of each scenario's budget (None: the budget; tests shorten it).
    ticks: ClassVar[int | None] = None

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Arena",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+r", "run", "Run"),
    ]

    @dataclass
    class Progress(Message):
        """Ticks played of the budget in the current run."""

        label: str
        played: int
        budget: int

    @dataclass
    class LiveMemory(Message):
        """A memory of the live scored Mysis."""

        memory: Memory

    @dataclass
    class NewRun(Message):
        """A run began: the live conversation starts over."""

        label: str

    @dataclass
    class Finished(Message):
        """A batch ended with its report (None when it failed)."""

        report: dict[str, Any] | None
        error: str = ""

    def compose(self) -> ComposeResult:
        providers = list(self.center.commander.config.providers) if self.center.commander else []
        scenarios = [(s.id, key) for key, s in SCENARIOS.items()]
        strategies = [(s, s) for s in ARENA_STRATEGIES]
        with Vertical(id="arena-body"):
            with Horizontal(id="arena-form"):
                yield Select(
                    [*scenarios, ("all six", "all")],
                    value="s1",
                    allow_blank=False,
                    id="arena-scenario",
                )
                yield Select(
                    [(p, p) for p in providers],
                    allow_blank=False,
                    value="autopilot" if "autopilot" in providers else providers[0],
                    id="arena-provider",
                )
                yield Select(
                    [("every strategy", "all"), *strategies],
                    value="turn-aware",
                    allow_blank=False,
                    id="arena-strategy",
                )
                yield Select(
                    # SMBench's budget (one client turn of at most 30 requests), or the ticks
                    [("30 requests", "smbench"), ("all ticks", "ticks")],
                    value="smbench",
                    allow_blank=False,
                    id="arena-budget",
                )
                # N runs over seeds 0 … N-1 (run i plays seed i, as zoea arena --runs N).
                yield Select(
                    [(f"{n} run{'s' if n > 1 else ''}", n) for n in RUN_CHOICES],
                    value=1,
                    allow_blank=False,
                    id="arena-count",
                )
                yield Button("Run", id="arena-run", variant="primary")
            yield Label(
                "Choose a scenario, a provider and strategies, then Run.",
                id="arena-status",
                markup=False,
            )
            yield ProgressBar(total=1, show_eta=False, id="arena-progress")
            with Horizontal(id="arena-main"):
                yield ConversationLog(id="arena-conversation")
                with Vertical(id="arena-side"):
                    yield DataTable(id="arena-results", cursor_type="row", zebra_stripes=True)
                    yield Static("", id="arena-bars", markup=False)
                    yield DataTable(id="arena-runs", cursor_type="row")
                    with Horizontal(id="arena-spark"):
                        yield Sparkline([], id="arena-tokens")
                        yield Sparkline([], id="arena-cache")
                    yield Label("", id="arena-spark-label", markup=False)
            yield Static("Past runs (enter reopens one)", id="arena-past-title", markup=False)
            yield DataTable(id="arena-past", cursor_type="row")
        yield KeyBar()

    def on_mount(self) -> None:
        results = self.query_one("#arena-results", DataTable)
        results.add_columns(
            "scenario",
            "strategy",
            "score",
            "95% CI",
            "≥20",
            "levels",
            "achieved",
            "tokens in",
            "requests",
        )
        runs = self.query_one("#arena-runs", DataTable)
        runs.add_columns("run", "score", "level", "requests", "tokens in")
        past = self.query_one("#arena-past", DataTable)
        past.add_columns("#", "when", "provider", "scenarios", "played", "composite")
        #: The runs shown (scenario id, strategy, the run's JSON), in the runs table's order.
        self._runs: list[tuple[str, str, dict[str, Any]]] = []
        self._cells: list[dict[str, Any]] = []
        self.load_past()

    # -- actions ---------------------------------------------------------------------------

    def action_back(self) -> None:
        """Back to where the arena was opened (a running batch goes on)."""
        self.app.pop_screen()

    @on(Button.Pressed, "#arena-run")
    def action_run(self) -> None:
        """Play the chosen scenarios."""
        if self.center.commander is None or any(
            w.group == "arena" and not w.is_finished for w in self.workers
        ):
            return
        scenario = str(self.query_one("#arena-scenario", Select).value)
        provider = str(self.query_one("#arena-provider", Select).value)
        strategy = str(self.query_one("#arena-strategy", Select).value)
        budget = str(self.query_one("#arena-budget", Select).value)
        count = self.query_one("#arena-count", Select).value
        runs = count if isinstance(count, int) else 1
        strategies = list(ALL_STRATEGIES) if strategy == "all" else [strategy]
        self._clear()
        self.play(scenario, provider, strategies, budget, runs)

    @work(group="arena", name="arena-play", exclusive=True, exit_on_error=False)
    async def play(
        self,
        scenario: str,
        provider: str,
        strategies: list[str],
        budget: str = "smbench",
        runs: int = 1,
    ) -> None:
        """The batch, in a worker: every callback only posts a message."""
        self._unit = "requests" if budget == "smbench" else "ticks"
        commander = self.center.commander
        assert commander is not None
        listeners: set[asyncio.Task[None]] = set()

        def begin(s: Any, strategy: str, index: int, runs: int) -> None:
            self.post_message(self.NewRun(f"{s.id} · {strategy} · run {index + 1}/{runs}"))
            self._label = f"{s.id} · {strategy}"

        def progress(played: int, budget: int) -> None:
            self.post_message(self.Progress(self._label, played, budget))

        def started(run: Commander, mysis_id: int) -> None:
            subscription = run.bus.subscribe(maxsize=10_000)

            async def listen() -> None:
                async for event in subscription:
                    if isinstance(event, MessageStored) and event.mysis_id == mysis_id:
                        self.post_message(self.LiveMemory(event.memory))

            task = asyncio.get_running_loop().create_task(listen())
            listeners.add(task)
            task.add_done_callback(listeners.discard)

        def stored(result: RunResult, cell: dict[str, Any], count: int, left: float | None) -> None:
            self.call_later(self._add_cell, cell)

        self._label = ""
        plan = new_plan(scenario, strategies, runs=runs, ticks=self.ticks, budget=budget)
        try:
            # Stored with its plan: zoea arena --resume BATCH carries it on.
            batch = await Batch.begin(commander.arena_records, commander.config, plan, provider)
            played = await batch.play(
                hooks=RunHooks(on_progress=progress, on_start=started, on_begin=begin),
                on_stored=stored,
                keep_stopped=False,
            )
        except Exception as exc:  # shown on screen; the app goes on
            self.post_message(self.Finished(None, f"{type(exc).__name__}: {exc}"))
            return
        finally:
            for task in list(listeners):
                task.cancel()
        self.post_message(self.Finished(played.report))

    @work(group="arena-past", name="arena-past", exclusive=True, exit_on_error=False)
    async def load_past(self) -> None:
        """List the stored batches, newest first."""
        commander = self.center.commander
        if commander is None:
            return
        batches = await commander.arena_records.list_arena_batches()
        table = self.query_one("#arena-past", DataTable)
        table.clear()
        for batch in batches:
            table.add_row(
                str(batch.id),
                time.strftime("%Y-%m-%d %H:%M", time.localtime(batch.created_at)),
                one_line(batch.provider, 24),
                one_line(", ".join(s.split("-", 1)[0] for s in batch.scenarios), 30),
                one_line(played_text(batch.report), 80),
                one_line(composites_text(batch.report), 80),
                key=str(batch.id),
            )

    @on(DataTable.RowSelected, "#arena-past")
    async def reopen(self, event: DataTable.RowSelected) -> None:
        """Show a stored batch's results in the results table."""
        commander = self.center.commander
        if commander is None or event.row_key.value is None:
            return
        batch = await commander.arena_records.get_arena_batch(int(event.row_key.value))
        if batch is None:
            return
        self._show_report(batch.report, f"Batch #{batch.id} · {batch.provider}")

    # -- messages --------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#arena-runs")
    def _run_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        self._show_series(self._runs[int(key)][2] if key is not None else None)

    def _show_series(self, run: dict[str, Any] | None) -> None:
        """The run's prompt tokens per request and the cache share of each, as sparklines."""
        series = ((run or {}).get("metrics") or {}).get("series") or {}
        tokens = [int(t) for t in series.get("prompt_tokens") or ()]
        cached = list(series.get("cached_tokens") or ())
        reported = any(c is not None for c in cached)
        if reported:
            share = [(c or 0) / t if t else 0.0 for c, t in zip(cached, tokens, strict=False)]
        else:
            share = [float(r) for r in series.get("reuse") or ()]
        self.query_one("#arena-tokens", Sparkline).data = tokens
        self.query_one("#arena-cache", Sparkline).data = share
        label = self.query_one("#arena-spark-label", Label)
        if not tokens:
            label.update(Text("Highlight a run: its tokens per request and cache share."))
            return
        cost = ((run or {}).get("metrics") or {}).get("cost_usd")
        label.update(Text(series_label(tokens, share, reported=reported, cost_usd=cost)))

    @on(DataTable.RowSelected, "#arena-runs")
    async def _open_run(self, event: DataTable.RowSelected) -> None:
        """Open the run's own conversation in the request inspector."""
        commander = self.center.commander
        key = event.row_key.value
        if commander is None or key is None:
            return
        _, strategy, run = self._runs[int(key)]
        path = run["metrics"].get("transcript")
        if not path:
            self._status("This run kept no conversation (played before runs kept theirs).")
            return
        try:
            transcript = await Transcript.open(Path(path), commander.settings_for)
        except (OSError, LookupError) as exc:
            self._status(f"Cannot open the run: {exc}")
            return
        name = f"{transcript.name} · {strategy} · seed {run['metrics'].get('seed')}"

        async def closed(_: object) -> None:
            await transcript.close()

        self.app.push_screen(
            InspectorScreen(transcript.mysis_id, name, story=transcript.story), closed
        )

    def on_arena_screen_new_run(self, message: NewRun) -> None:
        log = self.query_one(ConversationLog)
        log.set_memories([])
        self._status(f"Playing {message.label}…")

    def on_arena_screen_progress(self, message: Progress) -> None:
        bar = self.query_one(ProgressBar)
        bar.update(total=message.budget, progress=message.played)
        unit = getattr(self, "_unit", "ticks")
        self._status(f"{message.label}: {message.played}/{message.budget} {unit}")

    def on_arena_screen_live_memory(self, message: LiveMemory) -> None:
        self.query_one(ConversationLog).add_memory(message.memory)

    def on_arena_screen_finished(self, message: Finished) -> None:
        if message.report is None:
            self._status(f"The arena failed: {message.error}")
            return
        # Each run showed as its own cell while it played; the batch's cells replace them.
        self._show_report(message.report, f"Done · {message.report['provider']}")
        self.load_past()

    # -- helpers -----------------------------------------------------------------------------

    def _status(self, text: str) -> None:
        self.query_one("#arena-status", Label).update(Text(text))

    def _clear(self) -> None:
        self.query_one("#arena-results", DataTable).clear()
        self.query_one("#arena-runs", DataTable).clear()
        self.query_one("#arena-bars", Static).update("")
        self._runs.clear()
        self._cells.clear()
        self._show_series(None)

    def _show_report(self, report: dict[str, Any], head: str) -> None:
        """A batch's report: its cells in place of what the tables showed, and ``head``,
        what it played and its composites on the status line."""
        self._clear()
        for cell in report.get("cells") or ():
            self._add_cell(cell)
        self._status(f"{head} · {played_text(report)} · {composites_text(report)}")

    def _add_cell(self, cell: dict[str, Any]) -> None:
        self._cells.append(cell)
        self.query_one("#arena-bars", Static).update(
            "\n".join(bars({"cells": self._cells}, width=16))
        )
        table = self.query_one("#arena-runs", DataTable)
        for run in cell["runs"]:
            metrics = run["metrics"]
            self._runs.append((cell["scenario"], cell["strategy"], run))
            label = f"{cell['scenario'].split('-', 1)[0]} {cell['strategy']} #{metrics.get('seed')}"
            table.add_row(
                one_line(label, 40),
                "errored" if run.get("errored") else f"{run['score']:.1f}",
                str(run.get("level") or metrics.get("level", "none")),
                str(run["requests"]),
                f"{run['tokens_in']:,}",
                key=str(len(self._runs) - 1),
            )
        runs = cell["runs"]
        errors = [r["error"] for r in runs if r.get("errored")]
        ci = cell.get("score_ci95")
        if errors:  # the server's words, where the commander looks
            self._status(f"{cell['scenario']} · {cell['strategy']}: errored: {errors[0]}")
        self.query_one("#arena-results", DataTable).add_row(
            cell["scenario"],
            cell["strategy"],
            score_text(cell["score_mean"]),
            f"{ci[0]:.0f}–{ci[1]:.0f}" if ci else "—",
            f"{round(cell['pass_rate'] * 100)}%",
            ", ".join(
                [
                    levels_text(cell.get("levels") or {}),
                    *([f"{len(errors)} errored"] if errors else []),
                ]
            ),
            outcomes_text(cell["outcomes"]) if cell.get("outcomes") else "—",
            f"{sum(r['tokens_in'] for r in runs):,}",
            str(sum(r["requests"] for r in runs)),
        )

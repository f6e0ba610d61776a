"""The headless commands: ``zoea simulate`` and ``zoea replay``.

See docs/ARCHITECTURE.md, 'Command line'.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import math
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config import Config
from ..core.cache import ReuseTally
from ..core.pricing import Bill, Prices, usd_text
from ..core.strategies import STRATEGIES
from ..core.tokens import REQUEST_OVERHEAD, message_tokens
from ..core.types import tool_calls_from_json
from ..core.validator import validate
from ..game.backend import GameBackend
from ..storage import Store
from .clock import VirtualClock
from .commander import Commander
from .events import (
    ErrorRaised,
    NudgeSent,
    RequestComposed,
    StateChanged,
    TokenUsage,
    ToolCallFinished,
    retry_notice,
)
from .mysis import CONTEXT_TOO_SMALL, MysisRuntime
from .requests import recompose


def token_figures(values: list[int]) -> dict[str, float | int]:
    """``{"total", "mean", "p50", "p95", "max"}`` of a list of token counts."""
    if not values:
        return {"total": 0, "mean": 0, "p50": 0, "p95": 0, "max": 0}
    ordered = sorted(values)
    return {
        "total": sum(values),
        "mean": round(sum(values) / len(values), 1),
        "p50": _percentile(ordered, 50),
        "p95": _percentile(ordered, 95),
        "max": ordered[-1],
    }


def _percentile(ordered: list[int], p: float) -> int:
    index = max(0, math.ceil(p / 100 * len(ordered)) - 1)
    return ordered[index]


async def simulate(
    config: Config,
    *,
    myses: int,
    turns: int,
    strategy: str,
    provider: str,
    seed: int,
    db_path: Path,
    on_progress: Callable[[int, int, int], None] | None = None,
    on_retry: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run a swarm on the embedded world with a simulated clock; return the report.

    ``on_progress`` is told ``(turns played, myses × turns, requests sent)`` after every
    turn and every request; ``on_retry`` hears each model call about to be tried again, in
    one line (:func:`~zoea_tui.orchestrator.events.retry_notice`)."""
    config = replace(
        config,
        game=replace(config.game, seed=seed, endpoint="embedded"),
        swarm=replace(config.swarm, max_myses=max(myses, config.swarm.max_myses)),
    )
    # The world lives beside the database, so a second run on it carries on in the same
    # world (its accounts, ships and markets) rather than in a new one.
    world = db_path.with_name(db_path.name + ".world.json")
    backend = GameBackend.from_config(config.game, simulated=True, state_path=world)
    started = time.perf_counter()
    # Virtual time: the Myses' model calls are tried a bounded number of times
    # (``Commander.open``), so a dead server is reported, not tried forever.
    commander = await Commander.open(
        config, db_path=db_path, clock=VirtualClock(), backend=backend, starter_swarm=False
    )
    sub = commander.bus.subscribe(maxsize=100_000)
    #: Set when every Mysis played its turns, or none runs any more (idle or errored).
    done = asyncio.Event()
    created = False
    finished: set[int] = set()
    prompt_by_turn: list[tuple[int, int]] = []  # (turn number, estimated tokens)
    counters = {
        "requests": 0,
        "violations": 0,
        "tool_calls": 0,
        "tool_errors": 0,
        "nudges": 0,
        "errors": 0,
        "answered": 0,
    }
    #: Each Mysis's failure as the commander is told it (the provider's class and words).
    failures: list[dict[str, Any]] = []
    prompt_tokens: list[int] = []
    tally = ReuseTally()

    stopping: set[asyncio.Task[None]] = set()
    played: dict[int, int] = {}  # each Mysis's turns, up to ``turns``

    def progressed() -> None:
        if on_progress is not None:
            on_progress(sum(played.values()), myses * turns, counters["requests"])

    def on_turn(runtime: MysisRuntime) -> None:
        played[runtime.id] = min(runtime.turns, turns)
        progressed()
        if runtime.turns >= turns and runtime.id not in finished:
            finished.add(runtime.id)
            task = asyncio.get_running_loop().create_task(runtime.stop(timeout=1.0))
            stopping.add(task)  # keep a reference until it is done
            task.add_done_callback(stopping.discard)
            if len(finished) == myses:
                done.set()

    def handle(event: object) -> None:
        if on_retry is not None and (notice := retry_notice(event)) is not None:
            on_retry(notice)
        if isinstance(event, RequestComposed) and not event.preview:
            counters["requests"] += 1
            counters["violations"] += len(event.violations)
            prompt_tokens.append(event.composition.tokens)
            tally.add(event.mysis_id, event.composition.messages)
            runtime = commander._myses.get(event.mysis_id)
            prompt_by_turn.append(((runtime.turns + 1) if runtime else 0, event.composition.tokens))
            progressed()
        elif isinstance(event, ToolCallFinished):
            counters["tool_calls"] += 1
            counters["tool_errors"] += int(event.is_error)
        elif isinstance(event, NudgeSent):
            counters["nudges"] += 1
        elif isinstance(event, TokenUsage):
            counters["answered"] += 1
        elif isinstance(event, ErrorRaised):
            counters["errors"] += 1
            runtime = commander._myses.get(event.mysis_id) if event.mysis_id else None
            failures.append(
                {
                    "mysis": runtime.name if runtime else None,
                    "kind": event.kind,
                    "message": event.message,
                }
            )
        elif isinstance(event, StateChanged) and created and commander.running_count() == 0:
            done.set()

    async def watch() -> None:
        async for event in sub:
            handle(event)

    commander.on_turn = on_turn
    # A full disk ends the run at its first failed write: every later one would fail too.
    commander.store.on_disk_full(lambda _: done.set())
    watcher = asyncio.create_task(watch())
    try:
        # A database that holds the swarm already (a second run): its Myses carry on.
        existing = {view.name: view.id for view in commander.myses()}
        for i in range(myses):
            name = f"sim-{i + 1:02d}"
            if name in existing:
                await commander.configure_mysis(
                    existing[name], provider=provider, strategy=strategy
                )
                await commander.start_mysis(existing[name])
            else:
                await commander.create_mysis(name, provider=provider, strategy=strategy)
        created = True
        if commander.running_count() == 0:
            done.set()
        await done.wait()
    finally:
        score = backend.host.world.score() if backend.host is not None else {}
        bill = commander.spend().total
        # What each Mysis's provider says of itself (e.g. that it went unstreamed).
        notes = {view.name: view.provider_note for view in commander.myses() if view.provider_note}
        # A Mysis that finished its turns is stopping in its own task; let that task
        # write its state before the store closes under it.
        await asyncio.gather(*stopping, return_exceptions=True)
        try:
            await commander.shutdown(timeout=2.0)
        finally:
            watcher.cancel()
            while (event := sub.get_nowait()) is not None:  # what the watcher had not read
                handle(event)
            sub.close()
    if commander.store.disk_full is not None:
        raise commander.store.disk_full  # not "provider failures": the run's one line
    return {
        "strategy": strategy,
        "provider": provider,
        "myses": myses,
        "turns": turns,
        "requests": counters["requests"],
        "prompt_tokens": token_figures(prompt_tokens),
        "violations": counters["violations"],
        "tool_calls": counters["tool_calls"],
        "tool_errors": counters["tool_errors"],
        "nudges": counters["nudges"],
        "errors": counters["errors"],
        "answered": counters["answered"],
        "failures": failures,
        "provider_notes": notes,
        "score": score,
        **tally.report(),
        "bill": bill_figures(bill),
        "wall_s": round(time.perf_counter() - started, 3),
        "prompt_tokens_p95_by_turn": _p95_by_turn(prompt_by_turn, turns),
    }


def bill_figures(bill: Bill) -> dict[str, Any]:
    """A bill as a report holds it: the tokens the servers reported (prompt tokens,
    of them read from and written to the cache, answer tokens) and the cost (None:
    the provider has no prices; the autopilot's calls are not counted)."""
    return {
        "requests": bill.requests,
        "prompt_tokens": bill.prompt,
        "cached_tokens": bill.cache_read,
        "cache_write_tokens": bill.cache_write,
        "completion_tokens": bill.output,
        "cost_usd": None if bill.usd is None else round(bill.usd, 6),
    }


def bill_words(bill: dict[str, Any]) -> str:
    """A report's bill in words: its tokens, and its cost when it has one."""
    words = f"{bill['prompt_tokens']:,} tokens in"
    if bill["cached_tokens"]:
        words += f" ({bill['cached_tokens']:,} cache reads"
        words += f", {bill['cache_write_tokens']:,} writes)" if bill["cache_write_tokens"] else ")"
    elif bill["cache_write_tokens"]:
        words += f" ({bill['cache_write_tokens']:,} cache writes)"
    words += f", {bill['completion_tokens']:,} out"
    if bill["cost_usd"] is not None:
        words += f", {usd_text(bill['cost_usd'])}"
    return words


def _p95_by_turn(samples: list[tuple[int, int]], turns: int) -> dict[str, int]:
    """p95 of the prompt tokens per block of ten turns ("1-10", "11-20", …)."""
    out: dict[str, int] = {}
    step = 10 if turns >= 10 else max(turns, 1)
    for start in range(1, turns + 1, step):
        end = min(start + step - 1, turns)
        values = sorted(t for turn, t in samples if start <= turn <= end)
        if values:
            out[f"{start}-{end}"] = _percentile(values, 95)
    return out


async def replay(
    store: Store,
    *,
    strategy: str,
    mysis_name: str | None = None,
    config: Config | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Recompose every logged request under ``strategy``; compare with the full history.

    Its ``bill`` is what the answered requests cost as the servers reported them; its
    ``strategy_bill`` what they would under ``strategy``: its estimated prompt tokens,
    the prefix each shares with the one before read from a cache, the answers as logged
    (each priced at its Mysis's provider's prices in ``config``; none: tokens only).

    ``on_progress`` is told ``(requests recomposed, requests)`` after every request."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of: {', '.join(STRATEGIES)}")
    config = config or Config()
    myses = await store.list_myses()
    if mysis_name is not None:
        myses = [m for m in myses if m.name == mysis_name]
        if not myses:
            raise ValueError(f"no Mysis named {mysis_name!r} in {store.path}")
    tokens: list[int] = []
    full: list[int] = []
    original: list[int] = []
    violations = 0
    tally = ReuseTally()
    logged_bill = Bill()
    strategy_bill = Bill()
    logged = [(mysis, await store.list_requests(mysis.id)) for mysis in myses]
    total = sum(1 for _, requests in logged for r in requests if r.last_memory_id is not None)
    for mysis, requests in logged:
        settings = config.compose_settings(
            mysis.provider if mysis.provider in config.providers else None
        )
        prefix = await _full_history_prefix(store, mysis.id, mysis.system_template)
        known = config.providers.get(mysis.provider)
        prices = known.prices if known is not None else Prices()
        # The autopilot flies no model: its requests cost nothing and are not billed.
        billed = known is None or known.has_model
        for request in requests:
            if billed and request.outcome == "ok":
                logged_bill += Bill.of(
                    prices,
                    request.prompt_tokens,
                    request.completion_tokens,
                    request.cached_tokens,
                    request.cache_write_tokens,
                )
            if request.last_memory_id is None:
                continue
            if on_progress is not None:
                on_progress(len(tokens), total)
            composition = await recompose(store, request, settings, strategy=strategy)
            tokens.append(composition.tokens)
            measured = tally.add(mysis.id, composition.messages)
            if billed and request.outcome == "ok":
                # The same request under the strategy, its prefix shared with the one
                # before read from a cache (an estimate: the strategy's own tokens).
                cached = round(composition.tokens * measured.share) if measured else 0
                strategy_bill += Bill.of(
                    prices, composition.tokens, request.completion_tokens, cached
                )
            violations += len(validate(composition.messages))
            full.append(prefix(request.last_memory_id) + request.tools_tokens)
            original.append(request.estimated_tokens)
    if on_progress is not None:
        on_progress(len(tokens), total)
    return {
        "strategy": strategy,
        "mysis": mysis_name,
        "requests": len(tokens),
        "prompt_tokens": token_figures(tokens),
        "original_prompt_tokens": token_figures(original),
        "full_history_tokens": token_figures(full),
        "violations": violations,
        "ratio_to_full_history": round(sum(tokens) / sum(full), 4) if sum(full) else None,
        **tally.report(),
        "bill": bill_figures(logged_bill),
        "strategy_bill": bill_figures(strategy_bill),
    }


async def _full_history_prefix(store: Store, mysis_id: int, system: str) -> Callable[[int], int]:
    """Tokens of sending everything up to a memory id (system prompt included)."""
    ids: list[int] = []
    cumulative: list[int] = []
    total = REQUEST_OVERHEAD + message_tokens({"role": "system", "content": system})
    # The whole conversation as the model lived it: every memory, and the nudge that
    # opened each nudge-started turn (never a memory, but sent).
    # (Through the store's reads: a damaged page is its one-line refusal.)
    openings = [
        (first, text)
        for first, text in await store.fetch_all(
            "SELECT first_memory_id, text FROM turns WHERE mysis_id = ? AND text IS NOT NULL "
            "ORDER BY first_memory_id",
            (mysis_id,),
        )
    ]
    for memory_id, memory_tokens, calls in await store.fetch_all(
        "SELECT id, tokens, tool_calls FROM memories WHERE mysis_id = ? AND role != 'system' "
        "ORDER BY id",
        (mysis_id,),
    ):
        while openings and openings[0][0] <= memory_id:
            total += message_tokens({"role": "user", "content": openings.pop(0)[1]})
        message = {"tool_calls": [c.to_openai() for c in tool_calls_from_json(calls)]}
        total += message_tokens(message, memory_tokens)
        ids.append(memory_id)
        cumulative.append(total)

    def at(memory_id: int) -> int:
        index = bisect.bisect_right(ids, memory_id) - 1
        return cumulative[index] if index >= 0 else 0

    return at


def provider_silence(report: dict[str, Any]) -> str | None:
    """Why the provider answered none of a run's requests, in one line (the first
    failure, in its class and the server's words, or the numbers of a context too small
    to send any); None when it answered any."""
    if report["answered"]:
        return None
    failures = report.get("failures") or []
    if failures and failures[0].get("kind") == CONTEXT_TOO_SMALL:
        return f"no request could be sent: {failures[0]['message']}"
    if failures:
        return f"the provider answered none of its requests: {failures[0]['message']}"
    return "the provider answered none of its requests"


def to_json(report: dict[str, Any]) -> str:
    """The report as printed by ``--json``."""
    return json.dumps(report, indent=2, ensure_ascii=False)

"""What a batch will cost before it starts, and what it cost once over (pure).

The estimate bounds the requests (SMBench's budget: 30 a run; the tick budget: about
one a tick) and expects what the provider was measured at: its past arena runs under the
same budget in this database (requests a run, tokens in and out a request, the cached
share, seconds a run, with the range its fastest and slowest runs give and how sure it
is), else guesses said to be guesses (a compact request of the autopilot's bench is about
2 700 prompt tokens, a full one 6 800, ``tools = "auto"`` the full one unless it leaves no
room for the answer in the provider's context window; no time without a measured speed).
The cost comes from the provider's prices (``price_in``, ``price_cached``, ``price_cache_write``,
``price_out``: USD per million tokens, priced by ``core/pricing.py``); without them there
is no cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..config import ProviderConfig
from ..core.composition import ANSWER_RESERVE
from ..core.durations import duration_text
from ..core.game_tool import ToolsMode, tools_modes
from ..core.pricing import uncached
from ..storage.arena import ArenaRun
from .meter import SMBENCH_REQUESTS

#: Prompt tokens a request, when nothing was measured (bench/tools.py, autopilot, 4 Myses).
GUESS_TOKENS: dict[ToolsMode, int] = {"compact": 2_700, "full": 6_800}
#: Answer tokens a request, when nothing was measured.
GUESS_OUT = 150


def guessed_tools(provider: ProviderConfig) -> ToolsMode:
    """The tools the provider's requests are guessed to carry: the first mode of its
    setting's (``tools_modes``) whose guessed request leaves the answer its room in the
    context window, else the last."""
    modes = tools_modes(provider.tools)
    room = provider.context_window - ANSWER_RESERVE
    return next((m for m in modes[:-1] if GUESS_TOKENS[m] <= room), modes[-1])


@dataclass(frozen=True, slots=True)
class Measured:
    """What a provider's past runs show: totals over them, and each run's own figures
    (its requests, ticks and seconds) for the spread."""

    runs: int = 0
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    wall_s: float = 0.0
    #: ``(requests, ticks, seconds)`` of each run.
    each: tuple[tuple[int, int, float], ...] = ()

    @classmethod
    def of(cls, runs: Iterable[ArenaRun], budget_kind: str | None = None) -> Measured:
        """Totals over runs (stored ``ArenaRunRecord``s, or ``RunResult``s) that made
        requests, played under ``budget_kind`` when given (a run of SMBench's budget
        says nothing of one over the whole ticks)."""
        found = [
            r
            for r in runs
            if r.requests > 0
            and (budget_kind is None or r.metrics.get("budget_kind", budget_kind) == budget_kind)
        ]
        return cls(
            runs=len(found),
            requests=sum(r.requests for r in found),
            tokens_in=sum(r.tokens_in for r in found),
            tokens_out=sum(r.tokens_out for r in found),
            cached_tokens=sum(int(r.metrics.get("cached_tokens") or 0) for r in found),
            cache_write_tokens=sum(int(r.metrics.get("cache_write_tokens") or 0) for r in found),
            wall_s=sum(float(r.metrics.get("wall_s") or 0.0) for r in found),
            each=tuple(
                (
                    int(r.requests),
                    int(r.metrics.get("ticks") or 0),
                    float(r.metrics.get("wall_s") or 0.0),
                )
                for r in found
            ),
        )


def cost(
    provider: ProviderConfig,
    tokens_in: float,
    cached: float,
    tokens_out: float,
    cache_write: float = 0,
) -> float | None:
    """USD for these tokens at the provider's prices, to the hundredth of a cent (None:
    no price known): ``tokens_in`` counts every prompt token, ``cached`` of them read
    from the cache and ``cache_write`` written to it (``core/pricing.py`` prices them)."""
    usd = provider.prices.cost(
        uncached=uncached(tokens_in, cached, cache_write),
        cache_read=cached,
        cache_write=cache_write,
        output=tokens_out,
    )
    return None if usd is None else round(usd, 4)


def _per_run(
    each: Sequence[tuple[int, int, float]], budget_kind: str, ticks: int, cap: int
) -> list[tuple[float, float]]:
    """``(requests, seconds)`` each measured run would take for a run of ``ticks``:
    as measured under SMBench's budget (one turn: its own length), scaled by the ticks
    over the whole tick budget; never more requests than ``cap``."""
    out = []
    for requests, played, seconds in each:
        scale = ticks / played if budget_kind != "smbench" and played > 0 else 1.0
        wanted = min(cap, requests * scale)
        out.append((wanted, seconds * wanted / requests if requests else 0.0))
    return out


#: Measured runs below this make an estimate "rough".
SURE_RUNS = 3


def estimate(
    provider: ProviderConfig,
    runs: int,
    budgets: Sequence[int],
    *,
    budget_kind: str,
    measured: Measured,
    jobs: int = 1,
) -> dict[str, Any]:
    """The estimate of a batch of ``runs`` runs (``budgets``: each run's ticks).

    ``requests_at_most`` is the bound (SMBench's budget: 30 a run; the tick budget: a
    request a tick). With measured runs (``measured``, the provider's earlier runs under
    the same budget) the expected requests, tokens and seconds are what those runs took,
    run for run, with the range the fastest and the slowest of them would give
    (``seconds_range``) and how sure it is (``sure``: "guess" with nothing measured,
    "rough" under :data:`SURE_RUNS` runs, else "measured")."""
    caps = [SMBENCH_REQUESTS if budget_kind == "smbench" else ticks for ticks in budgets]
    bound = sum(caps)
    seconds_range: list[float] | None = None
    if measured.requests:
        per_in = measured.tokens_in / measured.requests
        per_out = measured.tokens_out / measured.requests
        cached_share = measured.cached_tokens / measured.tokens_in if measured.tokens_in else 0.0
        write_share = (
            measured.cache_write_tokens / measured.tokens_in if measured.tokens_in else 0.0
        )
        expected = 0.0
        seconds = 0.0
        low = high = 0.0
        for ticks, cap in zip(budgets, caps, strict=True):
            each = _per_run(measured.each, budget_kind, ticks, cap) or [
                (cap, measured.wall_s / measured.requests * cap)
            ]
            expected += sum(r for r, _ in each) / len(each)
            times = [t for _, t in each]
            seconds += sum(times) / len(times)
            low, high = low + min(times), high + max(times)
        width = max(1, jobs)
        seconds_range = [round(low / width, 1), round(high / width, 1)]
        requests = round(expected)
        seconds_total: float | None = round(seconds / width, 1)
        sure = "rough" if measured.runs < SURE_RUNS else "measured"
        basis = f"{measured.runs} earlier arena run(s) of {provider.name}"
    else:
        per_in = GUESS_TOKENS[guessed_tools(provider)]
        per_out, cached_share, write_share, seconds_total = GUESS_OUT, 0.0, 0.0, None
        requests, sure = bound, "guess"
        basis = "guesses: no earlier arena run of this provider (no speed measured)"
    tokens_in = requests * per_in
    cached = tokens_in * cached_share
    written = tokens_in * write_share
    tokens_out = requests * per_out
    return {
        "runs": runs,
        "jobs": jobs,
        "requests_at_most": bound,
        "requests": requests,
        "tokens_in": round(tokens_in),
        "cached_tokens": round(cached),
        "cache_write_tokens": round(written),
        "tokens_out": round(tokens_out),
        "seconds": seconds_total,
        "seconds_range": seconds_range,
        "cost_usd": cost(provider, tokens_in, cached, tokens_out, written),
        "sure": sure,
        "basis": basis,
    }


def remaining(done: Sequence[Any], left: int, jobs: int = 1) -> float | None:
    """Seconds the ``left`` runs of a batch will take at the speed its ``done`` runs
    (``RunResult``s of this invocation) were measured at; None before any ended."""
    if not done:
        return None
    return float(sum(r.wall_s for r in done)) / len(done) * left / max(1, jobs)


def actual(
    provider: ProviderConfig,
    runs: Sequence[Any],
    wall_s: float,
    *,
    invocations: int = 1,
) -> dict[str, Any]:
    """What a batch really took (``RunResult``s: every run of the batch, those of
    earlier invocations included; ``wall_s`` the time of all its invocations)."""
    tokens_in = sum(r.tokens_in for r in runs)
    tokens_out = sum(r.tokens_out for r in runs)
    cached = sum(int(r.metrics.get("cached_tokens") or 0) for r in runs)
    written = sum(int(r.metrics.get("cache_write_tokens") or 0) for r in runs)
    return {
        "runs": len(runs),
        "requests": sum(r.requests for r in runs),
        "tokens_in": tokens_in,
        "cached_tokens": cached,
        "cache_write_tokens": written,
        "tokens_out": tokens_out,
        "seconds": round(wall_s, 1),
        "invocations": invocations,
        "cost_usd": cost(provider, tokens_in, cached, tokens_out, written),
    }


def describe(figures: dict[str, Any], *, before: bool) -> str:
    """One line for the commander: an estimate (with how sure it is), or the real
    figures."""
    bound = figures.get("requests_at_most")
    requests = figures.get("requests", bound or 0)
    if before:
        counted = f"at most {bound:,} requests"
        if figures.get("sure") not in (None, "guess") and requests != bound:
            counted += f" (~{requests:,} expected)"
    else:
        counted = f"{requests:,} requests"
    parts = [
        counted,
        f"{'~' if before else ''}{figures['tokens_in']:,} tokens in"
        + (f" ({figures['cached_tokens']:,} cached)" if figures.get("cached_tokens") else "")
        + (
            f" ({figures['cache_write_tokens']:,} written to the cache)"
            if figures.get("cache_write_tokens")
            else ""
        ),
        f"{'~' if before else ''}{figures['tokens_out']:,} out",
    ]
    seconds = figures.get("seconds")
    if seconds is not None:
        span = figures.get("seconds_range") if before else None
        spread = ""
        if span and span[0] != span[1]:
            low, high = (duration_text(s, rough=True) for s in span)
            spread = f" ({low}–{high})"
        parts.append(f"{'~' if before else ''}{duration_text(seconds, rough=True)}{spread}")
    if figures.get("cost_usd") is not None:
        parts.append(f"{'~' if before else ''}${figures['cost_usd']:.4f}")
    head = "estimate" if before else "actual"
    if not before and (figures.get("invocations") or 1) > 1:
        head += f" (whole batch, {figures['invocations']} invocations)"
    sure = figures.get("sure")
    tail = ""
    if before and figures.get("basis"):
        how = {"rough": "rough: few runs measured", "measured": "measured"}.get(str(sure))
        tail = f" [{figures['basis']}" + (f"; {how}" if how else "") + "]"
    return f"{head}: {figures['runs']} run(s), " + ", ".join(parts) + tail

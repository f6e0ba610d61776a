"""What a batch will cost before it starts, and what it cost once over (pure).

The estimate is an upper bound on requests (SMBench's budget: 30 a run; the tick budget:
about one a tick), multiplied by what the provider was measured at: its past arena runs
in this database (tokens in and out a request, the cached share, seconds a request),
else guesses said to be guesses (a compact request of the autopilot's bench is about
2 700 prompt tokens, a full one 6 800; no time without a measured speed). The cost comes
from the provider's ``price_in``/``price_cached``/``price_out`` (USD per million tokens);
without them there is no cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..config import ProviderConfig
from .meter import SMBENCH_REQUESTS

#: Prompt tokens a request, when nothing was measured (bench/tools.py, autopilot, 4 Myses).
GUESS_TOKENS = {"compact": 2_700, "full": 6_800}
#: Answer tokens a request, when nothing was measured.
GUESS_OUT = 150


@dataclass(frozen=True, slots=True)
class Measured:
    """What a provider's past runs show: totals over them."""

    runs: int = 0
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int = 0
    wall_s: float = 0.0

    @classmethod
    def of(cls, runs: Iterable[Any]) -> Measured:
        """Totals over stored runs (``ArenaRunRecord``s) that made requests."""
        found = [r for r in runs if r.requests > 0]
        return cls(
            runs=len(found),
            requests=sum(r.requests for r in found),
            tokens_in=sum(r.tokens_in for r in found),
            tokens_out=sum(r.tokens_out for r in found),
            cached_tokens=sum(int(r.metrics.get("cached_tokens") or 0) for r in found),
            wall_s=sum(float(r.metrics.get("wall_s") or 0.0) for r in found),
        )


def cost(
    provider: ProviderConfig, tokens_in: float, cached: float, tokens_out: float
) -> float | None:
    """USD for these tokens at the provider's prices (None: no price known). Cached
    prompt tokens are billed at ``price_cached`` (``price_in`` when that is not set)."""
    if provider.price_in is None and provider.price_out is None:
        return None
    price_in = provider.price_in or 0.0
    price_cached = provider.price_cached if provider.price_cached is not None else price_in
    uncached = max(0.0, tokens_in - cached)
    total = uncached * price_in + cached * price_cached + tokens_out * (provider.price_out or 0.0)
    return round(total / 1_000_000, 4)


def estimate(
    provider: ProviderConfig,
    runs: int,
    budgets: Sequence[int],
    *,
    budget_kind: str,
    measured: Measured,
    jobs: int = 1,
) -> dict[str, Any]:
    """The estimate of a batch of ``runs`` runs (``budgets``: each run's ticks)."""
    per_run = [SMBENCH_REQUESTS if budget_kind == "smbench" else ticks for ticks in budgets]
    requests = sum(per_run)
    if measured.requests:
        per_in = measured.tokens_in / measured.requests
        per_out = measured.tokens_out / measured.requests
        cached_share = measured.cached_tokens / measured.tokens_in if measured.tokens_in else 0.0
        seconds = measured.wall_s / measured.requests
        basis = f"{measured.runs} earlier arena run(s) of {provider.name}"
    else:
        per_in = GUESS_TOKENS.get(provider.tools, GUESS_TOKENS["full"])
        per_out, cached_share, seconds = GUESS_OUT, 0.0, None
        basis = "guesses: no earlier arena run of this provider (no speed measured)"
    tokens_in = requests * per_in
    cached = tokens_in * cached_share
    tokens_out = requests * per_out
    return {
        "runs": runs,
        "jobs": jobs,
        "requests_at_most": requests,
        "tokens_in": round(tokens_in),
        "cached_tokens": round(cached),
        "tokens_out": round(tokens_out),
        "seconds": round(requests * seconds / max(1, jobs), 1) if seconds is not None else None,
        "cost_usd": cost(provider, tokens_in, cached, tokens_out),
        "basis": basis,
    }


def actual(provider: ProviderConfig, runs: Sequence[Any], wall_s: float) -> dict[str, Any]:
    """What a batch really took (``RunResult``s; ``wall_s`` the batch's own time)."""
    tokens_in = sum(r.tokens_in for r in runs)
    tokens_out = sum(r.tokens_out for r in runs)
    cached = sum(int(r.metrics.get("cached_tokens") or 0) for r in runs)
    return {
        "runs": len(runs),
        "requests": sum(r.requests for r in runs),
        "tokens_in": tokens_in,
        "cached_tokens": cached,
        "tokens_out": tokens_out,
        "seconds": round(wall_s, 1),
        "cost_usd": cost(provider, tokens_in, cached, tokens_out),
    }


def describe(figures: dict[str, Any], *, before: bool) -> str:
    """One line for the commander: an estimate, or the real figures."""
    requests = figures.get("requests_at_most", figures.get("requests", 0))
    parts = [
        f"{'at most ' if before else ''}{requests:,} requests",
        f"{'~' if before else ''}{figures['tokens_in']:,} tokens in"
        + (f" ({figures['cached_tokens']:,} cached)" if figures.get("cached_tokens") else ""),
        f"{'~' if before else ''}{figures['tokens_out']:,} out",
    ]
    seconds = figures.get("seconds")
    if seconds is not None:
        parts.append(f"{'~' if before else ''}{_duration(seconds)}")
    if figures.get("cost_usd") is not None:
        parts.append(f"{'~' if before else ''}${figures['cost_usd']:.4f}")
    head = "estimate" if before else "actual"
    tail = f" [{figures['basis']}]" if before and figures.get("basis") else ""
    return f"{head}: {figures['runs']} run(s), " + ", ".join(parts) + tail


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"

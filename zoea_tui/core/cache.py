"""How much of a request a provider's prompt cache can reuse.

Serving engines and hosted APIs reuse work only for an identical prefix of the
request. ``prefix_reuse`` is, for consecutive requests A and B of one Mysis, the
length of the longest common prefix of their serialized messages divided by the
length of A; ``uncached_tokens`` is the estimated tokens of B after that prefix
(what the server must evaluate anew). The serialization is canonical JSON (the
order the messages are sent, keys as composed), the same every time.

An engine that also moves runs of its cache into place (llama-server with
``n_cache_reuse``) serves more: :func:`served_from_cache` repeats its loop.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .tokens import count_tokens

#: Whole requests are not worth keeping in the token-count cache (they never repeat).
_count = count_tokens.__wrapped__

Messages = Sequence[dict[str, Any]]

_Unit = TypeVar("_Unit")


def served_from_cache(cache: Sequence[_Unit], prompt: Sequence[_Unit], chunk: int) -> int:
    """How much of ``prompt`` one llama-server slot holding ``cache`` serves from it,
    in the units given (tokens; or messages, one standing for a token).

    The common prefix; then, with ``chunk`` > 0 (its ``n_cache_reuse``), every run of at
    least ``chunk`` units of the prompt found further on in the cache, in order, moved
    into place, until a unit of the prompt that starts no such run. The engine's own
    loop (``tools/server/server-context.cpp``), step for step.
    """
    served = 0
    while served < min(len(cache), len(prompt)) and cache[served] == prompt[served]:
        served += 1
    head_c = head_p = served
    while chunk > 0 and head_c < len(cache) and head_p < len(prompt):
        run = 0
        while (
            head_c + run < len(cache)
            and head_p + run < len(prompt)
            and cache[head_c + run] == prompt[head_p + run]
        ):
            run += 1
        if run >= chunk:
            served, head_c, head_p = served + run, head_c + run, head_p + run
        else:
            head_c += 1
    return served


def serialize(messages: Messages) -> str:
    """The messages as one canonical text (compact JSON, non-ASCII kept)."""
    return json.dumps(list(messages), ensure_ascii=False, separators=(",", ":"))


def common_prefix_chars(a: str, b: str) -> int:
    """Length of the longest common prefix of two strings."""
    limit = min(len(a), len(b))
    if a[:limit] == b[:limit]:
        return limit
    low, high = 0, limit  # a[:low] == b[:low] holds; a[:high] != b[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle
    return low


@dataclass(frozen=True, slots=True)
class Reuse:
    """What request B shares with request A, the one sent before it."""

    #: Share of A's serialized text that B repeats as an exact prefix (0..1).
    share: float
    #: Characters of the common prefix.
    prefix_chars: int
    #: Estimated tokens of B before and after the common prefix.
    cached_tokens: int
    uncached_tokens: int


def reuse(previous: Messages, current: Messages) -> Reuse:
    """How much of ``current`` repeats ``previous`` as an exact prefix."""
    a, b = serialize(previous), serialize(current)
    common = common_prefix_chars(a, b)
    uncached = _count(b[common:])
    total = _count(b)
    return Reuse(
        share=common / len(a) if a else 0.0,
        prefix_chars=common,
        cached_tokens=max(total - uncached, 0),
        uncached_tokens=uncached,
    )


@dataclass(slots=True)
class ReuseTally:
    """Prefix reuse over many requests, per Mysis (the first request of each has none)."""

    shares: list[float] = field(default_factory=list)
    uncached: list[int] = field(default_factory=list)
    _last: dict[int, Messages] = field(default_factory=dict)

    def add(self, mysis_id: int, messages: Messages) -> Reuse | None:
        """Count one request of ``mysis_id``; return its reuse of the one before."""
        previous = self._last.get(mysis_id)
        self._last[mysis_id] = messages
        if previous is None:
            self.uncached.append(_count(serialize(messages)))
            return None
        measured = reuse(previous, messages)
        self.shares.append(measured.share)
        self.uncached.append(measured.uncached_tokens)
        return measured

    def report(self) -> dict[str, Any]:
        """``{"prefix_reuse": {"median", "mean"}, "uncached_tokens": {"total", "mean"}}``."""
        shares = self.shares
        return {
            "prefix_reuse": {
                "median": round(statistics.median(shares), 4) if shares else None,
                "mean": round(statistics.fmean(shares), 4) if shares else None,
            },
            "uncached_tokens": {
                "total": sum(self.uncached),
                "mean": round(statistics.fmean(self.uncached), 1) if self.uncached else 0,
            },
        }

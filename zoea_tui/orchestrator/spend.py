"""What the swarm's model calls cost as they happen: the command center's live meter.

Every answered model call of a Mysis is billed here (``core/pricing.py``) at the prices
of the Mysis's provider (``price_in``, ``price_cached``, ``price_cache_write``,
``price_out``); a provider without prices is counted in tokens only. A provider whose
usage is only an estimate (the rule-based autopilot, which flies no model) costs nothing
and is not counted. The meter covers this run of the swarm: it keeps each Mysis's total,
its newest requests (the focus view's sparklines) and the swarm's recent requests (the
dashboard's rate).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.pricing import Bill, Prices
from ..providers.base import Usage
from .clock import Clock

#: The newest requests of each Mysis kept for its sparklines.
HISTORY = 120
#: The dashboard's rate is what the swarm spent over the last this many seconds…
RATE_WINDOW_S = 600.0
#: …or since its first request, but never over less than this (a first request alone
#: is not a rate of thousands of dollars an hour).
MIN_RATE_SPAN_S = 60.0


@dataclass(frozen=True, slots=True)
class SwarmSpend:
    """The swarm's bill this run and its rate now (what the dashboard shows)."""

    #: Every counted request of the run, added up.
    total: Bill = field(default_factory=Bill)
    #: USD an hour over the recent requests (None: no price known).
    usd_per_hour: float | None = None
    #: Prompt and answer tokens a minute over the recent requests.
    tokens_per_minute: float = 0.0
    #: The share of the recent requests' prompt tokens read from the cache.
    recent_cache_share: float = 0.0

    @property
    def counted(self) -> bool:
        """True once a request was counted (before it, the meter shows nothing)."""
        return self.total.requests > 0


class SpendMeter:
    """The bill of every Mysis and of the swarm, request by request.

    Args:
        clock: the swarm's clock (rates are over its time).
        prices_of: the prices of a provider, by name.
    """

    def __init__(self, clock: Clock, prices_of: Callable[[str], Prices]) -> None:
        self.clock = clock
        self.prices_of = prices_of
        self._totals: dict[int, Bill] = {}
        self._history: dict[int, deque[Bill]] = {}
        #: The swarm's recent requests: (clock time, bill), oldest first, and their sums
        #: (tokens, prompt tokens, cache reads, USD, priced requests), kept as they come
        #: and go so that the rate costs the same however busy the swarm is.
        self._recent: deque[tuple[float, Bill]] = deque()
        self._sums = [0, 0, 0, 0.0, 0]
        self._total = Bill()
        self._first_at: float | None = None

    def record(self, mysis_id: int, provider: str, usage: Usage) -> Bill:
        """Bill one answered request of Mysis ``mysis_id`` on ``provider``."""
        bill = Bill.of(
            self.prices_of(provider),
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.cached_tokens,
            usage.cache_write_tokens,
        )
        now = self.clock.now()
        self._totals[mysis_id] = self._totals.get(mysis_id, Bill()) + bill
        self._history.setdefault(mysis_id, deque(maxlen=HISTORY)).append(bill)
        self._total = self._total + bill
        if self._first_at is None:
            self._first_at = now
        self._recent.append((now, bill))
        self._count(bill, 1)
        self._forget_before(now - RATE_WINDOW_S)
        return bill

    def of(self, mysis_id: int) -> Bill | None:
        """What Mysis ``mysis_id`` cost this run (None: nothing counted)."""
        return self._totals.get(mysis_id)

    def requests(self, mysis_id: int) -> tuple[Bill, ...]:
        """Its newest requests' bills, oldest first (at most :data:`HISTORY`)."""
        return tuple(self._history.get(mysis_id, ()))

    def forget(self, mysis_id: int) -> None:
        """A Mysis was deleted: its own figures go (the swarm's total keeps what it spent)."""
        self._totals.pop(mysis_id, None)
        self._history.pop(mysis_id, None)

    def swarm(self) -> SwarmSpend:
        """The swarm's bill and its rate now."""
        now = self.clock.now()
        self._forget_before(now - RATE_WINDOW_S)
        if self._first_at is None:
            return SwarmSpend()
        tokens, prompt, read, usd, _ = self._sums
        span = max(MIN_RATE_SPAN_S, min(RATE_WINDOW_S, now - self._first_at))
        return SwarmSpend(
            total=self._total,
            # Known once any request was priced (a quiet spell is $0/h, not unknown).
            usd_per_hour=None if self._total.usd is None else max(0.0, usd) * 3600 / span,
            tokens_per_minute=tokens * 60 / span,
            recent_cache_share=read / prompt if prompt else 0.0,
        )

    def _count(self, bill: Bill, sign: int) -> None:
        sums = self._sums
        sums[0] += sign * bill.tokens
        sums[1] += sign * bill.prompt
        sums[2] += sign * bill.cache_read
        sums[3] += sign * (bill.usd or 0.0)
        sums[4] += sign * (bill.usd is not None)
        if not sums[4]:
            sums[3] = 0.0  # no priced request left: no rounding left over either

    def _forget_before(self, cutoff: float) -> None:
        while self._recent and self._recent[0][0] < cutoff:
            self._count(self._recent.popleft()[1], -1)

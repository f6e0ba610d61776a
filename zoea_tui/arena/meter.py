"""The arena's clock and counters: a provider wrapper that spends the run's budget.

On the simulated clock the world advances only when a pilot has to wait (an action
per tick, a trip). A model's answer is not free either: SMBench's ticks run while the
model thinks, so each answer of the scored Mysis that comes when the world has not moved
since its previous answer costs one tick. Every run therefore ends within its budget of
ticks, whatever the model does. The model's own latency stays real.

Under SMBench's budget (:data:`SMBENCH_REQUESTS`) a run is also at most that many model
requests of the scored Mysis: every published SMBench run is one turn of SpaceMolt's
client, which stops after 30 model calls (or sooner, when the model answers without a
tool call; the runner ends the run there).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..core.cache import ReuseTally
from ..core.validator import validate
from ..providers.base import ChatRequest, ChatResponse, EventSink, Provider, ProviderError
from ..sim.host import WorldHost

Progress = Callable[[int, int], None]

#: SMBench's budget: one client turn of at most this many model requests.
SMBENCH_REQUESTS = 30
#: The budgets ``zoea arena --budget`` knows.
BUDGETS: tuple[str, ...] = ("smbench", "ticks")
#: Also known to the runner, for calibration (``bench/arena_calibration.py``): the first
#: :data:`SMBENCH_REQUESTS` requests, over as many turns as they take (what a pilot that
#: keeps its one turn going would play under SMBench's budget).
CALIBRATION_BUDGETS: tuple[str, ...] = (*BUDGETS, "requests")


class TickMeter:
    """The budget of one run: ``budget`` ticks from the tick the run began.

    Args:
        host: the embedded world of the run.
        budget: ticks the scenario allows.
        on_progress: called with ``(ticks played, budget)`` whenever a request begins, or
            ``(requests, max_requests)`` when the run counts requests.
        max_requests: most model requests of the scored Mysis (None: only ticks count).
    """

    def __init__(
        self,
        host: WorldHost,
        budget: int,
        on_progress: Progress | None = None,
        *,
        max_requests: int | None = None,
    ) -> None:
        self.host = host
        self.budget = budget
        self.max_requests = max_requests
        self.start = host.current_tick
        self.on_progress = on_progress
        self.finished = asyncio.Event()
        self.requests = 0
        self.tokens_in = 0
        #: Prompt tokens the server said it served from its cache (when it says).
        self.cached_tokens = 0
        #: Prompt tokens the server said it wrote to its cache (when it says).
        self.cache_write_tokens = 0
        #: Per answered request of the scored Mysis: its prompt tokens (the server's count,
        #: else 0) and the part served from the cache (None when the server does not say).
        self.series_tokens: list[int] = []
        self.series_cached: list[int | None] = []
        #: Per request: the share of it a prompt cache could reuse from the one before.
        self.series_reuse: list[float] = []
        self.tokens_out = 0
        self.refused = 0
        #: Requests that broke the API rules (docs/ARCHITECTURE.md, 'Validity').
        self.violating = 0
        self.tally = ReuseTally()
        self._seen: int | None = None

    @property
    def played(self) -> int:
        """Ticks played so far (at most the budget)."""
        return min(self.host.current_tick - self.start, self.budget)

    @property
    def invalid_requests(self) -> int:
        """Requests that broke the API rules or that the provider refused."""
        return self.violating + self.refused

    @property
    def uncached_tokens(self) -> int:
        """Tokens after the prefix each request shares with the one before."""
        return int(self.tally.report()["uncached_tokens"]["total"])

    def answer_costs_a_tick(self) -> None:
        """A model answer of the scored Mysis: one tick unless the world moved since the
        last one; the budget is spent once the world reaches its end."""
        tick = self.host.current_tick
        if self._seen is not None and tick == self._seen:
            self.host.advance(1)
        self._seen = self.host.current_tick
        self.check()

    def check(self) -> bool:
        """Report progress; mark the run finished when the budget is spent."""
        if self.on_progress is not None:
            if self.max_requests is not None:
                self.on_progress(min(self.requests, self.max_requests), self.max_requests)
            else:
                self.on_progress(self.played, self.budget)
        if self.host.current_tick - self.start >= self.budget:
            self.finished.set()
        if self.max_requests is not None and self.requests >= self.max_requests:
            self.finished.set()
        return self.finished.is_set()

    def request_allowed(self) -> bool:
        """Whether the scored Mysis may send one more request (ticks and requests left);
        a request refused here ends the run."""
        if self.max_requests is not None and self.requests >= self.max_requests:
            self.finished.set()
        return not self.finished.is_set()


class MeteredProvider:
    """A provider that counts requests and tokens and spends the run's ticks.

    Only the scored Mysis drives the clock (``drives_clock``); companions' requests
    still count nothing. Once the budget is spent the scored Mysis's next request waits
    until the run stops it, so nothing it does after the end counts.
    """

    def __init__(self, inner: Provider, meter: TickMeter, *, drives_clock: bool) -> None:
        self.inner = inner
        self.meter = meter
        self.drives_clock = drives_clock
        self.label = inner.label
        self._last_tick = -1

    async def chat(self, request: ChatRequest, on_event: EventSink | None = None) -> ChatResponse:
        """Answer through the wrapped provider, after spending the tick."""
        if not self.drives_clock:
            await self._one_answer_per_tick(request)
            return await self.inner.chat(request, on_event)
        if request.tools:
            self.meter.answer_costs_a_tick()
        if not self.meter.request_allowed():
            await asyncio.Event().wait()  # the run is over: the runner stops this Mysis
        self.meter.requests += 1
        if request.tools:
            self.meter.violating += bool(validate(request.messages))
            measured = self.meter.tally.add(0, request.messages)
            self.meter.series_reuse.append(round(measured.share, 4) if measured else 0.0)
        try:
            response = await self.inner.chat(request, on_event)
        except ProviderError:
            self.meter.refused += 1
            raise
        usage = response.usage
        if usage is not None:
            self.meter.tokens_in += usage.prompt_tokens or 0
            self.meter.cached_tokens += usage.cached_tokens or 0
            self.meter.cache_write_tokens += usage.cache_write_tokens or 0
            self.meter.series_tokens.append(usage.prompt_tokens or 0)
            self.meter.series_cached.append(usage.cached_tokens)
            self.meter.tokens_out += usage.completion_tokens or 0
        return response

    async def _one_answer_per_tick(self, request: ChatRequest) -> None:
        """A companion thinks at most once per tick, so it never outruns the scored Mysis
        nor spends its budget; after the end it waits to be stopped."""
        if not request.tools:
            return
        while self.meter.host.current_tick <= self._last_tick or self.meter.finished.is_set():
            await asyncio.sleep(0.005)
        self._last_tick = self.meter.host.current_tick

    async def aclose(self) -> None:
        """Close the wrapped provider."""
        await self.inner.aclose()

    def __getattr__(self, name: str) -> Any:  # e.g. the autopilot's native ``summarize``
        return getattr(self.inner, name)

"""The one retry policy: how often to try a transient failure again, and how long to wait.

Every retry in the engine goes through :func:`with_retries` with a
:class:`RetryPolicy`: the HTTP providers' transient failures
(``providers/_http.py``) and a Mysis's model calls, tool-list fetches and
tool calls (``orchestrator/mysis.py``). The caller says which failures are
transient and hands in the ``sleep`` to wait with (an orchestrator clock's,
so tests advance time by hand and simulations skip the waiting).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many tries in all, and the waits between them.

    ``attempts`` counts every try, the first included (1: never retry). The
    wait after the n-th failure is ``backoff_base * 2**(n-1)``, at most
    ``max_delay``. A server's own hint (``Retry-After``) replaces it; a hint
    longer than ``max_delay`` is not waited for: the failure escapes.
    """

    attempts: int = 3
    backoff_base: float = 1.0
    max_delay: float = 60.0

    def delay(self, failures: int, hint: float | None = None) -> float | None:
        """Seconds to wait after ``failures`` failed tries (1 = the first); None: give up."""
        if failures >= self.attempts:
            return None
        if hint is not None:
            return max(0.0, hint) if hint <= self.max_delay else None
        return min(self.backoff_base * 2.0 ** (failures - 1), self.max_delay)


def _no_hint(_: Exception) -> float | None:
    return None


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    sleep: Sleep,
    transient: Callable[[Exception], bool],
    hint: Callable[[Exception], float | None] = _no_hint,
    on_retry: Callable[[Exception, float], Awaitable[None]] | None = None,
) -> T:
    """Run ``attempt`` until it succeeds; retry the failures ``transient`` accepts.

    ``hint`` reads a failure's own wait (a ``Retry-After``); ``on_retry`` hears
    each failure about to be retried with the wait chosen. The last failure,
    or one that is not transient, escapes unchanged.
    """
    failures = 0
    while True:
        try:
            return await attempt()
        except Exception as error:
            if not transient(error):
                raise
            failures += 1
            wait = policy.delay(failures, hint(error))
            if wait is None:
                raise
            if on_retry is not None:
                await on_retry(error, wait)
            await sleep(wait)

"""The one retry policy: how often to try a transient failure again, and how long to wait.

Every retry in the engine goes through :func:`with_retries` with a
:class:`RetryPolicy`: the HTTP providers' transient failures
(``providers/_http.py``) and a Mysis's model calls, tool-list fetches and
tool calls (``orchestrator/mysis.py``). The caller says which failures are
transient and hands in the ``sleep`` to wait with (an orchestrator clock's,
so tests advance time by hand and simulations skip the waiting).

The schedules themselves are named here, in one place: :data:`BOUNDED` (three
tries, 1 s then 2 s apart: the game's calls, a headless run's model calls and
``zoea probe``), :data:`PATIENT` (a Mysis's model calls in the command center:
it keeps trying a failure that heals by waiting, 1 s, 2 s, 4 s … up to a minute
apart, jittered, until the server answers), :data:`ONCE` (no retry: a Mysis's
HTTP client, whose runtime retries each call itself, so retries never multiply)
and :data:`CLIENT` (an HTTP client used on its own). A server's ``Retry-After``
is honoured by every one of them up to :data:`MAX_SERVER_WAIT`, the one cap.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many tries in all, and the waits between them.

    ``attempts`` counts every try, the first included (1: never retry; 0: no limit,
    keep trying). The wait after the n-th failure is ``backoff_base * 2**(n-1)``, at
    most ``max_delay``, less a random share of up to ``jitter`` of it (0.2: between
    80 % and 100 %), so a swarm that failed together does not come back together. A
    server's own hint (``Retry-After``) replaces it, unjittered; a hint longer than
    ``max_hint`` (by default ``max_delay``) is not waited for: the failure escapes, or,
    when the tries have no limit, ``max_hint`` is waited instead.
    """

    attempts: int = 3
    backoff_base: float = 1.0
    max_delay: float = 60.0
    jitter: float = 0.0
    max_hint: float | None = None

    @property
    def endless(self) -> bool:
        """True when the tries have no limit (``attempts`` 0)."""
        return self.attempts <= 0

    def delay(
        self,
        failures: int,
        hint: float | None = None,
        *,
        rand: Callable[[], float] = random.random,
    ) -> float | None:
        """Seconds to wait after ``failures`` failed tries (1 = the first); None: give up.

        ``rand`` draws the jitter's share (in [0, 1)); tests hand in a fixed one.
        """
        if not self.endless and failures >= self.attempts:
            return None
        if hint is not None:
            longest = self.max_delay if self.max_hint is None else self.max_hint
            if hint <= longest:
                return max(0.0, hint)
            return longest if self.endless else None
        wait = min(self.backoff_base * 2.0 ** min(failures - 1, 62), self.max_delay)
        return wait * (1.0 - self.jitter * rand()) if self.jitter > 0 else wait


#: The longest wait a server's ``Retry-After`` gets (ten minutes), for every caller: a
#: longer one is not waited for by a bounded policy (the failure is reported at once,
#: naming the wait the server asked for), and is waited only this long by an endless one.
MAX_SERVER_WAIT = 600.0

#: Three tries in all, 1 s then 2 s apart (or the server's ``Retry-After``, up to ten
#: minutes): the game's calls, and a headless run's model calls (``zoea simulate`` and
#: ``zoea arena`` run on a virtual clock, where waiting is free: an endless policy
#: would try a dead server as fast as it refuses; they report the failure instead).
BOUNDED = RetryPolicy(attempts=3, backoff_base=1.0, max_delay=60.0, max_hint=MAX_SERVER_WAIT)

#: A Mysis's model calls in the command center: a failure that heals by waiting
#: (unreachable, timed out, 5xx, rate-limited, cut short) is tried again and again,
#: 1, 2, 4, 8, 16, 32 s, then every 60 s, each wait jittered by up to 20 % (a
#: ``Retry-After`` is honoured up to ten minutes), until the server answers.
PATIENT = RetryPolicy(
    attempts=0, backoff_base=1.0, max_delay=60.0, jitter=0.2, max_hint=MAX_SERVER_WAIT
)

#: One try, no retry: the HTTP client of a Mysis (its runtime retries each call under
#: ``BOUNDED`` or ``PATIENT``, logging and showing every try).
ONCE = RetryPolicy(attempts=1)

#: An HTTP client used on its own (a script, a test): four tries, 0.5 s, 1 s, 2 s apart,
#: or the server's ``Retry-After`` up to the cap.
CLIENT = RetryPolicy(attempts=4, backoff_base=0.5, max_delay=60.0, max_hint=MAX_SERVER_WAIT)


def past_cap(policy: RetryPolicy, hint: float | None) -> bool:
    """Whether a server's wait ``hint`` is longer than ``policy`` waits for."""
    longest = policy.max_delay if policy.max_hint is None else policy.max_hint
    return hint is not None and hint > longest


def seconds_words(seconds: float) -> str:
    """A wait in words: "5 s", "10 min", "3 h", "12 days"."""
    if round(seconds, 1) < 1:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


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

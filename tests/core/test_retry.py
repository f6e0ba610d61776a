"""The one retry policy (core/retry.py), on the manual clock: tries, waits and hints."""

from __future__ import annotations

import asyncio

import pytest

from zoea_tui.core.retry import RetryPolicy, with_retries
from zoea_tui.orchestrator.clock import ManualClock


class Down(Exception):
    """A transient failure, with an optional hint of its own."""

    def __init__(self, hint: float | None = None) -> None:
        super().__init__("down")
        self.hint = hint


def transient(error: Exception) -> bool:
    return isinstance(error, Down)


def hint(error: Exception) -> float | None:
    return error.hint if isinstance(error, Down) else None


async def parked(clock: ManualClock, task: asyncio.Task[object]) -> None:
    """Let the task run until it waits on the clock or ends."""
    for _ in range(100):
        if clock.waiting or task.done():
            return
        await asyncio.sleep(0)
    raise AssertionError("the task neither waited nor ended")


def test_the_waits_double_from_the_base_up_to_the_cap() -> None:
    policy = RetryPolicy(attempts=6, backoff_base=0.5, max_delay=3.0)
    assert [policy.delay(n) for n in range(1, 7)] == [0.5, 1.0, 2.0, 3.0, 3.0, None]


def test_a_hint_replaces_the_backoff_unless_it_is_too_long() -> None:
    policy = RetryPolicy(attempts=3, max_delay=60.0)
    assert policy.delay(1, hint=7.0) == 7.0
    assert policy.delay(1, hint=60.5) is None
    assert policy.delay(3, hint=1.0) is None  # no tries left, whatever the hint


def test_one_attempt_never_retries() -> None:
    assert RetryPolicy(attempts=1).delay(1) is None


async def test_each_retry_waits_its_full_backoff_on_the_clock() -> None:
    clock = ManualClock()
    tries: list[float] = []

    async def attempt() -> str:
        tries.append(clock.now())
        if len(tries) < 3:
            raise Down()
        return "ok"

    task = asyncio.create_task(
        with_retries(
            attempt,
            RetryPolicy(attempts=3, backoff_base=1.0),
            sleep=clock.sleep,
            transient=transient,
        )
    )
    await parked(clock, task)
    assert tries == [0.0]
    clock.advance(0.999)
    await parked(clock, task)
    assert tries == [0.0]  # nothing before the first wait is over
    clock.advance(0.001)
    await asyncio.sleep(0)
    await parked(clock, task)
    assert tries == [0.0, 1.0]
    clock.advance(1.999)
    await parked(clock, task)
    assert len(tries) == 2  # the second wait is twice the first
    clock.advance(0.001)
    assert await task == "ok"
    assert tries == [0.0, 1.0, 3.0]


async def test_a_hint_is_waited_exactly() -> None:
    clock = ManualClock()
    tries: list[float] = []

    async def attempt() -> str:
        tries.append(clock.now())
        if len(tries) == 1:
            raise Down(hint=7.0)
        return "ok"

    heard: list[float] = []

    async def on_retry(error: Exception, wait: float) -> None:
        heard.append(wait)

    task = asyncio.create_task(
        with_retries(
            attempt,
            RetryPolicy(),
            sleep=clock.sleep,
            transient=transient,
            hint=hint,
            on_retry=on_retry,
        )
    )
    await parked(clock, task)
    clock.advance(6.9)
    await parked(clock, task)
    assert tries == [0.0] and heard == [7.0]
    clock.advance(0.1)
    assert await task == "ok"
    assert tries == [0.0, 7.0]


async def test_the_last_failure_escapes_after_every_attempt() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    tries = 0

    async def attempt() -> None:
        nonlocal tries
        tries += 1
        raise Down()

    with pytest.raises(Down):
        await with_retries(
            attempt, RetryPolicy(attempts=3, backoff_base=1.0), sleep=sleep, transient=transient
        )
    assert tries == 3 and waits == [1.0, 2.0]


async def test_a_failure_that_is_not_transient_escapes_at_once() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def attempt() -> None:
        raise ValueError("bad request")

    with pytest.raises(ValueError):
        await with_retries(attempt, RetryPolicy(), sleep=sleep, transient=transient)
    assert waits == []


async def test_a_hint_too_long_escapes_without_waiting() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def attempt() -> None:
        raise Down(hint=3600.0)

    with pytest.raises(Down):
        await with_retries(
            attempt, RetryPolicy(max_delay=60.0), sleep=sleep, transient=transient, hint=hint
        )
    assert waits == []


def test_an_endless_policy_never_gives_up_and_jitter_only_shortens() -> None:
    policy = RetryPolicy(attempts=0, backoff_base=1.0, max_delay=60.0, jitter=0.2)
    assert policy.endless and not RetryPolicy().endless
    assert policy.delay(1_000, rand=lambda: 0.0) == 60.0
    assert policy.delay(1_000, rand=lambda: 0.5) == 54.0
    assert policy.delay(3, rand=lambda: 0.999_999) == pytest.approx(3.2, abs=1e-4)
    # A hint past the longest honoured one: waited up to it (endless), or the end (bounded).
    assert policy.delay(2, hint=61.0) == 60.0
    assert RetryPolicy(attempts=3, max_delay=60.0).delay(2, hint=61.0) is None
    assert RetryPolicy(attempts=3, max_delay=5.0, max_hint=600.0).delay(1, hint=300.0) == 300.0


async def test_an_endless_policy_tries_until_the_attempt_succeeds() -> None:
    clock = ManualClock()
    tries = 0

    async def attempt() -> str:
        nonlocal tries
        tries += 1
        if tries < 12:
            raise Down()
        return "up"

    task = asyncio.ensure_future(
        with_retries(
            attempt,
            RetryPolicy(attempts=0, backoff_base=1.0, max_delay=4.0),
            sleep=clock.sleep,
            transient=transient,
        )
    )
    while not task.done():
        await parked(clock, task)
        clock.advance(4.0)
    assert task.result() == "up" and tries == 12

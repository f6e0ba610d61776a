"""The event bus never drops an event: backpressure for the important, coalescing for the rest."""

from __future__ import annotations

import asyncio

from zoea_tui.orchestrator.events import (
    EventBus,
    NetworkActivity,
    Notice,
    StreamDelta,
)


async def test_a_flood_reaches_a_slow_subscriber_complete_and_in_order() -> None:
    bus = EventBus()
    sub = bus.subscribe(maxsize=64)
    received: list[object] = []

    async def slow_reader() -> None:
        async for event in sub:
            received.append(event)
            if len(received) % 100 == 0:
                await asyncio.sleep(0.001)  # a UI busy painting
            if isinstance(event, Notice) and event.message == "end":
                return

    reader = asyncio.create_task(slow_reader())
    for i in range(20_000):
        await bus.publish(Notice(level="info", message=str(i)))
        await bus.publish(StreamDelta(mysis_id=i % 4, text="x" * (i % 50)))
        await bus.publish(NetworkActivity(llm=i, mcp=i))
    await bus.publish(Notice(level="info", message="end"))
    await asyncio.wait_for(reader, 30)

    notices = [e.message for e in received if isinstance(e, Notice)]
    assert notices == [str(i) for i in range(20_000)] + ["end"]  # none dropped, in order
    network = [e for e in received if isinstance(e, NetworkActivity)]
    assert network[-1].llm == 19_999  # the newest value always arrives
    assert len(sub) == 0


async def test_coalescing_keeps_one_pending_per_key_and_the_newest_value() -> None:
    bus = EventBus()
    sub = bus.subscribe(maxsize=10)
    for i in range(1000):
        await bus.publish(StreamDelta(mysis_id=1, text=str(i)))
        await bus.publish(StreamDelta(mysis_id=2, text=str(i)))
    assert len(sub) == 2
    first, second = sub.get_nowait(), sub.get_nowait()
    assert (first.mysis_id, first.text) == (1, "999")
    assert (second.mysis_id, second.text) == (2, "999")
    assert sub.coalesced == 1998


async def test_a_full_subscriber_holds_the_publisher_back_until_it_reads() -> None:
    bus = EventBus()
    sub = bus.subscribe(maxsize=2)
    await bus.publish(Notice(level="info", message="a"))
    await bus.publish(Notice(level="info", message="b"))
    blocked = asyncio.create_task(bus.publish(Notice(level="info", message="c")))
    await asyncio.sleep(0.01)
    assert not blocked.done()
    assert sub.get_nowait().message == "a"
    await asyncio.wait_for(blocked, 1)
    assert [sub.get_nowait().message for _ in range(2)] == ["b", "c"]


async def test_closing_a_subscription_releases_a_blocked_publisher() -> None:
    bus = EventBus()
    sub = bus.subscribe(maxsize=1)
    await bus.publish(Notice(level="info", message="a"))
    blocked = asyncio.create_task(bus.publish(Notice(level="info", message="b")))
    await asyncio.sleep(0.01)
    sub.close()
    await asyncio.wait_for(blocked, 1)
    await bus.publish(Notice(level="info", message="c"))  # nobody listens: no error

"""One warm prefix for the whole swarm from its first request (``warm_start.py``), over
real loopback HTTP.

Myses started together on one engine: the first request goes first and the others wait
for it, which the server sees in the order requests arrive and answers leave
(``FakeServer.timeline``): the first Mysis's answer ends before the others are sent, and
a llama-server with several slots is asked in between to save the warm slot (a
one-token task on ``/completion``). The swarm
runs on the virtual clock of ``zoea simulate`` and the benchmarks: the wait is in real
time all the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from tests.fakes import refused_url
from tests.fakes.llm_servers import FakeOpenAIServer, HttpError, LlamaServer, Reply
from tests.helpers import open_on_world
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core.retry import ONCE
from zoea_tui.orchestrator.clock import VirtualClock
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.warm_start import WAITING, WarmStart
from zoea_tui.providers.base import ChatRequest, ProviderError, ProviderSettings
from zoea_tui.providers.openai_compat import OpenAIProvider

from .conftest import ScriptedModel, until

NAMES = ("Ada", "Brin", "Cass", "Dex")
ENGINE = ("cloud", "m")
Swarm = Callable[..., AbstractAsyncContextManager[Commander]]


@pytest.fixture
def swarm(tmp_path: Path, config: Config) -> Swarm:
    """A commander on the virtual clock whose provider ``cloud`` is the server at ``url``."""

    @asynccontextmanager
    async def open_(url: str, *, warm_start: WarmStart | None = None) -> AsyncIterator[Commander]:
        providers = dict(config.providers)
        providers["cloud"] = ProviderConfig(
            name="cloud", type="openai", endpoint=url, model="m", tools="compact", timeout=30
        )
        cfg = replace(config, providers=providers, swarm=replace(config.swarm, max_myses=8))
        commander = await open_on_world(cfg, tmp_path, clock=VirtualClock())
        if warm_start is not None:
            commander.services = replace(commander.services, warm_start=warm_start)
        try:
            yield commander
        finally:
            await commander.shutdown(timeout=0)

    return open_


async def start_together(commander: Commander, names: tuple[str, ...] = NAMES) -> None:
    """Create the Myses one after another without waiting: they start together."""
    for name in names:
        await commander.create_mysis(name, provider="cloud")


def chats(server: FakeOpenAIServer) -> list[int]:
    """The indexes (in ``server.requests``) of the chat requests, in arrival order."""
    return [i for i, r in enumerate(server.requests) if r.path.endswith("/chat/completions")]


def answered_before(server: FakeOpenAIServer, first: int, then: int) -> bool:
    """Whether the answer to request ``first`` left before request ``then`` arrived."""
    timeline = server.timeline
    return ("out", first) in timeline and timeline.index(("out", first)) < timeline.index(
        ("in", then)
    )


async def four_first_requests(
    swarm: Swarm, server: FakeOpenAIServer, first_answer: float = 0.3
) -> WarmStart:
    """Four Myses started together on ``server``, the first answer taking ``first_answer``
    seconds, until each has sent its first request; the swarm's warm start."""
    server.script(Reply("first", delay=first_answer))
    server.default = Reply("Nothing to do.")
    async with swarm(server.url) as commander:
        await start_together(commander)
        await until(lambda: len(chats(server)) >= 4)
        return commander.services.warm_start


async def test_a_multi_slot_llama_server_shares_the_first_prompt_before_the_others_go(
    swarm: Swarm,
) -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384, slots=4)) as server:
        # The first answer takes long enough that the other three are created, and wait,
        # before it is out, however loaded the machine (at 0.3 s, under a load of 15,
        # one was created after it and went without waiting).
        warm_start = await four_first_requests(swarm, server, first_answer=2.0)

    first, *others = chats(server)[:4]
    (poke,) = [i for i, r in enumerate(server.requests) if r.path == "/completion"]
    # The first request alone; once it was answered the server was asked to save its
    # slot (a one-token task); then the others went, together.
    assert first < poke and answered_before(server, first, poke)
    assert all(answered_before(server, poke, i) for i in others)
    assert warm_start.shared == {ENGINE: 4} and warm_start.is_warm(ENGINE)
    assert warm_start.waits == 3


async def test_a_follower_says_it_waits_for_the_warm_prefix(swarm: Swarm) -> None:
    """While the leader is answered, the others' activity says what they wait for (their
    panes do not look idle); once it has answered they go on."""
    async with FakeOpenAIServer() as server:
        server.script(Reply("first", delay=4.0))
        server.default = Reply("Nothing to do.")
        async with swarm(server.url) as commander:
            await start_together(commander, NAMES[:3])
            await until(
                lambda: (
                    sum(v.activity == WAITING for v in commander.myses()) == 2
                    and len(chats(server)) == 1
                )
            )
            await until(lambda: len(chats(server)) >= 3, 30)
            await until(lambda: all(v.activity != WAITING for v in commander.myses()), 30)


async def test_a_server_without_slots_to_warm_has_the_first_answer_end_first(
    swarm: Swarm,
) -> None:
    async with FakeOpenAIServer() as server:  # not a llama-server: no /props
        warm_start = await four_first_requests(swarm, server)

    first, *others = chats(server)[:4]
    assert all(answered_before(server, first, i) for i in others)
    assert "/completion" not in [r.path for r in server.requests]
    assert warm_start.shared == {} and warm_start.is_warm(ENGINE)


async def test_one_slot_is_no_warm_up_the_first_answer_goes_first(swarm: Swarm) -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384, slots=1)) as server:
        server.script(Reply("first", delay=0.3))
        server.default = Reply("Nothing to do.")
        async with swarm(server.url) as commander:
            await start_together(commander, NAMES[:2])
            await until(lambda: len(chats(server)) >= 2)

    first, second = chats(server)[:2]
    assert answered_before(server, first, second)
    assert "/completion" not in [r.path for r in server.requests]  # one slot: nothing to share


async def test_without_the_warm_start_every_first_request_goes_at_once(swarm: Swarm) -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384, slots=4)) as server:
        server.default = Reply("Nothing to do.", delay=0.5)
        async with swarm(server.url, warm_start=WarmStart(enabled=False)) as commander:
            await start_together(commander)
            await until(lambda: len(chats(server)) >= 4)
            # Four requests in flight at once: none was answered before the last arrived.
            assert not any(("out", i) in server.timeline for i in chats(server))

    assert "/completion" not in [r.path for r in server.requests]


async def test_a_leader_that_fails_lets_the_others_go_at_once(swarm: Swarm) -> None:
    async with FakeOpenAIServer() as server:
        server.script(HttpError(403, "this key may not use model m", delay=0.2))
        server.default = Reply("Nothing to do.")
        async with swarm(server.url) as commander:
            await start_together(commander, NAMES[:3])
            await until(lambda: len(chats(server)) >= 3)
            await until(lambda: any(v.state == "errored" for v in commander.myses()))
            warm_start = commander.services.warm_start

    first, *others = chats(server)[:3]
    assert all(answered_before(server, first, i) for i in others)
    assert [v.state for v in commander.myses()].count("errored") == 1
    assert warm_start.waits == 2


async def test_the_wait_for_a_leader_is_bounded(swarm: Swarm) -> None:
    async with FakeOpenAIServer() as server:
        server.script(Reply("slow", delay=3.0))
        server.default = Reply("Nothing to do.")
        async with swarm(server.url, warm_start=WarmStart(max_wait_s=0.2)) as commander:
            await start_together(commander, NAMES[:2])
            await until(lambda: len(chats(server)) >= 2)
            first, second = chats(server)[:2]
            # The second went after 0.2 s, while the first was still being answered.
            assert not answered_before(server, first, second)
            assert commander.services.warm_start.waits == 1


def request() -> ChatRequest:
    settings = ProviderSettings(model="m", max_tokens=8, timeout=5)
    return ChatRequest(({"role": "user", "content": "hi"},), (), settings, stream=False)


async def test_an_engine_found_unreachable_is_cold_again() -> None:
    warm_start = WarmStart()
    async with FakeOpenAIServer() as server:
        provider = OpenAIProvider(server.url, "m", retry=ONCE)
        async with warm_start.first(ENGINE, provider):
            await provider.chat(request())
        await provider.aclose()
    assert warm_start.is_warm(ENGINE)

    gone = OpenAIProvider(refused_url() + "/v1", "m", retry=ONCE)
    with pytest.raises(ProviderError) as failed:
        async with warm_start.first(ENGINE, gone):
            await gone.chat(request())
    await gone.aclose()
    assert failed.value.kind == "unreachable"
    assert not warm_start.is_warm(ENGINE)  # the next request leads again


async def test_a_model_with_no_server_is_never_held() -> None:
    warm_start = WarmStart(max_wait_s=60)
    model = ScriptedModel()
    async with (
        warm_start.first(ENGINE, model),  # type: ignore[arg-type]
        warm_start.first(ENGINE, model),  # type: ignore[arg-type]
    ):
        pass  # a second request while the first is under way: not held
    assert warm_start.waits == 0 and not warm_start.is_warm(ENGINE)


async def test_a_leader_cut_before_its_answer_hands_the_lead_on() -> None:
    """An order cut the leader's request (``MysisRuntime.deliver``): the engine is still
    cold, so the next request leads and the rest wait for it, where they all used to go
    at once, each a cold evaluation."""
    warm_start = WarmStart(max_wait_s=60)
    inside: list[str] = []
    go = {name: asyncio.Event() for name in "ABC"}
    async with FakeOpenAIServer() as server:
        provider = OpenAIProvider(server.url, "m", retry=ONCE)

        async def ask(name: str) -> None:
            async with warm_start.first(ENGINE, provider):
                inside.append(name)
                await go[name].wait()
                await provider.chat(request())

        leader = asyncio.create_task(ask("A"))
        await until(lambda: inside == ["A"])
        followers = [asyncio.create_task(ask(name)) for name in "BC"]
        await until(lambda: warm_start.waits == 2)
        leader.cancel()
        await until(lambda: inside == ["A", "B"] and warm_start.waits == 3)
        assert not warm_start.is_warm(ENGINE)  # C waits for B, the new leader
        go["B"].set()
        await until(lambda: inside == ["A", "B", "C"])
        assert warm_start.is_warm(ENGINE)
        go["C"].set()
        await asyncio.gather(*followers)
        await provider.aclose()

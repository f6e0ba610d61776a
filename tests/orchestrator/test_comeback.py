"""Myses come back by themselves (issue 39, item 2): a model server that is down, slow or
failing is tried again and again with a growing backoff on the swarm's clock, and the
Mysis plays on from its first answer; ``r`` tries at once; only what waiting cannot heal
stops it. Over real loopback HTTP, a real SQLite file and the embedded world."""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Self

import pytest

from tests.fakes.llm_servers import Call, FakeOpenAIServer, HttpError, Reply
from tests.helpers import open_on_world
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core.retry import BOUNDED, PATIENT
from zoea_tui.orchestrator.clock import ManualClock, VirtualClock
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.storage import RequestRecord

from .conftest import advance_until, until


class PortServer(FakeOpenAIServer):
    """The scripted OpenAI-compatible server on a port chosen beforehand: down until
    :meth:`start` (a server killed and started again at the same address)."""

    def __init__(self, port: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.port = port

    async def start(self) -> Self:
        self._server = await asyncio.start_server(self._on_connection, "127.0.0.1", self.port)
        return self


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _config(url: str) -> Config:
    base = Config()
    provider = ProviderConfig(
        name="llama", type="openai", endpoint=url, model="qwen2.5", timeout=5.0, stream=False
    )
    return replace(
        base,
        providers={**base.providers, "llama": provider},
        game=replace(base.game, tick_seconds=0),
    )


async def _open(tmp_path: Path, url: str, clock: ManualClock) -> Commander:
    config = _config(url)
    return await open_on_world(config, tmp_path, clock=clock)


async def _came_back(commander: Commander, mysis_id: int) -> list[RequestRecord]:
    """Checks the Mysis runs again, with no error and its last request answered; returns
    its requests log for what else a test checks in it."""
    back = commander.mysis(mysis_id)
    assert back.state == "running" and back.last_error is None
    logged = await commander.store.list_requests(mysis_id)
    assert logged[-1].outcome == "ok"
    return logged


def test_the_patient_schedule_grows_to_a_minute_jittered_and_never_gives_up() -> None:
    waits = [PATIENT.delay(n, rand=lambda: 0.0) for n in range(1, 11)]
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0, 60.0]
    jittered = PATIENT.delay(12, rand=lambda: 0.999)
    assert jittered is not None and 48.0 <= jittered < 60.0  # up to 20 % shorter
    assert PATIENT.delay(10_000) is not None  # endless
    assert PATIENT.delay(3, hint=90.0) == 90.0  # a Retry-After is honoured
    assert PATIENT.delay(3, hint=3600.0) == 600.0  # up to ten minutes, then tried again


async def test_a_server_that_fails_then_answers_gets_its_mysis_back_by_itself(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = ManualClock()
    caplog.set_level(logging.INFO, logger="zoea_tui.orchestrator.mysis")
    async with FakeOpenAIServer() as server:
        server.script(
            HttpError(503, "Loading model"),
            HttpError(503, "Loading model"),
            HttpError(502, "bad gateway"),
            HttpError(503, "Loading model"),
            Reply("", tool_calls=[Call("get_status", {})]),
            Reply("Status checked."),
        )
        commander = await _open(tmp_path, server.url, clock)
        try:
            view = await commander.create_mysis("Back", provider="llama")
            await until(lambda: commander.mysis(view.id).next_try_at is not None)
            backing = commander.mysis(view.id)
            assert backing.state == "running" and backing.activity == "server error"
            assert "Loading model" in backing.last_line
            assert backing.next_try_at is not None and backing.next_try_at > time.time()
            # No r: the clock moves and the Mysis tries again, and again, until answered.
            await advance_until(clock, lambda: len(server.chat_requests) >= 6, step=0.5)
            await until(lambda: commander.mysis(view.id).activity == "waiting")
            logged = await _came_back(commander, view.id)
            assert commander.mysis(view.id).next_try_at is None
        finally:
            await commander.shutdown()
    assert [r.outcome for r in logged] == ["error"] * 4 + ["ok", "ok"]
    assert [r.error_kind for r in logged[:4]] == ["server_error"] * 4
    # Each wait longer than the one before (1, 2, 4 s, jittered by up to 20 %).
    waits = [
        float(r.getMessage().rsplit("the next in ", 1)[1].split(" ")[0])
        for r in caplog.records
        if "the next in" in r.getMessage()
    ]
    assert len(waits) == 4 and all(b > a for a, b in itertools.pairwise(waits))
    first = next(r for r in caplog.records if "try 1 failed" in r.getMessage())
    assert first.levelno == logging.WARNING and "Loading model" in first.getMessage()
    assert any("answered again after 4 failed tries" in r.getMessage() for r in caplog.records)


async def test_a_server_down_then_started_again_gets_its_mysis_back(tmp_path: Path) -> None:
    """The server is not listening (unreachable); it starts on the same address while the
    Mysis waits; the Mysis's next scheduled try finds it, with no ``r``."""
    clock = ManualClock()
    port = free_port()
    server = PortServer(port)
    server.script(Reply("Back online."))
    commander = await _open(tmp_path, f"http://127.0.0.1:{port}", clock)
    try:
        view = await commander.create_mysis("Down", provider="llama")
        await advance_until(
            clock, lambda: commander.mysis(view.id).activity == "unreachable", step=0.25
        )
        # A few tries fail while the server is down; the Mysis stays running.
        runtime = commander._myses[view.id]
        await advance_until(clock, lambda: runtime._failed_tries >= 3, step=0.5)
        assert commander.mysis(view.id).state == "running"
        async with server:
            await advance_until(clock, lambda: len(server.chat_requests) >= 1, step=1.0)
            await until(lambda: commander.mysis(view.id).last_answer == "Back online.")
        logged = await _came_back(commander, view.id)
    finally:
        await commander.shutdown()
    assert {r.error_kind for r in logged[:-1]} == {"unreachable"} and len(logged) >= 4


async def test_r_during_a_backoff_tries_at_once(tmp_path: Path) -> None:
    clock = ManualClock()
    async with FakeOpenAIServer() as server:
        server.script(*[HttpError(503, "warming up")] * 5, Reply("Ready."))
        commander = await _open(tmp_path, server.url, clock)
        try:
            view = await commander.create_mysis("Eager", provider="llama")
            await advance_until(clock, lambda: len(server.chat_requests) >= 5, step=0.5)
            # The fifth failure waits 16 s (12.8-16 with the jitter); the clock stays still.
            await until(lambda: commander.mysis(view.id).next_try_at is not None)
            await commander.relaunch_mysis(view.id)  # r
            await until(lambda: len(server.chat_requests) == 6)
            await until(lambda: commander.mysis(view.id).last_answer == "Ready.")
            assert commander.mysis(view.id).state == "running"
            # r when nothing waits changes nothing (no try is skipped later).
            await commander.relaunch_mysis(view.id)
            assert not commander._myses[view.id]._try_now.is_set()
        finally:
            await commander.shutdown()


@pytest.mark.parametrize(
    ("status", "words"),
    [(401, "invalid api key"), (404, "model 'qwen2.5' not found")],
)
async def test_a_refusal_stops_the_mysis_with_the_fix_and_the_log_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, status: int, words: str
) -> None:
    clock = ManualClock()
    caplog.set_level(logging.INFO, logger="zoea_tui.orchestrator.mysis")
    async with FakeOpenAIServer() as server:
        server.script(HttpError(status, words), Reply("never sent"))
        commander = await _open(tmp_path, server.url, clock)
        try:
            view = await commander.create_mysis("Refused", provider="llama")
            await until(lambda: commander.mysis(view.id).state == "errored")
            clock.advance(600)  # waiting changes nothing: no try is scheduled
            await asyncio.sleep(0.05)
            stopped = commander.mysis(view.id)
        finally:
            await commander.shutdown()
    assert len(server.chat_requests) == 1
    assert stopped.next_try_at is None
    assert stopped.last_error is not None and words in stopped.last_error
    assert "Check the" in stopped.last_error  # the fix
    logged = [r for r in caplog.records if "stopped (errored)" in r.getMessage()]
    assert len(logged) == 1 and words in logged[0].getMessage()
    assert logged[0].levelno == logging.WARNING


async def test_a_stop_during_a_backoff_ends_it_and_a_quit_does_not_wait_for_it(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    async with FakeOpenAIServer() as server:
        server.default = HttpError(503, "down for maintenance")
        commander = await _open(tmp_path, server.url, clock)
        view = await commander.create_mysis("Halt", provider="llama")
        await until(lambda: commander.mysis(view.id).next_try_at is not None)
        await commander.stop_mysis(view.id)
        assert commander.mysis(view.id).state == "stopped"
        assert commander.mysis(view.id).next_try_at is None
        await commander.relaunch_mysis(view.id)
        await until(lambda: commander.mysis(view.id).next_try_at is not None)
        # A Mysis waiting out a backoff has nothing in flight: a quit that would let a
        # turn under way end for an hour ends now (the manual clock never moves).
        await asyncio.wait_for(commander.shutdown(timeout=3600.0), 60)


@pytest.mark.parametrize(
    ("clock", "policy"), [(ManualClock(), PATIENT), (VirtualClock(), BOUNDED), (None, PATIENT)]
)
async def test_virtual_time_keeps_the_bounded_policy(tmp_path: Path, clock, policy) -> None:  # type: ignore[no-untyped-def]
    """On a virtual clock (simulate, arena, the benchmarks) a wait costs nothing, so a dead
    server is reported after three tries instead of tried as fast as it refuses."""
    config = _config("http://127.0.0.1:9")
    commander = await open_on_world(config, tmp_path, clock=clock)
    try:
        assert commander.services.model_retry == policy
    finally:
        await commander.shutdown()


async def test_a_virtual_run_reports_a_dead_server_after_three_tries(tmp_path: Path) -> None:
    async with FakeOpenAIServer() as server:
        server.default = HttpError(503, "gone")
        config = _config(server.url)
        commander = await open_on_world(config, tmp_path, clock=VirtualClock())
        try:
            view = await commander.create_mysis("Sim", provider="llama")
            await until(lambda: commander.mysis(view.id).state == "errored")
            assert "gone" in (commander.mysis(view.id).last_error or "")
        finally:
            await commander.shutdown()
    assert len(server.chat_requests) == 3

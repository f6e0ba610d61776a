"""A real engine killed under a playing swarm and started again (issue 39, "Prove it"):
every Mysis keeps trying with its growing backoff, resumes by itself on the engine's
first answer (no ``r``), and no request is lost.

llama-cpp-python's OpenAI server (SmolLM2) on a port of its own, killed with SIGKILL
while two Myses play on it, then started again on the same port. The commander runs on
the real clock with the command center's policy (``retry.PATIENT``), over the embedded
world and a real SQLite file. What the commander would read is what is checked: each
Mysis's state and activity, and the requests log.

The figures (each Mysis's time from the engine's return to its first answer, against the
backoff step it was waiting) are printed; ``pytest -s`` shows them. Streaming is off in
the first test: this server breaks every streamed tool call by design (see
``test_cli_on_real_server.py``), and two such breaks rightly end streaming for the
session. The second test kills the engine under a Mysis's first streamed request, before
any break, with ``stream = "auto"``: the kill is no break, and every request up to the
first answer after the restart is logged streamed (llama.cpp's own server, whose streams
do not break, plays the same with four Myses in ``bench/engine.py``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tests.fakes import refused_url
from tests.local.conftest import N_CTX, LlamaCppServer, _start, _stop, _wait_until_ready
from tests.local.test_cli_on_real_server import BROKEN_STREAM
from zoea_tui.config import Config, ProviderConfig, StreamSetting
from zoea_tui.core.retry import PATIENT
from zoea_tui.game.backend import GameBackend
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.providers._http import STREAM_STRIKES
from zoea_tui.providers.openai_compat import OpenAIProvider

#: Every wait below is a hang detector that says what hung; pytest-timeout's 300 s would cut
#: them short on a loaded machine (a first answer took 111 s under load 7 on 2 cores), so
#: its limit here is past the sum of this file's own waits.
pytestmark = [pytest.mark.local, pytest.mark.timeout(1000)]

#: The failures a request may end in while the engine is gone: none of them is a refusal.
HEALS = {"unreachable", "cut_short", "timeout"}


async def _until(predicate: Callable[[], bool], limit: float, what: str) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.2)


def _config(url: str, *, stream: StreamSetting = False) -> Config:
    base = Config()
    provider = ProviderConfig(
        name="llama",
        type="openai",
        endpoint=url,
        model="local",
        temperature=0,
        seed=0,
        timeout=120.0,
        stream=stream,
        tools="compact",
    )
    return replace(
        base,
        providers={**base.providers, "llama": provider},
        context=replace(base.context, max_tool_iterations=1),
    )


def _kill(process: subprocess.Popen[bytes]) -> None:
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


async def test_a_killed_engine_started_again_gets_every_mysis_back_by_itself(
    gguf: Path, tmp_path: Path
) -> None:
    base = refused_url()
    port = base.rsplit(":", 1)[1]
    server = LlamaCppServer(f"{base}/v1", tmp_path / "engine.log")
    process = _start(gguf, port, N_CTX, server.log)
    config = _config(server.url)
    backend = GameBackend.from_config(config.game, data_dir=tmp_path, simulated=True)
    commander: Commander | None = None
    try:
        await asyncio.to_thread(_wait_until_ready, server, process)
        commander = await Commander.open(
            config,
            db_path=tmp_path / "zoea.db",
            backend=backend,
            starter_swarm=False,
            model_retry=PATIENT,
        )
        swarm = commander
        ids = [(await swarm.create_mysis(name, provider="llama")).id for name in "AB"]

        async def answered(mysis_id: int) -> int:
            assert commander is not None
            return sum(r.outcome == "ok" for r in await commander.store.list_requests(mysis_id))

        counts = {i: 0 for i in ids}

        async def poll() -> None:
            for i in ids:
                counts[i] = await answered(i)

        deadline = time.monotonic() + 300
        while not all(counts.values()):
            assert time.monotonic() < deadline, "the swarm never got a first answer"
            await poll()
            await asyncio.sleep(0.5)

        # The engine dies with the swarm playing on it.
        _kill(process)
        killed = {i: counts[i] for i in ids}
        await _until(
            lambda: all(swarm.mysis(i).next_try_at is not None for i in ids),
            180,
            "every Mysis to back off",
        )
        for i in ids:
            view = commander.mysis(i)
            assert view.state == "running", view.last_error
            assert view.activity in {"unreachable", "cut short", "timed out"}, view.activity
        # Let the backoff grow a few steps, then start the engine again at the same address.
        await asyncio.sleep(8)
        process = _start(gguf, port, N_CTX, server.log)
        await asyncio.to_thread(_wait_until_ready, server, process)
        back_at = time.monotonic()
        waiting = {i: (commander.mysis(i).next_try_at or time.time()) - time.time() for i in ids}
        resumed: dict[int, float] = {}
        deadline = time.monotonic() + 300
        while len(resumed) < len(ids):
            assert time.monotonic() < deadline, "a Mysis never came back by itself"
            await poll()
            for i in ids:
                if i not in resumed and counts[i] > killed[i]:
                    resumed[i] = time.monotonic() - back_at
            await asyncio.sleep(0.5)
        for i in ids:
            print(
                f"Mysis {i}: first answer {resumed[i]:.1f} s after the engine was back "
                f"(its next try was due in {waiting[i]:.1f} s)"
            )
            view = commander.mysis(i)
            assert view.state == "running" and view.next_try_at is None, view.last_error
            logged = await commander.store.list_requests(i)
            failed = [r for r in logged if r.outcome != "ok"]
            # Lost: a request that failed for a reason waiting does not heal, or that was
            # never tried again (every failure is followed by an answer).
            assert {r.error_kind for r in failed} <= HEALS, [r.error for r in failed]
            assert logged[-1].outcome == "ok" or any(
                r.outcome == "ok" and r.id > failed[-1].id for r in logged
            )
    finally:
        if commander is not None:
            await commander.shutdown(timeout=0)
        _stop(process)


async def test_a_kill_mid_stream_leaves_streaming_on(gguf: Path, tmp_path: Path) -> None:
    base = refused_url()
    port = base.rsplit(":", 1)[1]
    server = LlamaCppServer(f"{base}/v1", tmp_path / "engine.log")
    process = _start(gguf, port, N_CTX, server.log)
    config = _config(server.url, stream="auto")
    backend = GameBackend.from_config(config.game, data_dir=tmp_path, simulated=True)
    db = tmp_path / "zoea.db"
    commander: Commander | None = None

    def logged() -> list[tuple[int, float, str, str | None]]:
        with sqlite3.connect(db) as conn:
            return conn.execute(
                "SELECT id, created_at, outcome, error_kind FROM requests ORDER BY id"
            ).fetchall()

    try:
        await asyncio.to_thread(_wait_until_ready, server, process)
        commander = await Commander.open(
            config, db_path=db, backend=backend, starter_swarm=False, model_retry=PATIENT
        )
        swarm = commander
        mysis = (await swarm.create_mysis("A", provider="llama")).id
        provider = swarm._myses[mysis].provider
        assert isinstance(provider, OpenAIProvider)
        # The engine dies under the Mysis's first request, streamed, before any break.
        await _until(lambda: any(r[2] == "pending" for r in logged()), 120, "a request")
        await asyncio.sleep(0.3)
        _kill(process)
        await _until(lambda: swarm.mysis(mysis).next_try_at is not None, 120, "the backoff")
        view = swarm.mysis(mysis)
        assert view.state == "running" and view.activity in {
            "cut short",
            "unreachable",
            "timed out",
        }
        # The kill is no break of a stream: no strike, and the provider still streams.
        assert provider.broken_streams == 0 and "stream" not in provider.notes
        await asyncio.sleep(5)
        restarted_at = len(server.said())
        # The Mysis's own retry may reach the engine, and be answered, before this test's
        # poll sees it ready: what counts is that no answer came before the restart began.
        restarting = time.time()
        process = _start(gguf, port, N_CTX, server.log)
        await asyncio.to_thread(_wait_until_ready, server, process)
        await _until(
            lambda: any(r[2] == "ok" for r in logged()), 600, "an answer after the restart"
        )
        rows = logged()
        cut = rows[0]
        # The request the kill cut failed for what happened to it, and so did every try
        # while the engine was down; it was answered after the restart by itself.
        assert cut[2] == "error" and cut[3] in HEALS, cut
        upto = next(i for i, r in enumerate(rows) if r[2] == "ok")
        assert rows[upto][1] >= restarting, rows
        assert all(r[2] == "error" and r[3] in HEALS for r in rows[1:upto]), rows
        # Streaming stayed on: the restarted engine was sent streamed requests (this one
        # breaks a streamed tool call, in its log), and any strike is one of those breaks.
        said = server.said()[restarted_at:]
        assert provider.broken_streams <= said.count(BROKEN_STREAM)
        assert provider.stream_setting == "auto"
        if provider.broken_streams < STREAM_STRIKES:
            assert provider.streaming or BROKEN_STREAM in said
            assert not swarm.mysis(mysis).provider_note.startswith("unstreamed")
    finally:
        if commander is not None:
            await commander.shutdown(timeout=0)
        _stop(process)

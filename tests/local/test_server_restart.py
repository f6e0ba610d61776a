"""A real engine killed under a playing swarm and started again (issue 39, "Prove it"):
every Mysis keeps trying with its growing backoff, resumes by itself on the engine's
first answer (no ``r``), and no request is lost.

llama-cpp-python's OpenAI server (SmolLM2) on a port of its own, killed with SIGKILL
while two Myses play on it, then started again on the same port. The commander runs on
the real clock with the command center's policy (``retry.PATIENT``), over the embedded
world and a real SQLite file. What the commander would read is what is checked: each
Mysis's state and activity, and the requests log.

The figures (each Mysis's time from the engine's return to its first answer, against the
backoff step it was waiting) are printed; ``pytest -s`` shows them. Streaming is off
here: this server breaks every streamed tool call by design (see
``test_cli_on_real_server.py``), so a kill mid-stream is played against the scripted
server (``tests/providers/test_answer_bounds.py``), where streaming must stay on.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tests.fakes import refused_url
from tests.local.conftest import N_CTX, LlamaCppServer, _start, _wait_until_ready
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core.retry import PATIENT
from zoea_tui.game.backend import GameBackend
from zoea_tui.orchestrator.commander import Commander

pytestmark = pytest.mark.local

#: The failures a request may end in while the engine is gone: none of them is a refusal.
HEALS = {"unreachable", "cut_short", "timeout"}


async def _until(predicate: Callable[[], bool], limit: float, what: str) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.2)


def _config(url: str) -> Config:
    base = Config()
    provider = ProviderConfig(
        name="llama",
        type="openai",
        endpoint=url,
        model="local",
        temperature=0,
        seed=0,
        timeout=120.0,
        stream=False,
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

        deadline = time.monotonic() + 600
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
        deadline = time.monotonic() + 600
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
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()

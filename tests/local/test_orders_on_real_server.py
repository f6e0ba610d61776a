"""An order cuts a request a real engine is answering (issue 40).

llama-cpp-python's OpenAI server (SmolLM2) answers a Mysis over real loopback HTTP; the
commander's message comes while a request is in flight. The request is cut (logged
``cancelled``, its error :data:`~zoea_tui.orchestrator.mysis.CUT_BY_ORDER`), the order
opens the next turn, the engine answers that turn's request (it finishes or drops the
cut one first: its own business), and no answer written without the order is stored
after it. The time from the order to its answer is printed (``pytest -s``).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.local.test_server_restart import _config
from zoea_tui.game.backend import GameBackend
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.mysis import CUT_BY_ORDER

pytestmark = [pytest.mark.local, pytest.mark.timeout(1000)]


async def test_an_order_cuts_the_request_a_real_engine_is_answering(
    llama_server: str, tmp_path: Path
) -> None:
    config = _config(llama_server)
    backend = GameBackend.from_config(config.game, data_dir=tmp_path, simulated=True)
    commander = await Commander.open(
        config, db_path=tmp_path / "zoea.db", backend=backend, starter_swarm=False
    )
    try:
        mysis = (await commander.create_mysis("Ada", provider="llama")).id
        runtime = commander._myses[mysis]

        async def logged() -> list[str]:
            return [r.outcome for r in await commander.store.list_requests(mysis)]

        outcomes: list[str] = []

        async def in_flight() -> bool:
            outcomes[:] = await logged()
            return bool(outcomes) and outcomes[-1] == "pending" and runtime._cuttable

        deadline = time.monotonic() + 300
        while not await in_flight():
            assert time.monotonic() < deadline, f"no request in flight: {outcomes}"
            await asyncio.sleep(0.05)
        cut_index = len(outcomes) - 1
        sent = time.monotonic()
        await commander.send_message(mysis, "report")
        order = (await commander.memories(mysis))[-1]
        assert order.content == "report"

        turns: list[int] = []

        async def order_answered() -> bool:
            turn = next(
                (
                    t
                    for t in await commander.store.list_turns(mysis)
                    if t.first_memory_id == order.id and t.kind == "direct"
                ),
                None,
            )
            if turn is None:
                return False
            turns[:] = [turn.id or 0]
            return any(
                r.turn_id == turn.id and r.outcome == "ok"
                for r in await commander.store.list_requests(mysis)
            )

        deadline = time.monotonic() + 120
        while not await order_answered():
            assert time.monotonic() < deadline, (
                f"the order was never answered: {await logged()}, order {order.id}, turns "
                f"{[(t.kind, t.first_memory_id) for t in await commander.store.list_turns(mysis)]}"
                f", {[(r.turn_id, r.outcome) for r in await commander.store.list_requests(mysis)]}"
            )
            await asyncio.sleep(0.2)
        took = time.monotonic() - sent
        print(f"the order's first answer came {took:.1f} s after it was sent")

        requests = await commander.store.list_requests(mysis)
        cut = requests[cut_index]
        assert (cut.outcome, cut.error) == ("cancelled", CUT_BY_ORDER)
        assert runtime.state == "running", runtime.last_error
        answering = [r for r in requests if r.turn_id == turns[0]]
        assert all((r.last_memory_id or 0) >= order.id for r in answering), "they saw the order"
        # Every assistant memory after the order answers a request that saw it (an
        # answer is stored after its request is logged as answered: memories first).
        after = [
            m for m in await commander.memories(mysis) if m.id > order.id and m.role == "assistant"
        ]
        seen = [r for r in await commander.store.list_requests(mysis) if r.outcome == "ok"]
        assert len(after) <= sum((r.last_memory_id or 0) >= order.id for r in seen)
    finally:
        await commander.shutdown(timeout=0)

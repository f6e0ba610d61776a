"""Databases for the story tests: a long conversation, and logged requests."""

from __future__ import annotations

from pathlib import Path

from zoea_tui.config import Config
from zoea_tui.core.types import ToolCall
from zoea_tui.orchestrator.context import next_composition
from zoea_tui.storage import NewMemory, Store

from .helpers import T0, seed


async def seed_long(path: Path, n: int) -> int:
    """The fixed swarm, then ``n`` more memories of Ada (fixed times); returns Ada's id."""
    await seed(path)
    store = await Store.open(path)
    try:
        ada = (await store.list_myses())[0].id
        rows = [
            NewMemory(
                "assistant",
                "llm",
                f"Log line {i}: mined {i % 7} iron ore.",
                created_at=T0 + 100 + i,
                game_tick=20 + i // 10,
            )
            for i in range(1, n + 1)
        ]
        await store.import_conversation("Ada", rows)
        await store.begin_turn(
            ada,
            "nudge",
            10_000_000,
            nudge_level=2,
            text="You need to respond. Check your notifications.",
        )
        return ada
    finally:
        await store.close()


async def seed_requests(path: Path) -> int:
    """The fixed swarm with two requests of Ada logged as the runtime logs them (the second
    after a new prompt and with its answer stored); returns Ada's id."""
    await seed(path)
    store = await Store.open(path)
    try:
        ada = (await store.list_myses())[0].id
        settings = Config().compose_settings(None)
        for prompt, answer in (
            ("Report your cargo.", "Cargo: 12 iron ore."),
            ("Sell it at Sol Station.", ""),
        ):
            await store.add_memory(
                ada, NewMemory("user", "direct", prompt, created_at=T0 + 30, game_tick=16)
            )
            composition = await next_composition(
                store, ada, "turn-aware", settings, game_state="Location: sol / sol_station"
            )
            request = await store.log_request(
                ada, composition, last_memory_id=composition.last_memory_id, settings=settings
            )
            await store.finish_request(
                request,
                outcome="ok",
                prompt_tokens=composition.tokens,
                latency_ms=840.0,
                cached_tokens=1024,
            )
            await store.add_memory(
                ada,
                NewMemory(
                    "assistant",
                    "llm",
                    answer,
                    created_at=T0 + 31,
                    game_tick=16,
                    tool_calls=() if answer else (ToolCall("call_9", "sell", '{"item": "ore"}'),),
                ),
            )
        await store.connection.execute("UPDATE requests SET created_at = ?", (T0 + 30,))
        return ada
    finally:
        await store.close()

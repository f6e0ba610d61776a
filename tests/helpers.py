"""Builders shared by the tests: memories and histories without a database, and a
commander on the embedded world."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import settings

from zoea_tui.config import Config
from zoea_tui.core.composition import ComposeSettings, History
from zoea_tui.core.tokens import count_tokens
from zoea_tui.core.types import Memory, ToolCall, Turn
from zoea_tui.core.window import stepped_window
from zoea_tui.game.backend import GameBackend
from zoea_tui.orchestrator.commander import Commander


def examples(count: int) -> int:
    """``count`` Hypothesis examples under the default profile (100 a test), scaled with
    the loaded profile's own count: the fast profile (20) runs a fifth of them."""
    return max(1, count * settings.default.max_examples // 100)


class Log:
    """Appends memories with increasing ids, like the store does."""

    def __init__(self, mysis_id: int = 1) -> None:
        self.mysis_id = mysis_id
        self.memories: list[Memory] = []
        self._ids = itertools.count(1)

    def add(self, role: str, source: str, content: str = "", **kw: object) -> Memory:
        memory = Memory(
            id=next(self._ids),
            mysis_id=self.mysis_id,
            role=role,
            source=source,
            content=content,
            tokens=count_tokens(content),
            seq=len(self.memories) + 1,
            **kw,
        )  # type: ignore[arg-type]
        self.memories.append(memory)
        return memory

    def direct(self, text: str) -> Memory:
        return self.add("user", "direct", text)

    def broadcast(self, text: str, sender: str | None = None) -> Memory:
        return self.add("user", "broadcast", text, sender_id=sender)

    def say(self, text: str) -> Memory:
        return self.add("assistant", "llm", text)

    def call(self, *calls: tuple[str, str] | tuple[str, str, str]) -> Memory:
        tool_calls = tuple(
            ToolCall(c[0], c[1], c[2] if len(c) > 2 else "{}")  # type: ignore[misc]
            for c in calls
        )
        return self.add("assistant", "llm", "", tool_calls=tool_calls)

    def result(self, call_id: str, name: str, content: str) -> Memory:
        return self.add("tool", "tool", content, tool_call_id=call_id, tool_name=name)

    def loop(self, call_id: str, name: str, content: str, args: str = "{}") -> None:
        self.call((call_id, name, args))
        self.result(call_id, name, content)


def history_of(
    memories: Sequence[Memory],
    settings: ComposeSettings | None = None,
    *,
    strategy: str = "turn-aware",
    game_state: str = "",
    latest_broadcast: str | None = None,
    turns: Sequence[Turn] = (),
) -> History:
    """The History the store would load for these memories (same rules).

    ``turns`` are the recorded turn starts, oldest first; the last is the current turn.
    """
    settings = settings or ComposeSettings()
    n = max(settings.max_context_messages, 1)
    margin = max(settings.window_margin, 1)
    window, before = stepped_window(list(memories[-(n + margin + 1) :]), n, margin)
    prompts = [m for m in memories if m.is_prompt]
    summaries = [m for m in memories if m.source == "summary"]
    summary = summaries[-1] if summaries else None
    since = [m for m in memories if summary is None or m.id > summary.id]
    turn = turns[-1] if turns else None
    lower = (
        (summary.id if summary else 0)
        if strategy == "summarize"
        else (window[0].id if window else 0)
    )
    return History(
        mysis_id=1,
        mysis_name="test",
        window=tuple(window),
        latest_prompt=prompts[-1] if prompts else None,
        latest_summary=summary,
        since_summary=tuple(since[-2000:]) if strategy == "summarize" else None,
        before_window_id=before,
        game_state=game_state,
        latest_broadcast=latest_broadcast,
        turn=turn,
        turn_memories=tuple(
            m for m in memories[-(n + margin + 1) :] if turn and m.id >= turn.first_memory_id
        ),
        turn_first=next((m for m in memories if turn and m.id >= turn.first_memory_id), None),
        before_turn=tuple([m for m in memories if turn and m.id < turn.first_memory_id][-n:]),
        turns=tuple(t for t in turns if t.first_memory_id >= lower),
        recent=tuple(memories[-n:]),
    )


async def until(predicate: Callable[[], bool], limit: float = 30.0) -> None:
    """Poll a condition the engine reaches by itself (bounded; for ordering, not timing:
    the bound is a hang detector, generous enough for a machine under a load of 15)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.005)


async def open_on_world(config: Config, folder: Path, **options: Any) -> Commander:
    """A commander with ``config`` on the embedded world (its files in ``folder``) and the
    database ``folder``/zoea.db, without the starter swarm unless ``options`` (as for
    :meth:`Commander.open`) ask for it."""
    backend = GameBackend.from_config(config.game, data_dir=folder, simulated=True)
    options.setdefault("starter_swarm", False)
    return await Commander.open(config, db_path=folder / "zoea.db", backend=backend, **options)

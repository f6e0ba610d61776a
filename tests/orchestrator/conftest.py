"""A commander on a real SQLite file and the embedded world, with scripted or real models."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests import helpers
from zoea_tui.config import Config
from zoea_tui.core import prompts
from zoea_tui.core.types import ToolCall
from zoea_tui.game.backend import GameBackend
from zoea_tui.orchestrator.clock import ManualClock
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.events import Event, Subscription
from zoea_tui.providers.base import ChatRequest, ChatResponse, ProviderError
from zoea_tui.storage import MysisRecord


class ScriptedModel:
    """A provider whose answers a test scripts: responses, errors, or a gate to wait on."""

    label = "scripted"

    def __init__(self, *answers: Any, default: Any = None) -> None:
        self.answers = list(answers)
        self.default = default if default is not None else ChatResponse(content="Done.")
        self.requests: list[ChatRequest] = []
        self.gate: asyncio.Event | None = None
        self.entered = asyncio.Event()

    async def chat(self, request: ChatRequest, on_event: Any = None) -> ChatResponse:
        self.requests.append(request)
        self.entered.set()
        if self.gate is not None:
            await self.gate.wait()
        answer = self.answers.pop(0) if self.answers else self.default
        if isinstance(answer, BaseException):
            raise answer
        return answer

    async def aclose(self) -> None:
        return None


def calls(*pairs: tuple[str, str]) -> ChatResponse:
    """An answer that calls tools."""
    return ChatResponse(
        tool_calls=tuple(ToolCall(f"c{i}", n, a) for i, (n, a) in enumerate(pairs)),
        finish_reason="tool_calls",
    )


def transient(message: str = "upstream hiccup") -> ProviderError:
    error = ProviderError(message)
    error.retryable = True
    return error


@pytest.fixture
def config() -> Config:
    base = Config()
    return replace(base, game=replace(base.game, tick_seconds=0))


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def open_commander(tmp_path: Path, config: Config, clock: ManualClock):
    """Opens commanders on one database; every one is shut down at the end."""
    opened: list[Commander] = []

    async def open_(
        *,
        models: dict[str, ScriptedModel] | None = None,
        factory: Callable[[MysisRecord], Any] | None = None,
        **kwargs: Any,
    ) -> Commander:
        if models is not None:

            def scripted(record: MysisRecord) -> Any:
                return models.setdefault(record.name, ScriptedModel())

            factory = scripted
        backend = GameBackend.from_config(config.game, data_dir=tmp_path, simulated=True)
        kwargs.setdefault("clock", clock)
        commander = await Commander.open(
            config,
            db_path=tmp_path / "zoea.db",
            backend=backend,
            provider_factory=factory,
            **kwargs,
        )
        opened.append(commander)
        return commander

    yield open_
    for commander in opened:
        await commander.shutdown(timeout=2)


async def settle(rounds: int = 50) -> None:
    """Let every ready task run (no real waiting)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


#: Poll a condition the engine reaches by itself (bounded; for ordering, not timing: the
#: bound is a hang detector, generous enough for a machine under a load of 15).
until = helpers.until


def last_said(request: ChatRequest) -> dict[str, Any]:
    """The request's last message but for the state message (the account, the game
    state) that follows a turn's opening."""
    said = [
        m
        for m in request.messages
        if not (m["role"] == "user" and str(m.get("content")).startswith(prompts.STATE_HEADER))
    ]
    return said[-1]


def drain(sub: Subscription) -> list[Event]:
    out: list[Event] = []
    while (event := sub.get_nowait()) is not None:
        out.append(event)
    return out


async def advance_until(
    clock: ManualClock, predicate: Callable[[], bool], *, step: float = 1.0, limit: float = 10.0
) -> None:
    """Move the manual clock forward step by step until the engine reaches a state."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        clock.advance(step)
        await asyncio.sleep(0.002)

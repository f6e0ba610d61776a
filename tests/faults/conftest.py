"""Fault injection: a real commander, real loopback servers, and a watcher of outcomes."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from tests import helpers
from tests.cli_runner import openai_config
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core.retry import PATIENT
from zoea_tui.game.backend import GameBackend
from zoea_tui.orchestrator.clock import VirtualClock
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.events import MessageStored, RequestComposed, Subscription


def cloud_config(url: str, *, timeout: float = 5.0) -> Config:
    """The default config plus a provider "cloud" at ``url`` (no key)."""
    base = Config()
    providers = dict(base.providers)
    providers["cloud"] = ProviderConfig(
        name="cloud", type="openai", endpoint=url, model="fake-gpt", timeout=timeout
    )
    return replace(
        base,
        providers=providers,
        game=replace(base.game, tick_seconds=0),
        swarm=replace(base.swarm, default_provider="cloud"),
    )


class RecordingClock(VirtualClock):
    """Virtual time that also records every ``sleep`` asked of it (the game's retry
    waits) and every ``wait_for`` (a Mysis's backoff before a model call is tried again,
    which ``r`` may cut short, and its nudge intervals; among them, in ``outside``, a
    server's ``Retry-After``, which even virtual time waits for real)."""

    def __init__(self) -> None:
        super().__init__()
        self.sleeps: list[float] = []
        self.waits: list[float] = []
        #: The waits a server named (``Retry-After``): waited for real.
        self.outside: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        await super().sleep(seconds)

    async def wait_for(self, event: asyncio.Event, timeout: float) -> bool:
        self.waits.append(timeout)
        return await super().wait_for(event, timeout)

    async def wait_outside(self, event: asyncio.Event, timeout: float) -> bool:
        self.waits.append(timeout)
        self.outside.append(timeout)
        return await super().wait_outside(event, timeout)


@dataclass
class Watch:
    """Every composed request and stored memory of a run."""

    requests: list[RequestComposed] = field(default_factory=list)
    stored: list[int] = field(default_factory=list)

    def feed(self, sub: Subscription) -> None:
        """Read every event the subscription holds now."""
        while (event := sub.get_nowait()) is not None:
            self.feed_events([event])

    def feed_events(self, events: list[object]) -> None:
        """Take in events already read."""
        for event in events:
            if isinstance(event, RequestComposed):
                self.requests.append(event)
            elif isinstance(event, MessageStored):
                self.stored.append(event.memory.id)

    @property
    def invalid(self) -> list[RequestComposed]:
        return [r for r in self.requests if not r.valid]


async def open_swarm(
    tmp_path: Path, config: Config, *, backend: GameBackend | None = None, clock=None
) -> tuple[Commander, Subscription]:
    backend = backend or GameBackend.from_config(config.game, data_dir=tmp_path, simulated=True)
    commander = await Commander.open(
        config,
        db_path=tmp_path / "zoea.db",
        backend=backend,
        clock=clock or VirtualClock(),
        starter_swarm=False,
        model_retry=PATIENT,  # the command center's policy, on virtual time
    )
    return commander, commander.bus.subscribe(maxsize=1_000_000)


async def until(predicate: Callable[[], bool], limit: float = 20.0) -> None:
    """:func:`tests.helpers.until`, with the room a fault's retries need."""
    await helpers.until(predicate, limit)


async def nothing_lost(commander: Commander, watch: Watch, db: Path) -> None:
    """Integrity holds, every stored memory is still there, and the next request is valid."""
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        present = {row[0] for row in conn.execute("SELECT id FROM memories")}
    assert set(watch.stored) <= present
    assert watch.invalid == []
    from zoea_tui.core.validator import validate

    for view in commander.myses():
        assert not validate((await commander.preview(view.id)).messages)


def engine_config(tmp_path: Path, url: str) -> Path:
    """A config file in ``tmp_path`` with one provider, "engine": OpenAI-compatible at
    ``url``, model "m", a 10 s timeout."""
    return openai_config(tmp_path / "zoea.toml", "engine", url, timeout=10)

"""Fixtures for the UI tests: the real Commander on a temporary database.

``commander`` runs the built-in autopilot on the embedded world (a fast game tick);
``seeded_db`` writes a fixed swarm and conversation for deterministic snapshots
(opened with ``autostart=False``, so nothing moves).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from zoea_tui.config import Config, GameConfig, NudgeConfig
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.ui import formatting, textual_compat
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens import help as help_screen

from .helpers import seed


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``ZOEA_STOCK_TEXTUAL`` set the overrides (or some) are off: the tests of what
    they do are deselected (they run in the pass with the overrides on)."""
    if not textual_compat.OFF:
        return
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (dropped if item.get_closest_marker("overrides") else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture
def fast_config() -> Config:
    """The default configuration with a quick game tick and short pauses between turns
    (a Mysis that ends its turn waits for the nudge: 30 s by default)."""
    return Config(
        game=GameConfig(tick_seconds=0.2),
        nudge=NudgeConfig(idle_seconds=0.5, wait_state_seconds=1.0),
    )


@pytest.fixture
def still_config() -> Config:
    """A world that only moves when asked (for deterministic pictures)."""
    return Config(game=GameConfig(tick_seconds=0))


@pytest.fixture
async def commander(tmp_path: Path, fast_config: Config) -> AsyncIterator[Commander]:
    """The real commander with its starter swarm of three autopilot Myses, running."""
    c = await Commander.open(fast_config, db_path=tmp_path / "zoea.db")
    try:
        yield c
    finally:
        await c.shutdown(timeout=0.5)


@pytest.fixture
def app(commander: Commander) -> ZoeaApp:
    """The app around the running commander (the test owns the commander)."""
    return ZoeaApp(commander)


@pytest.fixture
def utc_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Times shown in UTC, so pictures do not depend on the machine's time zone."""
    monkeypatch.setattr(formatting, "clock", lambda ts: time.strftime("%H:%M:%S", time.gmtime(ts)))


@pytest.fixture
def fixed_data_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The help's data folder and sizes fixed, so pictures do not depend on where the
    test's files are and what they weigh."""
    monkeypatch.setattr(
        help_screen,
        "data_rows",
        lambda db: [
            ("folder", "/home/pilot/.local/share/zoea-nova · 1.2 MB"),
            (
                "database",
                "zoea.db · 1.1 MB with its WAL; "
                "`zoea vacuum` applies [storage] request_log and reclaims space",
            ),
        ],
    )


@pytest.fixture
def seeded_db(tmp_path: Path) -> Path:
    """A database holding the fixed swarm of :func:`seed`."""
    path = tmp_path / "seeded.db"
    asyncio.run(seed(path))
    return path

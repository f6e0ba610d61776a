"""Shared fixtures: real SQLite files in a temporary folder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import settings

from zoea_tui.storage import Store

settings.register_profile("default", deadline=None, print_blob=True)
settings.load_profile("default")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A migrated store on a fresh database file."""
    s = await Store.open(tmp_path / "zoea.db")
    try:
        yield s
    finally:
        await s.close()

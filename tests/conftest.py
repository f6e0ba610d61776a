"""Shared fixtures: real SQLite files in a temporary folder, a recording sleep."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.fakes import RecordingSleep
from zoea_tui.storage import Store

settings.register_profile("default", deadline=None, print_blob=True)
# `make test-fast` (pytest --hypothesis-profile=fast): a fifth of the examples, the
# explicit counts too (tests.helpers.examples); `make test` runs them all.
settings.register_profile("fast", deadline=None, print_blob=True, max_examples=20)
settings.load_profile("default")


#: The conventions of other LLM tools (config/load.py): a machine's own must not add
#: providers to the tests' configurations.
CONVENTIONS = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OLLAMA_HOST")


@pytest.fixture(autouse=True)
def _no_conventions(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CONVENTIONS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _no_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """No progress lines from long commands (``zoea_tui/cli_progress.py``): a run slowed by
    a loaded machine must not add lines to a standard error a test compares; the tests
    of the progress turn it on."""
    monkeypatch.setenv("ZOEA_PROGRESS_SECONDS", "0")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A migrated store on a fresh database file."""
    s = await Store.open(tmp_path / "zoea.db")
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture
def sleep() -> RecordingSleep:
    """The retry waits of the code under test, recorded instead of slept."""
    return RecordingSleep()

"""Smoke test: the real ``zoea`` in a real terminal (tmux), driven by keys, read back as text."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.tmux_app import TmuxApp, wait_until

pytestmark = pytest.mark.tmux

ZOEA = Path(sys.executable).parent / "zoea"


@pytest.fixture(autouse=True)
def _tmux_is_installed() -> None:
    # Not a skip: without tmux this proof is missing, and the run must say so.
    assert shutil.which("tmux"), "tmux is required for the smoke test (apt install tmux)"


def test_real_zoea_starts_takes_a_broadcast_and_quits(tmp_path: Path) -> None:
    command = os.environ.get("ZOEA_SMOKE_COMMAND") or f"{ZOEA} --data-dir {{data}}"
    command = command.format(data=shlex.quote(str(tmp_path)))
    app = TmuxApp("smoke")
    app.start(command, 120, 40, {**os.environ, "TERM": "xterm-256color", "COLORTERM": ""})
    try:
        started = time.monotonic()
        app.wait_for("Z O E A", "MYSIS SWARM", "Ada", "Brin", "Cass")
        print(f"started in {time.monotonic() - started:.2f}s")
        app.keys("b")
        app.wait_for("BROADCAST TO THE SWARM")
        app.type("all pilots: report [now]")
        app.keys("Enter")
        screen = app.wait_for("commander", "all pilots: report [now]")
        assert "Traceback" not in screen
        app.keys("q")
        app.wait_for("Stay (n)")
        app.keys("y")
        quitting = time.monotonic()
        wait_until(lambda: None if app.alive() else True, "the app to end", detail=app.screen)
        print(f"quit in {time.monotonic() - quitting:.2f}s")
    finally:
        app.kill()
    assert (tmp_path / "zoea.db").exists()

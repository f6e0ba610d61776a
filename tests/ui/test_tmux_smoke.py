"""Smoke test: the real ``zoea`` in a real terminal (tmux), driven by keys, read back as text."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.tmux

ZOEA = Path(sys.executable).parent / "zoea"


@pytest.fixture(autouse=True)
def _tmux_is_installed() -> None:
    # Not a skip: without tmux this proof is missing, and the run must say so.
    assert shutil.which("tmux"), "tmux is required for the smoke test (apt install tmux)"


class Tmux:
    """A private tmux server (its own socket) holding one session."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """A tmux command on this server."""
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            check=check,
            capture_output=True,
            text=True,
            timeout=10,
        )

    def screen(self) -> str:
        """The visible text of the pane."""
        return self.run("capture-pane", "-p", "-t", "zoea", check=False).stdout

    def wait_for(self, *needles: str, timeout: float = 20.0) -> str:
        """Wait until every needle is on screen; returns the screen."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if all(n in screen for n in needles):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{needles} not on screen after {timeout}s:\n{screen}")

    def alive(self) -> bool:
        """True while the session (the app) is running."""
        return self.run("has-session", "-t", "zoea", check=False).returncode == 0


def test_real_zoea_starts_takes_a_broadcast_and_quits(tmp_path: Path) -> None:
    command = os.environ.get("ZOEA_SMOKE_COMMAND") or f"{ZOEA} --data-dir {{data}}"
    command = command.format(data=shlex.quote(str(tmp_path)))
    tmux = Tmux(f"zoea-smoke-{os.getpid()}")
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": ""}
    subprocess.run(
        [
            "tmux",
            "-L",
            tmux.socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "zoea",
            "-x",
            "120",
            "-y",
            "40",
            command,
        ],
        check=True,
        env=env,
        timeout=10,
    )
    try:
        started = time.monotonic()
        tmux.wait_for("Z O E A", "MYSIS SWARM", "Ada", "Brin", "Cass")
        print(f"started in {time.monotonic() - started:.2f}s")
        tmux.run("send-keys", "-t", "zoea", "b")
        tmux.wait_for("BROADCAST TO THE SWARM")
        tmux.run("send-keys", "-t", "zoea", "-l", "all pilots: report [now]")
        tmux.run("send-keys", "-t", "zoea", "Enter")
        screen = tmux.wait_for("commander", "all pilots: report [now]")
        assert "Traceback" not in screen
        tmux.run("send-keys", "-t", "zoea", "q")
        tmux.wait_for("Stay (n)")
        tmux.run("send-keys", "-t", "zoea", "y")
        quitting = time.monotonic()
        deadline = quitting + 20
        while tmux.alive() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not tmux.alive(), tmux.screen()
        print(f"quit in {time.monotonic() - quitting:.2f}s")
    finally:
        tmux.run("kill-server", check=False)
    assert (tmp_path / "zoea.db").exists()

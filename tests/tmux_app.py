"""The real ``zoea`` in a real terminal: a private tmux server holding one uniquely named
session, driven by keys and read back as text (``capture-pane``).

Waits poll the screen (or anything else) with a generous hang detector: a wait that
times out is a hang, never a slow run; nothing here times how long a step took.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

#: How long a wait may take before it is called a hang.
HANG_SECONDS = 60.0
#: Environment variables of the person running the tests that would change what the app
#: reads (its configuration, its providers, its data folder): a newcomer has none of them.
_PERSONAL = ("ZOEA_", "OPENAI_", "OLLAMA_", "ANTHROPIC_")


#: A terminal size from the environment overrides the terminal's own (Rich and Textual
#: read them): pytest-xdist's workers set COLUMNS=80 and LINES=24.
_SIZE = ("COLUMNS", "LINES")


def wait_until(
    probe: Callable[[], T | None],
    what: str,
    *,
    timeout: float = HANG_SECONDS,
    detail: Callable[[], str] = lambda: "",
) -> T:
    """Poll ``probe`` until it returns something other than None; raise after ``timeout``
    seconds, naming ``what`` was waited for and ``detail()`` (the screen, say)."""
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"hang: {what} not seen after {timeout:.0f}s\n{detail()}")
        time.sleep(0.25)


def newcomer_env(config_home: str) -> dict[str, str]:
    """The environment of a first run: no ``ZOEA_*`` or provider variables, a config
    folder of its own (``XDG_CONFIG_HOME``, empty: no config file), a plain 256-colour
    terminal whose size is the terminal's (no ``COLUMNS``/``LINES``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_PERSONAL) and k not in _SIZE}
    env.update(XDG_CONFIG_HOME=config_home, TERM="xterm-256color", COLORTERM="", LANG="C.UTF-8")
    return env


class TmuxApp:
    """One command in its own tmux server (socket) and session, both uniquely named."""

    def __init__(self, label: str) -> None:
        tag = f"{label}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.socket = f"zoea-{tag}"
        self.session = tag
        #: Where the shell around the command writes its exit status (:meth:`exit_status`).
        self._status = Path(tempfile.mkdtemp(prefix="zoea-tmux-")) / "status"

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """A tmux command on this server."""
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            check=check,
            capture_output=True,
            text=True,
            timeout=10,
        )

    def start(self, command: str, width: int, height: int, env: Mapping[str, str]) -> None:
        """Run ``command`` (a shell line) in a new ``width`` × ``height`` session.

        The pane stays when the command ends (``remain-on-exit``): what it printed as it
        died (a Traceback) stays on screen to be read. The shell that runs ``command``
        writes its exit status to a file as it ends (:meth:`exit_status`)."""
        self._status.unlink(missing_ok=True)
        line = f"{command}; echo $? > {shlex.quote(str(self._status))}"
        subprocess.run(
            [
                *("tmux", "-L", self.socket, "-f", "/dev/null", "new-session", "-d"),
                *("-s", self.session, "-x", str(width), "-y", str(height), line),
                *(";", "set-option", "-t", self.session, "remain-on-exit", "on"),
            ],
            check=True,
            env=dict(env),
            timeout=10,
        )

    def resize(self, width: int, height: int) -> None:
        """Resize the terminal (the app gets SIGWINCH, as from a window manager)."""
        self.tmux("resize-window", "-t", self.session, "-x", str(width), "-y", str(height))

    def screen(self) -> str:
        """The visible text of the terminal."""
        return self.tmux("capture-pane", "-p", "-t", self.session, check=False).stdout

    def keys(self, *keys: str) -> None:
        """Press keys by tmux's names (``Enter``, ``Escape``, ``Down``, ``q``)."""
        self.tmux("send-keys", "-t", self.session, *keys)

    def type(self, text: str) -> None:
        """Type ``text`` literally."""
        self.tmux("send-keys", "-t", self.session, "-l", text)

    def wait_for(self, *needles: str, timeout: float = HANG_SECONDS) -> str:
        """Wait until every needle is on screen; returns the screen."""

        def shown() -> str | None:
            screen = self.screen()
            if all(n in screen for n in needles):
                return screen
            if not self.alive():
                raise AssertionError(f"the app ended while {needles} were awaited:\n{screen}")
            return None

        return wait_until(
            shown,
            f"{needles} on screen",
            timeout=timeout,
            detail=self.screen,
        )

    def alive(self) -> bool:
        """True while the command runs."""
        shown = self.tmux("display-message", "-p", "-t", self.session, "#{pane_dead}", check=False)
        return shown.returncode == 0 and shown.stdout.strip() == "0"

    def exit_status(self) -> str:
        """The ended command's exit status ("" while it runs), as the shell around it
        wrote it when it ended.

        Not tmux's ``pane_dead_status``: under load tmux 3.3a at times never reaps the
        pane's process (seen: ``[zoea] <defunct>`` a minute after the app had ended, its
        log closed, the status still empty), and the status it would tell never comes.
        """
        try:
            return self._status.read_text().strip()
        except FileNotFoundError:
            return ""

    def close(self) -> None:
        """End the session (the command has ended: its pane stayed to be read)."""
        self.tmux("kill-session", "-t", self.session, check=False)

    def kill(self) -> None:
        """Stop this server and whatever still runs in it (only this test's own), and
        remove its socket (tmux leaves it behind when its last session had ended)."""
        self.tmux("kill-server", check=False)
        shutil.rmtree(self._status.parent, ignore_errors=True)
        folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (folder / self.socket).unlink(missing_ok=True)

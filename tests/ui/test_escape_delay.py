"""The app's wait after a lone Escape (Textual's ``ESCDELAY``), and the user's override."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from zoea_tui.ui import ESCAPE_DELAY_MS

PROBE = "import zoea_tui.ui.app, textual.constants as c; print(c.ESCAPE_DELAY)"


def _escape_delay(env_value: str | None) -> float:
    """Textual's escape delay in a fresh interpreter that imports the app."""
    env = {k: v for k, v in os.environ.items() if k != "ESCDELAY"}
    if env_value is not None:
        env["ESCDELAY"] = env_value
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout)


@pytest.mark.parametrize(("env_value", "seconds"), [(None, ESCAPE_DELAY_MS / 1000), ("80", 0.08)])
def test_textual_waits_the_apps_escape_delay_unless_the_user_set_one(
    env_value: str | None, seconds: float
) -> None:
    assert ESCAPE_DELAY_MS < 100  # shorter than Textual's own wait, or this is moot
    assert _escape_delay(env_value) == pytest.approx(seconds)

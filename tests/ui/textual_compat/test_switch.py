"""ZOEA_STOCK_TEXTUAL=1 turns every override off; the start refuses an unchecked Textual."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zoea_tui.config import Config
from zoea_tui.ui import textual_compat
from zoea_tui.ui.app import run_app

#: Prints, as JSON, whether each override is in place in a fresh process.
PROBE = """
import json
from textual.app import App
from textual.strip import Strip
from textual.drivers.linux_driver import LinuxDriver
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.base import ZoeaScreen
from zoea_tui.ui.widgets.text_view import TextView
from zoea_tui.ui.textual_compat import strips

def ours(cls, name):
    return any(name in vars(c) for c in cls.__mro__ if not c.__module__.startswith("textual"))

app = ZoeaApp(lambda: None)
print(json.dumps({
    "strips patched": Strip.divide is not strips._divide,
    "own driver": app.get_driver_class() is not LinuxDriver,
    "own scrollbar": ours(TextView, "vertical_scrollbar"),
    "own line filters": ours(TextView, "get_line_filters"),
    "kept styles": ours(ZoeaScreen, "_on_screen_resume"),
    "opaque screens": ours(type(app), "_background_screens"),
}))
"""


def _overrides_in_place(stock: bool) -> dict[str, bool]:
    env = {k: v for k, v in os.environ.items() if k != textual_compat.ENV}
    if stock:
        env[textual_compat.ENV] = "1"
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout))


def test_every_override_is_in_place_by_default_and_none_with_the_switch() -> None:
    on, stock = _overrides_in_place(False), _overrides_in_place(True)
    assert on and all(on.values()), on  # the probe can fail: each fact is checked both ways
    assert not any(stock.values()), stock


def test_an_unchecked_textual_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textual_compat, "ALL_STOCK", False)
    assert textual_compat.version_refusal(textual_compat.CHECKED_TEXTUAL[0]) is None
    line = textual_compat.version_refusal("7.0.0")
    assert line is not None and "\n" not in line
    assert "7.0.0" in line and textual_compat.ENV in line


def test_the_switch_lets_any_textual_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textual_compat, "ALL_STOCK", True)
    assert textual_compat.version_refusal("7.0.0") is None


def test_the_app_exits_2_on_an_unchecked_textual(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(textual_compat, "ALL_STOCK", False)
    monkeypatch.setattr(textual_compat, "version", lambda _name: "7.0.0")
    assert run_app(Config(), tmp_path / "zoea.db") == 2  # before any terminal is touched
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Textual 7.0.0" in err


def test_the_switch_names_overrides_one_by_one_or_all() -> None:
    assert textual_compat.overrides_off("") == textual_compat.overrides_off("0") == frozenset()
    assert textual_compat.overrides_off("1") == frozenset(textual_compat.OVERRIDES)
    assert textual_compat.overrides_off("driver, strips") == {"driver", "strips"}
    with pytest.raises(ValueError, match="no override named strip"):
        textual_compat.overrides_off("strip")

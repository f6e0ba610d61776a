"""SVG snapshots of every view at 80×24 and 160×50, the dashboard and the focus view at
80×24, 100×30, 120×40 and 200×60, on a fixed swarm (nothing moves).

Review a changed picture in ``snapshot_report.html`` before accepting it with
``pytest tests/ui --snapshot-update``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.pilot import Pilot

from zoea_tui.config import Config
from zoea_tui.core.types import ToolCall
from zoea_tui.orchestrator.events import MysisChanged, ToolCallFinished, ToolCallStarted
from zoea_tui.ui import formatting
from zoea_tui.ui.app import ZoeaApp

from .helpers import T0, Prepare, opener, pressed_after, settle, told

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 50), id="160x50")]
#: The sizes the dashboard and the focus view are drawn at: the smallest the app takes,
#: two common ones, and a wide one with the next request beside the panes.
WIDTHS = [
    pytest.param((80, 24), id="80x24"),
    pytest.param((100, 30), id="100x30"),
    pytest.param((120, 40), id="120x40"),
    pytest.param((200, 60), id="200x60"),
]
#: "Now" for the countdowns in the pictures (the clock stands still).
NOW = T0 + 60
#: Ada's last status: credits, cargo and where she is.
STATUS = {
    "player": {
        "username": "Ada",
        "credits": 1250,
        "current_system": "sol",
        "current_poi": "main_belt",
        "docked_at_base": None,
        "in_transit": False,
    },
    "ship": {"fuel": 61, "max_fuel": 100, "cargo_used": 16, "cargo_capacity": 50},
    "current_tick": 15,
}


@pytest.fixture
def still_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The countdowns count from :data:`NOW`, so a picture shows the same seconds."""
    still = SimpleNamespace(time=lambda: NOW, strftime=time.strftime, localtime=time.localtime)
    monkeypatch.setattr(formatting, "time", still)


async def _dashboard(pilot: Pilot) -> None:
    await settle(pilot)


async def _playing(pilot: Pilot) -> None:
    """The seeded swarm in play, as the engine tells it: Ada has her status (credits,
    cargo, place) and waits for her nudge; Brin's server is down, tried again soon."""
    await settle(pilot)
    app = pilot.app
    assert isinstance(app, ZoeaApp) and app.commander is not None
    ada, brin = (app.swarm.views[i] for i in app.swarm.ids[:2])
    app.commander.cache.update("Ada", "get_status", STATUS, 15, at=NOW)
    call = ToolCall("call_9", "get_status", "{}")
    await told(
        pilot,
        (
            ToolCallStarted(mysis_id=ada.id, call=call),
            ToolCallFinished(
                mysis_id=ada.id, call=call, is_error=False, error_code=None, latency_s=0.1
            ),
            MysisChanged(
                mysis=replace(ada, state="running", activity="waiting", next_nudge_at=NOW + 12)
            ),
            MysisChanged(
                mysis=replace(
                    brin,
                    state="running",
                    activity="unreachable",
                    next_try_at=NOW + 40,
                    last_line="unreachable: http://127.0.0.1:9/v1: connection refused",
                )
            ),
        ),
    )


_focus = pressed_after(_dashboard, "enter")
_playing_focus = pressed_after(_playing, "enter")
_preview = pressed_after(_dashboard, "p")


async def _help(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("question_mark")
    await pilot.pause()


async def _new_mysis(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("n", *"Dora")
    await pilot.pause()


async def _broadcast(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("b", *"all pilots: regroup at Sol")
    await pilot.pause()


VIEWS: dict[str, Prepare] = {
    "dashboard": _dashboard,
    "focus": _focus,
    "preview": _preview,
    "help": _help,
}


@pytest.mark.parametrize("size", WIDTHS)
@pytest.mark.parametrize("view", [_playing, _playing_focus], ids=["dashboard", "focus"])
def test_every_width_reads(
    snap_compare,
    seeded_db: Path,
    still_config: Config,
    utc_clock: None,
    still_time: None,
    view: Prepare,
    size: tuple[int, int],
) -> None:
    """At every size the panes show state and countdown, credits and cargo, then the
    place before the provider line, none of it cut mid-word; the panes are equally
    wide; the focus header's parts are whole and its keys keep ? and q."""
    app = ZoeaApp(opener(still_config, seeded_db))
    assert snap_compare(app, terminal_size=size, run_before=view)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("view", list(VIEWS))
def test_view(
    snap_compare,
    seeded_db: Path,
    still_config: Config,
    utc_clock: None,
    fixed_data_size: None,
    view: str,
    size: tuple[int, int],
) -> None:
    app = ZoeaApp(opener(still_config, seeded_db))
    assert snap_compare(app, terminal_size=size, run_before=VIEWS[view])


@pytest.mark.parametrize("view", [_new_mysis, _broadcast], ids=["new-mysis", "broadcast"])
def test_dialog(
    snap_compare,
    seeded_db: Path,
    still_config: Config,
    utc_clock: None,
    view: Prepare,
) -> None:
    app = ZoeaApp(opener(still_config, seeded_db))
    assert snap_compare(app, terminal_size=(80, 24), run_before=view)


def test_too_small_guard(snap_compare, seeded_db: Path, still_config: Config) -> None:
    app = ZoeaApp(opener(still_config, seeded_db))
    assert snap_compare(app, terminal_size=(70, 20))

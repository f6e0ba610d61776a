"""SVG snapshots of every view at 80×24 and 160×50, on a fixed swarm (nothing moves).

Review a changed picture in ``snapshot_report.html`` before accepting it with
``pytest tests/ui --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from zoea_tui.config import Config
from zoea_tui.ui.app import ZoeaApp

from .helpers import opener, settle

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 50), id="160x50")]


async def _dashboard(pilot: Pilot) -> None:
    await settle(pilot)


async def _focus(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


async def _preview(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("p")
    await settle(pilot)


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


VIEWS: dict[str, Callable[[Pilot], Awaitable[None]]] = {
    "dashboard": _dashboard,
    "focus": _focus,
    "preview": _preview,
    "help": _help,
}


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
    view: Callable[[Pilot], Awaitable[None]],
) -> None:
    app = ZoeaApp(opener(still_config, seeded_db))
    assert snap_compare(app, terminal_size=(80, 24), run_before=view)


@pytest.mark.parametrize(
    "size", [pytest.param((120, 40), id="120x40"), pytest.param((200, 60), id="200x60")]
)
def test_swarm_panes(
    snap_compare, seeded_db: Path, still_config: Config, utc_clock: None, size: tuple[int, int]
) -> None:
    """The panes fill the terminal (at 200 columns the selected Mysis's next request
    stands beside them); 80×24 is ``test_view[dashboard-80x24]``."""
    app = ZoeaApp(opener(still_config, seeded_db))
    assert snap_compare(app, terminal_size=size, run_before=_dashboard)


def test_too_small_guard(snap_compare, seeded_db: Path, still_config: Config) -> None:
    app = ZoeaApp(opener(still_config, seeded_db))
    assert snap_compare(app, terminal_size=(70, 20))

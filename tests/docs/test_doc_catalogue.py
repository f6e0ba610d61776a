"""docs/WORLD.md states the figures of the last run of ``bench/world_catalogue.py``
(``bench/results/world_catalogue.json``): the calls commander's gameplay guide writes
(``--guide``) and the share naming a world command, with their argument names, and the
share of SMBench's run-2 tool calls the world's catalogue holds.

The check has a test that shows it naming a wrong statement.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .bench_results import bench_report

ROOT = Path(__file__).resolve().parents[2]
WORLD = ROOT / "docs" / "WORLD.md"
RESULTS = ROOT / "bench" / "results" / "world_catalogue.json"


def _pct(share: float, places: int = 0) -> str:
    """A share as the docs write it: ``99.7 %``."""
    return f"{share * 100:.{places}f} %"


def _count(n: int) -> str:
    """A count as the docs write it: ``1 174``."""
    return f"{n:,}".replace(",", " ")


def stated_catalogue(report: dict[str, Any]) -> list[str]:
    """What docs/WORLD.md must say for the catalogue ``report``."""
    guide = report["guide"]
    return [
        f"of the {guide['calls']} calls the guide writes",
        f"{_pct(guide['share'])} now",
        f"({_pct(guide['arguments_all_known_share'])} with argument names",
        f"of the {_count(report['calls_naming_a_tool'])} tool calls in SMBench's run-2 play "
        f"logs, {_pct(report['share'], 1)}",
    ]


def catalogue_errors(markdown: str, report: dict[str, Any]) -> list[str]:
    """Each statement of ``report`` docs/WORLD.md does not make (lines joined)."""
    flat = " ".join(markdown.split())
    return [phrase for phrase in stated_catalogue(report) if phrase not in flat]


def test_world_md_states_the_catalogue_and_guide_figures() -> None:
    report = bench_report(RESULTS)
    assert report["guide"]["file"] == "prompt.md"
    assert catalogue_errors(WORLD.read_text(encoding="utf-8"), report) == []


def test_the_catalogue_check_names_a_figure_the_doc_does_not_state() -> None:
    moved = copy.deepcopy(bench_report(RESULTS))
    moved["guide"]["calls"] += 1
    moved["guide"]["arguments_all_known_share"] = 0.5
    errors = catalogue_errors(WORLD.read_text(encoding="utf-8"), moved)
    assert errors == [
        f"of the {moved['guide']['calls']} calls the guide writes",
        "(50 % with argument names",
    ]

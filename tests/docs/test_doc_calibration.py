"""docs/ARENA.md's calibration ("The arena, calibrated") states the figures of the last
run of ``bench/arena_calibration.py`` (``bench/results/arena_calibration.json``): the
run's table row for row, the number of seeds it played, the autopilot's means under
SMBench's budget that the text after the table quotes, and which of SMBench's five
scenarios the autopilot baseline saturates under that budget (what the arena's
"separates models" line marks ``✱``; issue 43: the table had outlived the scoring it
was made with).

Each check has a test that shows it naming a wrong statement.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from zoea_tui.arena.report import SATURATION

from .bench_results import bench_report

ROOT = Path(__file__).resolve().parents[2]
ARENA = ROOT / "docs" / "ARENA.md"
RESULTS = ROOT / "bench" / "results" / "arena_calibration.json"


def stated_calibration(report: dict[str, Any]) -> list[str]:
    """What docs/ARENA.md must say for the calibration ``report``: every row of its
    table, the seeds it played, the smbench world's means under SMBench's budget and
    the scenarios the autopilot saturates there."""
    cells = report["autopilot"]["smbench"]["smbench"]
    means = [f"{key} ({cells[key]['score_mean']:.1f}" for key in ("s1", "s3", "s5")]
    full = [key for key, cell in cells.items() if cell["score_mean"] >= SATURATION]
    runs = report["runs_per_cell"]
    return [
        *report["table"].splitlines(),
        f"`bench/arena_calibration.py --runs {runs}`",
        f"seeds {report['seeds'][0]}–{report['seeds'][-1]}",
        *means,
        f"under SMBench's budget, {' and '.join(full) or 'none'} of SMBench's five",
    ]


def calibration_errors(markdown: str, report: dict[str, Any]) -> list[str]:
    """Each statement of ``report`` docs/ARENA.md does not make (lines joined, except
    the table's rows, which must stand as lines)."""
    lines = set(markdown.splitlines())
    flat = " ".join(markdown.split())
    return [
        phrase
        for phrase in stated_calibration(report)
        if (phrase not in lines if phrase.startswith("|") else phrase not in flat)
    ]


def test_arena_md_states_the_last_calibration_run() -> None:
    assert calibration_errors(ARENA.read_text(encoding="utf-8"), bench_report(RESULTS)) == []


def test_the_calibration_check_names_a_figure_the_doc_does_not_state() -> None:
    report = bench_report(RESULTS)
    moved = copy.deepcopy(report)
    cell = moved["autopilot"]["smbench"]["smbench"]["s1"]
    cell["score_mean"] += 5
    # The table is the script's own rendering; a row rendered anew from the moved cell.
    moved["table"] = moved["table"].replace(
        f"**{report['autopilot']['smbench']['smbench']['s1']['score_mean']:.1f}**",
        f"**{cell['score_mean']:.1f}**",
        1,
    )
    moved["runs_per_cell"] = 3
    moved["autopilot"]["smbench"]["smbench"]["s2"]["score_mean"] = 94.9
    errors = calibration_errors(ARENA.read_text(encoding="utf-8"), moved)
    assert len(errors) == 4
    assert errors[0].startswith("| autopilot: smbench world, smbench | ")
    assert errors[1] == "`bench/arena_calibration.py --runs 3`"
    assert errors[2].startswith("s1 (")
    assert errors[3] == "under SMBench's budget, s6 of SMBench's five"

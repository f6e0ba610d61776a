"""The times the README and docs/ state are measured ones (issue 40: "50 turns take
seconds" took 161 s).

- no document claims a time without a figure ("within seconds", "in a few seconds");
- the README's first minutes and docs/CLI.md's ``simulate`` and ``replay`` state the
  figures ``bench/cli.py`` wrote in ``bench/results/cli.json``, with their conditions.

Each check has a test that shows it naming a wrong statement.
"""

from __future__ import annotations

import copy
import math
import re
from pathlib import Path
from typing import Any

from zoea_tui.core.durations import duration_text

from .bench_results import bench_report

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CLI_DOC = ROOT / "docs" / "CLI.md"
#: Where the docs state how long things take.
DOCUMENTS = (README, *sorted((ROOT / "docs").glob("*.md")))
RESULTS = ROOT / "bench" / "results" / "cli.json"

#: A time said without a figure.
_VAGUE = re.compile(
    r"\b(?:within|in|take|takes|took|taking)\s+(?:a\s+few\s+|several\s+|mere\s+)?"
    r"(?:seconds|minutes)\b",
    re.IGNORECASE,
)


def vague_times(text: str) -> list[str]:
    """The claims of a time without a figure in a document's text (lines joined)."""
    return [found.group(0) for found in _VAGUE.finditer(" ".join(text.split()))]


def test_no_document_claims_a_time_without_a_figure() -> None:
    for document in DOCUMENTS:
        assert vague_times(document.read_text(encoding="utf-8")) == [], document.name


def test_the_vague_time_check_names_what_the_issue_met() -> None:
    assert vague_times("`simulate`: 50 turns take\nseconds") == ["take seconds"]
    assert vague_times("tells in a few seconds whether") == ["in a few seconds"]
    assert vague_times("sold within 18 s, in 3 min 05 s") == []


def _load_range(entry: dict[str, Any]) -> str:
    loads = (entry["load_before"], entry["load_after"])
    return f"load {math.floor(min(loads))}–{math.ceil(max(loads))}"


def _count(n: int) -> str:
    """A count as the docs write it: ``7 737``."""
    return f"{n:,}".replace(",", " ")


def stated_times(report: dict[str, Any]) -> dict[Path, list[str]]:
    """What each document must say for the figures of ``report`` (``bench/cli.py``)."""
    first = report["first_minutes"]
    simulate, replay = report["simulate"], report["replay"]
    return {
        README: [
            f"register within {math.ceil(first['all_registered_s'])} s, mine within "
            f"{math.ceil(first['all_mined_s'])} s and sell within "
            f"{math.ceil(first['all_sold_s'])} s",
        ],
        CLI_DOC: [
            f"{_count(simulate['requests'])} requests, took {duration_text(simulate['wall_s'])}:"
            f" {round(simulate['cpu_s'])} s of CPU",
            f"2 cores shared at {_load_range(simulate)}, {report['date']}",
            f"over its {_count(replay['requests'])} requests, took "
            f"{duration_text(replay['wall_s'])}: {round(replay['cpu_s'])} s of CPU at "
            f"{_load_range(replay)}",
        ],
    }


def time_errors(texts: dict[Path, str], report: dict[str, Any]) -> list[str]:
    """Each figure of ``report`` a document does not state as measured."""
    errors = []
    for document, phrases in stated_times(report).items():
        flat = " ".join(texts[document].split())
        errors += [f"{document.name}: {p!r}" for p in phrases if p not in flat]
    return errors


def test_the_docs_state_the_measured_times() -> None:
    report = bench_report(RESULTS)
    assert report["simulate"]["command"] == "zoea simulate --myses 4 --turns 50 --db /tmp/sim.db"
    texts = {document: document.read_text(encoding="utf-8") for document in (README, CLI_DOC)}
    assert time_errors(texts, report) == []


def test_the_time_check_names_a_figure_the_docs_do_not_state() -> None:
    report = bench_report(RESULTS)
    texts = {document: document.read_text(encoding="utf-8") for document in (README, CLI_DOC)}
    slower = copy.deepcopy(report)
    slower["simulate"]["wall_s"] += 600
    slower["first_minutes"]["all_sold_s"] += 30
    errors = time_errors(texts, slower)
    assert len(errors) == 2
    assert errors[0].startswith("README.md: 'register within")
    assert errors[1].startswith("CLI.md: ") and "requests, took" in errors[1]

"""SMBench's published tables, recomputed through the arena's scoring (a user's checkout).

SMBench publishes no licence, so none of its results are in this project: they are read
from the checkout a user points at (``results/<run>/results.json``, its ``results.md``
and, where published, the run transcripts ``results/<run>/transcripts/<model>/
<scenario>-r<N>.jsonl``). :func:`recompute` scores every published run again from its
inputs — the tool calls and errors counted from the transcript's ``tool_call`` and
``tool_error`` events when it is there, else the run's own counts, and the player
figures the runner read (credits, systems, pirates) — aggregates them with
:mod:`.scoring`'s SMBench aggregation and compares every figure the tables show, to the
decimal: each run's score and pass, each scenario's mean, standard deviation and pass
rate, each model's composite, and the same figures as ``results.md`` prints them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import scoring

_ROW = re.compile(r"^\|\s*(?P<cells>.+?)\s*\|\s*$")


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One published figure the arena's scoring does not reproduce."""

    where: str
    published: Any
    ours: Any

    def __str__(self) -> str:
        return f"{self.where}: published {self.published}, recomputed {self.ours}"


@dataclass(slots=True)
class Comparison:
    """Every figure compared, and those that differ."""

    figures: int = 0
    runs: int = 0
    from_transcripts: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    def check(self, where: str, published: Any, ours: Any) -> None:
        """Compare one figure (numbers to the decimal they are published with)."""
        self.figures += 1
        if isinstance(published, float) or isinstance(ours, float):
            same = round(float(published), 6) == round(float(ours), 6)
        else:
            same = published == ours
        if not same:
            self.mismatches.append(Mismatch(where, published, ours))

    def summary(self) -> str:
        """One line: how many figures of how many runs, how many differ."""
        return (
            f"{len(self.mismatches)} mismatches out of {self.figures} published figures "
            f"({self.runs} runs, {self.from_transcripts} counted from their transcripts)"
        )


class PublishedError(ValueError):
    """The checkout has no published results the comparison can read (one line)."""


def result_files(root: Path) -> list[Path]:
    """The checkout's published ``results.json`` files, in name order."""
    files = sorted((root / "results").glob("*/results.json"))
    if not files:
        raise PublishedError(f"{root} has no results/<run>/results.json (an SMBench checkout?)")
    return files


def _counts(transcript: Path) -> tuple[int, int] | None:
    """``(tool calls, tool errors)`` as SMBench's scorer counts them from a run's events:
    every ``tool_call`` and ``tool_error`` event (the calls include the errors)."""
    if not transcript.is_file():
        return None
    calls = errors = 0
    for line in transcript.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        kind = json.loads(line).get("event")
        calls += kind in ("tool_call", "tool_error")
        errors += kind == "tool_error"
    return calls, errors


def _md_tables(path: Path) -> Iterator[tuple[str, list[str]]]:
    """``(section, cells)`` of every table row of a ``results.md`` (section: the
    ``###`` heading above it, "" for the leaderboard)."""
    if not path.is_file():
        return
    section = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            section = line[4:].strip()
        match = _ROW.match(line)
        if match and not set(match.group("cells")) <= set("|-: "):
            yield section, [c.strip() for c in match.group("cells").split("|")]


def recompute(root: Path) -> Comparison:
    """Recompute every published table of the checkout at ``root`` (see the module)."""
    out = Comparison()
    for file in result_files(root):
        batch = file.parent.name
        data = json.loads(file.read_text(encoding="utf-8"))
        shown: dict[tuple[str, str], dict[str, str]] = {}
        for model in data.get("models", []):
            label = str(model["model"]["label"])
            slug = str(model["model"]["id"]).replace("/", "-")
            means = []
            for scenario, cell in model["scenarios"].items():
                key = scenario.split("-", 1)[0]
                scores, passes = [], []
                for index, run in enumerate(cell["runs"], start=1):
                    where = f"{batch} {label} {scenario} r{index}"
                    metrics = dict(run["metrics"])
                    path = file.parent / "transcripts" / slug / f"{scenario}-r{index}.jsonl"
                    counted = _counts(path)
                    out.runs += 1
                    if counted is not None:
                        out.from_transcripts += 1
                        out.check(f"{where} tool_calls", metrics["tool_calls"], counted[0])
                        out.check(f"{where} tool_errors", metrics["tool_errors"], counted[1])
                        metrics["tool_calls"], metrics["tool_errors"] = counted
                    score = scoring.score_run(key, metrics)
                    passed = scoring.run_passed(key, metrics)
                    out.check(f"{where} score", float(run["score"]), score)
                    out.check(f"{where} pass", bool(run["pass"]), passed)
                    scores.append(score)
                    passes.append(passed)
                figures = scoring.aggregate(scores, passes)
                where = f"{batch} {label} {scenario}"
                out.check(f"{where} mean", cell["averageScore"], figures["score_mean"])
                out.check(f"{where} std", cell["stdDev"], figures["score_std"])
                out.check(f"{where} pass rate", cell["passRate"], figures["pass_rate"])
                means.append(figures["score_mean"])
                shown[(scenario, label)] = {
                    "mean": f"{figures['score_mean']:.1f}",
                    "std": f"{figures['score_std']:.1f}",
                    "pass": f"{scoring.js_round(figures['pass_rate'] * 100):.0f}%",
                }
            composite = scoring.composite(means) if means else 0.0
            out.check(f"{batch} {label} composite", model["compositeScore"], composite)
            shown[("", label)] = {"composite": f"{composite:.1f}"}
        _check_markdown(out, batch, file.with_name("results.md"), shown)
    return out


def _check_markdown(
    out: Comparison, batch: str, path: Path, shown: dict[tuple[str, str], dict[str, str]]
) -> None:
    """Compare the tables of ``results.md`` with the figures recomputed (as it prints
    them: ``toFixed(1)``, pass rates as whole percents)."""
    for section, cells in _md_tables(path):
        if section == "" and len(cells) == 4 and cells[0].isdigit():
            label, printed = cells[1], {"composite": cells[3]}
        elif section and len(cells) == 4 and cells[0] != "Model":
            label, printed = cells[0], {"mean": cells[1], "std": cells[2], "pass": cells[3]}
        else:
            continue
        ours = shown.get((section, label))
        for name, text in printed.items():
            where = f"{batch} results.md {section or 'leaderboard'} {label} {name}"
            out.check(where, text, ours.get(name) if ours else None)

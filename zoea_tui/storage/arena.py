"""Stored arena results (migration 007): the records :class:`~.store.Store` returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ArenaBatch:
    """One stored batch of arena runs: who played, and the whole report."""

    id: int
    created_at: float
    provider: str
    runs: int
    seed: int
    ticks: int | None
    #: The JSON contract of ``zoea arena --json``.
    report: dict[str, Any]

    @property
    def composite(self) -> dict[str, float]:
        """The composite score per strategy."""
        return dict(self.report.get("composite") or {})

    @property
    def scenarios(self) -> list[str]:
        """The scenario ids the batch played, in order."""
        seen: list[str] = []
        for cell in self.report.get("cells") or ():
            if cell.get("scenario") not in seen:
                seen.append(cell.get("scenario"))
        return seen


@dataclass(frozen=True, slots=True)
class ArenaRun:
    """A scored arena run: the figures the store keeps of it. ``scenario`` names the
    scenario by its key (``s1``) in a run just played (``arena.runner.RunResult``, which
    adds what the playing batch knows besides), by its id (``s1-bootstrap-grind``) in a
    stored one."""

    scenario: str
    strategy: str
    seed: int
    score: float
    passed: bool
    metrics: dict[str, Any]
    tokens_in: int = 0
    tokens_out: int = 0
    uncached_tokens: int = 0
    requests: int = 0
    invalid_requests: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ArenaRunRecord(ArenaRun):
    """One stored run, for comparisons across batches: the run, with its batch's id, time
    and provider."""

    batch_id: int
    created_at: float
    provider: str

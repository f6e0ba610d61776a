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
class ArenaRunRecord:
    """One stored run, for comparisons across batches."""

    batch_id: int
    created_at: float
    provider: str
    scenario: str
    strategy: str
    seed: int
    score: float
    passed: bool
    metrics: dict[str, Any]
    tokens_in: int
    tokens_out: int
    uncached_tokens: int
    requests: int
    invalid_requests: int

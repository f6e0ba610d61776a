"""The five composition strategies, by their names in config and on the command line."""

from __future__ import annotations

from collections.abc import Callable

from ..composition import ComposeSettings, History
from ..selection import Selection
from .loop_slice import loop_slice
from .sliding_window import sliding_window
from .snapshot_compaction import snapshot_compaction
from .summarize import summarize
from .turn_aware import turn_aware

Strategy = Callable[[History, ComposeSettings], Selection]

STRATEGIES: dict[str, Strategy] = {
    "sliding-window": sliding_window,
    "snapshot-compaction": snapshot_compaction,
    "loop-slice": loop_slice,
    "turn-aware": turn_aware,
    "summarize": summarize,
}

DEFAULT_STRATEGY = "turn-aware"

__all__ = [
    "DEFAULT_STRATEGY",
    "STRATEGIES",
    "Strategy",
    "loop_slice",
    "sliding_window",
    "snapshot_compaction",
    "summarize",
    "turn_aware",
]

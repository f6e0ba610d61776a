"""How a duration is written, for the command line, the arena's estimates and the docs."""

from __future__ import annotations


def duration_text(seconds: float, *, rough: bool = False) -> str:
    """A duration as the command line and the docs write it: ``42 s``, ``3 min 05 s``,
    ``1 h 02 min``; ``rough`` (an estimate) keeps only its largest unit: ``45 s``,
    ``12 min``, ``2.5 h``."""
    if rough:
        if seconds < 90:
            return f"{seconds:.0f} s"
        if seconds < 5400:
            return f"{seconds / 60:.0f} min"
        return f"{seconds / 3600:.1f} h"
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"

"""Reading the figures a benchmark wrote, for the tests that check the docs state them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def bench_report(results: Path) -> dict[str, Any]:
    """The JSON report a run of a ``bench/`` script left in ``results``."""
    report: dict[str, Any] = json.loads(results.read_text(encoding="utf-8"))
    return report

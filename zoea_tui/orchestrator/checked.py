"""A request with the engine's checks, made in one place for the engine and the UI.

Before a Mysis sends a request the engine validates it (:func:`~zoea_tui.core.validator.validate`)
and measures what it repeats of the one it sent before (:func:`~zoea_tui.core.cache.reuse`).
:func:`check_request` does both; the runtime publishes what it returns with
:class:`~zoea_tui.orchestrator.events.RequestComposed`, and
:meth:`Commander.checked_preview <zoea_tui.orchestrator.commander.Commander.checked_preview>`
returns it for a request composed only to be shown. So every preview of a request (the
focus view's, the dashboard's, the strategy switcher's) shows the same figures.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.cache import Reuse, reuse
from ..core.composition import Composition
from ..core.validator import validate


@dataclass(frozen=True, slots=True)
class CheckedRequest:
    """A composed request and what the engine's checks say of it."""

    composition: Composition
    #: What the validator rejects in it (empty: the request is well-formed).
    violations: tuple[str, ...] = ()
    #: What it repeats, as an exact prefix, of the last request the Mysis sent (None
    #: before its first).
    reuse: Reuse | None = None

    @property
    def valid(self) -> bool:
        """True when the validator finds nothing wrong."""
        return not self.violations


async def check_request(
    composition: Composition, last_sent: Sequence[dict[str, Any]]
) -> CheckedRequest:
    """``composition`` validated, and measured against ``last_sent`` (the messages of the
    Mysis's last request sent; empty before its first). Measuring tokenizes both
    requests, tens of ms: it runs off the loop."""
    violations = tuple(validate(composition.messages))
    shared = await asyncio.to_thread(reuse, last_sent, composition.messages) if last_sent else None
    return CheckedRequest(composition, violations, shared)

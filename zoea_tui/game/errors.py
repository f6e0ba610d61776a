"""One typed error for every way the game says no, and one for a lost server.

The real server reports game errors in several shapes (a JSON-RPC error, an
``isError`` result, ``{"error": {...}}`` text, ``Error: ...`` text); the
adapter in :mod:`zoea_tui.game.adapter` turns each into a :class:`GameToolError`.
"""

from __future__ import annotations

import re
from typing import Any

#: Codes that mean "too early, try again later": retried with the server's hint.
#: ``action_pending`` is not one: a server holds each action to its tick and answers it
#: then, so it refuses an action only while another of the pilot's is still waiting,
#: which a session that sends one call at a time never does; the Mysis sees it.
TIMING_CODES = frozenset({"rate_limited", "cooldown", "throttled"})
#: Codes that mean the login is gone: re-login and try again.
SESSION_CODES = frozenset(
    {
        "not_authenticated",
        "session_invalid",
        "session_expired",
        "session_required",
        "session_replaced",
    }
)

_TRY_AGAIN = re.compile(r"try again in (\d+(?:\.\d+)?) ?s", re.IGNORECASE)


class GameToolError(Exception):
    """The game refused a tool call.

    ``details`` holds the extra fields of the server's error object (for
    example ``wait_ticks`` or ``arrival_tick``).
    """

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})

    @property
    def wait_seconds(self) -> float | None:
        """How long the server asked to wait before trying again, when it said."""
        for key in ("wait_seconds", "retry_after", "retry_after_seconds"):
            value = self.details.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
        match = _TRY_AGAIN.search(self.message)
        return float(match.group(1)) if match else None

    @property
    def is_timing(self) -> bool:
        """True for "too early" refusals that succeed if tried again later."""
        return self.code in TIMING_CODES

    @property
    def is_session_lost(self) -> bool:
        """True when the login is gone and a new login would fix it."""
        return self.code in SESSION_CODES

    def to_payload(self) -> dict[str, Any]:
        """``{"error": {"code", "message", **details}}``: what a model is shown."""
        return {"error": {"code": self.code, "message": self.message, **self.details}}


class GameConnectionError(Exception):
    """The game server could not be reached, or the connection broke."""

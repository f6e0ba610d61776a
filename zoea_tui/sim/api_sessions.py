"""Sessions of the HTTP API: what ``POST …/session`` opens and ``X-Session-Id`` names.

An API session is only a connection: a login made on it is bound to it, as a login is
bound to an MCP session, and it ends when the session is forgotten. A session expires
after ``ttl`` seconds without a request (the real server's 30 minutes); every request
moves its end.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from . import errors
from .errors import GameError

#: The real server ends a session after 30 minutes without a request.
SESSION_TTL_SECONDS = 30 * 60


def _new_id() -> str:
    return secrets.token_hex(16)


@dataclass(frozen=True)
class ApiSettings:
    """How ``zoea sim serve`` runs the HTTP API.

    ``clock`` (wall-clock seconds) and ``new_id`` are injectable so tests can expire a
    session without waiting; ``admin_token`` guards the benchmark admin endpoints.
    """

    admin_token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    session_ttl: float = SESSION_TTL_SECONDS
    clock: Callable[[], float] = time.time
    new_id: Callable[[], str] = _new_id


@dataclass
class ApiSession:
    """One API session: its id, when it began and when it ends unless used again."""

    id: str
    created_at: float
    expires_at: float

    @property
    def key(self) -> str:
        """The connection key the world binds this session's login to."""
        return f"http-{self.id}"

    def to_dict(self, player_id: str | None = None) -> dict[str, str]:
        """``{"id", "createdAt", "expiresAt"}`` (and ``playerId`` once logged in)."""
        data = {"id": self.id, "createdAt": _iso(self.created_at)}
        data["expiresAt"] = _iso(self.expires_at)
        if player_id is not None:
            data["playerId"] = player_id
        return data


class ApiSessions:
    """The open API sessions."""

    def __init__(self, settings: ApiSettings) -> None:
        self.settings = settings
        self._sessions: dict[str, ApiSession] = {}

    def open(self) -> ApiSession:
        """A new session (expired ones are forgotten on the way)."""
        now = self.settings.clock()
        for sid in [s.id for s in self._sessions.values() if s.expires_at <= now]:
            del self._sessions[sid]
        session = ApiSession(self.settings.new_id(), now, now + self.settings.session_ttl)
        self._sessions[session.id] = session
        return session

    def find(self, sid: str | None) -> ApiSession:
        """The live session ``sid``, its end moved on by this request.

        Raises ``GameError`` ``session_required`` (no id), ``session_invalid`` (unknown:
        never opened, or forgotten by a restart or a reset) or ``session_expired``.
        """
        if not sid:
            raise GameError(
                "session_required",
                "No session: create one with POST /api/v2/session and send its id in the "
                "X-Session-Id header.",
            )
        session = self._sessions.get(sid)
        if session is None:
            raise errors.session_invalid()
        now = self.settings.clock()
        if session.expires_at <= now:
            del self._sessions[sid]
            minutes = self.settings.session_ttl / 60
            raise GameError(
                "session_expired",
                f"Session expired after {minutes:g} minutes without a request. Create a new "
                "session and log in again.",
            )
        session.expires_at = now + self.settings.session_ttl
        return session

    def clear(self) -> None:
        """Forget every session (the world was reset)."""
        self._sessions.clear()

    def __len__(self) -> int:
        return len(self._sessions)


def _iso(seconds: float) -> str:
    """An instant as ISO 8601 in UTC, e.g. ``2026-03-12T10:04:05.120Z``."""
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

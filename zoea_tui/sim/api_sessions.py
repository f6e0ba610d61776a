"""Sessions of the HTTP API: what ``POST …/session`` opens and ``X-Session-Id`` names.

An API session is only a connection: a login made on it is bound to it, as a login is
bound to an MCP session, and it ends when the session is forgotten. A session expires
after ``ttl`` seconds without a request (the real server's 30 minutes); every request
moves its end.

The world's package reads no clock and draws no randomness but the world's seeded one
(``tests/sim/test_world_purity.py``), so the wall clock and the makers of session ids
and of the admin token come from the caller (``zoea sim serve``: ``cli.py``; tests:
their own, so a session expires without anyone waiting).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import errors
from .errors import GameError

#: The real server ends a session after 30 minutes without a request.
SESSION_TTL_SECONDS = 30 * 60


@dataclass(frozen=True)
class ApiSettings:
    """How the HTTP API runs: ``admin_token`` guards the benchmark admin endpoints,
    ``clock`` gives the wall clock in seconds since 1970, ``new_id`` makes session ids
    (unguessable ones for a real server)."""

    admin_token: str
    clock: Callable[[], float]
    new_id: Callable[[], str]
    session_ttl: float = SESSION_TTL_SECONDS


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
        data = {"id": self.id, "createdAt": iso_utc(self.created_at)}
        data["expiresAt"] = iso_utc(self.expires_at)
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


def iso_utc(seconds: float) -> str:
    """An instant (seconds since 1970) as ISO 8601 in UTC to the millisecond, e.g.
    ``2026-03-12T10:04:05.120Z``: a pure function, the proleptic Gregorian calendar's
    days from the epoch turned into a date (H. Hinnant's ``civil_from_days``)."""
    millis_total = round(seconds * 1000)
    whole, millis = divmod(millis_total, 1000)
    days, rest = divmod(whole, 86_400)
    hour, rest = divmod(rest, 3_600)
    minute, second = divmod(rest, 60)
    shifted = days + 719_468  # days from 0000-03-01
    era = shifted // 146_097
    day_of_era = shifted - era * 146_097
    year_of_era = (
        day_of_era - day_of_era // 1_460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153  # 0 = March
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    year = year_of_era + era * 400 + (1 if month <= 2 else 0)
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"

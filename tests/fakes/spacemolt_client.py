"""A small client of SpaceMolt's HTTP API, written from the protocol (issue 32), not copied.

It behaves as SpaceMolt's own client is described to: a session from ``POST
{base}/session``, each command ``POST {base}/{command}`` with ``X-Session-Id`` and a
JSON body; on ``session_invalid``, ``session_expired``, ``not_authenticated`` or HTTP
401 it opens a new session, logs in again with the credentials it was given and sends
the command once more; ``rate_limited`` is retried after ``wait_seconds``; every other
refusal is handed to the caller, as the client hands it to its model. It never retries
``action_pending``: a server that holds actions to their tick never sends it to a
client that waits for each answer.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx

RELOGIN_CODES = frozenset({"session_invalid", "session_expired", "not_authenticated"})


@dataclass
class Answer:
    """One answer of the API, as the client's model would be shown it."""

    status: int
    body: dict[str, Any]

    @property
    def error(self) -> dict[str, Any] | None:
        error = self.body.get("error")
        return error if isinstance(error, dict) else None

    @property
    def data(self) -> dict[str, Any]:
        """The structured result (``{}`` for a refusal)."""
        data = self.body.get("structuredContent")
        return data if isinstance(data, dict) else {}

    @property
    def notifications(self) -> list[dict[str, Any]]:
        return list(self.body.get("notifications") or [])

    def shown(self) -> str:
        """The line a model would read: ``Error: [code] message`` or the result text."""
        if self.error is not None:
            return f"Error: [{self.error['code']}] {self.error['message']}"
        return str(self.body.get("result"))


@dataclass
class SpaceMoltClient:
    """A client of one server's HTTP API (``base``: ``http://host:port/api/v2``)."""

    base: str
    http: httpx.AsyncClient
    credentials: tuple[str, str] | None = None
    session: dict[str, Any] | None = None
    sessions_opened: int = 0
    logins: int = 0
    waits: list[float] = field(default_factory=list)

    async def open_session(self) -> None:
        """A new session, logged in again when the client knows its credentials."""
        response = await self.http.post(f"{self.base}/session")
        response.raise_for_status()
        self.session = response.json()["session"]
        self.sessions_opened += 1
        if self.credentials is not None:
            username, password = self.credentials
            self.logins += 1
            await self._send("spacemolt_auth/login", {"username": username, "password": password})

    async def execute(self, command: str, args: dict[str, Any] | None = None) -> Answer:
        """Run a command the way the protocol says a client should."""
        if self.session is None:
            await self.open_session()
        answer = await self._send(command, args)
        while answer.error is not None and answer.error["code"] == "rate_limited":
            wait = float(answer.error.get("wait_seconds") or 1.0)
            self.waits.append(wait)
            await asyncio.sleep(wait)
            answer = await self._send(command, args)
        if answer.status == 401 or (answer.error and answer.error["code"] in RELOGIN_CODES):
            await self.open_session()
            answer = await self._send(command, args)
        if isinstance(answer.body.get("session"), dict):
            self.session = answer.body["session"]
        return answer

    async def _send(self, command: str, args: dict[str, Any] | None) -> Answer:
        assert self.session is not None
        response = await self.http.post(
            f"{self.base}/{command}",
            headers={"X-Session-Id": self.session["id"]},
            json=args if args else None,
        )
        return Answer(response.status_code, response.json())

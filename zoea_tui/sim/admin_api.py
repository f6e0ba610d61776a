"""SMBench's admin endpoints on the embedded world, behind a bearer token.

SMBench's runner resets the server before each run and reads the player's statistics
after it (``src/lib/admin-client.ts`` in SpaceMolt/smbench):

* ``POST /api/admin/benchmark/reset``: a new world from the server's seed (or the body's
  ``{"seed": N}``), the start every scenario begins from; every login and API session
  ends. Answers ``{"ok": true, "seed", "tick"}``.
* ``GET /api/admin/benchmark/player-stats?player_id=X``: ``{"player_id", "username",
  "credits", "tick", "matched_by", "stats": {…}}``, where ``stats`` has every counter of
  ``stats.PlayerStats`` (the scorer reads ``credits``, ``stats.credits_earned``,
  ``stats.systems_explored`` and ``stats.pirates_destroyed``). ``X`` is a player id or
  username; SMBench passes its own run name, which names no player, so then the player
  registered last is answered (``matched_by: "latest"``): after a reset, the run's.
* ``GET /api/admin/benchmark/event-log``: the latest calls, oldest first, as a list of
  ``{"seq", "tick", "player_id", "username", "command", "success", "error_code"}``.

Every one needs ``Authorization: Bearer <token>``, the token ``zoea sim serve`` prints.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .api_sessions import ApiSessions
from .host import WorldHost
from .http_api import capped_route
from .players import Player
from .stats import player_stats

ADMIN_PREFIX = "/api/admin/benchmark"


class AdminApi:
    """The admin handlers over one host, its API sessions and a token."""

    def __init__(self, host: WorldHost, sessions: ApiSessions, token: str) -> None:
        self.host = host
        self.sessions = sessions
        self.token = token

    def routes(self) -> list[Route]:
        """The admin routes (placed before the API's catch-all command route)."""
        return [
            capped_route(f"{ADMIN_PREFIX}/reset", self._guarded(self.reset), methods=["POST"]),
            Route(
                f"{ADMIN_PREFIX}/player-stats", self._guarded(self.player_stats), methods=["GET"]
            ),
            Route(f"{ADMIN_PREFIX}/event-log", self._guarded(self.event_log), methods=["GET"]),
        ]

    def _guarded(self, handler: Any) -> Any:
        async def guarded(request: Request) -> Response:
            given = request.headers.get("authorization", "")
            scheme, _, token = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                token.strip().encode(), self.token.encode()
            ):
                return _error(
                    401,
                    "unauthorized",
                    "Send Authorization: Bearer <token>, the admin token zoea sim serve "
                    "printed when it started.",
                )
            response: Response = await handler(request)
            return response

        return guarded

    async def reset(self, request: Request) -> Response:
        """A new world from the seed: the start of every scenario."""
        raw = await request.body()
        seed: int | None = None
        if raw.strip():
            try:
                body = json.loads(raw)
            except ValueError:
                return _error(400, "invalid_json", "Invalid JSON in request body")
            value = body.get("seed") if isinstance(body, dict) else None
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                return _error(400, "invalid_payload", "seed must be a whole number")
            seed = value
        world = self.host.reset(seed)
        self.sessions.clear()
        return JSONResponse({"ok": True, "seed": world.seed, "tick": world.current_tick})

    async def player_stats(self, request: Request) -> Response:
        """The statistics SMBench's scorer reads, of one player."""
        wanted = request.query_params.get("player_id", "")
        world = self.host.world
        found = world.find_player(wanted) if wanted else None
        matched = "id" if found is not None and found.id == wanted else "username"
        if found is None:
            found, matched = _latest(world.players.values()), "latest"
        if found is None:
            return _error(404, "player_not_found", "No player has registered in this world.")
        stats = player_stats(world, found.id).to_dict()
        return JSONResponse(
            {
                "player_id": found.id,
                "username": found.username,
                "credits": found.credits,
                "tick": world.current_tick,
                "matched_by": matched,
                "stats": stats,
            }
        )

    async def event_log(self, request: Request) -> Response:
        """Every call since the start or the last reset (the latest 10 000)."""
        return JSONResponse(list(self.host.events))


def _latest(players: Any) -> Player | None:
    """The player registered last (the last of those registered at the latest tick)."""
    latest: Player | None = None
    for player in players:
        if latest is None or player.created_tick >= latest.created_tick:
            latest = player
    return latest


def _error(status: int, code: str, message: str) -> Response:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)

"""The embedded world as SpaceMolt's HTTP API, beside MCP in the same app and world.

SpaceMolt's own client (``commander``) and SMBench speak this API, not MCP. Every
route is made from the one tool catalogue (``tools.TOOL_SPECS``), under ``/api/v2``
and ``/api/v1`` alike:

* ``POST {base}/session`` opens a session: ``{"session": {"id", "createdAt",
  "expiresAt"}}``; every other call names it in the ``X-Session-Id`` header.
* ``POST {base}/{group}/{command}`` (v2: ``spacemolt/mine``, ``spacemolt_auth/login``)
  or ``POST {base}/{command}`` (v1: ``mine``), with the arguments as a JSON object (or
  no body). The answer is ``{"result", "structuredContent", "notifications",
  "session"}``: under v2 ``result`` is the result as text, under v1 the result itself;
  ``structuredContent`` is the result; ``notifications`` are the player's pending
  events, delivered with every answer. A refusal is ``{"error": {"code", "message",
  "wait_seconds"?}, "notifications", "session"}`` with HTTP 400, 401 when the login
  or the session is missing or lost, 404 for an unknown command.
* ``GET {base}/openapi.json`` lists every command as a POST path with its ``summary``
  and ``x-is-mutation``.

Actions are held to their tick by the host, so an answer comes once its tick has
resolved, as on the real server. ``admin_api.py`` adds SMBench's admin endpoints.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Collection
from typing import Any

from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    RequestBodyLimitMiddleware,
)
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, request_response

from . import errors
from .api_sessions import ApiSession, ApiSessions
from .errors import GameError
from .host import WorldHost
from .mcp_server import SERVER_VERSION, result_text
from .tool_spec import ToolSpec
from .tools import TOOL_SPECS, TOOLS_BY_NAME

#: The API versions served, each at ``/api/{version}``.
VERSIONS = ("v2", "v1")
#: Codes answered with HTTP 401: the client must open a session and log in again.
UNAUTHORIZED_CODES = frozenset(
    {"not_authenticated", "session_invalid", "session_expired", "session_required"}
)
_GROUPS = frozenset(spec.api_group for spec in TOOL_SPECS)
#: The largest request body a route of the API (or of the admin API) reads: /mcp's, the
#: MCP SDK's 4 MiB. A larger one is answered 413 as /mcp answers it, by the same
#: middleware, before it is held in memory whole (a 64 MB body took 117 MB of memory).
MAX_BODY_BYTES = DEFAULT_MAX_REQUEST_BODY_SIZE


def capped_route(
    path: str,
    endpoint: Callable[[Request], Awaitable[Response]],
    *,
    methods: Collection[str],
) -> Route:
    """A route whose request body is capped at :data:`MAX_BODY_BYTES` (413 beyond)."""
    app = RequestBodyLimitMiddleware(request_response(endpoint), MAX_BODY_BYTES)
    return Route(path, app, methods=methods)


def command_path(spec: ToolSpec, version: str) -> str:
    """The path of a command: ``/api/v2/{group}/{name}`` or ``/api/v1/{name}``."""
    if version == "v1":
        return f"/api/v1/{spec.name}"
    return f"/api/{version}/{spec.api_group}/{spec.name}"


def summary(spec: ToolSpec) -> str:
    """The first sentence of a command's description: the OpenAPI ``summary``."""
    first, dot, _ = spec.description.partition(". ")
    return first + ("." if dot else "")


def openapi(version: str) -> dict[str, Any]:
    """The OpenAPI document of one version: every command a POST path."""
    base = f"/api/{version}"
    header = {
        "name": "X-Session-Id",
        "in": "header",
        "required": True,
        "description": f"A session from POST {base}/session",
        "schema": {"type": "string"},
    }
    answer = {"description": "The result, or an error object", "content": _JSON_OBJECT}
    paths: dict[str, Any] = {
        f"{base}/session": {
            "post": {
                "operationId": "createSession",
                "summary": "Open a session; send its id in X-Session-Id with every call.",
                "x-is-mutation": False,
                "responses": {"200": answer},
            }
        }
    }
    for spec in TOOL_SPECS:
        paths[command_path(spec, version)] = {
            "post": {
                "operationId": spec.name,
                "summary": summary(spec),
                "description": spec.description,
                "tags": [spec.api_group],
                "x-is-mutation": spec.mutation,
                "parameters": [header],
                "requestBody": {
                    "required": False,
                    "content": {"application/json": {"schema": spec.input_schema()}},
                },
                "responses": {"200": answer, "400": answer, "401": answer, "404": answer},
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "SpaceMolt (the embedded world of Zoea Nova)",
            "version": SERVER_VERSION,
            "description": "Actions (x-is-mutation) are answered once their tick resolves.",
        },
        "paths": paths,
    }


_JSON_OBJECT = {"application/json": {"schema": {"type": "object"}}}


class HttpApi:
    """The API's handlers over one host and its sessions."""

    def __init__(self, host: WorldHost, sessions: ApiSessions) -> None:
        self.host = host
        self.sessions = sessions
        self._specs = {version: openapi(version) for version in VERSIONS}

    def routes(self) -> list[Route]:
        """The Starlette routes (the admin API adds its own before these)."""
        return [
            Route("/healthz", self.healthz, methods=["GET"]),
            Route("/api/{version}/openapi.json", self.openapi, methods=["GET"]),
            capped_route("/api/{version}/session", self.open_session, methods=["POST"]),
            capped_route("/api/{version}/{command:path}", self.command, methods=["POST"]),
        ]

    async def healthz(self, request: Request) -> Response:
        """``{"status": "ok", "tick", "players"}``: the world is up."""
        world = self.host.world
        return JSONResponse(
            {"status": "ok", "tick": world.current_tick, "players": len(world.players)}
        )

    async def openapi(self, request: Request) -> Response:
        spec = self._specs.get(request.path_params["version"])
        if spec is None:
            return _not_found(request)
        return JSONResponse(spec)

    async def open_session(self, request: Request) -> Response:
        if request.path_params["version"] not in VERSIONS:
            return _not_found(request)
        return JSONResponse({"session": self.sessions.open().to_dict()})

    async def command(self, request: Request) -> Response:
        """One command: find the session and the command, run it, answer in the real shape."""
        version = request.path_params["version"]
        if version not in VERSIONS:
            return _not_found(request)
        try:
            session = self.sessions.find(request.headers.get("x-session-id"))
        except GameError as error:
            return self._refusal(error, None)
        try:
            spec = self._spec(request.path_params["command"])
            args = await _arguments(request)
            result = await self.host.call(session.key, spec.name, args)
        except GameError as error:
            return self._refusal(error, session)
        structured = dict(result)
        body = {
            "result": result_text(result) if version != "v1" else structured,
            "structuredContent": structured,
            **self._context(session),
        }
        return JSONResponse(body)

    def _spec(self, path: str) -> ToolSpec:
        """The command a path names: ``group/name`` (its own group) or ``name``."""
        group, _, name = path.strip("/").rpartition("/")
        spec = TOOLS_BY_NAME.get(name)
        if spec is None or (group and group != spec.api_group):
            if spec is not None and group in _GROUPS:
                raise GameError(
                    "unknown_command",
                    f"Unknown command: {path}. {name} is in {spec.api_group}: "
                    f"use {spec.api_group}/{name}.",
                )
            raise errors.unknown_command(path)
        return spec

    def _context(self, session: ApiSession | None) -> dict[str, Any]:
        """What every answer carries: the pending notifications and the session."""
        if session is None:
            return {"notifications": []}
        player = self.host.world.player_for(session.key)
        return {
            "notifications": self.host.take_notifications(session.key),
            "session": session.to_dict(player.id if player is not None else None),
        }

    def _refusal(self, error: GameError, session: ApiSession | None) -> Response:
        """``{"error": {"code", "message", "wait_seconds"?}}`` with the status it calls for."""
        shown: dict[str, Any] = {"code": error.code, "message": error.message}
        wait = error.details.get("wait_seconds")
        if isinstance(wait, int | float):
            shown["wait_seconds"] = wait
        if error.code in UNAUTHORIZED_CODES:
            status = 401
        elif error.code == "unknown_command":
            status = 404
        else:
            status = 400
        return JSONResponse({"error": shown, **self._context(session)}, status_code=status)


async def _arguments(request: Request) -> dict[str, Any]:
    """The body as the command's arguments: empty, or a JSON object (else ``invalid_json``)."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        args = json.loads(raw)
    except ValueError:
        raise errors.invalid_json() from None
    if not isinstance(args, dict):
        raise errors.invalid_json()
    return args


def _not_found(request: Request) -> Response:
    return JSONResponse(
        {"error": {"code": "not_found", "message": f"No such endpoint: {request.url.path}"}},
        status_code=404,
    )

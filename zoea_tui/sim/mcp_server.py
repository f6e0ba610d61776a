"""The embedded world as a real MCP server (the SDK's low-level ``Server``).

The same handlers serve two transports:

* in-process: :func:`in_process_server` builds one ``Server`` per client
  connection, so each connection has its own login even with no HTTP header;
* Streamable HTTP on loopback: :func:`http_app` serves one ``Server`` and keys
  each login on the ``mcp-session-id`` header (what the real game does).

Game errors come back as ``isError`` results carrying
``{"error": {"code", "message", ...}}``, the shape the real server uses.
"""

from __future__ import annotations

import itertools
import json
from typing import Any, Protocol

from mcp import types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from starlette.routing import Route

from .errors import GameError

SERVER_NAME = "spacemolt-embedded"
SERVER_VERSION = "0.1.0"
MCP_PATH = "/mcp"
#: Numbers in-process connections (unique per process; HTTP ones use mcp-session-id).
_CONNECTIONS = itertools.count(1)


class ToolHost(Protocol):
    """What the facade serves: a tool catalogue and one call (``WorldHost``).

    A host whose catalogue can change exposes an increasing ``tools_version``;
    connections that listed an older one get ``notifications/tools/list_changed``.
    """

    def tool_specs(self) -> list[dict[str, Any]]: ...

    async def call(
        self, key: str | None, tool: str, args: dict[str, Any] | None
    ) -> dict[str, Any]: ...


def result_text(payload: dict[str, Any]) -> str:
    """A result as the text a client is shown (MCP's text block, the HTTP API's result)."""
    return json.dumps(payload)


def tool_result(payload: dict[str, Any]) -> types.CallToolResult:
    """A successful call: the result as JSON text."""
    return types.CallToolResult(content=[types.TextContent(text=result_text(payload))])


def error_result(error: GameError) -> types.CallToolResult:
    """A refused call: ``isError`` with ``{"error": {...}}``."""
    text = json.dumps({"error": error.to_dict()})
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def build_server(host: ToolHost, *, connection_key: str | None = None) -> Server:
    """A low-level MCP ``Server`` over ``host``.

    Logins are keyed on the ``mcp-session-id`` header when the request has one
    (HTTP), else on ``connection_key`` (one server per in-process connection).
    """
    listed: dict[str | None, int] = {}  # catalogue version each connection last listed

    def connection(ctx: ServerRequestContext) -> str | None:
        headers = getattr(ctx.request, "headers", None)
        return (headers.get("mcp-session-id") if headers else None) or connection_key

    async def on_list_tools(
        ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        listed[connection(ctx)] = getattr(host, "tools_version", 0)
        # Asked each time, so a host may change its catalogue while clients are connected.
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=s["name"], description=s["description"], input_schema=s["input_schema"]
                )
                for s in host.tool_specs()
            ]
        )

    async def on_call_tool(
        ctx: ServerRequestContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        key = connection(ctx)
        version = getattr(host, "tools_version", 0)
        if key in listed and listed[key] != version:
            listed[key] = version
            await ctx.session.send_tool_list_changed()  # the client lists them again
        try:
            return tool_result(await host.call(key, params.name, params.arguments or {}))
        except GameError as error:
            return error_result(error)

    return Server(
        SERVER_NAME,
        version=SERVER_VERSION,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def in_process_server(host: ToolHost) -> Server:
    """A server for exactly one in-process client connection."""
    return build_server(host, connection_key=f"inproc-{next(_CONNECTIONS)}")


def http_app(
    host: ToolHost, *, bind_host: str = "127.0.0.1", routes: list[Route] | None = None
) -> Any:
    """The Starlette app serving ``host`` over Streamable HTTP at ``/mcp``, and ``routes``
    (the HTTP API) beside it in the same app."""
    return build_server(host).streamable_http_app(
        streamable_http_path=MCP_PATH, host=bind_host, custom_starlette_routes=routes
    )

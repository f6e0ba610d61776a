"""How a Mysis reaches the game: the embedded world in-process, or any MCP URL."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.session import MessageHandlerFnT
from mcp.client.streamable_http import streamable_http_client

#: Travel and jump block until arrival on the real server: reads may take minutes.
READ_TIMEOUT_S = 600.0
CONNECT_TIMEOUT_S = 30.0
#: Largest single result accepted (the SDK's default is 1 MiB; real maps are ~190 KB,
#: and a misbehaving server must produce a clear truncation, not a broken session).
MAX_EVENT_BYTES = 16 * 1024 * 1024

#: Builds one client connection; ``message_handler`` receives the server's notifications.
Connector = Callable[..., AbstractAsyncContextManager[Client]]
MessageHandler = MessageHandlerFnT


def _client(server: Any, read_timeout: float, message_handler: MessageHandler | None) -> Client:
    """A client of ``server`` (a transport or an in-process server), as every connector
    opens one: the legacy handshake, reads waiting up to ``read_timeout`` seconds."""
    return Client(
        server,
        mode="legacy",
        read_timeout_seconds=read_timeout,
        message_handler=message_handler,
    )


def http_connector(
    url: str, *, read_timeout: float = READ_TIMEOUT_S, headers: dict[str, str] | None = None
) -> Connector:
    """Connect over Streamable HTTP with the legacy handshake and a long read timeout."""

    @contextlib.asynccontextmanager
    async def connect(message_handler: MessageHandler | None = None) -> AsyncIterator[Client]:
        timeout = httpx2.Timeout(CONNECT_TIMEOUT_S, read=read_timeout)
        async with httpx2.AsyncClient(
            timeout=timeout, headers=headers, follow_redirects=True
        ) as http:
            transport = streamable_http_client(
                url, http_client=http, max_sse_event_size=MAX_EVENT_BYTES
            )
            async with _client(transport, read_timeout, message_handler) as client:
                yield client

    return connect


def in_process_connector(
    make_server: Callable[[], Any], *, read_timeout: float = READ_TIMEOUT_S
) -> Connector:
    """Connect to an in-process low-level ``Server`` (a fresh one per connection)."""

    @contextlib.asynccontextmanager
    async def connect(message_handler: MessageHandler | None = None) -> AsyncIterator[Client]:
        async with _client(make_server(), read_timeout, message_handler) as client:
            yield client

    return connect

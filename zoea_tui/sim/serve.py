"""Serving the embedded world over HTTP (``zoea sim serve``, tests): MCP at ``/mcp`` and,
in the same app on the same world, SpaceMolt's HTTP API at ``/api/v2`` (and ``/api/v1``)
with SMBench's admin endpoints."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import AsyncIterator

import uvicorn

from .admin_api import AdminApi
from .api_sessions import ApiSessions, ApiSettings
from .host import WorldHost
from .http_api import HttpApi
from .mcp_server import MCP_PATH, ToolHost, http_app

#: Where the HTTP API is served (SpaceMolt's client's base URL).
API_PATH = "/api/v2"
#: Seconds a stopping server waits for its open connections before closing them.
STOP_GRACE_SECONDS = 0.25

#: The world ``zoea sim serve`` makes when not told (``--world``): the one calibrated
#: against SMBench's published runs, which SpaceMolt's client and SMBench play offline.
SERVED_WORLD = "smbench"

log = logging.getLogger(__name__)


class HttpWorldServer:
    """A uvicorn server for one host, started and stopped inside the running loop.

    ``port=0`` picks a free port; :attr:`url` tells which after :meth:`start`. Given
    ``api`` (its settings: the admin token, the wall clock, the session ids), a
    :class:`WorldHost` is also served as the HTTP API.
    """

    def __init__(
        self,
        host: ToolHost,
        *,
        bind: str = "127.0.0.1",
        port: int = 0,
        api: ApiSettings | None = None,
    ) -> None:
        self.host = host
        self.bind = bind
        self.api: ApiSettings | None = None
        self.sessions: ApiSessions | None = None
        routes = None
        if api is not None:
            if not isinstance(host, WorldHost):
                raise TypeError("the HTTP API serves a WorldHost")
            self.api = api
            self.sessions = ApiSessions(api)
            admin = AdminApi(host, self.sessions, self.api.admin_token)
            routes = admin.routes() + HttpApi(host, self.sessions).routes()
        config = uvicorn.Config(
            http_app(host, bind_host=bind, routes=routes),
            host=bind,
            port=port,
            log_level="warning",
            lifespan="on",
            access_log=False,
            # A client's open event stream (every MCP session keeps one) would hold the
            # shutdown this long: short, so Ctrl-C ends the server at once. (Typed int,
            # used as asyncio.wait_for's timeout, which takes any number of seconds.)
            timeout_graceful_shutdown=STOP_GRACE_SECONDS,  # type: ignore[arg-type]
        )
        self._server = uvicorn.Server(config)
        self._task: asyncio.Task[None] | None = None
        self.port = port

    @property
    def url(self) -> str:
        """The MCP endpoint, e.g. ``http://127.0.0.1:8765/mcp``."""
        return f"http://{self.bind}:{self.port}{MCP_PATH}"

    @property
    def base_url(self) -> str:
        """The server's root, e.g. ``http://127.0.0.1:8765`` (SMBench's ``server.url``)."""
        return f"http://{self.bind}:{self.port}"

    @property
    def api_url(self) -> str:
        """The HTTP API's base, e.g. ``http://127.0.0.1:8765/api/v2``."""
        return f"{self.base_url}{API_PATH}"

    async def start(self) -> None:
        """Bind and serve in the background; return once accepting connections."""
        # Bound here rather than by uvicorn, which on a port in use logs and exits the
        # process: the caller gets the OSError and says it in one line.
        listening = _bound_socket(self.bind, self.port)
        self._task = asyncio.create_task(self._server.serve([listening]), name="world-http")
        while not self._server.started:
            if self._task.done():
                self._task.result()  # raises the bind error
                raise RuntimeError("the world server stopped while starting")
            await asyncio.sleep(0.01)
        sockets = [s for server in self._server.servers for s in server.sockets]
        self.port = sockets[0].getsockname()[1]

    @property
    def stopping(self) -> bool:
        """True once the server was told to stop (SIGINT, SIGTERM, :meth:`stop`)."""
        return bool(self._server.should_exit)

    async def wait(self) -> None:
        """Return when the server stops by itself (uvicorn handles SIGINT/SIGTERM)."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def stop(self) -> None:
        """Stop accepting and close every connection."""
        if self._task is None:
            return
        self._server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def __aenter__(self) -> HttpWorldServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


def _bound_socket(bind: str, port: int) -> socket.socket:
    """A TCP socket bound to ``bind:port`` (``OSError`` when the port is taken)."""
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bind, port))
    except OSError:
        sock.close()
        raise
    return sock


@contextlib.asynccontextmanager
async def serving(
    host: WorldHost, *, bind: str = "127.0.0.1", port: int = 0, api: ApiSettings | None = None
) -> AsyncIterator[HttpWorldServer]:
    """Run the world's clock and its HTTP server together: the server is bound first
    (a port in use touches no world), and stopped before the world is (its last calls
    are in the world saved)."""
    server = HttpWorldServer(host, bind=bind, port=port, api=api)
    await server.start()
    try:
        async with host:
            try:
                yield server
            finally:
                await server.stop()
    finally:
        await server.stop()  # when the clock failed to start


async def serve_forever(host: WorldHost, *, bind: str, port: int, api: ApiSettings) -> None:
    """``zoea sim serve``: serve until SIGINT/SIGTERM, then save the world to its
    ``state_path``, saying so the moment the signal comes."""
    # uvicorn catches the signal, stops, then raises it again once its own handlers are
    # removed; a quiet handler of ours turns that second delivery into a clean return.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: None)
    async with serving(host, bind=bind, port=port, api=api) as server:
        stopping = _Stopping(server, host)
        watcher = asyncio.create_task(stopping.watch())
        assert server.api is not None
        print(
            f"SpaceMolt embedded world ({host.world.profile.name}, seed {host.world.seed}, "
            f"tick {host.tick_seconds:g} s) serving MCP at {server.url}",
            f"  HTTP API (SpaceMolt's client: --url): {server.api_url}",
            f"  SMBench server.url: {server.base_url}  admin_token: {server.api.admin_token}",
            sep="\n",
            flush=True,
        )
        if host.state_path is not None:
            print(f"  the world is saved on exit to {host.state_path}", flush=True)
        await server.wait()
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        stopping.say()  # when the poll had not seen it yet
    # Leaving ``serving`` stopped the clock and saved the world.
    print(f"world saved to {host.state_path}" if host.state_path else "world stopped", flush=True)


class _Stopping:
    """Says, as soon as the server is told to stop, what happens next (the connections
    still open are closed, then the world is saved): once."""

    def __init__(self, server: HttpWorldServer, host: WorldHost) -> None:
        self.server = server
        self.host = host
        self.said = False

    async def watch(self) -> None:
        while not self.server.stopping:
            await asyncio.sleep(0.05)
        self.say()

    def say(self) -> None:
        if self.said:
            return
        self.said = True
        # A client's event stream cut by the stop is no error of anyone's.
        logging.getLogger("uvicorn.error").addFilter(_cut_stream_filter)
        if self.host.state_path is not None:
            print(f"saving the world to {self.host.state_path} …", flush=True)


def _cut_stream_filter(record: logging.LogRecord) -> bool:
    """uvicorn's complaint when a stop closes a response still streaming (an MCP client's
    event stream, which never ends by itself)."""
    return "ASGI callable returned without completing response" not in record.getMessage()

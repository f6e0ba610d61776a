"""One MCP client session per Mysis, kept alive and healed.

The SDK's ``Client`` must be entered and left in the same task, and a broken
transport cancels its internal task group. So each :class:`GameSession` owns a
small worker task that holds the connection and runs calls one at a time;
callers await futures. When the connection breaks or the server forgets the
MCP session (a restart), the worker reconnects on the next call; the session
then logs in again through its ``relogin`` hook and repeats the call, so the
Mysis never notices.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp import Client, MCPError, types

from .adapter import ToolOutcome, adapt_result, error_from_rpc
from .connect import Connector
from .errors import GameConnectionError, GameToolError

log = logging.getLogger(__name__)

Relogin = Callable[["GameSession"], Awaitable[None]]
Sleep = Callable[[float], Awaitable[None]]

#: JSON-RPC codes/messages by which a server says it no longer knows our MCP session.
_LOST_SESSION_TEXT = ("session not found", "session terminated", "invalid session")


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """A tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How patiently a session retries."""

    #: Attempts for "too early" refusals (rate_limited, cooldown, throttled).
    timing_attempts: int = 4
    #: Longest single wait the session accepts from a server hint, in seconds.
    max_wait: float = 30.0
    #: Wait when a timing refusal gives no hint.
    default_wait: float = 1.0
    #: Reconnect attempts after a broken connection (with 0.5 s, 1 s, 2 s … backoff).
    reconnect_attempts: int = 3
    backoff_base: float = 0.5


class _Lost(Exception):
    """Internal: the connection is gone; the worker must reconnect."""


class GameSession:
    """A Mysis's connection to the game: cached tools, typed errors, self-healing.

    Args:
        connect: builds a fresh (not yet entered) ``mcp.Client``.
        relogin: called after a reconnect or a lost login to log in again.
        policy: retry limits; ``sleep`` is injectable so tests never wait.
    """

    def __init__(
        self,
        connect: Connector,
        *,
        relogin: Relogin | None = None,
        policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        name: str = "game",
    ) -> None:
        self._connect = connect
        self.relogin = relogin
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self.name = name
        self._queue: asyncio.Queue[_Job] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._tools: list[ToolInfo] | None = None
        self._closed = False
        self._current: _Job | None = None
        #: Incremented on every new MCP connection (a fresh server session).
        self.generation = 0
        self.reconnects = 0

    # -- public ---------------------------------------------------------------

    async def list_tools(self, *, refresh: bool = False) -> list[ToolInfo]:
        """The server's tools, cached until a reconnect or a stale-list failure."""
        if self._tools is None or refresh:
            self._tools = await self._submit("list", None, None)
        return self._tools

    def invalidate_tools(self) -> None:
        """Forget the cached tool list (the server changed it)."""
        self._tools = None

    async def call(self, tool: str, arguments: dict[str, Any] | None = None) -> ToolOutcome:
        """Call a game tool; retry timing refusals, heal lost sessions; raise typed errors."""
        args = dict(arguments or {})
        timing_tries = 0
        relogged = False
        reconnects = 0
        while True:
            try:
                outcome: ToolOutcome = await self._submit("call", tool, args)
                return outcome
            except GameToolError as error:
                if error.is_timing and timing_tries < self.policy.timing_attempts:
                    timing_tries += 1
                    wait = error.wait_seconds
                    wait = self.policy.default_wait if wait is None else wait
                    if wait > self.policy.max_wait:
                        raise
                    await self._sleep(max(0.0, wait))
                    continue
                if error.code == "unknown_command" and self._tools is not None:
                    self.invalidate_tools()  # a stale list: refresh before the next call
                if (
                    error.is_session_lost
                    and not relogged
                    and self.relogin is not None
                    and tool not in ("login", "register", "logout")
                ):
                    relogged = True
                    try:
                        await self.relogin(self)
                    except GameToolError:
                        raise error from None  # the original refusal says more
                    continue
                raise
            except _Lost as lost:
                if reconnects >= self.policy.reconnect_attempts:
                    raise GameConnectionError(
                        str(lost) or "the game server is unreachable"
                    ) from lost.__cause__
                await self._sleep(self.policy.backoff_base * 2**reconnects)
                reconnects += 1
                if self.relogin is not None and tool not in ("login", "register"):
                    with contextlib.suppress(GameToolError, _Lost):
                        await self.relogin(self)
                continue

    async def aclose(self) -> None:
        """Close the connection; pending calls fail with :class:`GameConnectionError`."""
        self._closed = True
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._worker
            self._worker = None
        while not self._queue.empty():
            job = self._queue.get_nowait()
            if not job.future.done():
                job.future.set_exception(GameConnectionError("the game session was closed"))

    async def _on_message(self, message: Any) -> None:
        """Server notifications: a changed tool list is fetched again before next use."""
        if isinstance(message, types.ToolListChangedNotification):
            self.invalidate_tools()

    # -- internals ------------------------------------------------------------

    async def _submit(self, kind: str, tool: str | None, args: dict[str, Any] | None) -> Any:
        if self._closed:
            raise GameConnectionError("the game session was closed")
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work(), name=f"mcp-{self.name}")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Job(kind, tool, args, future))
        return await future

    async def _work(self) -> None:
        """Hold one connection at a time; reconnect lazily when it breaks."""
        while True:
            self._current = await self._queue.get()
            try:
                await self._serve_connection()
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    _fail(self._current, GameConnectionError("the game session was closed"))
                    raise
                _fail(self._current, _Lost("the game connection broke"))
            except BaseException as error:  # the SDK raises (Base)ExceptionGroups
                _fail(self._current, _lost_from(error))

    async def _serve_connection(self) -> None:
        """Serve jobs on one connection, starting with ``self._current``."""
        first = True
        async with self._connect(message_handler=self._on_message) as client:
            self.generation += 1
            if self.generation > 1:
                self.reconnects += 1
                self._tools = None
            while True:
                if not first:
                    self._current = await self._queue.get()
                first = False
                current = self._current
                assert current is not None  # set before the loop, then from the queue
                if current.future.done():  # the caller went away
                    continue
                try:
                    current.future.set_result(await self._run(client, current))
                except (GameToolError, _Lost) as error:
                    _fail(current, error)
                    if isinstance(error, _Lost):
                        return
                except MCPError as error:
                    if _is_lost_session(error):
                        _fail(current, _Lost("the game server forgot this session"))
                        return
                    _fail(
                        current,
                        error_from_rpc(error.error.code, error.error.message, error.error.data),
                    )

    async def _run(self, client: Client, job: _Job) -> Any:
        if job.kind == "list":
            listed = await client.list_tools()
            return [
                ToolInfo(t.name, t.description or "", dict(t.input_schema)) for t in listed.tools
            ]
        assert job.tool is not None
        result = await client.call_tool(job.tool, job.args or {})
        return adapt_result(list(result.content), bool(result.is_error))


@dataclass(slots=True)
class _Job:
    kind: str
    tool: str | None
    args: dict[str, Any] | None
    future: asyncio.Future[Any]


def _fail(job: _Job | None, error: BaseException) -> None:
    if job is not None and not job.future.done():
        job.future.set_exception(error)


def _is_lost_session(error: MCPError) -> bool:
    text = (error.error.message or "").lower()
    return any(marker in text for marker in _LOST_SESSION_TEXT)


def _lost_from(error: BaseException) -> _Lost:
    """Name the root cause of a broken connection (the SDK wraps it in groups)."""
    root: BaseException = error
    while isinstance(root, BaseExceptionGroup) and root.exceptions:
        root = root.exceptions[0]
    lost = _Lost(f"the game server is unreachable ({type(root).__name__}: {root})")
    lost.__cause__ = root
    return lost

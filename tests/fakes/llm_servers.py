"""Real HTTP model servers on loopback, scripted reply by reply, for tests and benchmarks.

Two servers speak the wire formats of docs/ARCHITECTURE.md, 'Providers':
:class:`FakeOpenAIServer` (``POST …/chat/completions``, JSON or SSE; given
:class:`LlamaServer` rules, also llama-server's ``GET /props``, its token count, its
prompt cache and its refusals, its ``/apply-template`` and ``/tokenize``; ``GET …/models``
lists its models) and
:class:`FakeOllamaServer` (``POST /api/chat``, JSON or NDJSON, ``GET /api/tags``,
``GET /api/version`` and ``POST /api/show``). Each is a tiny
HTTP/1.1 server on ``127.0.0.1`` at a free port, run in the current event loop
(``async with``) or in a thread of its own (:meth:`FakeServer.running_in_thread`, for
synchronous callers).

Each chat request takes the next item of the script, or :attr:`FakeServer.default`
when the script is empty:

* :class:`Reply` — an answer: text, tool calls (:class:`Call`), reasoning,
  usage, finish reason; streamed when the request asks for it. It can also
  stall or drop the connection part-way (``stall_after``, ``cut_after``), and
  carry more usage fields or top-level fields (``usage_extra``, ``extra``:
  prompt-cache counts such as ``prompt_tokens_details.cached_tokens`` or
  llama.cpp's ``timings.cache_n``).
* :class:`HttpError` — a refusal (429 with ``Retry-After``, 500, 503, 401, …)
  in the protocol's error shape.
* :class:`Malformed` — a 200 answer that is not valid JSON.
* :class:`Raw` — any status, headers and body, byte for byte.
* :class:`Endless` — a 200 answer that never ends (a stream of text chunks, or one
  body whose text never closes), until the client leaves.
* :class:`Empty` — a 200 answer with nothing in it (streamed: a role chunk and
  ``[DONE]``, as llama-cpp-python's server sends; no text, no call, no finish reason).
* :func:`context_exceeded` — llama-cpp-python's HTTP 400 for a request over its context.

A :class:`Reply` with ``cut_after`` and ``dies`` is a server killed mid-answer: it stops
listening, and :meth:`FakeServer.revive` starts it again on the same port.

Every item takes ``delay=`` seconds before answering (a pause the client may
walk away from; :attr:`FakeServer.abandoned` counts the times it did). Every
request is recorded (:attr:`FakeServer.requests`) with its headers and body.

Example::

    async with FakeOpenAIServer() as server:
        server.script(HttpError(429, retry_after="2"), Reply("hello"))
        provider = OpenAIProvider(server.url, "fake-model")
        ...
        assert server.requests[-1].json()["stream"] is False
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Self

# --- the script -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call in a scripted reply.

    ``arguments`` given as text are sent as written (invalid JSON included);
    as a dict they are serialised (OpenAI) or sent as an object (Ollama). The
    OpenAI server invents an id when ``id`` is None, unless ``without_id``;
    the Ollama server, like the real one, sends an id only when given.
    """

    name: str
    arguments: str | dict[str, Any] = "{}"
    id: str | None = None
    without_id: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Scripted:
    """Base of every script item: ``delay`` seconds of silence before answering."""

    delay: float = 0.0


@dataclass(frozen=True, slots=True)
class Reply(Scripted):
    """A model's answer.

    ``usage`` is ``(prompt_tokens, completion_tokens)`` or None to send none.
    ``usage_extra`` (OpenAI only) adds fields to the usage object, sent even
    when ``usage`` is None, e.g. ``{"prompt_tokens_details": {"cached_tokens":
    64}}``. ``extra`` adds top-level fields to the answer, e.g. llama.cpp's
    ``{"timings": {"cache_n": 30}}``: to the whole body, or streamed to the
    last chunk (OpenAI: the usage chunk when there is one, else the one with
    the finish reason; Ollama: the ``done`` line).
    ``finish_reason`` None means ``"tool_calls"`` with calls, else ``"stop"``.
    Streamed, text and reasoning go out ``chunk_size`` characters per frame.
    ``stall_after=N`` stops after N stream frames (not streaming: before
    answering at all) and holds the connection open until the client leaves.
    ``cut_after=N`` drops the connection after N stream frames (or N bytes of
    a whole body).
    """

    content: str = ""
    tool_calls: Sequence[Call] = ()
    reasoning: str = ""
    usage: tuple[int, int] | None = (12, 7)
    finish_reason: str | None = None
    chunk_size: int = 4
    #: OpenAI only: ``"reasoning_content"`` (DeepSeek, vLLM) or ``"reasoning"`` (OpenRouter).
    reasoning_field: str = "reasoning_content"
    stall_after: int | None = None
    cut_after: int | None = None
    usage_extra: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] | None = None
    #: With ``cut_after``: the server dies with the connection (it stops listening).
    dies: bool = False


@dataclass(frozen=True, slots=True)
class Endless(Scripted):
    """A 200 answer that never ends: streamed, chunks of ``piece`` forever (SSE or
    NDJSON); not streamed, one chunked JSON body whose text never closes."""

    piece: str = "ramble " * 64


@dataclass(frozen=True, slots=True)
class Empty(Scripted):
    """A 200 answer with nothing in it: no text, no call, no finish reason (streamed:
    OpenAI, a role chunk and ``[DONE]``; Ollama, a ``done`` line without ``done_reason``)."""


def context_exceeded(context: int, messages: int, completion: int | None) -> HttpError:
    """llama-cpp-python's server refusing a request over its context, in its words
    (``llama_cpp/server/errors.py``): ``messages`` is what its ``Llama`` counted, the
    prompt and, when its handler generated until the context was full, the answer too."""
    total = messages + (completion or 0)
    return HttpError(
        400,
        f"This model's maximum context length is {context} tokens. However, you "
        f"requested {total} tokens ({messages} in the messages, {completion} in the "
        "completion). Please reduce the length of the messages or completion.",
    )


@dataclass(frozen=True, slots=True)
class HttpError(Scripted):
    """An HTTP refusal in the protocol's error shape, with an optional ``Retry-After``."""

    status: int
    message: str = "scripted failure"
    retry_after: str | None = None


@dataclass(frozen=True, slots=True)
class Malformed(Scripted):
    """A 200 answer whose JSON is broken (a whole body, or one frame of a stream)."""


@dataclass(frozen=True, slots=True)
class Raw(Scripted):
    """An exact answer: status, content type, extra headers and body."""

    body: str | bytes
    status: int = 200
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


Item = Reply | HttpError | Malformed | Raw | Endless | Empty


@dataclass(frozen=True, slots=True)
class LlamaServer:
    """What llama.cpp's ``llama-server`` does beyond the OpenAI routes (measured:
    /work/shared/reference/providers.md, 'Real engines').

    Its tokenizer is not the estimate's: here one token per ``bytes_per_token`` bytes of
    the prompt its chat template renders (a ChatML template that writes the tool schemas
    into the system turn). It counts each prompt that way (``usage.prompt_tokens``,
    whatever the script says), tells its slot's context at ``GET /props`` and, like the real
    one, keeps the last prompt in its slot: each answer's ``timings.cache_n`` counts the
    tokens of the prompt's common prefix with the one before. Like the
    real one it refuses, before any reply of the script
    is used, a prompt over ``n_ctx`` with HTTP 400 and a history whose call arguments
    are not JSON with HTTP 500.
    """

    n_ctx: int = 8192
    #: 3.55 makes the 79 tool schemas of the embedded game and a first prompt 8,116
    #: tokens where the estimate says 5,979 (measured on llama-server: 8,120 for 5,981).
    bytes_per_token: float = 3.55
    #: Whether it answers ``POST /apply-template`` and ``POST /tokenize`` (the real one
    #: does; False: a server that counts nothing before a request is sent).
    counts: bool = True
    #: What ``/props`` says of its chat template (``chat_template_caps.supports_tools``;
    #: None: an older build that says nothing). False: the template drops the tools
    #: from the prompt it renders, as SmolLM2's own does.
    supports_tools: bool | None = True
    #: Its slots (``-np``), told at ``/props`` as ``total_slots``. (The prompt cache
    #: modelled here is one: the last chat prompt, whatever the slots; ``POST
    #: /completion`` answers one token and leaves it.)
    slots: int = 1

    def count(self, text: str) -> int:
        """Tokens of ``text``."""
        return math.ceil(len(text.encode("utf-8")) / self.bytes_per_token)

    def render(self, body: Mapping[str, Any]) -> str:
        """The prompt a request becomes (ChatML, the tools in the system turn)."""
        offered = (body.get("tools") or ()) if self.supports_tools is not False else ()
        tools = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in offered)
        out: list[str] = []
        for index, message in enumerate(body.get("messages") or ()):
            text = message.get("content") or ""
            if index == 0 and tools:
                text += "\n\n# Tools\n<tools>\n" + tools + "</tools>"
            for call in message.get("tool_calls") or ():
                fn = call["function"]
                text += f'\n<tool_call>{{"name": "{fn["name"]}", "arguments": {fn["arguments"]}}}'
            out.append(f"<|im_start|>{message.get('role')}\n{text}<|im_end|>\n")
        return "".join(out) + "<|im_start|>assistant\n"

    def prompt_tokens(self, body: Mapping[str, Any]) -> int:
        """What the server counts for a request."""
        return self.count(self.render(body))

    def refusal(self, body: Mapping[str, Any]) -> HttpError | None:
        """The server's answer to a request it will not run (None: it runs it)."""
        for message in body.get("messages") or ():
            for call in message.get("tool_calls") or ():
                arguments = call["function"]["arguments"]
                try:
                    json.loads(arguments)
                except ValueError:
                    return HttpError(
                        500, f"Failed to parse tool call arguments as JSON: {arguments[:60]}"
                    )
        tokens = self.prompt_tokens(body)
        if tokens > self.n_ctx:
            return HttpError(
                400,
                f"request ({tokens} tokens) exceeds the available context size "
                f"({self.n_ctx} tokens), try increasing it",
            )
        return None


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """A request as the server received it (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    #: When it arrived (``time.monotonic()``): how long a client waited between tries.
    at: float = field(default_factory=time.monotonic)
    #: When it arrived on the wall clock (``time.time()``): against an HTTP date.
    wall: float = field(default_factory=time.time)

    @property
    def text(self) -> str:
        """The body as text."""
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


# --- the server ---------------------------------------------------------------------------


class FakeServer:
    """A scripted HTTP/1.1 server on ``127.0.0.1`` at a free port.

    Use it as an async context manager (it runs in the current loop) or with
    :meth:`running_in_thread`. Subclasses route requests in :meth:`_respond`.
    """

    def __init__(self) -> None:
        #: Every request received, in order.
        self.requests: list[RecordedRequest] = []
        #: What happened, in order: ``("in", i)`` when request ``i`` (its index in
        #: :attr:`requests`) arrived, ``("out", i)`` once its answer was sent or cut.
        self.timeline: list[tuple[str, int]] = []
        #: The answer when the script is empty.
        self.default: Item = Reply("ok")
        #: How many answers the client walked away from during a delay or stall.
        self.abandoned = 0
        #: Set when a request whose answer stalls (``stall_after``) has arrived: the
        #: client is then waiting mid-call. Await it from the server's own loop.
        self.stalled = asyncio.Event()
        self.port = 0
        self._script: deque[Item] = deque()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Future[None]] = set()
        self._connections: set[_Connection] = set()
        self._closing = False
        self._served = 0

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The endpoint a provider is configured with."""
        return self.origin

    def script(self, *items: Item) -> Self:
        """Queue answers for the next chat requests, in order."""
        self._script.extend(items)
        return self

    @property
    def pending(self) -> int:
        """Script items not yet used."""
        return len(self._script)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The recorded chat requests (the others are health and model checks)."""
        return [r for r in self.requests if self._is_chat(r)]

    async def wait_for_requests(self, count: int, timeout: float = 5.0) -> None:
        """Wait until ``count`` requests have arrived (polls; safe across threads)."""
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(self.requests)} of {count} requests arrived")
            await asyncio.sleep(0.002)

    async def start(self) -> Self:
        """Listen on a free loopback port."""
        self._server = await asyncio.start_server(self._on_connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def die(self) -> None:
        """Stop listening at once, as a killed server does (new connections are refused)."""
        if self._server is not None:
            self._server.close()

    async def revive(self) -> None:
        """Listen again on the same port after :meth:`die`."""
        if self._server is not None:
            await self._server.wait_closed()
        self._server = await asyncio.start_server(
            self._on_connection, "127.0.0.1", self.port, reuse_address=True
        )

    async def aclose(self) -> None:
        """Stop listening and drop every open connection."""
        if self._server is None:
            return
        self._server.close()
        self._closing = True
        # Aborting (not cancelling) lets each connection task end on its own.
        for conn in list(self._connections):
            conn.writer.transport.abort()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    @contextlib.contextmanager
    def running_in_thread(self) -> Iterator[Self]:
        """Run the server on an event loop in a background thread (for sync code)."""
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="fake-llm-server", daemon=True)
        thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self.start(), loop).result(10)
            yield self
        finally:
            asyncio.run_coroutine_threadsafe(self.aclose(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
            loop.close()

    # --- subclass hooks

    def _is_chat(self, request: RecordedRequest) -> bool:
        raise NotImplementedError

    async def _respond(self, request: RecordedRequest, conn: _Connection) -> None:
        raise NotImplementedError

    # --- shared answering

    def _next(self) -> tuple[Item, int]:
        """The next script item and its serial number (1-based)."""
        self._served += 1
        return (self._script.popleft() if self._script else self.default), self._served

    async def _play(
        self, conn: _Connection, item: Item, render: _Renderer, stream: bool, serial: int
    ) -> None:
        """Answer with one script item in the protocol ``render`` speaks."""
        if item.delay and await conn.pause(item.delay):
            return
        if isinstance(item, Reply) and item.stall_after is not None:
            self.stalled.set()
        if isinstance(item, HttpError):
            headers = {"Retry-After": item.retry_after} if item.retry_after else {}
            await conn.send(item.status, render.error(item.status, item.message), headers=headers)
        elif isinstance(item, Raw):
            body = item.body.encode() if isinstance(item.body, str) else item.body
            await conn.send(item.status, body, item.content_type, item.headers)
        elif isinstance(item, Malformed):
            if stream:
                await conn.stream(render.content_type, [render.malformed_frame()])
            else:
                await conn.send(200, b'{"choices": [{"message": {"content": "unfinished')
        elif isinstance(item, Endless):
            if stream:
                await conn.endless(render.content_type, b"", render.endless_frame(item.piece))
            else:
                head, piece = render.endless_body(item.piece)
                await conn.endless("application/json", head, piece)
        elif isinstance(item, Empty):
            if stream:
                await conn.stream(render.content_type, render.empty_frames(serial))
            else:
                await conn.send(200, json.dumps(render.empty_whole(serial)).encode())
        elif stream:
            frames = render.frames(item, serial)
            await conn.stream(render.content_type, frames, item.stall_after, item.cut_after)
            if item.dies and item.cut_after is not None:
                self.die()
        elif item.stall_after is not None:
            await conn.pause(None)
        else:
            body = json.dumps(render.whole(item, serial)).encode()
            if item.cut_after is not None:
                await conn.send_cut(body, item.cut_after)
            else:
                await conn.send(200, body)

    async def _on_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        conn = _Connection(reader, writer, self)
        self._connections.add(conn)
        try:
            while conn.open:
                request = await _read_request(reader)
                if request is None:
                    break
                self.requests.append(request)
                index = len(self.requests) - 1
                self.timeline.append(("in", index))
                try:
                    await self._respond(request, conn)
                finally:
                    self.timeline.append(("out", index))
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self._tasks.discard(task)
            self._connections.discard(conn)
            writer.close()


async def _read_request(reader: asyncio.StreamReader) -> RecordedRequest | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    request_line, *lines = head.decode("latin-1").split("\r\n")
    method, target, _ = request_line.split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return RecordedRequest(method, target.split("?", 1)[0], headers, body)


class _Connection:
    """One client connection: whole and chunked answers, stalls and abrupt ends."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, server: FakeServer
    ) -> None:
        self.reader, self.writer, self.server = reader, writer, server
        self.open = True

    async def send(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.writer.write(
            _head(status, content_type, {"Content-Length": str(len(body)), **(headers or {})})
            + body
        )
        await self.writer.drain()

    async def send_cut(self, body: bytes, size: int) -> None:
        """Promise the whole body, send ``size`` bytes of it and drop the connection."""
        self.writer.write(_head(200, "application/json", {"Content-Length": str(len(body))}))
        self.writer.write(body[:size])
        await self.writer.drain()
        self.cut()

    async def stream(
        self,
        content_type: str,
        frames: Sequence[bytes],
        stall_after: int | None = None,
        cut_after: int | None = None,
    ) -> None:
        """Send ``frames`` as chunks, stalling or cutting after the given count."""
        self.writer.write(_head(200, content_type, {"Transfer-Encoding": "chunked"}))
        for sent, frame in enumerate(frames):
            if sent == cut_after:
                await self.writer.drain()
                self.cut()
                return
            if sent == stall_after:
                await self.writer.drain()
                await self.pause(None)
                return
            self.writer.write(b"%x\r\n%s\r\n" % (len(frame), frame))
            await self.writer.drain()
        self.writer.write(b"0\r\n\r\n")
        await self.writer.drain()

    async def endless(self, content_type: str, head: bytes, piece: bytes) -> None:
        """Send a chunked body that begins with ``head`` and repeats ``piece`` until the
        client leaves (or the server closes)."""
        self.writer.write(_head(200, content_type, {"Transfer-Encoding": "chunked"}))
        if head:
            self.writer.write(b"%x\r\n%s\r\n" % (len(head), head))
        chunk = b"%x\r\n%s\r\n" % (len(piece), piece)
        while not (self.writer.transport.is_closing() or self.server._closing):
            self.writer.write(chunk)
            await self.writer.drain()
        self.open = False

    def cut(self) -> None:
        """Drop the connection without finishing the answer."""
        self.writer.transport.abort()
        self.open = False

    async def pause(self, seconds: float | None) -> bool:
        """Wait ``seconds`` (None: until the client leaves); True if the client left."""
        try:
            data = await asyncio.wait_for(self.reader.read(1), seconds)
        except TimeoutError:
            return False
        # A client waiting for its answer sends nothing: bytes or EOF mean it gave up.
        del data
        if not self.server._closing:
            self.server.abandoned += 1
        self.open = False
        return True


def _head(status: int, content_type: str, headers: dict[str, str]) -> bytes:
    lines = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
        f"Content-Type: {content_type}",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def _common_prefix(a: str, b: str) -> str:
    """The longest common prefix of ``a`` and ``b``."""
    size = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        size += 1
    return a[:size]


def _pieces(text: str, size: int) -> list[str]:
    size = max(size, 1)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _finish(reply: Reply) -> str:
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


class _Renderer:
    """How a protocol writes replies, errors and broken JSON."""

    content_type: str

    def whole(self, reply: Reply, serial: int) -> dict[str, Any]:
        raise NotImplementedError

    def frames(self, reply: Reply, serial: int) -> list[bytes]:
        raise NotImplementedError

    def error(self, status: int, message: str) -> bytes:
        raise NotImplementedError

    def malformed_frame(self) -> bytes:
        raise NotImplementedError

    def endless_frame(self, piece: str) -> bytes:
        """One frame of a stream that never ends."""
        raise NotImplementedError

    def endless_body(self, piece: str) -> tuple[bytes, bytes]:
        """The start of a whole body that never ends, and what it then repeats."""
        raise NotImplementedError

    def empty_frames(self, serial: int) -> list[bytes]:
        """A stream with nothing in it."""
        raise NotImplementedError

    def empty_whole(self, serial: int) -> dict[str, Any]:
        """A whole answer with nothing in it."""
        raise NotImplementedError


# --- OpenAI -------------------------------------------------------------------------------


class _OpenAIRenderer(_Renderer):
    content_type = "text/event-stream"

    def __init__(self, model: str, include_usage: bool) -> None:
        self.model, self.include_usage = model, include_usage

    def _id(self, call: Call, serial: int, index: int) -> dict[str, str]:
        if call.without_id:
            return {}
        return {"id": call.id or f"call_fake_{serial}_{index}"}

    def _arguments(self, call: Call) -> str:
        return call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)

    def whole(self, reply: Reply, serial: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
        if reply.reasoning:
            message[reply.reasoning_field] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    **self._id(c, serial, i),
                    "type": "function",
                    "function": {"name": c.name, "arguments": self._arguments(c)},
                }
                for i, c in enumerate(reply.tool_calls)
            ]
        answer: dict[str, Any] = {
            "id": f"chatcmpl-fake-{serial}",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply)}],
        }
        if (usage := _openai_usage(reply)) is not None:
            answer["usage"] = usage
        return {**answer, **(reply.extra or {})}

    def frames(self, reply: Reply, serial: int) -> list[bytes]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return self._chunk(serial, delta, finish)

        chunks = [chunk({"role": "assistant", "content": ""})]
        chunks += [
            chunk({reply.reasoning_field: p}) for p in _pieces(reply.reasoning, reply.chunk_size)
        ]
        chunks += [chunk({"content": p}) for p in _pieces(reply.content, reply.chunk_size)]
        for index, call in enumerate(reply.tool_calls):
            chunks.append(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                **self._id(call, serial, index),
                                "type": "function",
                                "function": {"name": call.name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            chunks += [
                chunk({"tool_calls": [{"index": index, "function": {"arguments": p}}]})
                for p in _pieces(self._arguments(call), reply.chunk_size * 4)
            ]
        chunks.append(chunk({}, _finish(reply)))
        if self.include_usage and (usage := _openai_usage(reply)) is not None:
            chunks.append(
                {
                    "id": f"chatcmpl-fake-{serial}",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": self.model,
                    "choices": [],
                    "usage": usage,
                }
            )
        chunks[-1].update(reply.extra or {})
        frames = [b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks]
        return [*frames, b"data: [DONE]\n\n"]

    def error(self, status: int, message: str) -> bytes:
        kind = "server_error" if status >= 500 else "invalid_request_error"
        return json.dumps({"error": {"message": message, "type": kind, "code": status}}).encode()

    def malformed_frame(self) -> bytes:
        return b'data: {"choices": [{"delta": {"content": "unfinished\n\n'

    def _chunk(
        self, serial: int, delta: dict[str, Any], finish: str | None = None
    ) -> dict[str, Any]:
        """One chunk of a streamed answer."""
        return {
            "id": f"chatcmpl-fake-{serial}",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def endless_frame(self, piece: str) -> bytes:
        return b"data: " + json.dumps(self._chunk(0, {"content": piece})).encode() + b"\n\n"

    def endless_body(self, piece: str) -> tuple[bytes, bytes]:
        head = b'{"id": "chatcmpl-fake", "choices": [{"message": {"role": "assistant", "content": "'
        return head, piece.encode()

    def empty_frames(self, serial: int) -> list[bytes]:
        role = json.dumps(self._chunk(serial, {"role": "assistant"})).encode()
        return [b"data: " + role + b"\n\n", b"data: [DONE]\n\n"]

    def empty_whole(self, serial: int) -> dict[str, Any]:
        message = {"role": "assistant", "content": None}
        return {
            "id": f"chatcmpl-fake-{serial}",
            "object": "chat.completion",
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": None}],
        }


def _openai_usage(reply: Reply) -> dict[str, Any] | None:
    """The usage object of ``reply``, or None when it sends none."""
    if reply.usage is None and reply.usage_extra is None:
        return None
    usage: dict[str, Any] = {}
    if reply.usage is not None:
        prompt, completion = reply.usage
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    return {**usage, **(reply.usage_extra or {})}


class FakeOpenAIServer(FakeServer):
    """An OpenAI-compatible server: ``POST <any prefix>/chat/completions``.

    :attr:`url` ends with ``/v1`` like most real endpoints (``origin`` has no
    prefix: both work). With ``api_key`` set, a request without that bearer
    key is refused with 401; with ``models`` set, any other model gets 404.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        models: Sequence[str] | None = None,
        llama: LlamaServer | None = None,
        listed: Sequence[str] | None = None,
        lists_models: bool = True,
    ):
        super().__init__()
        self.api_key = api_key
        self.models = models
        #: Set: the server behaves as a llama-server (:class:`LlamaServer`).
        self.llama = llama
        #: What ``GET …/models`` lists (default: ``models``, else ``["fake-model"]``);
        #: with ``lists_models`` False that route is a 404, as on some hosts.
        self.listed = list(listed if listed is not None else (models or ["fake-model"]))
        self.lists_models = lists_models
        #: The prompt in the llama-server's slot (its prompt cache).
        self._slot_prompt = ""

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"{self.origin}/v1"

    def _is_chat(self, request: RecordedRequest) -> bool:
        return request.method == "POST" and request.path.endswith("/chat/completions")

    async def _respond(self, request: RecordedRequest, conn: _Connection) -> None:
        render = _OpenAIRenderer("", False)
        if self.llama is not None and request.method == "GET" and request.path == "/props":
            await conn.send(200, json.dumps(self._props(self.llama)).encode())
            return
        if self.llama is not None and request.method == "POST" and request.path == "/completion":
            # Its own completion route (a prompt, no chat template): a one-token answer.
            await conn.send(200, json.dumps({"content": " ", "stop": True}).encode())
            return
        if self.llama is not None and self.llama.counts and request.method == "POST":
            if request.path == "/apply-template":  # the chat template, applied
                prompt = {"prompt": self.llama.render(request.json())}
                await conn.send(200, json.dumps(prompt).encode())
                return
            if request.path == "/tokenize":  # its tokens, counted as a chat prompt's
                tokens = list(range(self.llama.count(request.json().get("content") or "")))
                await conn.send(200, json.dumps({"tokens": tokens}).encode())
                return
        if self.api_key and request.headers.get("authorization") != f"Bearer {self.api_key}":
            await conn.send(401, render.error(401, "Incorrect API key provided."))
            return
        if self.lists_models and request.method == "GET" and request.path.endswith("/models"):
            listed = [{"id": m, "object": "model", "owned_by": "fake"} for m in self.listed]
            await conn.send(200, json.dumps({"object": "list", "data": listed}).encode())
            return
        if not self._is_chat(request):
            await conn.send(404, render.error(404, f"no route {request.path}"))
            return
        body = request.json()
        model = body.get("model", "")
        if self.models is not None and model not in self.models:
            await conn.send(404, render.error(404, f"The model `{model}` does not exist."))
            return
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        if self.llama is not None and (refusal := self.llama.refusal(body)) is not None:
            await conn.send(refusal.status, render.error(refusal.status, refusal.message))
            return
        item, serial = self._next()
        if self.llama is not None and isinstance(item, Reply):
            completion = item.usage[1] if item.usage is not None else 0
            prompt = self.llama.render(body)
            cached = self.llama.count(_common_prefix(prompt, self._slot_prompt))
            self._slot_prompt = prompt
            total = self.llama.prompt_tokens(body)
            reused = min(cached, total - 1)  # the last token is always evaluated again
            timings = {"cache_n": reused, "prompt_n": total - reused}
            item = replace(
                item,
                usage=(total, completion),
                extra={"timings": timings, **(item.extra or {})},
            )
        await self._play(
            conn, item, _OpenAIRenderer(model, include_usage), body.get("stream") is True, serial
        )

    @staticmethod
    def _props(llama: LlamaServer) -> dict[str, Any]:
        props: dict[str, Any] = {
            "default_generation_settings": {"n_ctx": llama.n_ctx, "params": {}},
            "total_slots": llama.slots,
            "chat_template": "chatml",
        }
        if llama.supports_tools is not None:
            caps = {"supports_tools": llama.supports_tools}
            props["chat_template_caps"] = {**caps, "supports_tool_calls": llama.supports_tools}
        return props


# --- Ollama -------------------------------------------------------------------------------


class _OllamaRenderer(_Renderer):
    content_type = "application/x-ndjson"

    def __init__(self, model: str) -> None:
        self.model = model

    def _calls(self, reply: Reply) -> list[dict[str, Any]]:
        calls = []
        for call in reply.tool_calls:
            arguments: Any = call.arguments
            if isinstance(arguments, str):
                with contextlib.suppress(ValueError):
                    arguments = json.loads(arguments)
            calls.append(
                {
                    **({"id": call.id} if call.id else {}),
                    "function": {"name": call.name, "arguments": arguments},
                }
            )
        return calls

    def _line(self, message: dict[str, Any], done: bool = False) -> dict[str, Any]:
        return {
            "model": self.model,
            "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": "", **message},
            "done": done,
        }

    def _last(self, reply: Reply, message: dict[str, Any]) -> dict[str, Any]:
        line = self._line(message, done=True)
        line["done_reason"] = reply.finish_reason or "stop"
        line["total_duration"] = 1000
        if reply.usage is not None:
            line["prompt_eval_count"], line["eval_count"] = reply.usage
        return {**line, **(reply.extra or {})}

    def whole(self, reply: Reply, serial: int) -> dict[str, Any]:
        message: dict[str, Any] = {"content": reply.content}
        if reply.reasoning:
            message["thinking"] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = self._calls(reply)
        return self._last(reply, message)

    def frames(self, reply: Reply, serial: int) -> list[bytes]:
        lines = [self._line({"thinking": p}) for p in _pieces(reply.reasoning, reply.chunk_size)]
        lines += [self._line({"content": p}) for p in _pieces(reply.content, reply.chunk_size)]
        if reply.tool_calls:
            lines.append(self._line({"tool_calls": self._calls(reply)}))
        lines.append(self._last(reply, {}))
        return [json.dumps(line).encode() + b"\n" for line in lines]

    def error(self, status: int, message: str) -> bytes:
        return json.dumps({"error": message}).encode()

    def malformed_frame(self) -> bytes:
        return b'{"message": {"role": "assistant", "content": "unfinished\n'

    def endless_frame(self, piece: str) -> bytes:
        return json.dumps(self._line({"content": piece})).encode() + b"\n"

    def endless_body(self, piece: str) -> tuple[bytes, bytes]:
        head = b'{"model": "m", "message": {"role": "assistant", "content": "'
        return head, piece.encode()

    def empty_frames(self, serial: int) -> list[bytes]:
        return [json.dumps(self.empty_whole(serial)).encode() + b"\n"]

    def empty_whole(self, serial: int) -> dict[str, Any]:
        return self._line({}, done=True)


def _tagged(name: str) -> str:
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


class FakeOllamaServer(FakeServer):
    """An Ollama server: ``POST /api/chat``, ``GET /api/tags``, ``GET /api/version``,
    ``POST /api/show``.

    ``models`` are the installed models (``/api/tags``); a chat with any other
    model gets Ollama's 404 "not found, try pulling it first". Like Ollama, a
    request without ``stream`` is streamed.
    """

    def __init__(
        self,
        *,
        models: Sequence[str] = ("qwen3:8b",),
        version: str = "0.12.3",
        context_length: int | None = None,
        parameters: str = "",
        capabilities: Sequence[str] | None = ("completion", "tools"),
    ):
        super().__init__()
        self.models = list(models)
        self.version = version
        #: What ``/api/show`` reports as ``model_info["qwen3.context_length"]`` (None: no
        #: length), with ``parameters`` (the Modelfile's, e.g. ``"num_ctx 4096"``).
        self.context_length = context_length
        self.parameters = parameters
        #: What ``/api/show`` lists as the model's ``capabilities`` (None: an older
        #: Ollama that lists none); without ``"tools"`` its template drops them.
        self.capabilities = capabilities

    def _is_chat(self, request: RecordedRequest) -> bool:
        return request.method == "POST" and request.path == "/api/chat"

    async def _respond(self, request: RecordedRequest, conn: _Connection) -> None:
        render = _OllamaRenderer("")
        if request.method == "GET" and request.path == "/api/version":
            await conn.send(200, json.dumps({"version": self.version}).encode())
        elif request.method == "GET" and request.path == "/api/tags":
            models = [
                {
                    "name": m,
                    "model": m,
                    "modified_at": "2025-01-01T00:00:00Z",
                    "size": 1,
                    "digest": "0" * 64,
                }
                for m in self.models
            ]
            await conn.send(200, json.dumps({"models": models}).encode())
        elif request.method == "POST" and request.path == "/api/show":
            model = request.json().get("model", "")
            if _tagged(model) not in {_tagged(m) for m in self.models}:
                await conn.send(404, render.error(404, f"model '{model}' not found"))
                return
            info: dict[str, Any] = {"general.architecture": "qwen3"}
            if self.context_length is not None:
                info["qwen3.context_length"] = self.context_length
            shown = {"parameters": self.parameters, "model_info": info, "details": {}}
            if self.capabilities is not None:
                shown["capabilities"] = list(self.capabilities)
            await conn.send(200, json.dumps(shown).encode())
        elif not self._is_chat(request):
            await conn.send(404, b"404 page not found", "text/plain")
        else:
            body = request.json()
            model = body.get("model", "")
            if _tagged(model) not in {_tagged(m) for m in self.models}:
                message = f'model "{model}" not found, try pulling it first'
                await conn.send(404, render.error(404, message))
                return
            item, serial = self._next()
            await self._play(
                conn, item, _OllamaRenderer(model), body.get("stream", True) is True, serial
            )

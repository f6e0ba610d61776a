"""A loopback Anthropic Messages API, its prompt cache, and the SDK's request types as
the oracle of every request sent to it.

:class:`FakeAnthropicServer` speaks ``POST /v1/messages`` (a whole JSON message, or the
documented SSE events: ``message_start``, ``ping``, ``content_block_start``/``delta``/
``stop`` with ``text_delta``, ``input_json_delta``, ``thinking_delta`` and
``signature_delta``, ``message_delta`` with ``stop_reason`` and usage, ``message_stop``)
and ``GET /v1/models``, scripted with the items of :mod:`.llm_servers` (:class:`Reply`,
:class:`HttpError` in Anthropic's error shape — 529 ``overloaded_error``, 429
``rate_limit_error`` with ``retry-after`` —, ``Reply(cut_after=…)`` for a cut stream,
``delay``/``stall_after``/:class:`Endless` for a slow or endless one) and
:func:`error_midstream` for an ``error`` event after some text.

Like the real API it refuses, before any script item is used: a request without
``x-api-key`` (when it has one) or ``anthropic-version``, an unknown model, a body the
SDK's own ``MessageCreateParams`` rejects (:func:`message_params_problems`: an oracle
nobody here wrote), and more than four ``cache_control`` breakpoints or one that is not
``ephemeral`` (the API's rules the TypedDict cannot say).

:class:`AnthropicCache` is the prompt cache as documented (prefix match at
breakpoints, a 20-block lookback, a 5-minute TTL refreshed by each read, a minimum
cacheable length): the server reports each request's ``cache_read_input_tokens`` and
``cache_creation_input_tokens`` from it, and ``bench/anthropic_cache.py`` prices a
swarm's requests with it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .llm_servers import (
    Call,
    FakeServer,
    Raw,
    RecordedRequest,
    Reply,
    _Connection,
    _pieces,
    _Renderer,
)

#: The API's error type for each HTTP status it refuses with.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def error_body(status: int, message: str) -> bytes:
    """An error in the API's shape."""
    kind = ERROR_TYPES.get(status, "api_error")
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()


@functools.cache
def _oracle() -> Any:
    from anthropic.types.message_create_params import MessageCreateParams
    from pydantic import TypeAdapter

    return TypeAdapter(MessageCreateParams)


def _drain(value: Any) -> Any:
    """``value`` with every lazily validated iterable consumed (pydantic validates the
    items of an ``Iterable`` field only as they are read)."""
    if isinstance(value, dict):
        return {k: _drain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | Iterator):
        return [_drain(v) for v in value]
    if type(value).__name__ == "ValidatorIterator":
        return [_drain(v) for v in value]
    return value


def message_params_problems(body: Any) -> list[str]:
    """What the ``anthropic`` SDK's ``MessageCreateParams`` (validated with pydantic's
    ``TypeAdapter``) and the API's breakpoint rules reject in ``body`` (empty: valid)."""
    from pydantic import ValidationError

    try:
        _drain(_oracle().validate_python(body))
    except ValidationError as error:
        return [
            f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors(include_url=False)
        ][:8]
    marks = list(_cache_controls(body))
    problems = []
    if len(marks) > 4:
        problems.append(
            f"A maximum of 4 blocks with cache_control may be provided. Found {len(marks)}."
        )
    problems += [
        f"cache_control type {m!r} is not 'ephemeral'"
        for m in marks
        if m.get("type") != "ephemeral"
    ]
    return problems


def _cache_controls(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if isinstance(value.get("cache_control"), dict):
            yield value["cache_control"]
        for key, inner in value.items():
            if key != "cache_control":
                yield from _cache_controls(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _cache_controls(inner)


# --- the prompt cache ---------------------------------------------------------------------


def bytes_tokens(text: str) -> int:
    """The fake's tokenizer: one token per four bytes."""
    return math.ceil(len(text.encode("utf-8")) / 4)


@dataclass(frozen=True, slots=True)
class CacheUse:
    """How one request's prompt was billed: fresh input, cache reads, cache writes."""

    input_tokens: int
    read: int
    written: int

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt."""
        return self.input_tokens + self.read + self.written


def cache_blocks(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The request's blocks in the cache's order (tools, system, messages), each as its
    JSON without its mark, and whether it carries a breakpoint."""
    blocks: list[tuple[str, bool]] = []

    def add(block: Any) -> None:
        if isinstance(block, dict):
            marked = "cache_control" in block
            bare = {k: v for k, v in block.items() if k != "cache_control"}
            blocks.append((json.dumps(bare, sort_keys=True), marked))
        else:
            blocks.append((json.dumps(block), False))

    for tool in body.get("tools") or ():
        add(tool)
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system or ():
        add(block)
    for message in body.get("messages") or ():
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for index, block in enumerate(parts or ()):
            # The role is part of what the block means: it opens the message's first.
            add({"role": message.get("role"), **block} if index == 0 else block)
    return blocks


@dataclass(slots=True)
class AnthropicCache:
    """Anthropic's prompt cache, as documented: an entry is written at each breakpoint
    whose prefix is at least ``min_tokens`` long; a request reads the longest prefix that
    has an entry at a breakpoint or at one of the ``lookback`` block boundaries before
    each; an entry lives ``ttl`` seconds from its last write or read (a request that
    reads past one of its own breakpoints reads that entry too). ``count`` is the
    tokenizer (the fake's own by default)."""

    ttl: float = 300.0
    min_tokens: int = 1024
    lookback: int = 20
    count: Callable[[str], int] = bytes_tokens
    #: Prefix digest → when it expires.
    entries: dict[str, float] = field(default_factory=dict)

    def use(self, body: dict[str, Any], now: float) -> CacheUse:
        """Bill ``body`` sent at ``now`` (seconds), updating the cache."""
        used, entries = self.bill(body, now)
        self.entries.update(entries)
        return used

    def bill(self, body: dict[str, Any], now: float) -> tuple[CacheUse, dict[str, float]]:
        """Bill ``body`` sent at ``now``; and the entries it writes or renews, for the
        caller to add once the answer is out (a request that arrives meanwhile does not
        find them, as on the API)."""
        blocks = cache_blocks(body)
        digests: list[str] = []
        ends: list[int] = []
        digest = hashlib.sha256()
        total = 0
        for text, _ in blocks:
            digest.update(text.encode())
            digests.append(digest.copy().hexdigest())
            total += self.count(text)
            ends.append(total)
        marks = [i for i, (_, marked) in enumerate(blocks) if marked]
        read_at = -1
        for mark in marks:
            for position in range(mark, max(mark - self.lookback, -1), -1):
                if self.entries.get(digests[position], -math.inf) > now:
                    read_at = max(read_at, position)
                    break
        read = ends[read_at] if read_at >= 0 else 0
        entries: dict[str, float] = {}
        if read_at >= 0:
            entries[digests[read_at]] = now + self.ttl
        for mark in marks:  # a breakpoint read through is used: its entry lives on too
            if mark < read_at and self.entries.get(digests[mark], -math.inf) > now:
                entries[digests[mark]] = now + self.ttl
        written_to = read_at
        for mark in marks:
            if mark > read_at and ends[mark] >= self.min_tokens:
                entries[digests[mark]] = now + self.ttl
                written_to = max(written_to, mark)
        written = ends[written_to] - read if written_to > read_at else 0
        return CacheUse(total - read - written, read, written), entries


# --- the server ---------------------------------------------------------------------------


def _arguments(call: Call) -> str:
    return call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)


def _input(call: Call) -> dict[str, Any]:
    try:
        value = json.loads(_arguments(call))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _event(kind: str, **fields: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n".encode()


def _stop(reply: Reply) -> str:
    return reply.finish_reason or ("tool_use" if reply.tool_calls else "end_turn")


class _AnthropicRenderer(_Renderer):
    content_type = "text/event-stream"

    def __init__(self, model: str, usage: dict[str, Any] | None) -> None:
        self.model = model
        #: The prompt's counts (input, cache reads and writes), from the server's cache.
        self.usage = usage

    def _usage(self, reply: Reply) -> dict[str, Any]:
        usage: dict[str, Any] = dict(self.usage or {})
        if reply.usage is not None:
            usage.setdefault("input_tokens", reply.usage[0])
            usage["output_tokens"] = reply.usage[1]
        return {**usage, **(reply.usage_extra or {})}

    def _blocks(self, reply: Reply, serial: int) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if reply.reasoning:
            blocks.append(
                {"type": "thinking", "thinking": reply.reasoning, "signature": f"sig-{serial}"}
            )
        if reply.content:
            blocks.append({"type": "text", "text": reply.content})
        for index, call in enumerate(reply.tool_calls):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.id or f"toolu_fake_{serial}_{index}",
                    "name": call.name,
                    "input": _input(call),
                }
            )
        return blocks

    def _message(self, serial: int, content: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": f"msg_fake_{serial}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": None,
            "stop_sequence": None,
        }

    def whole(self, reply: Reply, serial: int) -> dict[str, Any]:
        message = self._message(serial, self._blocks(reply, serial))
        message["stop_reason"] = _stop(reply)
        message["usage"] = self._usage(reply)
        return {**message, **(reply.extra or {})}

    def frames(self, reply: Reply, serial: int) -> list[bytes]:
        usage = self._usage(reply)
        start = {**self._message(serial, []), "usage": {**usage, "output_tokens": 1}}
        frames = [_event("message_start", message=start), _event("ping")]
        for index, block in enumerate(self._blocks(reply, serial)):
            kind = block["type"]
            if kind == "thinking":
                opened = {"type": "thinking", "thinking": "", "signature": ""}
                deltas = [
                    {"type": "thinking_delta", "thinking": p}
                    for p in _pieces(block["thinking"], reply.chunk_size)
                ]
                deltas.append({"type": "signature_delta", "signature": block["signature"]})
            elif kind == "text":
                opened = {"type": "text", "text": ""}
                deltas = [
                    {"type": "text_delta", "text": p}
                    for p in _pieces(block["text"], reply.chunk_size)
                ]
            else:
                opened = {**block, "input": {}}
                call = reply.tool_calls[index - sum(1 for _ in self._leading(reply))]
                deltas = [
                    {"type": "input_json_delta", "partial_json": p}
                    for p in _pieces(_arguments(call), reply.chunk_size * 4)
                ]
            frames.append(_event("content_block_start", index=index, content_block=opened))
            frames += [_event("content_block_delta", index=index, delta=d) for d in deltas]
            frames.append(_event("content_block_stop", index=index))
        frames.append(
            _event(
                "message_delta",
                delta={"stop_reason": _stop(reply), "stop_sequence": None},
                usage={"output_tokens": usage.get("output_tokens", 0)},
            )
        )
        frames.append(_event("message_stop"))
        return frames

    @staticmethod
    def _leading(reply: Reply) -> Iterator[str]:
        """The blocks before the tool calls (thinking, text)."""
        if reply.reasoning:
            yield "thinking"
        if reply.content:
            yield "text"

    def error(self, status: int, message: str) -> bytes:
        return error_body(status, message)

    def malformed_frame(self) -> bytes:
        return b'event: content_block_delta\ndata: {"type": "content_block_delta", "delta": {\n\n'

    def endless_frame(self, piece: str) -> bytes:
        return _event("content_block_delta", index=0, delta={"type": "text_delta", "text": piece})

    def endless_body(self, piece: str) -> tuple[bytes, bytes]:
        head = b'{"type": "message", "content": [{"type": "text", "text": "'
        return head, piece.encode()

    def empty_frames(self, serial: int) -> list[bytes]:
        start = {**self._message(serial, []), "usage": {"input_tokens": 1, "output_tokens": 0}}
        return [_event("message_start", message=start), _event("message_stop")]

    def empty_whole(self, serial: int) -> dict[str, Any]:
        return {**self._message(serial, []), "usage": {"input_tokens": 1, "output_tokens": 0}}


def error_midstream(
    text: str = "Let me", kind: str = "overloaded_error", message: str = "Overloaded"
) -> Raw:
    """A 200 stream that begins an answer (``text``) and then sends an ``error`` event,
    as the API does when it is overloaded mid-answer."""
    renderer = _AnthropicRenderer("fake", {"input_tokens": 10})
    frames = renderer.frames(Reply(text), 0)[:5]  # start, ping, block start, a delta or two
    frames.append(_event("error", error={"type": kind, "message": message}))
    return Raw(b"".join(frames), content_type="text/event-stream")


class FakeAnthropicServer(FakeServer):
    """Anthropic's Messages API on loopback (see the module docstring).

    :attr:`url` is the origin, as ``https://api.anthropic.com`` is configured. With
    ``api_key`` set a request without that ``x-api-key`` gets 401; with ``models`` set,
    any other model 404. ``cache`` bills each request's prompt (None: the script's usage
    only). :attr:`refused` holds the problems of every request it refused as invalid.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        models: Sequence[str] = ("claude-fake-4",),
        cache: AnthropicCache | None = None,
    ) -> None:
        super().__init__()
        self.api_key = api_key
        self.models = list(models)
        self.cache = cache if cache is not None else AnthropicCache()
        self.refused: list[list[str]] = []
        #: How each chat request's prompt was billed, in order.
        self.billed: list[CacheUse] = []

    def _is_chat(self, request: RecordedRequest) -> bool:
        return request.method == "POST" and request.path == "/v1/messages"

    async def _respond(self, request: RecordedRequest, conn: _Connection) -> None:
        if self.api_key and request.headers.get("x-api-key") != self.api_key:
            await conn.send(401, error_body(401, "invalid x-api-key"))
            return
        if not request.headers.get("anthropic-version"):
            await conn.send(400, error_body(400, "anthropic-version: header is required"))
            return
        if request.method == "GET" and request.path == "/v1/models":
            listed = [
                {"id": m, "type": "model", "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
                for m in self.models
            ]
            page = {"data": listed, "has_more": False, "first_id": None, "last_id": None}
            await conn.send(200, json.dumps(page).encode())
            return
        if not self._is_chat(request):
            await conn.send(404, error_body(404, f"Not found: {request.path}"))
            return
        body = request.json()
        if problems := message_params_problems(body):
            self.refused.append(problems)
            await conn.send(400, error_body(400, "; ".join(problems)))
            return
        model = body.get("model", "")
        if model not in self.models:
            await conn.send(404, error_body(404, f"model: {model}"))
            return
        billed, entries = self.cache.bill(body, time.monotonic())
        self.billed.append(billed)
        usage = {
            "input_tokens": billed.input_tokens,
            "cache_creation_input_tokens": billed.written,
            "cache_read_input_tokens": billed.read,
        }
        item, serial = self._next()
        try:
            await self._play(
                conn, item, _AnthropicRenderer(model, usage), body.get("stream") is True, serial
            )
        finally:  # the prefix is cached once it has been evaluated
            self.cache.entries.update(entries)

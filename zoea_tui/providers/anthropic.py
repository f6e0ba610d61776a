"""Anthropic's Messages API: ``POST {endpoint}/v1/messages`` (SSE streaming).

The composer's messages (OpenAI chat shape) become the Messages API's form through the
validator's own rendering (:func:`zoea_tui.core.validator.to_anthropic`: the system
prompt as the ``system`` field, tool calls as ``tool_use`` blocks, the results of one
turn as ``tool_result`` blocks at the front of ONE user message, consecutive same-role
messages merged), so what the validator checks is what is sent. To it this client adds
the tools in Anthropic's shape, ``max_tokens`` (always: the API requires it), the
thinking blocks the model wrote before its calls (kept with their signatures, sent back
in front of those calls as the API requires), and the prompt-cache breakpoints
(:func:`place_breakpoints`; the rules: docs/ARCHITECTURE.md, 'Providers').

The client speaks httpx through ``_http.py`` rather than the ``anthropic`` SDK, so the
one frame every HTTP client shares serves it too: the retry policies of
``core/retry.py`` (the SDK retries by itself: two policies at once), the nine failure
classes with the server's words and the key masked, ``max_answer_bytes`` on every read,
``stream = "auto"``. The SDK is a test dependency: every request the tests send is
checked against its ``MessageCreateParams`` (tests/providers/test_anthropic.py).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Unpack

from ..config import ProviderConfig
from ..core.composition import ANSWER_RESERVE
from ..core.validator import to_anthropic
from . import base
from ._http import (
    HttpOptions,
    HttpProvider,
    empty_answer,
    load_json,
    server_message,
)
from ._wire import as_count, as_dict, as_text, with_stable_ids
from .base import (
    BadRequestError,
    ChatRequest,
    ChatResponse,
    CutShortError,
    EventSink,
    FinishReason,
    MalformedResponseError,
    ProviderError,
    RateLimitedError,
    ReasoningDelta,
    ServerError,
    TextDelta,
    ToolCallDelta,
    ToolSchema,
    Usage,
)
from .building import over_http
from .discovery import DISCOVERY_TIMEOUT, ServerContext, ServerFacts, list_models

#: The ``anthropic-version`` header every request carries.
ANTHROPIC_VERSION = "2023-06-01"
#: The marker of a prompt-cache breakpoint (5-minute entries).
EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
#: The most breakpoints a request may carry (the API refuses a fifth).
MAX_BREAKPOINTS = 4
#: How many blocks before a breakpoint the API looks for an earlier cache entry.
LOOKBACK_BLOCKS = 20
#: The breakpoint rules, in the order they are placed (docs/ARCHITECTURE.md,
#: 'Providers'): after the tools and the system prompt; on the request's last block; on
#: the last block before the last assistant message (where the request before it of the
#: same turn ended); on the last block of the first user message (the head of the
#: history that a new turn keeps).
RULES = ("system", "last", "previous", "head")
#: The kept thinking blocks of this many answers (the latest): a turn's loop needs only
#: its own.
KEPT_THINKING = 256

_STOP: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "error",
}


class AnthropicProvider(HttpProvider):
    """A client of Anthropic's Messages API; ``label`` is the model name.

    ``endpoint`` is the API's root, with or without ``/v1``
    (``https://api.anthropic.com``); the key travels only in ``x-api-key``. Same retries,
    typed errors and stream modes as the other HTTP clients (``_http.HttpProvider``).
    ``breakpoints`` are the :data:`RULES` placed on every request.
    """

    def __init__(
        self,
        endpoint: str,
        model: str,
        api_key: str | None = None,
        *,
        breakpoints: Sequence[str] = RULES,
        **options: Unpack[HttpOptions],
    ) -> None:
        super().__init__(endpoint, model, api_key, **options)
        self.root = self.endpoint if self.endpoint.endswith("/v1") else f"{self.endpoint}/v1"
        self.url = f"{self.root}/messages"
        self._headers = {"anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            self._headers["x-api-key"] = api_key
        self.breakpoints = tuple(breakpoints)
        #: The thinking blocks (with their signatures) of recent answers that called
        #: tools, by the id of their first call: sent back in front of those calls.
        self._thinking: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()

    async def server_context(self, model: str | None = None) -> ServerContext | None:
        """None: the API tells no context (the configured ``context_window`` holds)."""
        return None

    async def server_facts(self, model: str, *, timeout: float = DISCOVERY_TIMEOUT) -> ServerFacts:
        """Nothing, unasked: the API tells no context and renders the tools of a request
        itself."""
        return ServerFacts(None, None)

    async def list_models(self, *, timeout: float = DISCOVERY_TIMEOUT) -> list[str]:
        """The models the API lists (``GET {endpoint}/v1/models``, one page of up to 1 000:
        its default page holds 20); raises its failure."""
        path = self.root.removeprefix(self.endpoint) + "/models?limit=1000"
        return await list_models(self, path, timeout=timeout)

    async def _attempt(self, request: ChatRequest, on_event: EventSink | None) -> ChatResponse:
        model = self._model_of(request)
        body = request_body(request, model, self._thinking, breakpoints=self.breakpoints)
        result, thinking = await self._read(request, body, _Answer(model), on_event)
        self._keep_thinking(result, thinking)
        return result

    def _keep_thinking(self, response: ChatResponse, blocks: list[dict[str, Any]]) -> None:
        if not (blocks and response.tool_calls):
            return
        self._thinking[response.tool_calls[0].id] = blocks
        while len(self._thinking) > KEPT_THINKING:
            self._thinking.popitem(last=False)


def anthropic_tools(tools: Sequence[ToolSchema]) -> list[dict[str, Any]]:
    """OpenAI function tools in the Messages API's shape (``name``, ``description``,
    ``input_schema``)."""
    converted = []
    for tool in tools:
        function = as_dict(tool.get("function")) or tool
        schema = as_dict(function.get("parameters")) or {"type": "object", "properties": {}}
        entry: dict[str, Any] = {"name": function.get("name", ""), "input_schema": schema}
        if function.get("description"):
            entry["description"] = function["description"]
        converted.append(entry)
    return converted


def request_body(
    request: ChatRequest,
    model: str,
    thinking: Mapping[str, list[dict[str, Any]]] | None = None,
    *,
    breakpoints: Sequence[str] = RULES,
) -> dict[str, Any]:
    """The JSON body of a Messages API request.

    ``max_tokens`` is always sent (the settings', else the composer's answer reserve);
    ``temperature`` whenever set, capped at the API's 1.0; no seed (the API has none).
    ``thinking``: kept thinking blocks by the id of the first call they preceded.
    ``breakpoints``: the :data:`RULES` to place (empty: none).
    """
    settings = request.settings
    rendered = to_anthropic(request.messages)
    turns: list[dict[str, Any]] = rendered["messages"]
    if thinking:
        _restore_thinking(turns, thinking)
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": settings.max_tokens or ANSWER_RESERVE,
        "messages": turns,
        "stream": request.stream,
    }
    if rendered["system"]:
        body["system"] = [{"type": "text", "text": rendered["system"]}]
    if request.tools:
        body["tools"] = anthropic_tools(request.tools)
        body["tool_choice"] = {"type": "auto"}
    if settings.temperature is not None:
        body["temperature"] = min(settings.temperature, 1.0)
    place_breakpoints(body, breakpoints)
    return body


def place_breakpoints(body: dict[str, Any], rules: Sequence[str] = RULES) -> int:
    """Mark ``body``'s cache breakpoints by ``rules`` (a subset of :data:`RULES`, in its
    order; at most :data:`MAX_BREAKPOINTS` blocks, one mark each); how many were placed.

    ``system``: the system prompt's block (the tools come before it in the cache's order,
    so the one entry holds both: the prefix every Mysis of a swarm shares); without a
    system prompt, the last tool. ``last``: the last block of the request (the next
    request of the turn reads all of this one). ``previous``: the last block before the
    last assistant message, where the request before it ended (found exactly, however
    many blocks the calls and results added since). ``head``: the last block of the first
    user message (a new turn keeps it while the window's tail moves).
    """
    turns: list[dict[str, Any]] = body.get("messages") or []
    marked: list[dict[str, Any]] = []

    def mark(block: dict[str, Any] | None) -> None:
        if block is None or any(block is b for b in marked) or len(marked) >= MAX_BREAKPOINTS:
            return
        if block.get("type") in ("thinking", "redacted_thinking"):
            return  # the API refuses a mark on a thinking block
        block["cache_control"] = dict(EPHEMERAL)
        marked.append(block)

    for rule in RULES:
        if rule not in rules:
            continue
        if rule == "system":
            system = body.get("system") or body.get("tools") or []
            mark(system[-1] if system else None)
        elif rule == "last":
            mark(_last_block(turns))
        elif rule == "previous":
            last_assistant = max(
                (i for i, t in enumerate(turns) if t["role"] == "assistant"), default=None
            )
            if last_assistant:
                mark(_last_block(turns[:last_assistant]))
        elif rule == "head" and turns and turns[0]["role"] == "user":
            mark(_last_block(turns[:1]))
    return len(marked)


def _last_block(turns: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    for turn in reversed(turns):
        blocks: list[dict[str, Any]] = turn["content"]
        for block in reversed(blocks):
            if block.get("type") not in ("thinking", "redacted_thinking"):
                return block
    return None


def _restore_thinking(
    turns: list[dict[str, Any]], thinking: Mapping[str, list[dict[str, Any]]]
) -> None:
    """Put kept thinking blocks back at the front of the assistant turns whose calls they
    preceded (the API wants them there, unmodified, with their signatures)."""
    for turn in turns:
        if turn["role"] != "assistant":
            continue
        for block in turn["content"]:
            kept = thinking.get(block.get("id", "")) if block["type"] == "tool_use" else None
            if kept:
                turn["content"][:0] = [dict(b) for b in kept]
                break


def usage_of(raw: Any) -> Usage:
    """Usage from the API's counts: ``prompt_tokens`` is the whole prompt (uncached input,
    cache reads and cache writes), ``cached_tokens`` the reads, ``cache_write_tokens`` the
    writes; None for each count it sent none of."""
    counts = as_dict(raw)
    fresh = as_count(counts.get("input_tokens"))
    written = as_count(counts.get("cache_creation_input_tokens"))
    read = as_count(counts.get("cache_read_input_tokens"))
    parts = [n for n in (fresh, written, read) if n is not None]
    return Usage(
        prompt_tokens=sum(parts) if parts else None,
        completion_tokens=as_count(counts.get("output_tokens")),
        cached_tokens=read,
        cache_write_tokens=written,
    )


def stop_reason(value: Any, has_calls: bool) -> FinishReason:
    """The API's ``stop_reason`` in our terms (an answer with calls ends in ``tool_calls``)."""
    if has_calls and value in (None, "end_turn", "tool_use"):
        return "tool_calls"
    if value is None:
        return "stop"
    return _STOP.get(value, "unknown") if isinstance(value, str) else "unknown"


def error_event(data: Any, *, url: str) -> ProviderError | None:
    """The failure an ``error`` event (or an error body) carries, in its class; None if
    ``data`` is none."""
    event = as_dict(data)
    if event.get("type") != "error":
        return None
    error = as_dict(event.get("error"))
    kind = as_text(error.get("type")) or "api_error"
    said = server_message(json.dumps(event).encode())
    where = f"{url} reported {kind} mid-answer: {said}"
    if kind == "overloaded_error":
        return ServerError(where, status=529, said=said)
    if kind == "rate_limit_error":
        return RateLimitedError(where, said=said)
    if kind in ("invalid_request_error", "request_too_large"):
        return BadRequestError(where, said=said)
    return ServerError(where, status=500, said=said)


def parse_message(
    data: Any, model: str, url: str, *, streamed: bool = False
) -> tuple[ChatResponse, list[dict[str, Any]]]:
    """A whole Messages API answer as a ChatResponse, and its thinking blocks (to send
    back); an answer with no text, no call and no ``stop_reason`` raises
    :class:`EmptyAnswerError`."""
    if error := error_event(data, url=url):
        raise error
    message = as_dict(data)
    content = message.get("content")
    if message.get("type") != "message" or not isinstance(content, list):
        raise MalformedResponseError(f"{url} answered something that is not a message.")
    answer = _Answer(model)
    for block in content:
        answer.blocks.append(_Block.of(as_dict(block)))
    answer._count(message.get("usage"))
    answer.stop = message.get("stop_reason")
    answer.model = as_text(message.get("model")) or model
    answer.done = True
    if not (answer.stop or any(b.kind in ("text", "tool_use") for b in answer.blocks)):
        raise empty_answer(url, streamed=streamed, finish="stop_reason")
    return answer.response(url), answer.thinking_blocks()


@dataclass(slots=True)
class _Block:
    """One content block as it arrives (streamed: in pieces)."""

    kind: str
    text: list[str] = field(default_factory=list)
    id: str = ""
    name: str = ""
    signature: str = ""
    #: A redacted thinking block's opaque ``data``.
    data: str = ""

    @classmethod
    def of(cls, raw: dict[str, Any]) -> _Block:
        """A block from its start (streamed) or whole (not streamed)."""
        kind = as_text(raw.get("type"))
        block = cls(kind, id=as_text(raw.get("id")), name=as_text(raw.get("name")))
        if kind == "text":
            block.text.append(as_text(raw.get("text")))
        elif kind == "thinking":
            block.text.append(as_text(raw.get("thinking")))
            block.signature = as_text(raw.get("signature"))
        elif kind == "redacted_thinking":
            block.data = as_text(raw.get("data"))
        elif kind == "tool_use" and raw.get("input"):
            block.text.append(json.dumps(raw["input"], ensure_ascii=False))
        return block


@dataclass(slots=True)
class _Answer:
    """What the events of a streamed answer (or the blocks of a whole one) add up to."""

    model: str
    blocks: list[_Block] = field(default_factory=list)
    #: The usage counts as sent so far (``message_delta``'s over ``message_start``'s).
    counts: dict[str, Any] = field(default_factory=dict)
    stop: Any = None
    done: bool = False
    #: Block index → the index of its tool call among the answer's calls.
    call_index: dict[int, int] = field(default_factory=dict)

    def add(self, data: str, url: str, on_event: EventSink | None) -> None:
        """Take in one event, reporting its deltas to ``on_event``."""
        event = load_json(data, url=url)
        if error := error_event(event, url=url):
            raise error
        if not isinstance(event, dict):
            raise MalformedResponseError(f"{url} streamed an event that is not an object.")
        kind = event.get("type")
        if kind == "message_start":
            message = as_dict(event.get("message"))
            self.model = as_text(message.get("model")) or self.model
            self._count(message.get("usage"))
        elif kind == "content_block_start":
            block = _Block.of(as_dict(event.get("content_block")))
            self.blocks.append(block)
            if block.kind == "tool_use":
                index = self.call_index[len(self.blocks) - 1] = len(self.call_index)
                if on_event:
                    on_event(ToolCallDelta(index, block.id or None, block.name or None))
        elif kind == "content_block_delta":
            self._delta(event, on_event)
        elif kind == "message_delta":
            self.stop = as_dict(event.get("delta")).get("stop_reason") or self.stop
            self._count(event.get("usage"))
        elif kind == "message_stop":
            self.done = True
        # ping, content_block_stop and events this client does not know: nothing to add.

    def _count(self, raw: Any) -> None:
        self.counts.update((k, v) for k, v in as_dict(raw).items() if v is not None)

    def _delta(self, event: dict[str, Any], on_event: EventSink | None) -> None:
        position = event.get("index")
        index = position if isinstance(position, int) else len(self.blocks) - 1
        if not 0 <= index < len(self.blocks):
            return
        block = self.blocks[index]
        delta = as_dict(event.get("delta"))
        kind = delta.get("type")
        if kind == "text_delta":
            text = as_text(delta.get("text"))
            block.text.append(text)
            if on_event and text:
                on_event(TextDelta(text))
        elif kind == "thinking_delta":
            text = as_text(delta.get("thinking"))
            block.text.append(text)
            if on_event and text:
                on_event(ReasoningDelta(text))
        elif kind == "signature_delta":
            block.signature += as_text(delta.get("signature"))
        elif kind == "input_json_delta":
            fragment = as_text(delta.get("partial_json"))
            block.text.append(fragment)
            if on_event and fragment and index in self.call_index:
                on_event(ToolCallDelta(self.call_index[index], arguments=fragment))

    def thinking_blocks(self) -> list[dict[str, Any]]:
        """The answer's thinking blocks as the API wants them back."""
        kept: list[dict[str, Any]] = []
        for block in self.blocks:
            if block.kind == "thinking":
                kept.append(
                    {
                        "type": "thinking",
                        "thinking": "".join(block.text),
                        "signature": block.signature,
                    }
                )
            elif block.kind == "redacted_thinking":
                kept.append({"type": "redacted_thinking", "data": block.data})
        return kept

    def finish(self, url: str) -> tuple[ChatResponse, list[dict[str, Any]]]:
        """The finished streamed answer and its thinking blocks (:meth:`response`)."""
        return self.response(url), self.thinking_blocks()

    def whole(
        self, data: Any, url: str, *, streamed: bool
    ) -> tuple[ChatResponse, list[dict[str, Any]]]:
        """A whole answer and its thinking blocks (:func:`parse_message`)."""
        return parse_message(data, self.model, url, streamed=streamed)

    def response(self, url: str) -> ChatResponse:
        """The finished answer; a stream that stopped before its end is a broken one."""
        if not self.done and self.stop is None:
            raise CutShortError(
                f"The stream from {url} ended before the answer was complete"
                + (" (it sent nothing)." if not self.blocks else ".")
            )
        calls = with_stable_ids(
            [
                (b.id or None, b.name, "".join(b.text) or "{}")
                for b in self.blocks
                if b.kind == "tool_use"
            ]
        )
        text = "".join("".join(b.text) for b in self.blocks if b.kind == "text")
        if self.stop is None and not (text or calls):
            raise empty_answer(url, streamed=True, finish="stop_reason")
        return ChatResponse(
            content=text,
            tool_calls=calls,
            reasoning="".join("".join(b.text) for b in self.blocks if b.kind == "thinking"),
            usage=usage_of(self.counts),
            finish_reason=stop_reason(self.stop, bool(calls)),
            model=self.model,
        )


def build(config: ProviderConfig, env: Mapping[str, str]) -> base.Provider:
    """The ``anthropic`` kind's client of ``config`` (``config/kinds.py``)."""
    return over_http(AnthropicProvider, config, env)

"""Any OpenAI-compatible ``POST {endpoint}/chat/completions`` server.

OpenAI, vLLM, llama.cpp's ``llama-server``, ``llama-cpp-python``, LM Studio,
OpenRouter, OpenCode Zen, Ollama's ``/v1``: the endpoint is used as given (with
or without ``/v1``) and ``/chat/completions`` appended. Wire facts and server
quirks are in docs/ARCHITECTURE.md, 'Providers'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Unpack

from ..config import ProviderConfig
from . import base
from ._http import (
    HttpOptions,
    HttpProvider,
    empty_answer,
    load_json,
    stream_error,
)
from ._wire import (
    AnswerText,
    arguments_text,
    as_dict,
    as_list,
    as_text,
    cached_tokens,
    call_parts,
    finish_reason,
    usage_of,
    with_stable_ids,
)
from .base import (
    ChatRequest,
    ChatResponse,
    CutShortError,
    EventSink,
    MalformedResponseError,
    Message,
    ToolCallDelta,
    Usage,
)
from .building import over_http
from .discovery import (
    DISCOVERY_TIMEOUT,
    ServerContext,
    ServerFacts,
    list_models,
    llama_server_context,
    llama_server_facts,
    llama_server_prompt_tokens,
    llama_server_share_prefix,
)


class OpenAIProvider(HttpProvider):
    """An OpenAI-compatible chat-completions client; ``label`` is the model name.

    ``model`` is the configured model, used when a request's settings name
    none. ``api_key`` travels only in the ``Authorization`` header. Transient
    failures (network, timeout, 429, 5xx, a stream cut short) are retried under
    ``retry``, one of the policies of ``core/retry.py`` (``ONCE`` for a Mysis, whose
    runtime retries), waiting its backoff or the server's ``Retry-After``; ``sleep``
    is injectable for tests, and ``on_retry`` hears each retry with its wait.
    A ``client`` passed in is borrowed, not closed by :meth:`aclose`.
    """

    chat_path = "/chat/completions"

    def __init__(
        self,
        endpoint: str,
        model: str,
        api_key: str | None = None,
        *,
        cache_reuse: int = 0,
        cache_control: bool = False,
        **options: Unpack[HttpOptions],
    ) -> None:
        super().__init__(endpoint, model, api_key, **options)
        #: Whether the server counts prompts (None: not asked yet; False: it did not).
        self._counts: bool | None = None
        #: ``n_cache_reuse`` for a server that counts prompts (a llama-server); 0: none.
        self.cache_reuse = cache_reuse
        #: Mark Anthropic's cache breakpoints on content parts (a router to Claude).
        self.cache_control = cache_control

    async def server_context(self, model: str | None = None) -> ServerContext | None:
        """The context of one of the server's slots when it is a llama-server (``/props``);
        None from any other server (quietly)."""
        return await llama_server_context(self)

    async def list_models(self, *, timeout: float = DISCOVERY_TIMEOUT) -> list[str]:
        """The models the server lists (``GET {endpoint}/models``); raises its failure."""
        return await list_models(self, "/models", timeout=timeout)

    async def server_facts(self, model: str, *, timeout: float = DISCOVERY_TIMEOUT) -> ServerFacts:
        """A llama-server's context and whether its chat template renders tools (one
        ``/props``); None for each from any other server (quietly)."""
        return await llama_server_facts(self, timeout=timeout)

    async def prompt_tokens(self, request: ChatRequest) -> int | None:
        """The prompt tokens a llama-server will count for ``request`` (its template and
        tokenizer: ``/apply-template``, ``/tokenize``); None from any other server, which is
        not asked again unless it has counted before."""
        if self._counts is False:
            return None
        counted = await llama_server_prompt_tokens(
            self, request_body(request, self._model_of(request))
        )
        if counted is not None or self._counts is None:
            self._counts = counted is not None
        return counted

    async def share_prefix(self, *, timeout: float = DISCOVERY_TIMEOUT) -> int | None:
        """Have a llama-server with several slots keep the prompt it last evaluated for
        its other slots (``discovery.llama_server_share_prefix``); None elsewhere."""
        return await llama_server_share_prefix(self, timeout=timeout)

    async def _attempt(self, request: ChatRequest, on_event: EventSink | None) -> ChatResponse:
        model = self._model_of(request)
        body = request_body(
            request,
            model,
            cache_reuse=self.cache_reuse if self._counts else 0,
            cache_control=self.cache_control,
        )
        return await self._read(request, body, _Answer(model), on_event)


def request_body(
    request: ChatRequest, model: str, *, cache_reuse: int = 0, cache_control: bool = False
) -> dict[str, Any]:
    """The JSON body of a chat-completions request.

    ``temperature`` is sent whenever set, 0 included; ``stream`` is always
    explicit (OpenCode Zen misbehaves without it). ``cache_reuse`` > 0 adds
    llama-server's ``n_cache_reuse`` (only ever for a server known to be one: other
    servers refuse fields they do not know). ``cache_control`` marks Anthropic's
    breakpoints on content parts (:func:`with_breakpoints`).
    """
    messages = outgoing_messages(request.messages)
    body: dict[str, Any] = {
        "model": model,
        "messages": with_breakpoints(messages) if cache_control else messages,
        "stream": request.stream,
    }
    if request.stream:
        body["stream_options"] = {"include_usage": True}
    if request.tools:
        body["tools"] = list(request.tools)
        body["tool_choice"] = "auto"
    body |= request.settings.sampling()
    if cache_reuse > 0:
        body["n_cache_reuse"] = cache_reuse
    return body


def outgoing_messages(messages: Sequence[Message]) -> list[Message]:
    """The messages as sent: an assistant tool-call message gets ``content: ""`` for null,
    which ``llama-cpp-python`` refuses."""
    return [
        {**m, "content": ""} if m.get("tool_calls") and m.get("content") is None else m
        for m in messages
    ]


def with_breakpoints(messages: list[Message]) -> list[Message]:
    """``messages`` with the two breakpoints of the ``anthropic`` type as a router to
    Claude takes them (OpenRouter): the system prompt's content as a list of one text
    part marked ``cache_control: {"type": "ephemeral"}`` (the tools come before it in
    Anthropic's cache order: one entry for the prefix the swarm shares), and the last
    message's last part marked (the next request of the turn reads all of this one)."""
    marked = list(messages)
    for index in {0 if marked and marked[0].get("role") == "system" else None, len(marked) - 1}:
        if index is None or index < 0:
            continue
        message = marked[index]
        content = message.get("content")
        parts = (
            [dict(p) for p in content]
            if isinstance(content, list)
            else [{"type": "text", "text": content or ""}]
        )
        if parts:
            parts[-1]["cache_control"] = {"type": "ephemeral"}
        marked[index] = {**message, "content": parts}
    return marked


def parse_completion(data: Any, model: str, url: str, *, streamed: bool = False) -> ChatResponse:
    """A non-streamed chat completion as a ChatResponse (``streamed``: the request asked
    for a stream and the server answered one body); an answer with no text, no call and
    no finish reason raises :class:`EmptyAnswerError`."""
    if error := stream_error(data, url=url):
        raise error
    choices = as_list(as_dict(data).get("choices"))
    choice = as_dict(choices[0]) if choices else {}
    message = choice.get("message")
    if not isinstance(message, dict):
        raise MalformedResponseError(f"{url} answered without choices[0].message.")
    calls = with_stable_ids([call_parts(c) for c in as_list(message.get("tool_calls"))])
    content = as_text(message.get("content"))
    if not (content or calls or choice.get("finish_reason")):
        raise empty_answer(url, streamed=streamed)
    raw_usage = as_dict(data.get("usage"))
    return ChatResponse(
        content=content,
        tool_calls=calls,
        reasoning=as_text(message.get("reasoning_content") or message.get("reasoning")),
        usage=usage_of(
            raw_usage.get("prompt_tokens"), raw_usage.get("completion_tokens"), cached_tokens(data)
        ),
        finish_reason=finish_reason(choice.get("finish_reason"), bool(calls)),
        model=as_text(data.get("model")) or model,
    )


@dataclass(slots=True)
class _PartialCall:
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Answer(AnswerText):
    """What the chunks of a streamed answer add up to (a whole one: :func:`parse_completion`)."""

    calls: dict[int, _PartialCall] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    #: The prompt-cache figure: it may come in a chunk without usage (llama.cpp's
    #: ``timings`` ride on the chunk with the finish reason).
    cached: int | None = None
    #: The finish reason as the server sent it.
    stop: Any = None
    done: bool = False

    def add(self, event: str, url: str, on_event: EventSink | None) -> None:
        """Take in one chunk (or the ``[DONE]`` that ends the stream), reporting its deltas
        to ``on_event``."""
        if event.strip() == "[DONE]":
            self.done = True
            return
        chunk = load_json(event, url=url)
        if error := stream_error(chunk, url=url):
            raise error
        if not isinstance(chunk, dict):
            raise MalformedResponseError(f"{url} streamed a chunk that is not an object.")
        if raw_usage := as_dict(chunk.get("usage")):
            self.usage = usage_of(
                raw_usage.get("prompt_tokens"), raw_usage.get("completion_tokens")
            )
        if (cached := cached_tokens(chunk)) is not None:
            self.cached = cached
        self.model = as_text(chunk.get("model")) or self.model
        for choice in as_list(chunk.get("choices"))[:1]:
            delta = as_dict(as_dict(choice).get("delta"))
            self.take(
                as_text(delta.get("content")),
                as_text(delta.get("reasoning_content") or delta.get("reasoning")),
                on_event,
            )
            for position, part in enumerate(as_list(delta.get("tool_calls"))):
                self._add_call(position, as_dict(part), on_event)
            self.stop = as_dict(choice).get("finish_reason") or self.stop

    def _add_call(self, position: int, part: dict[str, Any], on_event: EventSink | None) -> None:
        index = part.get("index")
        index = index if isinstance(index, int) else position
        function = as_dict(part.get("function"))
        call_id, name = as_text(part.get("id")) or None, as_text(function.get("name")) or None
        fragment = function.get("arguments")
        fragment = (
            fragment
            if isinstance(fragment, str)
            else ("" if fragment is None else arguments_text(fragment))
        )
        call = self.calls.setdefault(index, _PartialCall())
        # id and name come with the first delta; some servers repeat them later.
        call.id = call.id or call_id
        call.name = call.name or name
        call.arguments.append(fragment)
        if on_event:
            on_event(ToolCallDelta(index, call_id, name, fragment))

    def whole(self, data: Any, url: str, *, streamed: bool) -> ChatResponse:
        """A whole completion (:func:`parse_completion`)."""
        return parse_completion(data, self.model, url, streamed=streamed)

    def finish(self, url: str) -> ChatResponse:
        """The finished answer; a stream that stopped before its end is a broken connection."""
        if not self.done and self.stop is None:
            raise CutShortError(
                f"The stream from {url} ended before the answer was complete"
                + (" (it sent nothing)." if not (self.text or self.calls) else ".")
            )
        if self.stop is None and not (self.text or self.calls):
            raise empty_answer(url, streamed=True)
        calls = with_stable_ids(
            [
                (c.id, c.name or "", arguments_text("".join(c.arguments)))
                for _, c in sorted(self.calls.items())
            ]
        )
        return self.response(calls, replace(self.usage, cached_tokens=self.cached), self.stop)


def build(config: ProviderConfig, env: Mapping[str, str]) -> base.Provider:
    """The ``openai`` kind's client of ``config`` (``config/kinds.py``)."""
    return over_http(
        OpenAIProvider,
        config,
        env,
        cache_reuse=config.cache_reuse,
        cache_control=config.cache_control,
    )

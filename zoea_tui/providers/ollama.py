"""Ollama's native ``POST {endpoint}/api/chat`` (NDJSON streaming).

The native API rather than Ollama's ``/v1`` because only it takes
``options.num_ctx``: without it Ollama silently truncates long prompts to its
default window. Tool calls come without ids and with arguments as objects;
outgoing ones must be sent the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config import ProviderConfig
from . import base
from ._http import (
    HttpProvider,
    empty_answer,
    load_json,
    read_body,
    stream_error,
)
from ._wire import (
    AnswerText,
    arguments_object,
    as_dict,
    as_list,
    as_text,
    call_parts,
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
    ModelNotFoundError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnavailableError,
    ToolCallDelta,
)
from .building import over_http
from .discovery import (
    DISCOVERY_TIMEOUT,
    ServerContext,
    ServerFacts,
    list_models,
    ollama_context,
    ollama_facts,
)


class OllamaProvider(HttpProvider):
    """A client of Ollama's native chat API; ``label`` is the model name.

    Same retries, typed errors and injectable ``sleep`` as
    :class:`~zoea_tui.providers.openai_compat.OpenAIProvider`. ``api_key`` is
    only needed behind an authenticating proxy or Ollama's hosted service.
    Call :meth:`check_model` at start to learn early that the server is down
    or the model not pulled.
    """

    chat_path = "/api/chat"
    stream_format = "ndjson"

    async def check_model(self, model: str | None = None, *, timeout: float = 10.0) -> None:
        """Check once, without retrying, that the server answers and has ``model`` pulled.

        Raises :class:`ProviderUnavailableError` when the server does not
        answer and :class:`ModelNotFoundError` (naming the ``ollama pull``
        command) when the model is not installed.
        """
        if not (model or self.model):  # a provider of $OLLAMA_HOST: the first one pulled
            await self._choose_model()
        model = model or self.model
        data = await self._get("/api/tags", timeout)
        names = [
            as_text(as_dict(m).get("name") or as_dict(m).get("model"))
            for m in as_list(as_dict(data).get("models"))
        ]
        if _tagged(model) not in {_tagged(n) for n in names if n}:
            installed = ", ".join(sorted(n for n in names if n)) or "none"
            raise ModelNotFoundError(
                f"Ollama at {self.endpoint} has no model {model!r} (installed: {installed})."
                f" Pull it with: ollama pull {model}"
            )

    async def server_context(self, model: str | None = None) -> ServerContext | None:
        """The model's training context (``/api/show``); None when Ollama does not say."""
        if not (model or self.model):  # a provider of $OLLAMA_HOST: the first one pulled
            try:
                await self._choose_model()
            except ProviderError:
                return None
        return await ollama_context(self, model or self.model)

    async def list_models(self, *, timeout: float = DISCOVERY_TIMEOUT) -> list[str]:
        """The models pulled on the server (``GET /api/tags``); raises its failure."""
        return await list_models(self, "/api/tags", timeout=timeout)

    async def server_facts(self, model: str, *, timeout: float = DISCOVERY_TIMEOUT) -> ServerFacts:
        """``model``'s context and whether its template renders tools (one ``/api/show``);
        None for each when Ollama does not say (quietly)."""
        return await ollama_facts(self, model, timeout=timeout)

    async def version(self, *, timeout: float = 10.0) -> str:
        """The server's version (``GET /api/version``), checked once without retrying."""
        return as_text(as_dict(await self._get("/api/version", timeout)).get("version"))

    async def _get(self, path: str, timeout: float) -> Any:
        url = f"{self.endpoint}{path}"
        try:
            async with self._exchange(url, timeout, method="GET") as response:
                return load_json(
                    await read_body(response, url=url, limit=self.max_answer_bytes), url=url
                )
        except (ProviderUnavailableError, ProviderTimeoutError) as exc:
            raise ProviderUnavailableError(
                f"Ollama is not answering at {self.endpoint}. {exc.message} Start it with"
                " `ollama serve`, or correct the endpoint in the configuration."
            ) from None

    async def _attempt(self, request: ChatRequest, on_event: EventSink | None) -> ChatResponse:
        model = self._model_of(request)
        try:
            return await self._read(request, request_body(request, model), _Answer(model), on_event)
        except ModelNotFoundError as exc:
            raise ModelNotFoundError(f"{exc.message} Pull it with: ollama pull {model}") from None


def request_body(request: ChatRequest, model: str) -> dict[str, Any]:
    """The JSON body of an ``/api/chat`` request.

    ``stream`` is always explicit (Ollama defaults to true) and
    ``options.num_ctx`` always the configured window; temperature 0 is kept.
    """
    settings = request.settings
    options: dict[str, Any] = {
        "num_ctx": settings.context_window,
        **settings.sampling(max_tokens_key="num_predict"),
    }
    body: dict[str, Any] = {
        "model": model,
        "messages": outgoing_messages(request.messages),
        "stream": request.stream,
        "options": options,
    }
    if request.tools:
        body["tools"] = list(request.tools)
    return body


def outgoing_messages(messages: Sequence[Message]) -> list[Message]:
    """OpenAI-shaped messages in Ollama's shape.

    Tool-call arguments become objects (``{}`` when the stored text is not a
    JSON object) and tool results carry ``tool_name``, found from the call
    they answer.
    """
    names: dict[str, str] = {}
    result: list[Message] = []
    for message in messages:
        out: Message = {"role": message.get("role"), "content": as_text(message.get("content"))}
        if calls := as_list(message.get("tool_calls")):
            out["tool_calls"] = [_outgoing_call(call, names) for call in calls]
        if message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            name = message.get("tool_name") or names.get(call_id or "")
            if name:
                out["tool_name"] = name
            if call_id:
                out["tool_call_id"] = call_id
        result.append(out)
    return result


def _outgoing_call(call: Any, names: dict[str, str]) -> dict[str, Any]:
    function = as_dict(as_dict(call).get("function"))
    name = as_text(function.get("name"))
    arguments = function.get("arguments")
    if call_id := as_dict(call).get("id"):
        names[call_id] = name
    if not isinstance(arguments, dict):
        arguments = arguments_object(arguments if isinstance(arguments, str) else "")
    return {"function": {"name": name, "arguments": arguments}}


def _tagged(name: str) -> str:
    """A model name with its implicit ``:latest`` tag made explicit."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


@dataclass(slots=True)
class _Answer(AnswerText):
    """What the lines of an answer add up to (a whole answer is one line)."""

    streamed: bool = True
    calls: list[tuple[str | None, str, str]] = field(default_factory=list)
    #: The last line (the ``done`` one carries the counts and the reason).
    last: dict[str, Any] = field(default_factory=dict)
    done: bool = False

    def add(self, event: str, url: str, on_event: EventSink | None) -> None:
        """Take in one streamed line, reporting its deltas to ``on_event``."""
        self._take(load_json(event, url=url), url, on_event)

    def whole(self, data: Any, url: str, *, streamed: bool) -> ChatResponse:
        """The answer of one body (``streamed``: the request asked for a stream)."""
        self.streamed = streamed
        self._take(data, url, None, whole=True)
        return self.finish(url)

    def _take(self, line: Any, url: str, on_event: EventSink | None, whole: bool = False) -> None:
        if error := stream_error(line, url=url):
            raise error
        message = as_dict(line).get("message")
        if not isinstance(message, dict):
            if whole or not as_dict(line).get("done"):
                raise MalformedResponseError(f"{url} answered without a message.")
            message = {}
        self.take(as_text(message.get("content")), as_text(message.get("thinking")), on_event)
        for raw in as_list(message.get("tool_calls")):
            call_id, name, arguments = call_parts(raw)
            if on_event:
                on_event(ToolCallDelta(len(self.calls), call_id, name, arguments))
            self.calls.append((call_id, name, arguments))
        self.model = as_text(line.get("model")) or self.model
        self.last = line
        self.done = whole or line.get("done") is True

    def finish(self, url: str) -> ChatResponse:
        """The finished answer; a stream without its ``done`` line was cut short."""
        if not self.done:
            raise CutShortError(f"The stream from {url} ended before the answer was complete.")
        if not (self.text or self.calls or self.last.get("done_reason")):
            raise empty_answer(url, streamed=self.streamed, finish="done_reason")
        calls = with_stable_ids(self.calls)
        # Ollama reuses the loaded model's KV state for a matching prefix but reports
        # nothing about it (no cached-token count in /api/chat), so cached_tokens stays None.
        usage = usage_of(self.last.get("prompt_eval_count"), self.last.get("eval_count"))
        return self.response(calls, usage, self.last.get("done_reason"))


def build(config: ProviderConfig, env: Mapping[str, str]) -> base.Provider:
    """The ``ollama`` kind's client of ``config`` (``config/kinds.py``)."""
    return over_http(OllamaProvider, config, env)

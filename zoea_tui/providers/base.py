"""The one interface every model sits behind.

A provider takes the composed messages (OpenAI chat shape, exactly what the
composer produced), the tool schemas (OpenAI function-tool shape) and the
Mysis's settings, and answers with a :class:`ChatResponse`. While it works it
may report :class:`StreamEvent` objects (text, reasoning and tool-call
deltas) through ``on_event`` so the UI can show progress. Cancellation is
plain asyncio cancellation of the awaiting task: a provider must release its
connection and re-raise ``CancelledError``.

Errors are typed (:class:`ProviderError` and subclasses); ``retryable`` says
whether the orchestrator may try again after ``retry_after`` seconds. Clients
already retry transient failures themselves a few times; an error that escapes
has outlived those retries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ..core.composition import DEFAULT_CONTEXT_WINDOW
from ..core.game_tool import ToolsMode
from ..core.types import ToolCall

Message = dict[str, Any]
ToolSchema = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    """What a provider needs to know about the Mysis's model.

    ``timeout`` bounds one whole request (connect, prompt processing and the
    full answer); ``context_window`` is sent to servers that need it (Ollama's
    ``num_ctx``); ``tools`` says how the Mysis's requests carry the game's tools
    (``core/game_tool.py``): the runtime asks the router for them so.
    """

    model: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    context_window: int = DEFAULT_CONTEXT_WINDOW
    timeout: float = 600.0
    seed: int | None = None
    tools: ToolsMode = "full"


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One LLM call: messages and tools as the composer and router made them."""

    messages: Sequence[Message]
    tools: Sequence[ToolSchema] = ()
    settings: ProviderSettings = field(default_factory=ProviderSettings)
    stream: bool = True


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported by the server (None when it reported none).

    ``cached_tokens`` is the part of ``prompt_tokens`` the server reused from
    its prompt cache instead of evaluating again (None when it reported
    nothing about its cache; 0 when it reported a miss). What each server
    reports is in docs/ARCHITECTURE.md, 'Providers'; the clients read it
    with :func:`zoea_tui.providers._wire.cached_tokens` (OpenAI-compatible
    servers), leave it None (Ollama reports nothing), or measure it
    (the ``local`` provider).
    """

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    #: Prompt tokens the server reused from its prompt cache (None when it reported nothing).
    cached_tokens: int | None = None


FinishReason = Literal["stop", "tool_calls", "length", "error", "unknown"]


@dataclass(frozen=True, slots=True)
class ChatResponse:
    """A model's answer.

    ``tool_calls`` keep each call's arguments as the raw JSON text the model
    wrote, even when it is not valid JSON: the router reports that back to the
    model as a tool error instead of failing the turn. Every call has a
    non-empty id, unique within the response (made stable by the client when
    the server sent none).
    """

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: str = ""
    usage: Usage = field(default_factory=Usage)
    finish_reason: FinishReason = "stop"
    latency_s: float = 0.0
    model: str = ""


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A fragment of the answer's text."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A fragment of the model's reasoning (``reasoning_content``/``thinking``)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of tool call ``index``: its id and name arrive first, then arguments."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


StreamEvent = TextDelta | ReasoningDelta | ToolCallDelta
EventSink = Callable[[StreamEvent], None]


class ProviderError(Exception):
    """A failed LLM call. ``retryable`` errors may succeed if tried again later."""

    retryable: bool = False

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class ProviderUnavailableError(ProviderError):
    """The endpoint could not be reached or the connection broke mid-answer."""

    retryable = True


class ProviderTimeoutError(ProviderError):
    """The request took longer than the configured timeout."""

    retryable = True


class RateLimitedError(ProviderError):
    """HTTP 429; ``retry_after`` holds the server's hint in seconds when it gave one."""

    retryable = True


class ServerError(ProviderError):
    """HTTP 5xx from the model server."""

    retryable = True

    def __init__(self, message: str, *, status: int, retry_after: float | None = None) -> None:
        super().__init__(message, retry_after=retry_after)
        self.status = status


class AuthenticationError(ProviderError):
    """HTTP 401/403: the API key is missing, wrong or lacks access."""


class ModelNotFoundError(ProviderError):
    """The server does not know the model (HTTP 404, or not pulled in Ollama)."""


class BadRequestError(ProviderError):
    """HTTP 400/422 and other refusals; ``message`` carries the server's own words."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class MalformedResponseError(ProviderError):
    """The server answered something that is not a valid chat response."""

    retryable = True


@runtime_checkable
class Provider(Protocol):
    """An LLM behind Zoea Nova's one call."""

    #: What the UI shows as the model, e.g. ``"qwen3:8b"`` or ``"autopilot (rule-based)"``.
    label: str

    async def chat(self, request: ChatRequest, on_event: EventSink | None = None) -> ChatResponse:
        """Answer one composed request."""
        ...

    async def aclose(self) -> None:
        """Release connections; the provider is not used afterwards."""
        ...

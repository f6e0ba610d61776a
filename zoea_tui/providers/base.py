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
from ..core.failures import FAILURE_LABELS, FailureKind
from ..core.game_tool import ToolsSetting
from ..core.types import ToolCall

Message = dict[str, Any]
ToolSchema = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    """What a provider needs to know about the Mysis's model.

    ``timeout`` bounds one whole request (connect, prompt processing and the
    full answer); ``context_window`` is sent to servers that need it (Ollama's
    ``num_ctx``); ``tools`` says how the Mysis's requests carry the game's tools
    (``core/game_tool.py``): the runtime resolves ``"auto"`` to a mode (``tools_modes``)
    and asks the router for the tools in it.
    """

    model: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    context_window: int = DEFAULT_CONTEXT_WINDOW
    timeout: float = 600.0
    seed: int | None = None
    tools: ToolsSetting = "auto"
    #: Rounds of tool calls the runtime allows a turn (a provider that ends its own
    #: turns, as the autopilot does, ends them before); None: not said.
    turn_rounds: int | None = None

    def sampling(self, max_tokens_key: str = "max_tokens") -> dict[str, float | int]:
        """The sampling settings that are set (``temperature``, ``max_tokens``, ``seed``;
        one left None is left out), as a request body sends them; a wire that names
        ``max_tokens`` otherwise gives its name (Ollama's ``num_predict``)."""
        named = {
            "temperature": self.temperature,
            max_tokens_key: self.max_tokens,
            "seed": self.seed,
        }
        return {key: value for key, value in named.items() if value is not None}


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One LLM call: messages and tools as the composer and router made them."""

    messages: Sequence[Message]
    tools: Sequence[ToolSchema] = ()
    settings: ProviderSettings = field(default_factory=ProviderSettings)
    stream: bool = True
    #: Which round of its turn this request is (1: the turn's first), when the runtime
    #: says; never sent to a server (the autopilot ends its turn by it).
    turn_round: int | None = None


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
    #: Prompt tokens the server wrote to its prompt cache for later requests to read
    #: (Anthropic's ``cache_creation_input_tokens``, billed above an input token; None
    #: when the server reports no such thing).
    cache_write_tokens: int | None = None


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
    """A failed LLM call. ``retryable`` errors may succeed if tried again later.

    ``kind`` is the failure's class (:data:`FailureKind`); ``said`` the server's own
    words when it gave any (an error body, a status line), which every view shows.
    """

    retryable: bool = False
    kind: FailureKind = "refused"

    def __init__(
        self, message: str, *, retry_after: float | None = None, said: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
        self.said = said

    def describe(self) -> str:
        """One line for the commander: the class, then what happened."""
        return f"{FAILURE_LABELS[self.kind]}: {self.message}"


class ProviderUnavailableError(ProviderError):
    """The endpoint could not be reached (no connection, or it dropped before answering)."""

    retryable = True
    kind: FailureKind = "unreachable"


class ProviderTimeoutError(ProviderError):
    """The request took longer than the configured timeout."""

    retryable = True
    kind: FailureKind = "timeout"


class BrokenAnswerError(ProviderError):
    """An answer that came (HTTP 200) and broke: ``streamed`` tells whether the request
    was streamed, for a provider whose stream mode is ``auto`` then sends it again
    unstreamed (some servers break streamed tool calls)."""

    def __init__(self, message: str, *, streamed: bool = True, said: str | None = None) -> None:
        super().__init__(message, said=said)
        self.streamed = streamed


class CutShortError(BrokenAnswerError):
    """The answer began (HTTP 200) and stopped before its end: a broken stream."""

    retryable = True
    kind: FailureKind = "cut_short"


class TooLargeError(ProviderError):
    """The answer grew past the provider's ``max_answer_bytes``: its read stopped there.

    Not retried: a server that streams without end, or a model that rambles past every
    cap, does it again for the same request. ``limit`` is the cap in bytes.
    """

    retryable = False
    kind: FailureKind = "too_large"

    def __init__(self, message: str, *, limit: int, said: str | None = None) -> None:
        super().__init__(message, said=said)
        self.limit = limit


class EmptyAnswerError(BrokenAnswerError):
    """The answer ended with nothing in it: no text, no tool call and no finish reason
    (llama-cpp-python's server can stream only a role chunk and ``[DONE]``).

    Retried: the same request tends to be answered the next time.
    """

    retryable = True
    kind: FailureKind = "empty_answer"


class RateLimitedError(ProviderError):
    """HTTP 429; ``retry_after`` holds the server's hint in seconds when it gave one."""

    retryable = True
    kind: FailureKind = "rate_limited"


class ServerError(ProviderError):
    """HTTP 5xx from the model server.

    Transient unless the server names a failure it will repeat for the same request
    (it could not parse what it was sent): then ``retryable`` is False.
    """

    retryable = True
    kind: FailureKind = "server_error"

    def __init__(
        self,
        message: str,
        *,
        status: int,
        retry_after: float | None = None,
        said: str | None = None,
        repeats: bool = False,
    ) -> None:
        super().__init__(message, retry_after=retry_after, said=said)
        self.status = status
        if repeats:
            self.retryable = False


class AuthenticationError(ProviderError):
    """HTTP 401/403: the API key is missing, wrong or lacks access."""


class ModelNotFoundError(ProviderError):
    """The server does not know the model (HTTP 404, or not pulled in Ollama)."""


class BadRequestError(ProviderError):
    """HTTP 400/422 and other refusals; ``message`` carries the server's own words."""

    def __init__(self, message: str, *, status: int = 400, said: str | None = None) -> None:
        super().__init__(message, said=said if said is not None else message)
        self.status = status


class MalformedResponseError(ProviderError):
    """The server answered something that is not a valid chat response.

    A client does not retry it by itself (a garbled body tends to repeat); its caller
    may, once, unless ``retryable`` is off: a web page or an empty answer comes back the
    same every time (a proxy, a wrong port or path).
    """

    retryable = True
    kind: FailureKind = "not_compatible"

    def __init__(self, message: str, *, said: str | None = None, repeats: bool = False) -> None:
        super().__init__(message, said=said)
        if repeats:
            self.retryable = False


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

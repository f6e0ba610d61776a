"""What the HTTP clients share: one exchange, one error mapping, the retry policy.

:class:`HttpProvider` is the frame of every HTTP model client: it owns (or
borrows) the ``httpx.AsyncClient``, retries transient failures with backoff and
``Retry-After``, and measures latency; it sends a request and reads the answer,
streamed or whole (:meth:`HttpProvider._read`). A subclass builds the request body
and states how its answer is parsed (an :class:`Answer`). :func:`exchange`
turns every transport failure and refusal into a typed :class:`ProviderError`
whose text never contains the API key.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, ClassVar, Literal, Protocol, TypedDict, TypeVar, Unpack

import httpx

from ..config import DEFAULT_MAX_ANSWER_BYTES, StreamSetting, unset_key_env
from ..core.failures import failure_label
from ..core.redaction import TOKEN_MASK, mask_text
from ..core.retry import CLIENT, MAX_SERVER_WAIT, RetryPolicy, Sleep, seconds_words, with_retries
from .base import (
    AuthenticationError,
    BadRequestError,
    BrokenAnswerError,
    ChatRequest,
    ChatResponse,
    CutShortError,
    EmptyAnswerError,
    EventSink,
    MalformedResponseError,
    ModelNotFoundError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnavailableError,
    RateLimitedError,
    ServerError,
    TooLargeError,
)

logger = logging.getLogger(__name__)


_MAX_ERROR_TEXT = 500
#: The most bytes of an error's body read for its words (a JSON error is far smaller).
_ERROR_BODY_BYTES = 64 * 1024

#: A 5xx that names one of these failed on what it was sent: the same request fails
#: the same way again (llama.cpp: "Failed to parse tool call arguments as JSON").
_REPEATS = re.compile(r"\bpars(?:e|ing)\b|\bjson\b", re.IGNORECASE)
#: A refusal that says the request does not fit the server's context.
_TOO_LONG = re.compile(r"context (?:size|length|window)|too many tokens|exceeds?\b", re.IGNORECASE)
#: The context refusals that count the answer apart (OpenAI, vLLM, llama-cpp-python's
#: server): "maximum context length is 8192 tokens. However, you requested 9216 tokens
#: (8192 in the messages, 1024 in the completion)".
_CONTEXT_PARTS = re.compile(
    r"maximum context length is (\d+) tokens.*?requested (\d+) tokens "
    r"\((\d+) in the messages, (\w+) in the completion\)",
    re.IGNORECASE | re.DOTALL,
)
#: llama-cpp-python's own words (its ``Llama``): "Requested tokens (8192) exceed context
#: window of 8192".
_REQUESTED_TOKENS = re.compile(
    r"requested tokens \((\d+)\) exceed context window of (\d+)", re.IGNORECASE
)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]+>")


def is_transient(error: Exception) -> bool:
    """True for the failures a client retries by itself: those whose ``retryable`` is set
    (a 5xx that names a parse error and a refusal are not), but for a malformed answer."""
    return isinstance(error, ProviderError) and error.retryable and error.kind != "not_compatible"


def retry_after(error: Exception) -> float | None:
    """The server's own wait (``Retry-After``) carried by a :class:`ProviderError`."""
    return error.retry_after if isinstance(error, ProviderError) else None


#: Told each failure about to be tried again, with the wait chosen (seconds).
OnRetry = Callable[[Exception, float], Awaitable[None]]


async def _log_retry(error: Exception, wait: float) -> None:
    logger.info("retrying in %.2f s after: %s", wait, getattr(error, "message", error))


def retry_line(error: Exception, wait: float) -> str:
    """A retry in one line, for a pane or stderr: "rate limited · next try in 5 s"."""
    kind = error.kind if isinstance(error, ProviderError) else None
    return f"{failure_label(kind)} · next try in {seconds_words(wait)}"


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP-date); None if unusable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:  # "nan" and "inf" parse as floats and are no wait
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def redact(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` (the API key) and every secret's field masked."""
    return mask_text(text, (secret,) if secret else (), mask=TOKEN_MASK)


def html_gist(text: str) -> str | None:
    """What an HTML page says in a line (its title, else its first words); None if the
    text is not HTML."""
    head = text.lstrip()[:200].lower()
    if not (head.startswith("<!doctype html") or head.startswith("<html") or "<body" in head):
        return None
    title = _HTML_TITLE.search(text)
    words = title.group(1) if title else _HTML_TAG.sub(" ", text)
    return " ".join(words.split())[:120] or "an empty page"


def server_message(body: bytes, secret: str | None = None) -> str:
    """The server's own words from an error body (OpenAI, Ollama, plain text or a web
    page, of which the title)."""
    text = body.decode("utf-8", errors="replace").strip()
    if (gist := html_gist(text)) is not None:
        return redact(f"a web page: {gist}", secret)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict):
            error = error.get("message") or json.dumps(error)
        if isinstance(error, str) and error:
            text = error
    if len(text) > _MAX_ERROR_TEXT:
        text = text[:_MAX_ERROR_TEXT] + "…"
    return redact(text, secret) or "(empty body)"


def error_for_status(
    status: int,
    body: bytes,
    headers: Mapping[str, str],
    *,
    url: str,
    secret: str | None = None,
    unset_env: str | None = None,
) -> ProviderError:
    """The typed error for an HTTP refusal, with the server's message in its text.

    ``unset_env``: the variable the provider's ``api_key_env`` names when it held no key
    (so none was sent); a refusal of the key names it."""
    said = server_message(body, secret)
    retry_after = parse_retry_after(headers.get("retry-after"))
    where = f"{url} answered HTTP {status}: {said}"
    if status in (401, 403):
        check = (
            f"No key was sent: api_key_env {unset_key_env(unset_env)}"
            if unset_env
            else "Check the provider's API key and its access"
        )
        return AuthenticationError(f"{where}. {check}.", said=said)
    if status == 404:
        return ModelNotFoundError(f"{where}. Check the endpoint and the model name.", said=said)
    if status == 429:
        return RateLimitedError(
            f"{where}. {_rate_limit_advice(retry_after)}", retry_after=retry_after, said=said
        )
    if status >= 500:
        return ServerError(
            where,
            status=status,
            retry_after=retry_after,
            said=said,
            repeats=bool(_REPEATS.search(said)),
        )
    if answer_exceeds_context(said):
        where += (
            ". The answer ran past the server's context: lower max_tokens in the "
            "provider's configuration (the room kept for the answer), or start the server "
            "with a larger context (llama.cpp: -c)"
        )
    elif _TOO_LONG.search(said):
        where += (
            ". The request is larger than the server's context: start the server with a "
            "larger context, or lower context_window in the provider's configuration"
        )
    return BadRequestError(where, status=status, said=said)


def _rate_limit_advice(retry_after: float | None) -> str:
    """What a 429 asks for: its wait when it named one, and whether that is past the cap."""
    if retry_after is None:
        return "Rate limited: the server asks to slow down (it named no wait)."
    asked = f"Rate limited: the server asks for a wait of {seconds_words(retry_after)}"
    if retry_after > MAX_SERVER_WAIT:
        return (
            f"{asked}, longer than the {seconds_words(MAX_SERVER_WAIT)} the app waits for a "
            "server (core/retry.py MAX_SERVER_WAIT); try again later, or check the plan's "
            "limits."
        )
    return f"{asked} (Retry-After)."


def answer_exceeds_context(said: str) -> bool:
    """Whether a context refusal says the *answer* overflowed, not the prompt.

    Either the prompt fits and the answer's cap does not fit beside it (OpenAI, vLLM:
    "… 7000 in the messages, 2000 in the completion" over 8192), or the prompt counted is
    the whole context: the server generated until its context was full and then asked for
    more (llama-cpp-python's server with tools, which ignores ``max_tokens``: "you
    requested 8192 tokens (8192 in the messages, …)" of 8192; its ``Llama``: "Requested
    tokens (8192) exceed context window of 8192"). A prompt over the context ("1247 in
    the messages" of 256) is the request's own size.
    """
    if parts := _CONTEXT_PARTS.search(said):
        context, messages = int(parts.group(1)), int(parts.group(3))
        completion = int(parts.group(4)) if parts.group(4).isdigit() else 0
        return messages == context or (messages < context < messages + completion)
    if raw := _REQUESTED_TOKENS.search(said):
        return int(raw.group(1)) == int(raw.group(2))
    return False


def stream_error(data: Any, *, url: str, secret: str | None = None) -> ProviderError | None:
    """The error carried by a chunk of a 200 answer (``{"error": ...}``), if it is one."""
    if not isinstance(data, dict) or not data.get("error"):
        return None
    said = server_message(json.dumps(data).encode(), secret)
    return ServerError(
        f"{url} reported an error mid-answer: {said}",
        status=500,
        said=said,
        repeats=bool(_REPEATS.search(said)),
    )


def not_compatible(response: httpx.Response, body: bytes, *, url: str) -> ProviderError | None:
    """The error for a 200 answer that is no chat completion at all (a web page, an empty
    body), before anyone tries to parse it; None when it may be one."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    text = body.decode("utf-8", errors="replace")
    gist = html_gist(text)
    if kind == "text/html" or gist is not None:
        return MalformedResponseError(
            f"{url} answered a web page ({kind or 'no content type'}: {gist or 'no title'}), "
            "not an OpenAI-compatible answer: check the endpoint's address, port and path.",
            said=gist,
            repeats=True,
        )
    if not text.strip():
        return MalformedResponseError(
            f"{url} answered HTTP {response.status_code} with an empty body, not an "
            "OpenAI-compatible answer: check the endpoint's address, port and path.",
            repeats=True,
        )
    return None


def load_json(text: bytes | str, *, url: str) -> Any:
    """Parse a JSON answer or raise :class:`MalformedResponseError`."""
    try:
        return json.loads(text)
    except ValueError as exc:
        shown = text if isinstance(text, str) else text.decode("utf-8", errors="replace")
        shown = " ".join(shown.split())[:80]
        raise MalformedResponseError(
            f"{url} answered something that is not JSON ({exc}): {shown!r}, not an "
            "OpenAI-compatible answer."
        ) from None


def too_large(url: str, limit: int) -> TooLargeError:
    """The failure of an answer whose read stopped at ``limit`` bytes."""
    return TooLargeError(
        f"The answer from {url} passed {limit:,} bytes ({_mib(limit)}, the provider's "
        "max_answer_bytes); its read stopped there. Lower max_tokens, or raise "
        "max_answer_bytes if such answers are meant.",
        limit=limit,
        said=f"more than {limit:,} bytes",
    )


def empty_answer(url: str, *, streamed: bool, finish: str = "finish reason") -> EmptyAnswerError:
    """The failure of an answer with no text, no tool call and no ``finish`` (the
    protocol's name for its finish reason)."""
    how = "streamed answer" if streamed else "answer"
    return EmptyAnswerError(
        f"The {how} from {url} held no text, no tool call and no {finish}.",
        streamed=streamed,
        said=f"no text, no tool call, no {finish}",
    )


def _mib(size: int) -> str:
    return f"{size / 1024 / 1024:.3g} MiB" if size >= 1024 * 1024 else f"{size / 1024:.3g} KiB"


async def bounded_chunks(
    response: httpx.Response, *, url: str, limit: int = DEFAULT_MAX_ANSWER_BYTES
) -> AsyncIterator[bytes]:
    """The body's chunks as they come; past ``limit`` bytes in all, raises
    :class:`TooLargeError` (the caller's exchange then closes the connection)."""
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > limit:
            raise too_large(url, limit)
        yield chunk


async def read_body(
    response: httpx.Response, *, url: str, limit: int = DEFAULT_MAX_ANSWER_BYTES
) -> bytes:
    """The whole body, at most ``limit`` bytes (:class:`TooLargeError` past it)."""
    body = bytearray()
    async for chunk in bounded_chunks(response, url=url, limit=limit):
        body += chunk
    return bytes(body)


async def read_json(
    response: httpx.Response, *, url: str, limit: int = DEFAULT_MAX_ANSWER_BYTES
) -> Any:
    """The whole JSON body of a 200 answer; a web page, an empty body or text that is not
    JSON raises :class:`MalformedResponseError` saying what came, a body past ``limit``
    bytes :class:`TooLargeError`."""
    body = await read_body(response, url=url, limit=limit)
    if error := not_compatible(response, body, url=url):
        raise error
    return load_json(body, url=url)


def streams_events(response: httpx.Response, streamed: bool) -> bool:
    """Whether a 200 answer is a stream of events (SSE or NDJSON) rather than one body.

    A server that ignores ``stream`` answers one JSON body to a streamed request, and
    some stream whatever they are asked: the answer's content type decides.
    """
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind in ("text/event-stream", "application/x-ndjson"):
        return True
    return streamed and kind not in ("application/json", "text/html")


@asynccontextmanager
async def exchange(
    client: httpx.AsyncClient,
    url: str,
    *,
    timeout: float,
    method: str = "POST",
    headers: Mapping[str, str] | None = None,
    json_body: Any = None,
    secret: str | None = None,
    unset_env: str | None = None,
    streamed: bool = False,
) -> AsyncIterator[httpx.Response]:
    """Send one request and yield its successful, still-open response.

    ``timeout`` bounds the whole exchange, reading the answer included. Every
    failure inside leaves as a typed ProviderError: no connection is
    *unreachable*; a connection that breaks once the answer began (HTTP 200) is
    *cut short* (``streamed`` says whether the request was streamed). A kept-alive
    connection that the server closed meanwhile is tried once more on a new one
    before anything is said (servers drop a connection after a broken stream).
    ``unset_env`` is :func:`error_for_status`'s.
    Cancellation closes the response and propagates unchanged.
    """
    answered = False
    try:
        async with asyncio.timeout(timeout):
            request = client.build_request(
                method, url, headers=headers, json=json_body, timeout=httpx.Timeout(timeout)
            )
            try:
                response = await client.send(request, stream=True)
            except (httpx.ReadError, httpx.RemoteProtocolError, httpx.WriteError):
                response = await client.send(request, stream=True)
            try:
                if response.status_code >= 400:
                    body = await _error_body(response)
                    raise error_for_status(
                        response.status_code,
                        body,
                        response.headers,
                        url=url,
                        secret=secret,
                        unset_env=unset_env,
                    )
                answered = True
                yield response
            finally:
                await response.aclose()
    except (TimeoutError, httpx.TimeoutException):
        raise ProviderTimeoutError(
            f"No complete answer from {url} within {timeout:g} s (the provider's timeout)."
        ) from None
    except httpx.TransportError as exc:
        detail = redact(str(exc), secret) or type(exc).__name__
        if answered:
            raise CutShortError(
                f"The answer from {url} broke off after HTTP 200 ({detail}).", streamed=streamed
            ) from None
        raise ProviderUnavailableError(f"Could not reach {url}: {detail}.") from None
    except httpx.DecodingError as exc:
        raise MalformedResponseError(f"{url} sent an undecodable body: {exc}.") from None


async def lines(
    response: httpx.Response, *, url: str, limit: int = DEFAULT_MAX_ANSWER_BYTES
) -> AsyncIterator[str]:
    """The lines of a body (ended by ``\n`` or ``\r\n``), at most ``limit`` bytes in all:
    a stream that never ends, or a line that never does, stops there with
    :class:`TooLargeError`, so what is held never passes ``limit``."""
    pending = bytearray()
    async for chunk in bounded_chunks(response, url=url, limit=limit):
        pending += chunk
        start = 0
        while (end := pending.find(b"\n", start)) >= 0:
            yield pending[start:end].rstrip(b"\r").decode("utf-8", errors="replace")
            start = end + 1
        del pending[:start]
    if pending:
        yield pending.rstrip(b"\r").decode("utf-8", errors="replace")


async def _error_body(response: httpx.Response) -> bytes:
    """An error's body, read no further than its words need (an error page that never
    ends is not read to its end)."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > _ERROR_BODY_BYTES:
            break
    return bytes(body[:_ERROR_BODY_BYTES])


async def sse_data(
    response: httpx.Response, *, url: str, limit: int = DEFAULT_MAX_ANSWER_BYTES
) -> AsyncIterator[str]:
    """The ``data`` of each Server-Sent Event of a response (multi-line data joined),
    the whole stream at most ``limit`` bytes (:func:`lines`)."""
    data: list[str] = []
    async for line in lines(response, url=url, limit=limit):
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            data.append(line[6:] if line.startswith("data: ") else line[5:])
    if data:
        yield "\n".join(data)


async def ndjson_lines(
    response: httpx.Response, *, url: str, limit: int = DEFAULT_MAX_ANSWER_BYTES
) -> AsyncIterator[str]:
    """The non-blank lines of a newline-delimited JSON response, at most ``limit`` bytes
    in all (:func:`lines`)."""
    async for line in lines(response, url=url, limit=limit):
        if line.strip():
            yield line


_R_co = TypeVar("_R_co", covariant=True)
_R = TypeVar("_R")


class Answer(Protocol[_R_co]):
    """What one answer adds up to, in a client's own reading of its wire: event by event
    when the server streams, else from one JSON body. :meth:`HttpProvider._read` feeds it;
    what it yields is the client's (a :class:`ChatResponse`, or one with what else the
    client keeps of it)."""

    #: Whether the event that ends the answer has come: the read stops there.
    done: bool

    def add(self, event: str, url: str, on_event: EventSink | None) -> None:
        """Take in one streamed event's text (an SSE event's data, an NDJSON line),
        reporting its deltas to ``on_event``."""

    def finish(self, url: str) -> _R_co:
        """The streamed answer once its events are read; a stream that stopped before its
        end raises."""

    def whole(self, data: Any, url: str, *, streamed: bool) -> _R_co:
        """The answer of one JSON body (``streamed``: the request asked for a stream and
        the server answered one body)."""


class HttpOptions(TypedDict, total=False):
    """The keyword arguments every HTTP client takes, all optional; :class:`HttpProvider`
    reads them, and a subclass passes them through (``**options``) and names only its own.
    """

    #: The ``httpx`` client to borrow (not closed by ``aclose``); default: one of its own.
    client: httpx.AsyncClient | None
    #: One of the policies of ``core/retry.py``; default :data:`~zoea_tui.core.retry.CLIENT`.
    retry: RetryPolicy
    #: How a retry waits (injectable for tests); default :func:`asyncio.sleep`.
    sleep: Sleep
    #: Hears each retry with its wait; default: a log line.
    on_retry: OnRetry | None
    #: The provider's ``stream`` key; default ``"auto"``.
    stream: StreamSetting
    #: The most bytes one answer may take; default :data:`DEFAULT_MAX_ANSWER_BYTES`.
    max_answer_bytes: int
    #: The variable the key was to come from, named by a 401 when it held none.
    api_key_env: str | None


class HttpProvider:
    """The frame shared by the HTTP clients: client, retries, latency, headers, and how
    it streams.

    Subclasses implement :meth:`_attempt` (one try of one request, streamed or not as
    the request says: its body and its :class:`Answer`, sent and read by :meth:`_read`)
    and set ``label``. The API key only ever travels in the
    ``Authorization`` header.

    ``stream`` is the provider's ``stream`` key: True or False fix the mode. Under
    ``"auto"``, a streamed request with tools whose stream the server breaks (cut short,
    a chunk that is not JSON, an empty answer) is sent again at once unstreamed. When the
    server answers that, it broke a stream it could have answered: after
    :data:`STREAM_STRIKES` such breaks the provider stays unstreamed for the session
    (:attr:`streaming` turns False and :attr:`notes` says why). When it does not answer
    (it was killed mid-answer, it is gone), the request failed for that, the stream's
    failure is raised, and streaming stays on. A refusal whose words name streaming is
    believed at once. A retry never repeats a request in a mode the server has refused.

    ``max_answer_bytes`` caps every answer read, streamed or not (:func:`lines`,
    :func:`read_body`): past it the call fails :class:`TooLargeError`.
    """

    label: str
    #: Where the chat route is, below the endpoint (``/chat/completions``, ``/api/chat``).
    chat_path: ClassVar[str] = ""
    #: How the chat route frames a streamed answer: Server-Sent Events or
    #: newline-delimited JSON.
    stream_format: ClassVar[Literal["sse", "ndjson"]] = "sse"

    def __init__(
        self, endpoint: str, model: str, api_key: str | None = None, **options: Unpack[HttpOptions]
    ) -> None:
        client = options.get("client")
        stream = options.get("stream", "auto")
        self.endpoint = endpoint.rstrip("/")
        #: The chat route's URL.
        self.url = f"{self.endpoint}{self.chat_path}"
        self.model = model
        self.label = model
        self._api_key = api_key or None
        #: The variable ``api_key_env`` names when it held no key: a 401 names it.
        self._unset_env = None if self._api_key else options.get("api_key_env")
        self._owns_client = client is None
        self._client = client if client is not None else httpx.AsyncClient()
        # One of the retry policies named in core/retry.py (a Mysis's client: ONCE, its
        # runtime retries); a Retry-After past the cap escapes with its ``retry_after``.
        self._retry = options.get("retry", CLIENT)
        self._sleep = options.get("sleep", asyncio.sleep)
        self._on_retry = options.get("on_retry") or _log_retry
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.stream_setting: StreamSetting = stream
        #: The most bytes one answer may take (``max_answer_bytes``).
        self.max_answer_bytes = options.get("max_answer_bytes", DEFAULT_MAX_ANSWER_BYTES)
        #: Whether requests that ask to stream are streamed (False once ``auto`` gave up).
        self._streams = stream is not False
        #: Streamed answers the server broke and then answered unstreamed.
        self.broken_streams = 0
        #: Whether the last request went streamed (before any: whether requests that ask
        #: to stream will be); the requests log records it per request.
        self.streaming = self._streams
        #: What the commander should know about this provider, by topic ("stream",
        #: "context"): shown on the Mysis's provider line and in the request inspector.
        self.notes: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(endpoint={self.endpoint!r}, model={self.model!r})"

    async def chat(self, request: ChatRequest, on_event: EventSink | None = None) -> ChatResponse:
        """Answer one request, retrying transient failures; latency covers the retries.

        A provider that names no model (one the environment's conventions added) flies
        the first model its server lists, found at its first request."""
        started = time.perf_counter()
        if not (request.settings.model or self.model):
            await self._choose_model()
        response = await with_retries(
            lambda: self._adapting(request, on_event),
            self._retry,
            sleep=self._sleep,
            transient=is_transient,
            hint=retry_after,
            on_retry=self._on_retry,
        )
        return replace(response, latency_s=time.perf_counter() - started)

    async def _adapting(self, request: ChatRequest, on_event: EventSink | None) -> ChatResponse:
        """One try in the mode the server has not refused; under ``auto``, a streamed try
        that the server breaks is sent again at once unstreamed (see the class)."""
        streamed = request.stream and self._streams
        if streamed != request.stream:
            request = replace(request, stream=streamed)
        self.streaming = streamed
        try:
            return await self._attempt(request, on_event)
        except ProviderError as error:
            if not (streamed and self.stream_setting == "auto"):
                raise
            if _names_streaming(error):
                self._stop_streaming(f"the server refused a streamed request ({_said(error)})")
            elif not (request.tools and _breaks_stream(error)):
                raise
            else:
                return await self._after_broken_stream(request, on_event, error)
        self.streaming = False
        return await self._attempt(replace(request, stream=False), on_event)

    async def _after_broken_stream(
        self, request: ChatRequest, on_event: EventSink | None, broken: ProviderError
    ) -> ChatResponse:
        """Send again unstreamed a request whose stream broke: an answer shows that the
        server broke the stream (a strike); no answer, that it went away mid-answer."""
        self.streaming = False
        try:
            response = await self._attempt(replace(request, stream=False), on_event)
        except ProviderError as again:
            if again.kind == "unreachable":
                raise broken from None  # it went away mid-answer: no server that cannot stream
            raise
        self.broken_streams += 1
        said = _said(broken)
        if self.broken_streams >= STREAM_STRIKES:
            self._stop_streaming(
                f"the server broke {self.broken_streams} streamed answers to tool requests "
                f"and answered them unstreamed (last: {said})"
            )
        else:
            self.notes["stream"] = (
                f"streamed; the server broke {self.broken_streams} streamed answer "
                f"(answered unstreamed): {said}"
            )
            logger.info("%s: a broken stream answered unstreamed: %s", self.endpoint, said)
        return response

    def _stop_streaming(self, why: str) -> None:
        self._streams = False
        self.notes["stream"] = f"unstreamed: {why}"
        logger.warning("%s: sending unstreamed from now on: %s", self.endpoint, why)

    async def list_models(self, *, timeout: float = 5.0) -> list[str]:
        """The models the server lists, in its order; raises its failure."""
        raise NotImplementedError

    async def _choose_model(self) -> None:
        listed = await self.list_models()
        if not listed:
            raise ModelNotFoundError(
                f"{self.endpoint} lists no model and none is configured: choose one with c "
                "(configure), or name it in the configuration"
            )
        self.model = self.label = listed[0]
        logger.info("%s: flying %s, the first model the server lists", self.endpoint, self.model)

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it."""
        if self._owns_client:
            await self._client.aclose()

    def _model_of(self, request: ChatRequest) -> str:
        return request.settings.model or self.model

    def _exchange(
        self,
        url: str,
        timeout: float,
        json_body: Any = None,
        method: str = "POST",
        *,
        streamed: bool = False,
    ) -> AbstractAsyncContextManager[httpx.Response]:
        return exchange(
            self._client,
            url,
            timeout=timeout,
            method=method,
            headers=self._headers,
            json_body=json_body,
            secret=self._api_key,
            unset_env=self._unset_env,
            streamed=streamed,
        )

    async def _attempt(self, request: ChatRequest, on_event: EventSink | None) -> ChatResponse:
        """One try of one request, streamed or not as it says (:meth:`_read` sends it)."""
        raise NotImplementedError

    async def _read(
        self,
        request: ChatRequest,
        body: dict[str, Any],
        answer: Answer[_R],
        on_event: EventSink | None,
    ) -> _R:
        """Send ``body``, one try of ``request``, to the chat route and read the reply into
        ``answer``: event by event up to the one that ends it when the server streams
        (whatever was asked: :func:`streams_events`), else as one JSON body; either read
        stops at ``max_answer_bytes``."""
        streamed = request.stream
        async with self._exchange(
            self.url, request.settings.timeout, body, streamed=streamed
        ) as response:
            limit = self.max_answer_bytes
            if streams_events(response, streamed):
                events = ndjson_lines if self.stream_format == "ndjson" else sse_data
                async for event in events(response, url=self.url, limit=limit):
                    answer.add(event, self.url, on_event)
                    if answer.done:
                        break
                return answer.finish(self.url)
            data = await read_json(response, url=self.url, limit=limit)
        return answer.whole(data, self.url, streamed=streamed)


#: Streamed answers a server may break (and answer unstreamed) before a provider under
#: ``stream = "auto"`` stops streaming for the session.
STREAM_STRIKES = 2


def _said(error: ProviderError) -> str:
    return error.said or error.message


def _names_streaming(error: ProviderError) -> bool:
    """Whether the server refused a streamed request in words that name streaming."""
    return error.kind in ("refused", "server_error") and "stream" in (error.said or "").lower()


def _breaks_stream(error: ProviderError) -> bool:
    """Whether a failed streamed request broke as a stream: cut short after HTTP 200, a
    chunk that is not JSON, or nothing in it."""
    if isinstance(error, BrokenAnswerError):
        return error.streamed
    return isinstance(error, MalformedResponseError) and error.retryable

"""What the HTTP clients share: one exchange, one error mapping, the retry policy.

:class:`HttpProvider` is the frame of every HTTP model client: it owns (or
borrows) the ``httpx.AsyncClient``, retries transient failures with backoff and
``Retry-After``, and measures latency; a subclass only builds the request body
and reads the answer inside :meth:`HttpProvider._attempt`. :func:`exchange`
turns every transport failure and refusal into a typed :class:`ProviderError`
whose text never contains the API key.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from ..core.retry import RetryPolicy, Sleep, with_retries
from .base import (
    AuthenticationError,
    BadRequestError,
    ChatRequest,
    ChatResponse,
    EventSink,
    MalformedResponseError,
    ModelNotFoundError,
    ProviderError,
    ProviderTimeoutError,
    ProviderUnavailableError,
    RateLimitedError,
    ServerError,
)

logger = logging.getLogger(__name__)


#: The failures a client retries by itself; anything else escapes at once. A malformed
#: answer is retryable for the caller but not retried here: a garbled body tends to repeat.
TRANSIENT: tuple[type[ProviderError], ...] = (
    ProviderUnavailableError,
    ProviderTimeoutError,
    RateLimitedError,
    ServerError,
)
_MAX_ERROR_TEXT = 500


def is_transient(error: Exception) -> bool:
    """True for the failures a client retries by itself (:data:`TRANSIENT`)."""
    return isinstance(error, TRANSIENT)


def retry_after(error: Exception) -> float | None:
    """The server's own wait (``Retry-After``) carried by a :class:`ProviderError`."""
    return error.retry_after if isinstance(error, ProviderError) else None


async def _log_retry(error: Exception, wait: float) -> None:
    logger.info("retrying in %.2f s after: %s", wait, getattr(error, "message", error))


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP-date); None if unusable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` masked."""
    return text.replace(secret, "***") if secret else text


def server_message(body: bytes, secret: str | None = None) -> str:
    """The server's own words from an error body (OpenAI, Ollama or plain text)."""
    text = body.decode("utf-8", errors="replace").strip()
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
    status: int, body: bytes, headers: Mapping[str, str], *, url: str, secret: str | None = None
) -> ProviderError:
    """The typed error for an HTTP refusal, with the server's message in its text."""
    said = server_message(body, secret)
    retry_after = parse_retry_after(headers.get("retry-after"))
    where = f"{url} answered HTTP {status}: {said}"
    if status in (401, 403):
        return AuthenticationError(f"{where}. Check the provider's API key and its access.")
    if status == 404:
        return ModelNotFoundError(f"{where}. Check the endpoint and the model name.")
    if status == 429:
        return RateLimitedError(f"{where}. Rate limited; try again later.", retry_after=retry_after)
    if status >= 500:
        return ServerError(where, status=status, retry_after=retry_after)
    return BadRequestError(said, status=status)


def stream_error(data: Any, *, url: str, secret: str | None = None) -> ProviderError | None:
    """The error carried by a chunk of a 200 answer (``{"error": ...}``), if it is one."""
    if not isinstance(data, dict) or not data.get("error"):
        return None
    said = server_message(json.dumps(data).encode(), secret)
    return ServerError(f"{url} reported an error mid-answer: {said}", status=500)


def load_json(text: bytes | str, *, url: str) -> Any:
    """Parse a JSON answer or raise :class:`MalformedResponseError`."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise MalformedResponseError(f"{url} answered with invalid JSON ({exc}).") from None


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
) -> AsyncIterator[httpx.Response]:
    """Send one request and yield its successful, still-open response.

    ``timeout`` bounds the whole exchange, reading the answer included. Every
    failure inside (sending, refusal, reading) leaves as a typed ProviderError;
    cancellation closes the response and propagates unchanged.
    """
    try:
        async with asyncio.timeout(timeout):
            async with client.stream(
                method, url, headers=headers, json=json_body, timeout=httpx.Timeout(timeout)
            ) as response:
                if response.status_code >= 400:
                    body = await response.aread()
                    raise error_for_status(
                        response.status_code, body, response.headers, url=url, secret=secret
                    )
                yield response
    except (TimeoutError, httpx.TimeoutException):
        raise ProviderTimeoutError(
            f"No complete answer from {url} within {timeout:g} s (the provider's timeout)."
        ) from None
    except httpx.TransportError as exc:
        detail = redact(str(exc), secret) or type(exc).__name__
        raise ProviderUnavailableError(f"Could not reach {url}: {detail}.") from None
    except httpx.DecodingError as exc:
        raise MalformedResponseError(f"{url} sent an undecodable body: {exc}.") from None


async def sse_data(response: httpx.Response) -> AsyncIterator[str]:
    """The ``data`` of each Server-Sent Event of a response (multi-line data joined)."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            data.append(line[6:] if line.startswith("data: ") else line[5:])
    if data:
        yield "\n".join(data)


async def ndjson_lines(response: httpx.Response) -> AsyncIterator[str]:
    """The non-blank lines of a newline-delimited JSON response."""
    async for line in response.aiter_lines():
        if line.strip():
            yield line


class HttpProvider:
    """The frame shared by the HTTP clients: client, retries, latency, headers.

    Subclasses implement :meth:`_attempt` (one try of one request) and set
    ``label``. The API key only ever travels in the ``Authorization`` header.
    """

    label: str

    def __init__(
        self,
        endpoint: str,
        model: str,
        api_key: str | None = None,
        *,
        client: httpx.AsyncClient | None = None,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.model = model
        self.label = model
        self._api_key = api_key or None
        self._owns_client = client is None
        self._client = client if client is not None else httpx.AsyncClient()
        # The one retry policy (core/retry.py); a Retry-After over a minute escapes with
        # its ``retry_after`` so the caller can schedule the retry.
        self._retry = RetryPolicy(attempts=max_retries + 1, backoff_base=backoff_base)
        self._sleep = sleep
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.notes: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(endpoint={self.endpoint!r}, model={self.model!r})"

    async def chat(self, request: ChatRequest, on_event: EventSink | None = None) -> ChatResponse:
        """Answer one request, retrying transient failures; latency covers the retries."""
        started = time.perf_counter()
        response = await with_retries(
            lambda: self._attempt(request, on_event),
            self._retry,
            sleep=self._sleep,
            transient=is_transient,
            hint=retry_after,
            on_retry=_log_retry,
        )
        return replace(response, latency_s=time.perf_counter() - started)

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it."""
        if self._owns_client:
            await self._client.aclose()

    def _model_of(self, request: ChatRequest) -> str:
        return request.settings.model or self.model

    def _exchange(
        self, url: str, timeout: float, json_body: Any = None, method: str = "POST"
    ) -> AbstractAsyncContextManager[httpx.Response]:
        return exchange(
            self._client,
            url,
            timeout=timeout,
            method=method,
            headers=self._headers,
            json_body=json_body,
            secret=self._api_key,
        )

    async def _attempt(self, request: ChatRequest, on_event: EventSink | None) -> ChatResponse:
        raise NotImplementedError

"""What a model server says about itself: the context it gives a request.

A configured ``context_window`` is a wish; the server's slot is the fact. llama.cpp's
``llama-server`` refuses a prompt over its slot with HTTP 400 "request (N tokens)
exceeds the available context size (M tokens)", so the composer must fit the slot
(docs/ARCHITECTURE.md, 'Providers'). Two servers tell their size:

* ``llama-server``: ``GET /props`` → ``default_generation_settings.n_ctx``, the context
  of one slot (``-c`` divided by ``-np``, capped at the model's training context);
* Ollama: ``POST /api/show {"model": …}`` → ``model_info["<arch>.context_length"]``, the
  model's training context. (The ``num_ctx`` of its ``parameters`` is only a default:
  every request of ours sends its own ``options.num_ctx``.)

Discovery never fails a Mysis: a server that does not answer, or answers something
else (a cloud API's 404, an older server), simply tells nothing (None), quietly.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ._http import HttpProvider, load_json
from ._wire import as_count, as_dict, as_text

logger = logging.getLogger(__name__)

#: How long a discovery request may take: it is a nicety, never worth a long wait.
DISCOVERY_TIMEOUT = 5.0


@dataclass(frozen=True, slots=True)
class ServerContext:
    """The context a server gives one request, and where it said so."""

    tokens: int
    #: e.g. ``"llama-server /props"``: shown with a warning about it.
    source: str


@runtime_checkable
class ReportsContext(Protocol):
    """A provider that can ask its server for the context of a request."""

    async def server_context(self, model: str | None = None) -> ServerContext | None:
        """The server's context for ``model`` (None: it did not say)."""
        ...


def server_root(endpoint: str) -> str:
    """An OpenAI-compatible endpoint without its ``/v1``: where llama-server's own routes
    (``/props``) live."""
    endpoint = endpoint.rstrip("/")
    return endpoint[: -len("/v1")] if endpoint.endswith("/v1") else endpoint


async def llama_server_context(
    provider: HttpProvider, *, timeout: float = DISCOVERY_TIMEOUT
) -> ServerContext | None:
    """The context of one slot of a llama-server (``GET /props``); None elsewhere."""
    url = f"{server_root(provider.endpoint)}/props"
    data = await _quietly(provider, url, None, timeout)
    settings = as_dict(as_dict(data).get("default_generation_settings"))
    n_ctx = as_count(settings.get("n_ctx"))
    return ServerContext(n_ctx, "llama-server /props") if n_ctx and n_ctx > 0 else None


async def ollama_context(
    provider: HttpProvider, model: str, *, timeout: float = DISCOVERY_TIMEOUT
) -> ServerContext | None:
    """The training context of an Ollama model (``POST /api/show``); None when unknown."""
    url = f"{provider.endpoint}/api/show"
    shown = await _quietly(provider, url, {"model": model}, timeout)
    info = as_dict(as_dict(shown).get("model_info"))
    arch = as_text(info.get("general.architecture"))
    length = as_count(info.get(f"{arch}.context_length")) if arch else None
    if length is None:  # an architecture the server did not name: any "*.context_length"
        lengths = [as_count(v) for k, v in info.items() if k.endswith(".context_length")]
        length = next((n for n in lengths if n), None)
    return ServerContext(length, "ollama /api/show") if length and length > 0 else None


async def _quietly(
    provider: HttpProvider, url: str, body: dict[str, Any] | None, timeout: float
) -> Any:
    """The JSON answer of ``url`` (GET, or POST with ``body``); None on any failure."""
    method = "GET" if body is None else "POST"
    try:
        async with asyncio.timeout(timeout):
            async with provider._exchange(url, timeout, body, method=method) as response:
                return load_json(await response.aread(), url=url)
    except Exception as exc:  # whatever the server did, discovery must never fail a Mysis
        logger.debug("%s %s told nothing: %s", method, url, getattr(exc, "message", exc))
        return None

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

The same two routes say whether the chat template renders the tools a request offers
(each client's ``server_facts`` reads both in one request): llama-server's ``/props`` →
``chat_template_caps.supports_tools`` (a template without tools drops them from the
prompt, silently: SmolLM2's own does), Ollama's ``/api/show`` → ``capabilities``
(``"tools"`` among them, or not).

A llama-server also counts a request's prompt exactly as it will, before it is sent:
``POST /apply-template`` renders the request's messages and tools with the server's
chat template, ``POST /tokenize`` counts that text with the model's tokenizer
(:func:`llama_server_prompt_tokens`). The swarm checks its request against the slot with
that count and calibrates its estimate from it (``orchestrator/calibration.py``).

A llama-server with several slots (``-np``) keeps one prompt cache per slot, and a slot's
cache reaches another only through its host-memory prompt cache (``--cache-ram``, on by
default): a request goes to the idle slot whose cached prompt is most like it
(``--slot-prompt-similarity``, 0.1 by default; 0: never), else to the least recently used
one, which then loads the best prompt saved there (the entry moves into the slot); and
the prompts of the idle slots are saved there each time a task starts
(``--cache-idle-slots``, on by default). A prompt evaluated in one slot is in no other
slot and not saved until some task starts while that slot is idle.
:func:`llama_server_share_prefix` starts one such task once a swarm's first request has
been answered (a one-token completion of one character): its slot's prompt, the swarm's
shared prefix, is then saved, and each Mysis sent next finds it, in that slot or loaded
from the host-memory cache into its own (``orchestrator/warm_start.py``; what the engine
does with several Myses at once: docs/ARCHITECTURE.md, 'Proven on real engines').

Discovery never fails a Mysis: a server that does not answer, or answers something
else (a cloud API's 404, an older server), simply tells nothing (None), quietly.

The models a server lists come from ``GET {endpoint}/models`` (OpenAI-compatible servers:
``data[].id``) or Ollama's ``GET /api/tags`` (``models[].name``): :func:`list_models`
raises the server's failure in its class (``zoea probe`` reports it), :func:`listed_models`
tells nothing on any failure (the forms fall back to free text).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ._http import HttpProvider, load_json, read_body, read_json
from ._wire import as_count, as_dict, as_list, as_text

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
    return _props_context(await _llama_server_props(provider, timeout))


async def _llama_server_props(provider: HttpProvider, timeout: float) -> dict[str, Any]:
    return as_dict(
        await _quietly(provider, f"{server_root(provider.endpoint)}/props", None, timeout)
    )


def _props_context(props: dict[str, Any]) -> ServerContext | None:
    n_ctx = as_count(as_dict(props.get("default_generation_settings")).get("n_ctx"))
    return ServerContext(n_ctx, "llama-server /props") if n_ctx and n_ctx > 0 else None


@dataclass(frozen=True, slots=True)
class ServerFacts:
    """What a server says of itself in one request: its context, and whether its chat
    template renders the tools of a request (None: it does not say)."""

    context: ServerContext | None
    template_tools: bool | None


async def llama_server_facts(
    provider: HttpProvider, *, timeout: float = DISCOVERY_TIMEOUT
) -> ServerFacts:
    """A llama-server's facts from one ``GET /props``: the slot's ``n_ctx`` and
    ``chat_template_caps.supports_tools``; None for what another server (or an older
    build) does not say, quietly."""
    props = await _llama_server_props(provider, timeout)
    supports = as_dict(props.get("chat_template_caps")).get("supports_tools")
    return ServerFacts(_props_context(props), supports if isinstance(supports, bool) else None)


async def ollama_facts(
    provider: HttpProvider, model: str, *, timeout: float = DISCOVERY_TIMEOUT
) -> ServerFacts:
    """An Ollama model's facts from one ``POST /api/show``: its context and whether its
    template renders tools (``"tools"`` in ``capabilities``); None for what it does not say."""
    shown = await _ollama_show(provider, model, timeout)
    capabilities = shown.get("capabilities")
    tools = "tools" in capabilities if isinstance(capabilities, list) else None
    return ServerFacts(_show_context(shown), tools)


@runtime_checkable
class SharesPrefix(Protocol):
    """A provider whose server can share a prompt it just evaluated with its other slots."""

    async def share_prefix(self, *, timeout: float = DISCOVERY_TIMEOUT) -> int | None:
        """Have the server keep the prompt it last evaluated for its other slots; its
        slots, or None when it has one or cannot."""
        ...


async def llama_server_share_prefix(
    provider: HttpProvider, *, timeout: float = DISCOVERY_TIMEOUT
) -> int | None:
    """Start one tiny task on a llama-server with several slots, so that it saves its
    idle slots' prompts to its host-memory cache (see the module docstring); its slots,
    or None: a server that is no llama-server, has one slot, or did not answer
    (quietly: the swarm goes on without)."""
    root = server_root(provider.endpoint)
    slots = as_count(
        as_dict(await _quietly(provider, f"{root}/props", None, timeout)).get("total_slots")
    )
    if slots is None or slots < 2:
        return None
    poke = {"prompt": "\n", "n_predict": 1, "cache_prompt": False}
    answer = as_dict(await _quietly(provider, f"{root}/completion", poke, timeout))
    return slots if "content" in answer else None


@runtime_checkable
class CountsPrompt(Protocol):
    """A provider whose server can count a request's prompt in its own tokens."""

    async def prompt_tokens(self, request: Any) -> int | None:
        """The prompt tokens the server will count for ``request`` (a ``ChatRequest``);
        None when it cannot say."""
        ...


async def llama_server_prompt_tokens(
    provider: HttpProvider, body: dict[str, Any], *, timeout: float = DISCOVERY_TIMEOUT
) -> int | None:
    """The tokens llama-server will count for the chat request ``body``: its chat template
    applied (``POST /apply-template``), the text tokenized as a chat prompt is, special
    tokens parsed and added (``POST /tokenize``). None from any other server (quietly)."""
    root = server_root(provider.endpoint)
    rendered = as_dict(await _quietly(provider, f"{root}/apply-template", body, timeout))
    prompt = rendered.get("prompt")
    if not isinstance(prompt, str):
        return None
    counted = as_dict(
        await _quietly(
            provider,
            f"{root}/tokenize",
            {"content": prompt, "add_special": True, "parse_special": True},
            timeout,
        )
    )
    tokens = counted.get("tokens")
    return len(tokens) if isinstance(tokens, list) and tokens else None


async def ollama_context(
    provider: HttpProvider, model: str, *, timeout: float = DISCOVERY_TIMEOUT
) -> ServerContext | None:
    """The training context of an Ollama model (``POST /api/show``); None when unknown."""
    return _show_context(await _ollama_show(provider, model, timeout))


async def _ollama_show(provider: HttpProvider, model: str, timeout: float) -> dict[str, Any]:
    url = f"{provider.endpoint}/api/show"
    return as_dict(await _quietly(provider, url, {"model": model}, timeout))


def _show_context(shown: dict[str, Any]) -> ServerContext | None:
    info = as_dict(shown.get("model_info"))
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
                limit = provider.max_answer_bytes
                return load_json(await read_body(response, url=url, limit=limit), url=url)
    except Exception as exc:  # whatever the server did, discovery must never fail a Mysis
        logger.debug("%s %s told nothing: %s", method, url, getattr(exc, "message", exc))
        return None


@runtime_checkable
class ListsModels(Protocol):
    """A provider whose server can list the models it serves."""

    async def list_models(self, *, timeout: float = DISCOVERY_TIMEOUT) -> list[str]:
        """The models the server lists, in its order; raises its failure."""
        ...


async def list_models(
    provider: HttpProvider, path: str, *, timeout: float = DISCOVERY_TIMEOUT
) -> list[str]:
    """The models ``GET {endpoint}{path}`` lists (``/models``: ``data[].id``; ``/api/tags``:
    ``models[].name``), in the server's order, without duplicates; raises the failure as a
    :class:`~zoea_tui.providers.base.ProviderError` of its class."""
    url = f"{provider.endpoint}{path}"
    async with provider._exchange(url, timeout, method="GET") as response:
        data = as_dict(await read_json(response, url=url, limit=provider.max_answer_bytes))
    names: list[str] = []
    for entry in as_list(data.get("data")) + as_list(data.get("models")):
        item = as_dict(entry)
        name = as_text(item.get("id") or item.get("name") or item.get("model")).strip()
        if name and name not in names:
            names.append(name)
    return names


async def listed_models(provider: object, *, timeout: float = DISCOVERY_TIMEOUT) -> list[str]:
    """The models ``provider``'s server lists; empty when it lists none, cannot, or fails
    (quietly: a form then takes free text)."""
    if not isinstance(provider, ListsModels):
        return []
    try:
        async with asyncio.timeout(timeout):
            return await provider.list_models(timeout=timeout)
    except Exception as exc:  # a list is a nicety: free text stays possible
        logger.debug("%r listed no models: %s", provider, getattr(exc, "message", exc))
        return []


def ordered_models(listed: list[str], default: str) -> list[str]:
    """``listed`` with the configured ``default`` first (kept even when unlisted)."""
    return ([default] if default else []) + [m for m in listed if m != default]

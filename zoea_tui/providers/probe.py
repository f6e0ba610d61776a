"""What an endpoint can do for a swarm, found out in a few seconds (``zoea probe``, and the
add-provider form of the TUI).

:func:`probe` asks the server, in order: the models it lists (``/models`` or Ollama's
``/api/tags``: is anything there?); the context it gives a request (``discovery.py``);
one small request with one tool, streamed, then unstreamed (which mode works, and does a
tool call come back parsed?); the same request again (how much did the engine serve from
its prompt cache?); and whether the server's chat template renders tools at all
(llama-server's ``/props``, Ollama's ``/api/show``). Every failure is told in the one
classification of ``core/failures.py`` with the server's own words and what to change;
a step that timed out is told as that, never as advice on streaming. The verdict says
whether a Mysis can fly on it, and the configuration that would make it so.

A URL is spoken to as the protocol it answers: a URL ending in ``/v1`` is
OpenAI-compatible; one that answers Ollama's ``/api/tags`` is Ollama; any other is
OpenAI-compatible, at ``URL/v1`` when that is where its models are listed. The block
the probe prints always states the type: the configuration itself never guesses.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import httpx

from ..config import unset_key_env
from ..config.kinds import KINDS, ProbeProtocol, Probing
from ..config.model import ProviderConfig
from ..core.failures import failure_label
from ..core.retry import BOUNDED, ONCE, Sleep, seconds_words, with_retries
from ..core.tokens import request_tokens, tools_tokens
from ._http import OnRetry, retry_after, retry_line
from .base import (
    AuthenticationError,
    ChatRequest,
    ChatResponse,
    CutShortError,
    ModelNotFoundError,
    ProviderError,
    ProviderSettings,
    RateLimitedError,
)
from .discovery import DISCOVERY_TIMEOUT, ServerFacts, _quietly
from .openai_compat import OpenAIProvider
from .registry import kind_module

logger = logging.getLogger(__name__)

ProbeType = ProbeProtocol  # the protocols of config/kinds.py


class ProbeClient(Protocol):
    """What the probe asks of the client a kind's :class:`~zoea_tui.config.kinds.Probing`
    names (built with the endpoint, no model, the key, ``client``, ``retry``, ``stream``
    and ``api_key_env``)."""

    async def list_models(self, *, timeout: float = DISCOVERY_TIMEOUT) -> list[str]:
        """The models the server lists; raises its failure."""
        ...

    async def server_facts(self, model: str, *, timeout: float = DISCOVERY_TIMEOUT) -> ServerFacts:
        """What the server says of itself for ``model``, in one request: its context and
        whether its chat template renders tools (None for what it does not say)."""
        ...

    async def chat(self, request: ChatRequest) -> ChatResponse:
        """One request's answer; raises its failure."""
        ...


#: Below this context a Mysis cannot fly: the system prompt and the compact game tool alone
#: take about 2 700 tokens (bench/results/tools.json).
MIN_CONTEXT = 4096
#: Below this context the probe proposes ``tools = "compact"`` (the full game schemas take
#: about 5 500 tokens of every request).
COMPACT_BELOW = 16384
#: The probe's answers are short: a tool call, or a line of text.
PROBE_MAX_TOKENS = 256
#: A probe of a bare URL gives Ollama this context (``num_ctx``): enough, and quick to load.
PROBE_OLLAMA_CONTEXT = 8192
#: Failures of the streamed step that say nothing of streaming: no answer in time, or no
#: server. (A stream that broke, or was refused, does: then ``stream = false``.)
NOT_ABOUT_STREAMING = frozenset({"timeout", "unreachable"})

#: The one tool of the probe's request: one argument, so its parse is tested.
PROBE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_status",
        "description": "Your ship's status: credits, cargo, location.",
        "parameters": {
            "type": "object",
            "properties": {
                "section": {
                    "type": "string",
                    "enum": ["ship", "cargo", "location"],
                    "description": "which part of the status",
                }
            },
            "required": ["section"],
        },
    },
}
PROBE_MESSAGES: tuple[dict[str, Any], ...] = (
    {
        "role": "system",
        "content": "You are a pilot in a space game. You act only by calling the tools you "
        "are given.",
    },
    {"role": "user", "content": "Check your ship with the get_status tool now."},
)


@dataclass(frozen=True, slots=True)
class ProbeTarget:
    """What to probe: an endpoint, and what is known of it."""

    endpoint: str
    #: The protocol; None: find out from what the URL answers.
    type: ProbeType | None = None
    #: The model to try; empty: the first one the server lists.
    model: str = ""
    api_key: str | None = None
    #: The variable that holds the key (written into the proposed configuration).
    api_key_env: str | None = None
    #: The configured provider probed (None: a bare URL).
    name: str | None = None
    #: The configured context (Ollama's ``num_ctx``); None: :data:`PROBE_OLLAMA_CONTEXT`.
    context_window: int | None = None
    #: Seconds each request may take (a model that is still loading takes a while).
    timeout: float = 60.0

    @classmethod
    def of_provider(
        cls, provider: ProviderConfig, api_key: str | None, *, model: str = "", timeout: float
    ) -> ProbeTarget:
        """The target a configured remote provider describes (``model``: another one
        than its own)."""
        assert provider.endpoint is not None  # a remote provider's
        return cls(
            endpoint=provider.endpoint,
            type=provider.type,
            model=model or provider.model,
            api_key=api_key,
            api_key_env=provider.api_key_env,
            name=provider.name,
            context_window=provider.context_window,
            timeout=timeout,
        )


@dataclass(frozen=True, slots=True)
class ProbeFailure:
    """One step that failed, in the one classification, with the server's words."""

    step: str
    kind: str
    message: str
    said: str | None
    fix: str

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of a failure."""
        return {
            "step": self.step,
            "kind": self.kind,
            "label": failure_label(self.kind),
            "message": self.message,
            "said": self.said,
            "fix": self.fix,
        }


@dataclass(slots=True)
class ProbeReport:
    """What the probe found (``to_json`` has the keys of ``zoea probe --json``)."""

    type: ProbeType
    endpoint: str
    name: str | None = None
    model: str = ""
    api_key_env: str | None = None
    #: Whether a key was sent (a refusal then asks for another, else for one).
    key_sent: bool = False
    reachable: bool = False
    models: list[str] = field(default_factory=list)
    context_window: int | None = None
    context_source: str = ""
    #: Whether the server's chat template renders tools (None: the server did not say).
    template_tools: bool | None = None
    stream_with_tools: bool | None = None
    unstreamed_with_tools: bool | None = None
    tool_call_parsed: bool = False
    #: The call that came back, as ``name(arguments)``; or the text the model answered.
    tool_call: str = ""
    answered_text: str = ""
    tokens_estimate: int = 0
    tokens_engine: int | None = None
    cache_reuse: float | None = None
    #: The repeated request's prompt tokens and how many of them came from the cache.
    cache_counts: tuple[int, int] | None = None
    latency_s: dict[str, float | None] = field(
        default_factory=lambda: dict.fromkeys(("models", "stream", "unstreamed", "repeat"))
    )
    failures: list[ProbeFailure] = field(default_factory=list)
    #: Why it cannot fly (empty when it can), and what else to know.
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    # -- the verdict -------------------------------------------------------------------

    @property
    def flies(self) -> bool:
        """Whether a Mysis can fly on this endpoint."""
        return not self.problems

    def failure(self, step: str) -> ProbeFailure | None:
        """How ``step`` failed (None: it did not fail, or was not tried)."""
        return next((f for f in self.failures if f.step == step), None)

    @property
    def stream_setting(self) -> bool | str:
        """The ``stream`` key to configure: false when a streamed tool call broke (or was
        refused) and the same request unstreamed was answered. A streamed step that timed
        out, or found no server, says nothing of streaming: "auto" stays."""
        failed = self.failure("stream")
        breaks = failed is not None and failed.kind not in NOT_ABOUT_STREAMING
        return False if breaks and self.unstreamed_with_tools else "auto"

    @property
    def tools_setting(self) -> str:
        """The ``tools`` key to configure: compact on a small context."""
        small = self.context_window is not None and self.context_window < COMPACT_BELOW
        return "compact" if small else "full"

    @property
    def probing(self) -> Probing:
        """How its protocol is probed and its findings worded (``config/kinds.py``)."""
        probing = KINDS[self.type].probe
        assert probing is not None  # a protocol is a probed kind's name
        return probing

    @property
    def server_name(self) -> str:
        """A provider name after the server: ``llama-server`` when it said so (its
        ``/props``), else its protocol (``openai``, ``ollama``, ``anthropic``)."""
        return "llama-server" if self.context_source.startswith("llama-server") else self.type

    @property
    def suggested_name(self) -> str:
        """The provider name the proposed configuration uses."""
        return self.name or self.server_name

    def summary(self) -> str:
        """The verdict in one line."""
        if not self.flies:
            return "cannot fly a Mysis: " + self.problems[0]
        how = "streamed" if self.stream_with_tools else "unstreamed"
        return f"flies a Mysis ({how}, tool calls parsed)"

    def config_block(self) -> str:
        """The ``[providers.NAME]`` table that flies on this endpoint, ready to paste."""
        lines = [
            f"[providers.{self.suggested_name}]",
            f"type = {json.dumps(self.type)}",
            f"endpoint = {json.dumps(self.endpoint)}",
            f"model = {json.dumps(self.model or 'MODEL')}",
        ]
        if self.context_window is not None:
            lines.append(f"context_window = {self.context_window}    # what the server reported")
        if self.stream_setting is False:
            lines.append("stream = false    # the server breaks streamed tool calls")
        if self.tools_setting == "compact":
            lines.append('tools = "compact"    # one game tool: room on a small context')
        if self.api_key_env:
            lines.append(f"api_key_env = {json.dumps(self.api_key_env)}")
        return "\n".join(lines)

    def tui_line(self) -> str:
        """What to type in the TUI's add-provider form (key a) instead."""
        key = f", key variable {self.api_key_env}" if self.api_key_env else ""
        return (
            f"in zoea, press a (add a provider): type {self.type}, endpoint {self.endpoint}, "
            f"model {self.model or 'MODEL'}{key}"
        )

    def env_line(self) -> str | None:
        """The environment line that flies on this endpoint with no config file, when the
        conventions reach the probed model (the first one the server lists)."""
        first = self.models[0] if self.models else ""
        line = self.probing.env_line
        if line is None or (self.model and first and self.model != first):
            return None
        return line.format(endpoint=self.endpoint, host=self.endpoint.removeprefix("http://"))

    def to_json(self) -> dict[str, Any]:
        """The report as ``zoea probe --json`` prints it."""
        return {
            "reachable": self.reachable,
            "models": list(self.models),
            "context_window": self.context_window,
            "template_tools": self.template_tools,
            "stream_with_tools": self.stream_with_tools,
            "unstreamed_with_tools": self.unstreamed_with_tools,
            "tool_call_parsed": self.tool_call_parsed,
            "tokens_estimate": self.tokens_estimate,
            "tokens_engine": self.tokens_engine,
            "cache_reuse": self.cache_reuse,
            "latency_s": dict(self.latency_s),
            "verdict": {
                "flies": self.flies,
                "summary": self.summary(),
                "type": self.type,
                "endpoint": self.endpoint,
                "model": self.model,
                "stream": self.stream_setting,
                "tools": self.tools_setting,
                "problems": list(self.problems),
                "notes": list(self.notes),
                "failures": [f.to_json() for f in self.failures],
                "config": self.config_block(),
                "tui": self.tui_line(),
            },
        }

    def table(self) -> list[str]:
        """The findings, one line each (plain text: the CLI escapes it, the TUI shows it)."""
        lat = self.latency_s

        def took(step: str) -> str:
            seconds = lat.get(step)
            return f" · {seconds:.2f} s" if seconds is not None else ""

        def works(value: bool | None, step: str) -> str:
            if value is None:
                return "not tried"
            if value:
                return "yes" + took(step)
            failure = self.failure(step)
            words = " ".join((failure.said or failure.message).split()) if failure else ""
            words = words if len(words) <= 120 else words[:119] + "…"
            why = f": {failure_label(failure.kind)}: {words}" if failure else ""
            return "no" + why + took(step)

        listed = ", ".join(self.models[:8]) + (" …" if len(self.models) > 8 else "")
        rows = [
            ("reachable", ("yes" if self.reachable else "no") + took("models")),
            ("models", f"{listed} ({len(self.models)})" if self.models else "none listed"),
            (
                "context",
                f"{self.context_window} tokens ({self.context_source})"
                if self.context_window is not None
                else "not reported",
            ),
            ("model tried", self.model or "none"),
            ("template + tools", self._template_line()),
            ("streamed + tool", works(self.stream_with_tools, "stream")),
            ("unstreamed + tool", works(self.unstreamed_with_tools, "unstreamed")),
            ("tool call parsed", self._call_line()),
            ("tokens", self._tokens_line()),
            ("prompt cache", self._cache_line() + took("repeat")),
        ]
        return [f"  {label:<18} {value}" for label, value in rows]

    def _call_line(self) -> str:
        if self.tool_call_parsed:
            return f"yes: {self.tool_call}"
        if self.tool_call:
            return f"no: {self.tool_call}"
        if self.answered_text:
            return f"no: the model answered text: {self.answered_text!r}"
        return "no answer to read"

    def _tokens_line(self) -> str:
        if self.tokens_engine is None:
            return f"Zoea's estimate {self.tokens_estimate}; the engine reported no count"
        ratio = self.tokens_engine / self.tokens_estimate if self.tokens_estimate else 0
        return (
            f"engine {self.tokens_engine} · Zoea's estimate {self.tokens_estimate} "
            f"(×{ratio:.2f}: Zoea learns the engine's scale from its counts)"
        )

    def _template_line(self) -> str:
        if self.template_tools is None:
            return "not reported"
        where = self.probing.template_route
        if self.template_tools:
            return f"renders them ({where})"
        return f"drops them ({where})"

    def _cache_line(self) -> str:
        if self.cache_reuse is None or self.cache_counts is None:
            return "no figure: " + self._no_cache_figure()
        cached, prompt = self.cache_counts
        return (
            f"the same request again: {cached} of its {prompt} prompt tokens served from "
            f"the cache ({self.cache_reuse:.1%})"
        )

    def _no_cache_figure(self) -> str:
        """Why the probe has no cache figure, in a few words."""
        failed = self.failure("repeat")
        if failed is not None:
            label = failure_label(failed.kind)
            if failed.kind == "timeout":
                return f"the repeat step {label}"
            return f"the repeat step failed ({label})"
        if self.latency_s.get("repeat") is None:
            return "no request was answered, so none was repeated"
        return self.probing.no_cache_count


async def probe(
    target: ProbeTarget,
    *,
    client: httpx.AsyncClient | None = None,
    on_retry: Callable[[str], None] | None = None,
    sleep: Sleep = asyncio.sleep,
) -> ProbeReport:
    """Probe ``target`` (see the module docstring); never raises a provider's failure:
    each one is in the report, in its class.

    A step the server rate-limits (429) is tried again under ``retry.BOUNDED`` after its
    ``Retry-After`` (up to the one cap, ``retry.MAX_SERVER_WAIT``), told to ``on_retry``
    first in a line ("stream: rate limited · next try in 5 s"); every other failure is a
    finding, not retried."""
    owned = client is None
    http = client if client is not None else httpx.AsyncClient()
    try:
        kind, endpoint = target.type, target.endpoint.rstrip("/")
        if kind is None:
            kind, endpoint = await find_protocol(http, endpoint, target.api_key)
        report = ProbeReport(
            type=kind,
            endpoint=endpoint,
            name=target.name,
            model=target.model,
            api_key_env=target.api_key_env,
            key_sent=bool(target.api_key),
        )
        await _run(report, target, http, _Pacing(on_retry, sleep))
        return report
    finally:
        if owned:
            await http.aclose()


async def find_protocol(
    client: httpx.AsyncClient, url: str, api_key: str | None = None
) -> tuple[ProbeType, str]:
    """The protocol a URL speaks and the endpoint to configure (see the module docstring)."""
    url = url.rstrip("/")
    if url.endswith("/v1"):
        return "openai", url
    asker = OpenAIProvider(url, "", api_key, client=client, retry=ONCE)
    tags = await _quietly(asker, f"{url}/api/tags", None, DISCOVERY_TIMEOUT)
    if isinstance(tags, dict) and isinstance(tags.get("models"), list):
        return "ollama", url
    for candidate in (f"{url}/v1", url):
        listed = await _quietly(asker, f"{candidate}/models", None, DISCOVERY_TIMEOUT)
        if isinstance(listed, dict) and isinstance(listed.get("data"), list):
            return "openai", candidate
    return "openai", url


@dataclass(frozen=True, slots=True)
class _Pacing:
    """How the probe waits out a rate limit: who hears of it, and the sleep."""

    on_retry: Callable[[str], None] | None
    sleep: Sleep

    def told(self, step: str) -> OnRetry:
        """The retry hook of one step: its line to ``on_retry``, and to the log."""

        async def tell(error: Exception, wait: float) -> None:
            line = f"{step}: {retry_line(error, wait)}"
            logger.info("probe: %s", line)
            if self.on_retry is not None:
                self.on_retry(line)

        return tell


def _rate_limited(error: Exception) -> bool:
    return isinstance(error, RateLimitedError)


async def _run(
    report: ProbeReport, target: ProbeTarget, client: httpx.AsyncClient, pacing: _Pacing
) -> None:
    probing = report.probing
    cls: Callable[..., ProbeClient] = getattr(kind_module(KINDS[report.type]), probing.client)
    # The key's variable goes too: a 401 to a key it did not hold names it.
    streamed, plain = (
        cls(
            report.endpoint,
            "",
            target.api_key,
            client=client,
            retry=ONCE,
            stream=stream,
            api_key_env=target.api_key_env,
        )
        for stream in (True, False)
    )

    report.tokens_estimate = request_tokens(list(PROBE_MESSAGES), tools_tokens([PROBE_TOOL]))
    started = time.perf_counter()
    try:
        report.models = await plain.list_models(timeout=min(target.timeout, 10.0))
        report.reachable = True
    except ProviderError as error:
        report.reachable = error.kind not in ("unreachable", "timeout")
        if probing.lists_models or not report.reachable:
            _failed(report, "models", error)
        else:  # many OpenAI-compatible hosts list nothing; the chat decides
            report.notes.append(f"the server lists no models ({error.said or error.message})")
    report.latency_s["models"] = _since(started)
    if not report.reachable:
        report.problems.append(f"nothing answers at {report.endpoint}")
        return

    report.model = report.model or (report.models[0] if report.models else "")
    if not report.model and probing.no_model is not None:
        problem, note = probing.no_model
        report.problems.append(problem)
        report.notes.append(note)
        return
    facts = await plain.server_facts(report.model, timeout=min(target.timeout, DISCOVERY_TIMEOUT))
    if facts.context is not None:
        report.context_window, report.context_source = facts.context.tokens, facts.context.source
    report.template_tools = facts.template_tools

    window = target.context_window or PROBE_OLLAMA_CONTEXT
    if report.context_window is not None:
        window = min(window, report.context_window)
    settings = ProviderSettings(
        # A server that lists nothing is asked for some model: many serve one whatever
        # the name (llama-server); the others' refusals say which they know.
        model=report.model or "default",
        temperature=0.0,
        max_tokens=PROBE_MAX_TOKENS,
        context_window=window,
        timeout=target.timeout,
    )
    request = ChatRequest(PROBE_MESSAGES, (PROBE_TOOL,), settings, stream=True)

    first = await _ask(report, "stream", streamed, request, pacing)
    report.stream_with_tools = first is not None
    second = await _ask(report, "unstreamed", plain, replace(request, stream=False), pacing)
    report.unstreamed_with_tools = second is not None
    answers = [a for a in (first, second) if a is not None]
    _read_calls(report, answers)

    if answers:
        again = streamed if report.stream_with_tools else plain
        repeat = await _ask(
            report, "repeat", again, replace(request, stream=again is streamed), pacing
        )
        if repeat is not None:
            answers.append(repeat)
            cached, prompt = repeat.usage.cached_tokens, repeat.usage.prompt_tokens
            if cached is not None and prompt:
                report.cache_reuse = round(min(cached / prompt, 1.0), 3)
                report.cache_counts = (min(cached, prompt), prompt)
    counts = [a.usage.prompt_tokens for a in answers if a.usage.prompt_tokens]
    report.tokens_engine = max(counts) if counts else None
    _verdict(report)


async def _ask(
    report: ProbeReport,
    step: str,
    provider: ProbeClient,
    request: ChatRequest,
    pacing: _Pacing,
) -> ChatResponse | None:
    started = time.perf_counter()
    try:
        return await with_retries(
            lambda: provider.chat(request),
            BOUNDED,
            sleep=pacing.sleep,
            transient=_rate_limited,
            hint=retry_after,
            on_retry=pacing.told(step),
        )
    except ProviderError as error:
        _failed(report, step, error)
        return None
    finally:
        report.latency_s[step] = _since(started)


def _read_calls(report: ProbeReport, answers: list[ChatResponse]) -> None:
    offered = PROBE_TOOL["function"]["name"]
    for answer in answers:
        for call in answer.tool_calls:
            shown = f"{call.name}({call.arguments})"
            if call.name == offered and call.parsed_arguments() is not None:
                report.tool_call_parsed, report.tool_call = True, shown
                return
            report.tool_call = report.tool_call or shown
        if not answer.tool_calls and not report.answered_text:
            text = " ".join(answer.content.split())
            report.answered_text = text[:80] + ("…" if len(text) > 80 else "")
            if answer.finish_reason == "length":
                report.notes.append(
                    f"the answer ran to the {PROBE_MAX_TOKENS}-token cap without a tool call "
                    "(a model that rambles, or one that thinks at length first)"
                )


def _verdict(report: ProbeReport) -> None:
    if report.template_tools is False:
        # The model never saw the tool: whatever it answered, a Mysis's tools would not
        # reach it either.
        fix = report.probing.template_fix
        report.problems.append(f"the chat template drops the tools: {fix}")
    if not (report.stream_with_tools or report.unstreamed_with_tools):
        report.problems.append("no request with a tool was answered, streamed or not")
    elif not report.tool_call_parsed:
        report.problems.append("no tool call came back parsed")
        if report.template_tools is not False:
            report.notes.append(
                "a Mysis acts only by tool calls: pick a model trained for them (Qwen2.5, "
                "Qwen3, Llama 3.1+ …); llama-server reads them only with --jinja and a chat "
                "template that renders tools; on Ollama, a model tagged 'tools'"
            )
    if report.context_window is not None and report.context_window < MIN_CONTEXT:
        report.problems.append(
            f"the server gives a request {report.context_window} tokens; a Mysis needs at "
            f"least {MIN_CONTEXT} (start it with a larger context, e.g. llama-server -c 16384)"
        )
    if report.flies and report.tools_setting == "compact":
        report.notes.append(
            f'a context under {COMPACT_BELOW} tokens: tools = "compact" leaves room for the '
            "conversation (one game tool instead of a schema per command)"
        )


def _failed(report: ProbeReport, step: str, error: ProviderError) -> None:
    report.failures.append(
        ProbeFailure(
            step=step,
            kind=error.kind,
            message=error.message,
            said=error.said,
            fix=_fix(report, error),
        )
    )


def _fix(report: ProbeReport, error: ProviderError) -> str:
    """What to change after ``error``, in a sentence."""
    where = report.endpoint
    if error.kind == "unreachable":
        return (
            f"nothing answers at {where}: start the server (llama-server --port 8080, "
            "ollama serve) or correct the address"
        )
    if error.kind == "timeout":
        return (
            "no answer in time: a model still loading, or too slow for this machine; "
            "probe again, or give it longer with --timeout"
        )
    if isinstance(error, AuthenticationError):
        if report.api_key_env and not report.key_sent:
            return (
                f"the server wants a key and none was sent: api_key_env "
                f"{unset_key_env(report.api_key_env)}; export it"
            )
        return (
            "the server wants a key: export it (e.g. OPENAI_API_KEY=…) and name its variable "
            "with --api-key-env (api_key_env in the configuration)"
        )
    if isinstance(error, ModelNotFoundError):
        listed = ", ".join(report.models[:5]) or "none"
        return (
            f"check the endpoint's path (OpenAI-compatible ones usually end in /v1) and the "
            f"model (listed: {listed})"
        )
    if error.kind == "not_compatible":
        return (
            "this is not an OpenAI-compatible (or Ollama) endpoint: check the address, port "
            "and path (llama-server: http://HOST:8080/v1; Ollama: http://HOST:11434)"
        )
    if isinstance(error, RateLimitedError):
        wait = error.retry_after
        return (
            "the server is rate limiting this key or address, not refusing the request: "
            + (
                f"probe again in {seconds_words(wait)} (its Retry-After)"
                if wait is not None
                else "probe again later"
            )
            + ", or check the plan's request and token limits"
        )
    if isinstance(error, CutShortError) and error.streamed:
        return (
            "the server breaks streamed tool calls: stream = false sends them unstreamed "
            '("auto", the default, falls back by itself after one broken try)'
        )
    if "tool" in (error.said or error.message).lower():
        return "the server refuses tools: start llama-server with --jinja, or pick a tool model"
    return "read the server's words above; the request was one system and one user message"


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 3)

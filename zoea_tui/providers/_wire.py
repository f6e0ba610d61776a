"""What servers send, read defensively: text, counts and tool calls.

Any field of a model server's JSON may be missing, null or of another type;
these helpers read it without crashing. Tool calls get most care: servers
omit ids (Ollama always, some OpenAI-compatible servers sometimes), repeat
them, send arguments as objects or as text that is not JSON. The router needs
every call with a unique non-empty id and the arguments as the raw text the
model wrote, so it can report bad JSON back to the model.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.types import ToolCall
from .base import ChatResponse, EventSink, FinishReason, ReasoningDelta, TextDelta, Usage

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "error",
    "error": "error",
}


def finish_reason(value: Any, has_calls: bool) -> FinishReason:
    """The server's finish reason in our terms.

    An answer with tool calls finishes with ``"tool_calls"`` even where the
    server says ``"stop"`` (Ollama always does, some OpenAI-compatible servers
    too); a missing reason is inferred the same way.
    """
    if value is None or (value == "stop" and has_calls):
        return "tool_calls" if has_calls else "stop"
    return _FINISH.get(value, "unknown") if isinstance(value, str) else "unknown"


def usage_of(prompt_tokens: Any, completion_tokens: Any, cached: int | None = None) -> Usage:
    """Token usage from whatever counts the server sent (None for each one missing).

    ``cached`` is the prompt-cache figure, already read (see :func:`cached_tokens`).
    """
    return Usage(as_count(prompt_tokens), as_count(completion_tokens), cached)


def cached_tokens(data: Any) -> int | None:
    """Prompt tokens the server reused from its prompt cache, from an OpenAI-compatible
    answer (a whole response, or one chunk of a streamed one); None when it says nothing.

    The sources, in order; the first one holding a non-negative integer wins:

    1. ``usage.prompt_tokens_details.cached_tokens``: OpenAI, vLLM and most
       OpenAI-compatible hosts (Chat Completions);
    2. ``timings.cache_n``: llama.cpp's ``llama-server``, in the response's
       top-level ``timings`` object (the last chunk of a stream);
    3. ``tokens_cached``, at the top level or inside ``usage``: llama.cpp
       server versions that name it so.

    A source that is absent or malformed (not an integer, a boolean, negative)
    is skipped; never raises.
    """
    answer = as_dict(data)
    usage = as_dict(answer.get("usage"))
    for value in (
        as_dict(usage.get("prompt_tokens_details")).get("cached_tokens"),
        as_dict(answer.get("timings")).get("cache_n"),
        answer.get("tokens_cached"),
        usage.get("tokens_cached"),
    ):
        count = as_count(value)
        if count is not None and count >= 0:
            return count
    return None


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def as_text(value: Any) -> str:
    """Message text: a string, or the text parts of a content array; else ``""``."""
    if isinstance(value, str):
        return value
    return "".join(as_dict(part).get("text") or "" for part in as_list(value))


def as_count(value: Any) -> int | None:
    """A token count, or None when the server gave none."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def arguments_text(value: Any) -> str:
    """A call's arguments as JSON text: text kept as written (valid or not), objects
    serialised, and missing or blank arguments as ``"{}"``."""
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value if value.strip() else "{}"
    return json.dumps(value, ensure_ascii=False)


def arguments_object(text: str) -> dict[str, Any]:
    """The arguments of a stored call as an object (``{}`` when not a JSON object)."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def call_parts(raw: Any) -> tuple[str | None, str, str]:
    """``(id, name, arguments)`` of a whole tool call ``{id?, function: {name, arguments}}``."""
    call = as_dict(raw)
    function = as_dict(call.get("function"))
    return (
        as_text(call.get("id")) or None,
        as_text(function.get("name")),
        arguments_text(function.get("arguments")),
    )


def with_stable_ids(calls: Sequence[tuple[str | None, str, str]]) -> tuple[ToolCall, ...]:
    """``(id, name, arguments)`` triples as ToolCalls with unique, non-empty ids.

    A server id is kept unless it is empty or already taken in this answer;
    otherwise the id is ``call_<digest>_<index>``, the digest taken over the
    whole answer's calls, so the same answer always gets the same ids.
    """
    if all(call_id for call_id, _, _ in calls) and len({c[0] for c in calls}) == len(calls):
        return tuple(ToolCall(id=i or "", name=n, arguments=a) for i, n, a in calls)
    digest = hashlib.sha1(
        json.dumps([[name, args] for _, name, args in calls]).encode(), usedforsecurity=False
    ).hexdigest()[:8]
    taken = {call_id for call_id, _, _ in calls if call_id}
    seen: set[str] = set()
    result: list[ToolCall] = []
    for index, (call_id, name, args) in enumerate(calls):
        if not call_id or call_id in seen:
            call_id = candidate = f"call_{digest}_{index}"
            suffix = 1
            while call_id in taken or call_id in seen:
                call_id, suffix = f"{candidate}_{suffix}", suffix + 1
        seen.add(call_id)
        result.append(ToolCall(id=call_id, name=name, arguments=args))
    return tuple(result)


@dataclass(slots=True)
class AnswerText:
    """The text and reasoning of an answer as they come (a streamed one in many pieces,
    each reported as it comes), and the :class:`ChatResponse` they make with its calls."""

    model: str
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)

    def take(self, text: str, reasoning: str, on_event: EventSink | None) -> None:
        """Add a piece of reasoning, then one of text (an empty one adds nothing)."""
        if reasoning:
            self.reasoning.append(reasoning)
            if on_event:
                on_event(ReasoningDelta(reasoning))
        if text:
            self.text.append(text)
            if on_event:
                on_event(TextDelta(text))

    def response(self, calls: tuple[ToolCall, ...], usage: Usage, finish: Any) -> ChatResponse:
        """The answer of the pieces taken, with ``calls``, ``usage`` and the server's
        ``finish`` reason (:func:`finish_reason`)."""
        return ChatResponse(
            content="".join(self.text),
            tool_calls=calls,
            reasoning="".join(self.reasoning),
            usage=usage,
            finish_reason=finish_reason(finish, bool(calls)),
            model=self.model,
        )

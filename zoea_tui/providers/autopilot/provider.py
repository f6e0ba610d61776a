"""The autopilot behind the provider interface.

:class:`AutopilotProvider` answers a :class:`ChatRequest` with the decision of
:func:`decide`, shaped like a model's answer: OpenAI tool calls with stable
ids, a one-line reasoning, a token usage estimate and the stream events a UI
expects. It also implements the :class:`~zoea_tui.core.summarizer.Summarizer`
protocol with the extractive summary, for the ``summarize`` strategy.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from typing import Any

from ...core.composition import SummaryRequest
from ...core.game_tool import GAME_TOOL, wrap
from ...core.summarizer import ExtractiveSummarizer
from ...core.tokens import count_tokens, request_tokens, tools_tokens
from ...core.types import ToolCall
from ..base import (
    ChatRequest,
    ChatResponse,
    EventSink,
    ProviderSettings,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolSchema,
    Usage,
)
from .decide import DEFAULT_TURN_ROUNDS, Decision, decide, direct_names, tool_names

#: What the UI shows as the model: honestly not a language model.
LABEL = "autopilot (rule-based)"


def fingerprint(messages: Sequence[dict[str, Any]]) -> str:
    """A short digest of the messages: the seed of the answer's tool-call ids."""
    digest = hashlib.blake2b(digest_size=6)
    for message in messages:
        digest.update(str(message.get("role")).encode())
        content = message.get("content")
        digest.update(content.encode() if isinstance(content, str) else b"\0")
        digest.update(str(message.get("tool_call_id") or "").encode())
        for call in message.get("tool_calls") or ():
            fn = call.get("function") or {}
            digest.update(f"{call.get('id')}\0{fn.get('name')}\0{fn.get('arguments')}".encode())
        digest.update(b"\x1e")
    return digest.hexdigest()


class AutopilotProvider:
    """A rule-based pilot that plays from the composed messages alone.

    Deterministic: the same messages and tools give the same answer, ids
    included. It never looks at the world; what the context does not show,
    it asks for with a snapshot tool or the search tool.
    """

    label: str = LABEL
    #: Its usage is the app's own estimate, not an engine's count: nothing to calibrate
    #: (``orchestrator/calibration.py``).
    usage_is_estimate: bool = True

    def __init__(self, settings: ProviderSettings | None = None) -> None:
        self.settings = settings or ProviderSettings(model=LABEL)
        self._summarizer = ExtractiveSummarizer()
        self._tools_tokens: dict[tuple[str, ...], int] = {}

    async def chat(self, request: ChatRequest, on_event: EventSink | None = None) -> ChatResponse:
        """Answer one composed request with tool calls or a text."""
        started = time.perf_counter()
        names = tool_names(request.tools)
        decision = decide(
            request.messages,
            names,
            max_rounds=request.settings.turn_rounds or DEFAULT_TURN_ROUNDS,
            turn_round=request.turn_round,
        )
        calls = self.tool_calls(request.messages, decision, direct_names(request.tools))
        if on_event is not None:
            _emit(on_event, decision, calls)
        return ChatResponse(
            content=decision.text,
            tool_calls=calls,
            reasoning=decision.reasoning,
            usage=self.usage(request, decision, calls),
            finish_reason="tool_calls" if calls else "stop",
            latency_s=time.perf_counter() - started,
            model=LABEL,
        )

    async def summarize(self, request: SummaryRequest) -> str:
        """The ``summarize`` strategy's summary: the extractive one."""
        return await self._summarizer.summarize(request)

    async def aclose(self) -> None:
        """Nothing to release."""

    @staticmethod
    def tool_calls(
        messages: Sequence[dict[str, Any]],
        decision: Decision,
        direct: frozenset[str] | None = None,
    ) -> tuple[ToolCall, ...]:
        """The decision's calls with ids derived from the messages (unique per response).

        A command not offered by name (``direct``) but through a compact ``game`` tool
        is called through it: ``game(command, args)``.
        """
        if not decision.calls:
            return ()
        seed = fingerprint(messages)
        offered = direct or frozenset()
        calls = []
        for index, (name, args) in enumerate(decision.calls):
            if GAME_TOOL in offered and name not in offered:
                tool, arguments = GAME_TOOL, wrap(name, args)
            else:
                tool, arguments = name, json.dumps(args, ensure_ascii=False)
            calls.append(ToolCall(id=f"call_ap_{seed}_{index}", name=tool, arguments=arguments))
        return tuple(calls)

    def usage(self, request: ChatRequest, decision: Decision, calls: tuple[ToolCall, ...]) -> Usage:
        """Token estimate of the request and the answer (the tokenizer's counts are cached).

        The prompt's is the app's own estimate of a whole request
        (``core.tokens.request_tokens``, the tool schemas counted as the runtime counts
        them): the figure it reports is the one every view estimated, never a second
        estimate that disagrees with it.
        """
        prompt = request_tokens(list(request.messages), self._schema_tokens(request.tools))
        completion = count_tokens(decision.text) + count_tokens(decision.reasoning)
        completion += sum(count_tokens(c.name) + count_tokens(c.arguments) + 3 for c in calls)
        return Usage(prompt_tokens=prompt, completion_tokens=completion)

    def _schema_tokens(self, tools: Sequence[ToolSchema]) -> int:
        if not tools:
            return 0
        key = tuple(sorted(tool_names(tools)))
        if key not in self._tools_tokens:
            self._tools_tokens[key] = tools_tokens(list(tools))
        return self._tools_tokens[key]


def _emit(on_event: EventSink, decision: Decision, calls: tuple[ToolCall, ...]) -> None:
    if decision.reasoning:
        on_event(ReasoningDelta(decision.reasoning))
    if decision.text:
        on_event(TextDelta(decision.text))
    for index, call in enumerate(calls):
        on_event(ToolCallDelta(index=index, id=call.id, name=call.name))
        on_event(ToolCallDelta(index=index, arguments=call.arguments))

"""Summaries for the ``summarize`` strategy.

The summary call goes through the small :class:`Summarizer` interface; a
provider implements it with the Mysis's model. :class:`ExtractiveSummarizer`
is the deterministic stand-in used by the autopilot and whenever no model is
available: it writes the seven sections of the summary prompt (docs/CONTEXT.md,
'summarize') from the messages alone and says plainly that no language model wrote it.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Protocol

from .composition import SummaryRequest

EXTRACTIVE_LABEL = (
    "(Extractive summary written by Zoea Nova's rule-based summarizer, not by a language model.)"
)


class Summarizer(Protocol):
    """Writes the structured summary of a cleaned history."""

    async def summarize(self, request: SummaryRequest) -> str:
        """The summary text (without the "Last request" line: the caller adds it)."""
        ...


def _first_line(text: str, limit: int = 160) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _error_of(content: str) -> str | None:
    text = (content or "").strip()
    if text.startswith("[") and "]" in text[:40]:
        return _first_line(text)
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            err = data["error"]
            return f"[{err.get('code', 'error')}] {err.get('message', '')}"
    if text.lower().startswith("error"):
        return _first_line(text)
    return None


class ExtractiveSummarizer:
    """Deterministic seven-section summary built from the messages themselves."""

    async def summarize(self, request: SummaryRequest) -> str:
        """Summarise ``request.messages`` without a model."""
        return extractive_summary(list(request.messages), request.last_request)


def extractive_summary(messages: list[dict[str, Any]], last_request: str) -> str:
    """The seven sections of the summary prompt, filled by extraction."""
    requests = [m["content"] for m in messages if m["role"] == "user" and m.get("content")]
    calls: Counter[str] = Counter()
    actions: list[str] = []
    names: dict[str, str] = {}
    errors: list[str] = []
    logs: list[str] = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            fn = call["function"]
            calls[fn["name"]] += 1
            names[call["id"]] = fn["name"]
            actions.append(f"{fn['name']}({_first_line(fn['arguments'], 80)})")
            if fn["name"] == "captains_log_add":
                logs.append(_first_line(fn["arguments"], 120))
        if message["role"] == "tool":
            error = _error_of(message.get("content") or "")
            if error:
                errors.append(f"{names.get(message.get('tool_call_id') or '', 'tool')}: {error}")
    answers = [
        m["content"]
        for m in messages
        if m["role"] == "assistant" and (m.get("content") or "").strip()
    ]
    bullet = "\n".join
    sections = [
        EXTRACTIVE_LABEL,
        "1. User's Primary Goals and Intent\n"
        + (bullet(f"   - {_first_line(r)}" for r in requests[-5:]) or "   - (no orders yet)"),
        "2. Conversation Timeline and Progress\n"
        f"   - {len(messages)} messages, {sum(calls.values())} tool calls: "
        + (", ".join(f"{n} x{c}" for n, c in sorted(calls.items())) or "none"),
        "3. Technical Context and Decisions\n"
        + (bullet(f"   - {_first_line(a)}" for a in answers[-3:]) or "   - (no decisions stated)"),
        "4. Files and Code Changes\n"
        + (
            bullet(f"   - captain's log: {entry}" for entry in logs[-3:])
            or "   - (no captain's log entries written)"
        ),
        "5. Active Work and Last Actions (CRITICAL)\n"
        + (bullet(f"   - {a}" for a in actions[-5:]) or "   - (no actions yet)"),
        "6. Unresolved Issues and Pending Tasks\n"
        + (bullet(f"   - {e}" for e in errors[-5:]) or "   - (no errors)"),
        f"7. Immediate Next Step\n   - {_first_line(last_request) or 'Continue the mission.'}",
    ]
    return "\n\n".join(sections)

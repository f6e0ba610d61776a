"""The small chat request the HTTP providers' tests send (OpenAI-compatible, Ollama, and
the bounds on an answer)."""

from __future__ import annotations

from typing import Any

from zoea_tui.providers.base import ChatRequest, ProviderSettings

MESSAGES = [{"role": "system", "content": "You are a pilot."}, {"role": "user", "content": "Mine."}]
TOOLS = [
    {
        "type": "function",
        "function": {"name": "mine", "description": "Mine ore.", "parameters": {"type": "object"}},
    }
]


def ask(
    stream: bool = False, tools: Any = (), messages: Any = MESSAGES, **settings: Any
) -> ChatRequest:
    """A chat request of ``messages`` offering ``tools``, with these provider settings."""
    return ChatRequest(
        messages=messages, tools=tools, settings=ProviderSettings(**settings), stream=stream
    )

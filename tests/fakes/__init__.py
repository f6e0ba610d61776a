"""Fakes for tests that need real counterparts.

``llm_servers`` holds loopback model servers (OpenAI-compatible and Ollama),
``anthropic_api`` Anthropic's Messages API with its prompt cache;
:class:`RecordingSleep` stands in for ``asyncio.sleep`` where a test checks
how long code meant to wait without waiting.
"""

from __future__ import annotations

import asyncio
import socket

from .llm_servers import (
    Call,
    Empty,
    Endless,
    FakeOllamaServer,
    FakeOpenAIServer,
    FakeServer,
    HttpError,
    Malformed,
    Raw,
    RecordedRequest,
    Reply,
    context_exceeded,
)


class RecordingSleep:
    """An ``asyncio.sleep`` replacement that records each delay and only yields."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)


def refused_url() -> str:
    """The URL of a loopback port where nothing listens (connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


__all__ = [
    "Call",
    "Empty",
    "Endless",
    "FakeOllamaServer",
    "FakeOpenAIServer",
    "FakeServer",
    "HttpError",
    "Malformed",
    "Raw",
    "RecordedRequest",
    "RecordingSleep",
    "Reply",
    "context_exceeded",
    "refused_url",
]

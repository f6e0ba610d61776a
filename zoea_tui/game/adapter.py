"""The one error adapter: every shape of game answer into data or a typed error."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.validator import json_object
from .errors import GameToolError

_CODE_TEXT = re.compile(
    r"^\s*(?:error:\s*)?\[?([a-z][a-z0-9_]{2,40})\]?\s*[:\-]\s+(.+)$", re.IGNORECASE | re.DOTALL
)
_MCP_TOOL_ERROR = re.compile(r"^Error executing tool [\w.-]+: (.+)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """A successful tool call: its text and, when the text is a JSON object, the object."""

    text: str
    data: dict[str, Any] | None = None

    @property
    def tick(self) -> int | None:
        """The game tick the server reported with the result, if any."""
        if self.data is None:
            return None
        tick = self.data.get("current_tick", self.data.get("tick"))
        return tick if isinstance(tick, int) and not isinstance(tick, bool) else None


def result_text(content: list[Any]) -> str:
    """The text of an MCP result's content blocks (non-text blocks are named)."""
    parts: list[str] = []
    for block in content:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(block, 'type', 'content')}]")
    return "\n".join(parts)


def error_from_payload(data: dict[str, Any]) -> GameToolError | None:
    """The error in ``{"error": {...}}`` or ``{"error": "code", "message": ...}``."""
    error = data.get("error")
    if isinstance(error, dict):
        details = {k: v for k, v in error.items() if k not in ("code", "message")}
        return GameToolError(
            str(error.get("code") or "error"), str(error.get("message") or ""), details
        )
    if isinstance(error, str) and error:
        details = {k: v for k, v in data.items() if k not in ("error", "message")}
        return GameToolError(error, str(data.get("message") or error), details)
    return None


def error_from_text(text: str) -> GameToolError:
    """An error given as plain text: ``code: message``, ``Error: ...`` or anything."""
    inner = _MCP_TOOL_ERROR.match(text.strip())
    body = inner.group(1) if inner else text.strip()
    data = json_object(body)
    if data is not None and (error := error_from_payload(data)) is not None:
        return error
    match = _CODE_TEXT.match(body)
    if match and " " not in match.group(1):
        return GameToolError(match.group(1).lower(), match.group(2).strip())
    if re.fullmatch(r"[a-z][a-z0-9_]{2,40}", body):
        return GameToolError(body, body.replace("_", " "))
    return GameToolError("error", body or "the game reported an error with no text")


def adapt_result(content: list[Any], is_error: bool) -> ToolOutcome:
    """Turn an MCP ``CallToolResult`` into a :class:`ToolOutcome` or raise.

    Raises :class:`GameToolError` for an ``isError`` result and for a result
    whose JSON carries an ``error`` object (some servers do not set ``isError``).
    """
    text = result_text(content)
    data = json_object(text)
    if is_error:
        raise error_from_text(text)
    if data is not None and (error := error_from_payload(data)) is not None:
        raise error
    return ToolOutcome(text=text, data=data)


def error_from_rpc(code: int, message: str, data: Any = None) -> GameToolError:
    """A JSON-RPC level error (``MCPError``) that carries a game error."""
    if isinstance(data, dict) and (error := error_from_payload({"error": data})):
        return error
    parsed = error_from_text(message)
    if parsed.code == "error":
        return GameToolError("rpc_error", f"{message} (JSON-RPC {code})")
    return parsed

"""`ToolSpec`, the description of one command, and the schema helpers the catalogue uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SESSION_ID_PROPERTY: dict[str, str] = {
    "type": "string",
    "description": "Your session ID from login/register",
}


@dataclass(frozen=True)
class ToolSpec:
    """One command of the world.

    `mutation` commands cost a tick (one per pilot per tick); `needs_position` commands
    are refused while in transit; `strict` commands answer a missing required argument
    with `invalid_payload` naming any unknown arguments, as the real server does for
    movement commands (others ignore unknown arguments, also like the real server).
    """

    name: str
    category: str
    description: str
    properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    mutation: bool = False
    auth: bool = True
    needs_position: bool = False
    strict: bool = False
    example: str = ""

    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments (authenticated tools accept `session_id`)."""
        properties = dict(self.properties)
        if self.auth:
            properties["session_id"] = dict(SESSION_ID_PROPERTY)
        return {"type": "object", "properties": properties, "required": list(self.required)}

    def to_dict(self) -> dict[str, Any]:
        """`{"name", "description", "input_schema"}` for an MCP tool listing."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema(),
        }


def string_arg(description: str, **extra: Any) -> dict[str, Any]:
    """A string argument's schema."""
    return {"type": "string", "description": description, **extra}


def integer_arg(description: str, **extra: Any) -> dict[str, Any]:
    """An integer argument's schema."""
    return {"type": "integer", "description": description, **extra}

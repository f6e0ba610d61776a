"""`ToolSpec`, the description of one command, and the schema helpers the catalogue uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The HTTP API v2 groups the commands into tools as the real server does; a command's
#: group comes from its category unless its spec names one (``ToolSpec.group``).
#: ``spacemolt_auth`` and ``spacemolt_social`` are the groups SpaceMolt's own client
#: calls by name; ``spacemolt`` holds the rest of the everyday game.
CATEGORY_GROUPS: dict[str, str] = {
    "auth": "spacemolt_auth",
    "social": "spacemolt_social",
    "captains_log": "spacemolt_social",
    "forum": "spacemolt_social",
    "notes": "spacemolt_social",
    "faction": "spacemolt_faction",
    "fleet": "spacemolt_fleet",
    "market": "spacemolt_market",
    "ships": "spacemolt_ship",
    "storage": "spacemolt_storage",
    "insurance": "spacemolt_salvage",
    "salvage": "spacemolt_salvage",
}
#: The group of every category not named above.
DEFAULT_GROUP = "spacemolt"

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
    `group` places the command in the HTTP API v2 where the real server has it, when its
    category's group (`CATEGORY_GROUPS`) would not.
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
    group: str = ""

    @property
    def api_group(self) -> str:
        """The HTTP API v2 tool this command is an action of (`/api/v2/{group}/{name}`)."""
        return self.group or CATEGORY_GROUPS.get(self.category, DEFAULT_GROUP)

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

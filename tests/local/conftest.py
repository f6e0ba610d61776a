"""What the tests of the ``local`` extra share: the model file, and what every request offers.

These tests run a real model, so they need the extra. They fail, never skip, when it
is missing: ``make test`` installs it (see :data:`~zoea_tui.providers.local.INSTALL_COMMANDS`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zoea_tui.providers.local import LocalModelUnavailableError, find_model_path

SYSTEM = "You are a pilot in a space game. Use the tools to act."
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_status",
            "description": "Your ship's status: credits, cargo, location.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "mine",
            "description": "Mine ore at the asteroid belt you are at.",
            "parameters": {"type": "object", "properties": {"target": {"type": "string"}}},
        },
    },
]
OFFERED = {tool["function"]["name"] for tool in TOOLS}
STATUS = '{"credits": 1200, "cargo": "empty", "location": "Sol belt"}'


@pytest.fixture(scope="session")
def gguf() -> Path:
    """The SmolLM2 weights; the test fails with the install commands when they are missing."""
    try:
        return find_model_path("smollm2-135m")
    except LocalModelUnavailableError as error:
        missing = error.message
    pytest.fail(f"The tests in tests/local need the `local` extra. {missing}", pytrace=False)

"""The embedded SpaceMolt-like world: a pure, seeded engine (`World`) and its catalogue.

No MCP, asyncio or I/O here; a facade elsewhere serves `World.call` over MCP.
"""

from zoea_tui.sim.engine import World
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.tools import TOOL_SPECS, ToolSpec

__all__ = ["TOOL_SPECS", "GameError", "ToolSpec", "World"]

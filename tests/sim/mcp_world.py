"""The simulated world over the real MCP path, as the sim tests reach it: one seeded world
served in-process or over Streamable HTTP, calls that must succeed or fail, and the names
of the tools each part of the catalogue adds."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

from mcp import Client

from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.mcp_server import in_process_server
from zoea_tui.sim.serve import HttpWorldServer

#: The transports a world is served over (a fixture's params).
TRANSPORTS = ["in-process", "http"]

#: The everyday tools (with the arena's, what the app's own world lists): account,
#: status, travel, mining, the market, chat, the captain's log, notifications.
EVERYDAY_TOOLS = {
    "register",
    "login",
    "logout",
    "get_status",
    "get_ship",
    "get_cargo",
    "help",
    "get_commands",
    "get_version",
    "get_system",
    "get_poi",
    "get_nearby",
    "get_map",
    "search_systems",
    "find_route",
    "travel",
    "jump",
    "dock",
    "undock",
    "mine",
    "refuel",
    "repair",
    "view_market",
    "sell",
    "buy",
    "chat",
    "get_chat_history",
    "captains_log_add",
    "captains_log_list",
    "captains_log_get",
    "get_notifications",
}

#: The tools added for the arena: missions, the exchange, storage, the catalogue,
#: shipyards, fitting, pirates, wrecks, other ship actions, profile, forum, statistics.
ARENA_TOOLS = [
    "get_missions",
    "accept_mission",
    "get_active_missions",
    "complete_mission",
    "abandon_mission",
    "create_sell_order",
    "create_buy_order",
    "view_orders",
    "cancel_order",
    "analyze_market",
    "estimate_purchase",
    "get_trades",
    "view_storage",
    "deposit_items",
    "withdraw_items",
    "catalog",
    "get_skills",
    "get_guide",
    "get_base",
    "facility",
    "shipyard_showroom",
    "browse_ships",
    "list_ships",
    "buy_ship",
    "switch_ship",
    "install_mod",
    "uninstall_mod",
    "attack",
    "scan",
    "get_wrecks",
    "loot_wreck",
    "salvage_wreck",
    "jettison",
    "survey_system",
    "set_status",
    "set_colors",
    "forum_list",
    "forum_get_thread",
    "forum_create_thread",
    "forum_reply",
    "claim",
    "get_player_stats",
]

#: The commands SpaceMolt's own client's gameplay guide names: battles, crafting, notes,
#: factions, fleets, insurance, commissions, towing, gifts, distress calls.
GUIDE_TOOLS = [
    "battle",
    "get_battle_status",
    "reload",
    "distress_signal",
    "craft",
    "set_home_base",
    "create_note",
    "write_note",
    "read_note",
    "get_notes",
    "create_faction",
    "faction_info",
    "faction_invite",
    "faction_submit_intel",
    "faction_query_intel",
    "view_faction_storage",
    "fleet",
    "get_insurance_quote",
    "buy_insurance",
    "claim_insurance",
    "commission_ship",
    "commission_quote",
    "commission_status",
    "claim_commission",
    "tow_wreck",
    "release_tow",
    "sell_wreck",
    "scrap_wreck",
    "send_gift",
]


@dataclass
class Served:
    """One world on the simulated clock and a way to open MCP clients to it."""

    host: WorldHost
    connect: Callable[[], AbstractAsyncContextManager[Client]]


@asynccontextmanager
async def served_world(transport: str, *, full_catalogue: bool = False) -> AsyncIterator[Served]:
    """A world of seed 42 with 5 000 starting credits, served over ``transport`` (one of
    :data:`TRANSPORTS`) while the block runs."""
    host = WorldHost.open(seed=42, tick_seconds=0, full_catalogue=full_catalogue)
    host.world.starting_credits = 5_000
    if transport == "in-process":
        yield Served(host, lambda: Client(in_process_server(host), mode="legacy"))
        return
    async with HttpWorldServer(host) as server:
        yield Served(host, lambda: Client(server.url, mode="legacy"))


async def ok(client: Client, tool: str, args: dict | None = None) -> dict:
    """Call ``tool``; it must succeed. Its payload."""
    result = await client.call_tool(tool, args or {})
    payload = json.loads(result.content[0].text)
    assert not result.is_error, payload
    return payload


async def error(client: Client, tool: str, args: dict | None = None) -> str:
    """Call ``tool``; it must fail. Its error as ``[code] message``."""
    result = await client.call_tool(tool, args or {})
    assert result.is_error, result.content[0].text
    failure = json.loads(result.content[0].text)["error"]
    return f"[{failure['code']}] {failure['message']}"


async def error_code(client: Client, tool: str, args: dict | None = None) -> str:
    """Call ``tool``; it must fail. Its error's code."""
    return (await error(client, tool, args)).split("]")[0][1:]

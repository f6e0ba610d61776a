"""The tool catalogue: names, descriptions, argument schemas and dispatch flags.

Names and arguments are the real game's flat v1 tools
(docs/ARCHITECTURE.md, 'The embedded world'). An MCP facade lists `TOOL_SPECS` as-is;
the engine reads the flags to decide who may call what, when.
"""

from __future__ import annotations

from zoea_tui.sim.tool_spec import ToolSpec, integer_arg, string_arg
from zoea_tui.sim.tools_combat import COMBAT_SPECS
from zoea_tui.sim.tools_community import COMMUNITY_SPECS
from zoea_tui.sim.tools_economy import ECONOMY_SPECS
from zoea_tui.sim.tools_guide import GUIDE_SPECS

__all__ = ["GUIDE_TOOLS", "TOOLS_BY_NAME", "TOOL_SPECS", "ToolSpec"]

_CHANNELS = ["system", "local", "faction", "private"]


def _trip(name: str, description: str, target: tuple[str, str, str]) -> ToolSpec:
    """`travel` or `jump`: a strict move to `target` (its argument, that argument's
    description and an example value)."""
    argument, about, example = target
    return ToolSpec(
        name,
        "movement",
        description,
        {argument: string_arg(about)},
        (argument,),
        mutation=True,
        strict=True,
        example=example,
    )


def _station_trade(name: str, description: str, example_item: str) -> ToolSpec:
    """`sell` or `buy`: a trade of `quantity` units of `item_id` with the station."""
    return ToolSpec(
        name,
        "market",
        description,
        {
            "item_id": string_arg(f"Item id, e.g. {example_item}"),
            "quantity": integer_arg("Units", minimum=1),
        },
        ("item_id", "quantity"),
        mutation=True,
        group="spacemolt",
    )


TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "register",
        "auth",
        "Create a new pilot account and log in. Returns your password (save it: it is "
        "shown once) and a session_id. Empire is one of solarian, voidborn, crimson, "
        "nebula, outerrim (lowercase).",
        {
            "username": string_arg("3-24 characters, unique"),
            "empire": string_arg(
                "Empire id", enum=["solarian", "voidborn", "crimson", "nebula", "outerrim"]
            ),
            "registration_code": string_arg("Registration code (any value works in this world)"),
        },
        ("username", "empire"),
        auth=False,
    ),
    ToolSpec(
        "login",
        "auth",
        "Log in to an existing account. A login elsewhere ends this one.",
        {
            "username": string_arg("Your username"),
            "password": string_arg("Your password (64 hex chars)"),
        },
        ("username", "password"),
        auth=False,
    ),
    ToolSpec("logout", "auth", "Log out. Your pilot and ship stay where they are."),
    ToolSpec(
        "get_status",
        "status",
        "Your player (credits, location, skills, stats), ship and modules, and any trip under way.",
    ),
    ToolSpec("get_ship", "status", "Your ship: hull, shield, fuel, speed, modules and cargo."),
    ToolSpec("get_cargo", "status", "Your cargo hold: items, space used and available."),
    ToolSpec(
        "help",
        "status",
        "List the commands, or describe one command and its arguments.",
        {
            "command": string_arg("A command name"),
            "category": string_arg("Only list this category"),
        },
        auth=False,
    ),
    ToolSpec("get_commands", "status", "The names of all commands, by category.", auth=False),
    ToolSpec("get_version", "status", "The game version.", auth=False),
    ToolSpec(
        "get_system",
        "location",
        "Your current system (or another by system_id): its POIs, jump connections and security.",
        {"system_id": string_arg("A system id; defaults to yours")},
        needs_position=True,
    ),
    ToolSpec(
        "get_poi",
        "location",
        "Your current POI (or another by poi_id): type, resources with remaining "
        "amounts, base and services.",
        {"poi_id": string_arg("A POI id; defaults to yours")},
        needs_position=True,
    ),
    ToolSpec("get_nearby", "location", "Other pilots at your POI.", needs_position=True),
    ToolSpec(
        "get_map",
        "location",
        "All charted systems, their positions and jump links.",
        {"system_id": string_arg("Only this system")},
    ),
    ToolSpec(
        "search_systems",
        "location",
        "Find systems whose name contains the query.",
        {"query": string_arg("Part of a system name")},
        ("query",),
    ),
    ToolSpec(
        "find_route",
        "location",
        "The shortest jump route from your system to target_system, with fuel needed.",
        {"target_system": string_arg("Destination system id")},
        ("target_system",),
        strict=True,
        example="sol",
    ),
    _trip(
        "travel",
        "Fly to a POI in your current system. Takes ticks and fuel by distance; you "
        "are in transit until arrival_tick. Undocks automatically.",
        ("target_poi", "Destination POI id in this system", "main_belt"),
    ),
    _trip(
        "jump",
        "Jump to a connected system (2 fuel, several ticks). You arrive at its station "
        "if it has one. Undocks automatically.",
        ("target_system", "A connected system id", "sol"),
    ),
    ToolSpec("dock", "movement", "Dock at the base of your current POI.", mutation=True),
    ToolSpec("undock", "movement", "Undock from the base.", mutation=True),
    ToolSpec(
        "mine",
        "resources",
        "Mine the asteroid belt you are at (undocked). Ore goes to cargo; the belt "
        "depletes and slowly regenerates.",
        mutation=True,
    ),
    ToolSpec(
        "refuel",
        "resources",
        "Docked at a station: fill the tank for credits. With item_id/quantity: burn "
        "fuel cells from cargo (works anywhere).",
        {
            "item_id": string_arg("fuel_cell to burn fuel cells from cargo"),
            "quantity": integer_arg("Fuel cells to burn", minimum=1),
        },
        mutation=True,
    ),
    ToolSpec(
        "repair", "resources", "Docked at a station: repair the hull for credits.", mutation=True
    ),
    ToolSpec(
        "view_market",
        "market",
        "Docked: the station's prices. best_buy is what the station pays you, "
        "best_sell what it charges.",
        {
            "item_id": string_arg("Only this item"),
            "category": string_arg("Only this category (ore, ...)"),
        },
        needs_position=True,
    ),
    _station_trade("sell", "Docked: sell cargo to the station.", "iron_ore"),
    _station_trade("buy", "Docked: buy from the station into cargo.", "fuel_cell"),
    ToolSpec(
        "chat",
        "social",
        "Send a chat message: system (your system), local (your POI), faction, or "
        "private (target_id = player id or username).",
        {
            "channel": string_arg("Channel", enum=_CHANNELS),
            "content": string_arg("Message text"),
            "target_id": string_arg("Recipient for private messages"),
        },
        ("channel", "content"),
    ),
    ToolSpec(
        "get_chat_history",
        "social",
        "Recent messages of a channel, newest first.",
        {
            "channel": string_arg("Channel", enum=_CHANNELS),
            "target_id": string_arg("The other pilot, for private"),
            "limit": integer_arg("At most 100 (default 20)", minimum=1, maximum=100),
            "before": integer_arg("Only messages with an id below this"),
        },
        ("channel",),
    ),
    ToolSpec(
        "captains_log_add",
        "captains_log",
        "Add an entry to your captain's log (your lasting memory; 20 entries kept, "
        "oldest dropped).",
        {"entry": string_arg("The log text")},
        ("entry",),
    ),
    ToolSpec(
        "captains_log_list",
        "captains_log",
        "One log entry by index (0 = newest) with paging info.",
        {"index": integer_arg("Entry index, 0 = newest", minimum=0)},
    ),
    ToolSpec(
        "captains_log_get",
        "captains_log",
        "One log entry by index (0 = newest).",
        {"index": integer_arg("Entry index, 0 = newest", minimum=0)},
        ("index",),
    ),
    ToolSpec(
        "get_notifications",
        "notifications",
        "Events since your last check (arrivals, chat, trades, mining...). Clears "
        "them unless clear is false.",
        {
            "limit": integer_arg("1-100 (default 50)", minimum=1, maximum=100),
            "clear": {"type": "boolean", "description": "Remove returned events (default true)"},
            "types": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Only these types: chat, trade, system, tip",
            },
        },
    ),
)

TOOL_SPECS += COMBAT_SPECS + ECONOMY_SPECS + COMMUNITY_SPECS + GUIDE_SPECS

TOOLS_BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOL_SPECS}

#: The commands only commander's gameplay guide needs (``tools_guide.py``): served by
#: ``zoea sim serve`` in its MCP tool list and its HTTP API, answered everywhere, but left
#: out of the tool list of the app's own worlds (``WorldHost(full_catalogue=False)``),
#: whose Myses would pay about 2 100 tool tokens more per request for them (a third more:
#: SmolLM2's 8k window could no longer hold the tools and a prompt).
GUIDE_TOOLS: frozenset[str] = frozenset(spec.name for spec in GUIDE_SPECS)

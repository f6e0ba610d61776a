"""Tool specs of missions, the exchange, storage, the catalogue and shipyards."""

from __future__ import annotations

from zoea_tui.sim.tool_spec import ToolSpec, integer_arg, string_arg

_ITEM = string_arg("Item id, e.g. iron_ore")
_QTY = integer_arg("Units", minimum=1)
_PRICE = integer_arg("Credits per unit", minimum=1)
_BASE = string_arg("A station's base_id; defaults to the station you are at")
_MISSION = string_arg("The mission id (from get_missions or get_active_missions)")


def _new_order(name: str, description: str) -> ToolSpec:
    """`create_sell_order` or `create_buy_order`: `quantity` of `item_id` at `price_each`."""
    return ToolSpec(
        name,
        "market",
        description,
        {"item_id": _ITEM, "quantity": _QTY, "price_each": _PRICE},
        ("item_id", "quantity", "price_each"),
        mutation=True,
    )


def _storage_move(name: str, description: str) -> ToolSpec:
    """`deposit_items` or `withdraw_items`: `quantity` of `item_id` between cargo and
    storage here."""
    return ToolSpec(
        name,
        "storage",
        description,
        {"item_id": _ITEM, "quantity": _QTY},
        ("item_id", "quantity"),
        mutation=True,
    )


ECONOMY_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "get_missions",
        "missions",
        "The mission board of the station you are at: deliveries, mining quotas, courier "
        "trips and pirate hunts that fit a starter ship, with rewards.",
        {"offset": integer_arg("Skip this many missions (paging)", minimum=0)},
        needs_position=True,
    ),
    ToolSpec(
        "accept_mission",
        "missions",
        "Accept a mission from this station's board (at most 5 active).",
        {"mission_id": _MISSION},
        ("mission_id",),
        mutation=True,
    ),
    ToolSpec(
        "get_active_missions",
        "missions",
        "Your accepted missions with their progress and where to turn them in.",
    ),
    ToolSpec(
        "complete_mission",
        "missions",
        "Turn in a finished mission, docked at the station it names, for its reward.",
        {"mission_id": _MISSION},
        ("mission_id",),
        mutation=True,
    ),
    ToolSpec(
        "abandon_mission",
        "missions",
        "Drop an active mission (no penalty).",
        {"mission_id": _MISSION},
        ("mission_id",),
    ),
    _new_order(
        "create_sell_order",
        "Docked: list cargo for sale at price_each. It fills at once against buyers paying "
        "that much; the rest waits in escrow on the exchange.",
    ),
    _new_order(
        "create_buy_order",
        "Docked: bid price_each for an item; the credits go to escrow. It fills at once "
        "against sellers asking that or less; the rest waits on the exchange.",
    ),
    ToolSpec(
        "view_orders",
        "market",
        "Your open exchange orders.",
        {
            "base_id": string_arg("Only orders at this base"),
            "item_id": string_arg("Only this item"),
        },
    ),
    ToolSpec(
        "cancel_order",
        "market",
        "Cancel your orders: a buy order's escrow comes back, a sell order's items go to your "
        "storage at that station.",
        {
            "order_id": string_arg("One order id"),
            "order_ids": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Several order ids",
            },
        },
        mutation=True,
    ),
    ToolSpec(
        "analyze_market",
        "market",
        "Market analysis: this station's prices against every station's, the best place to "
        "sell and to buy each item, and the most profitable routes.",
        {"base_id": _BASE, "item_id": string_arg("Only this item")},
    ),
    ToolSpec(
        "estimate_purchase",
        "market",
        "What buying quantity of an item here would cost, without buying.",
        {"item_id": _ITEM, "quantity": _QTY, "base_id": _BASE},
        ("item_id", "quantity"),
    ),
    ToolSpec(
        "get_trades",
        "market",
        "Your recent trades and order fills, and pending trade offers.",
        {"base_id": string_arg("Ignored; kept for compatibility")},
        group="spacemolt_transfer",
    ),
    ToolSpec(
        "view_storage",
        "storage",
        "Your items stored at a station.",
        {"station_id": _BASE, "base_id": _BASE},
    ),
    _storage_move("deposit_items", "Docked: move cargo into your storage at this station."),
    _storage_move("withdraw_items", "Docked: move items from your storage here into cargo."),
    ToolSpec(
        "catalog",
        "info",
        "Reference data. type is one of ships, skills, recipes, items; filter items with "
        "category (ore, module, weapon, defense, ...) or any type with id.",
        {
            "type": string_arg(
                "ships, skills, recipes or items", enum=["ships", "skills", "recipes", "items"]
            ),
            "category": string_arg(
                "Items only: ore, consumable, component, module, weapon, defense, mining, utility"
            ),
            "id": string_arg("Only this entry"),
        },
        ("type",),
        auth=False,
    ),
    ToolSpec("get_skills", "info", "Your skills: level, XP and the XP of the next level."),
    ToolSpec(
        "get_guide",
        "info",
        "A playbook: getting-started, miner, trader, explorer, missions, pirate-hunter. "
        "Without guide, the list.",
        {"guide": string_arg("Guide id"), "topic": string_arg("Same as guide")},
        auth=False,
    ),
    ToolSpec(
        "get_base",
        "location",
        "A station's base: services, facilities, fuel price, mission board and shipyard.",
        {"base_id": _BASE},
    ),
    ToolSpec(
        "facility",
        "location",
        "A station's facilities (market, fuel, repair, storage, mission board, shipyard) and "
        "the commands each serves.",
        {
            "base_id": _BASE,
            "poi": string_arg("A station POI id"),
            "name": string_arg("Only this facility"),
        },
    ),
    ToolSpec(
        "shipyard_showroom",
        "ships",
        "Ship classes for sale at this station's shipyard, with prices and stats.",
        {"base_id": _BASE},
    ),
    ToolSpec(
        "browse_ships",
        "ships",
        "Same as shipyard_showroom: the ships for sale here.",
        {"base_id": _BASE},
    ),
    ToolSpec("list_ships", "ships", "Your ships: the active one and those stored at stations."),
    ToolSpec(
        "buy_ship",
        "ships",
        "Docked at a shipyard: buy a ship class. It becomes active; your old ship is stored here.",
        {"ship_class": string_arg("A class id from shipyard_showroom")},
        ("ship_class",),
        mutation=True,
    ),
    ToolSpec(
        "switch_ship",
        "ships",
        "Docked: switch to one of your ships stored at this station.",
        {"ship_id": string_arg("A ship id from list_ships")},
        ("ship_id",),
        mutation=True,
    ),
)

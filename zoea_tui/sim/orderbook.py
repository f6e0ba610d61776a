"""Player orders on the exchange: resting orders, matching, escrow, and NPC order flow.

An order is a plain dict on `World.orders`: `{order_id, owner, base_id, side ("buy" or
"sell"), item_id, price_each, quantity (left), original_quantity, created_tick}`. A sell
order holds its items in escrow, a buy order its credits. `buy`/`sell` and new orders
fill against the best opposite player orders first (price, then age), then against the
station. Every few ticks (the world profile's `npc_flow_every`; 5 in the classic world)
the station's NPC traders take a few units (`npc_flow_units`; `NPC_FLOW` = 10 classic)
of each resting order priced at least as well as the station's own quote (sell
orders at or below its ask, buy orders at or above its bid).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim.catalog import ITEMS
from zoea_tui.sim.galaxy import Base

if TYPE_CHECKING:
    from zoea_tui.sim.players import Player
    from zoea_tui.sim.world_state import WorldState

NPC_FLOW = 10
TRADE_LOG_CAP = 50


def resting(
    world: WorldState, base_id: str, item_id: str, side: str, exclude: str | None = None
) -> list[dict[str, Any]]:
    """Resting orders of one side at a base, best first (cheapest sells, dearest buys)."""
    found = [
        o
        for o in world.orders
        if o["base_id"] == base_id
        and o["item_id"] == item_id
        and o["side"] == side
        and o["owner"] != exclude
    ]
    sign = 1 if side == "sell" else -1
    return sorted(found, key=lambda o: (sign * o["price_each"], _number(o["order_id"])))


def _number(order_id: str) -> int:
    return int(order_id.rsplit("_", 1)[-1])


def base_by_id(world: WorldState, base_id: str) -> Base | None:
    """The base with this id (or the base of the POI with this id)."""
    for poi in world.galaxy.pois.values():
        if poi.base is not None and base_id in (poi.base.id, poi.id):
            return poi.base
    return None


def record_trade(player: Player, entry: dict[str, Any]) -> None:
    """Keep a trade in the player's recent trades (newest last, capped)."""
    player.trade_log.append(entry)
    del player.trade_log[:-TRADE_LOG_CAP]


def store(player: Player, base_id: str, item_id: str, quantity: int) -> None:
    """Put items in the player's storage at a base."""
    shelf = player.storage.setdefault(base_id, {})
    shelf[item_id] = shelf.get(item_id, 0) + quantity


def settle(world: WorldState, order: dict[str, Any], quantity: int, price: int) -> None:
    """The owner's side of a fill: a sell order is paid, a buy order receives items.

    A buy order filled below its limit refunds the difference to its owner; what it
    paid is spent then (credits in escrow are neither earned nor spent).
    """
    owner = world.players[order["owner"]]
    order["quantity"] -= quantity
    total = quantity * price
    if order["side"] == "sell":
        owner.credits += total
        owner.stats["credits_earned"] += total
    else:
        store(owner, order["base_id"], order["item_id"], quantity)
        refund = (order["price_each"] - price) * quantity
        owner.credits += refund
        # Paid now, out of the escrow: spent, as SMBench's server keeps its books (in every
        # published run, final credits = 100 + credits_earned - credits_spent).
        owner.stats["credits_spent"] += total
    owner.stats["orders_filled"] += 1
    owner.stats["trades_completed"] += 1
    record_trade(
        owner,
        {
            "order_id": order["order_id"],
            "side": order["side"],
            "item_id": order["item_id"],
            "quantity": quantity,
            "price_each": price,
            "total": total,
            "tick": world.tick,
            "base_id": order["base_id"],
        },
    )
    world.notify(
        owner,
        "trade",
        "order_filled",
        {
            "order_id": order["order_id"],
            "side": order["side"],
            "item_id": order["item_id"],
            "quantity": quantity,
            "price_each": price,
            "remaining": order["quantity"],
        },
        message=f"Your {order['side']} order {order['order_id']} filled {quantity} "
        f"{order['item_id']} at {price} credits each ({order['quantity']} left).",
    )
    if order["quantity"] <= 0:
        world.orders.remove(order)


def quote(orders: list[dict[str, Any]], quantity: int, accept: Any) -> list[dict[str, Any]]:
    """The fills up to `quantity` from `orders` (best first) while `accept(price)` holds,
    one per order from the first, without settling them (:func:`take` settles)."""
    fills: list[dict[str, Any]] = []
    left = quantity
    for order in orders:
        if left <= 0 or not accept(order["price_each"]):
            break
        qty = min(left, order["quantity"])
        fills.append(
            {
                "price_each": order["price_each"],
                "quantity": qty,
                "subtotal": qty * order["price_each"],
                "source": "player",
                "counterparty": order["owner"],
            }
        )
        left -= qty
    return fills


def take(
    world: WorldState, orders: list[dict[str, Any]], quantity: int, accept: Any
) -> list[dict[str, Any]]:
    """Fill up to `quantity` from `orders` (best first) while `accept(price)` holds."""
    fills = quote(orders, quantity, accept)
    settle_fills(world, orders, fills)
    return fills


def settle_fills(
    world: WorldState, orders: list[dict[str, Any]], fills: list[dict[str, Any]]
) -> None:
    """Settle the player fills of a :func:`quote` of `orders` (one per order from the
    first; station fills, which come after them, have no order to settle)."""
    for order, fill in zip(orders, fills, strict=False):
        if fill["source"] == "player":
            settle(world, order, fill["quantity"], fill["price_each"])


def new_order(
    world: WorldState,
    owner: Player,
    base_id: str,
    side: str,
    item_id: str,
    price_each: int,
    quantity: int,
) -> dict[str, Any]:
    """Rest an order on the book (escrow is the caller's business)."""
    order = {
        "order_id": f"order_{world.next_id('order')}",
        "owner": owner.username,
        "base_id": base_id,
        "side": side,
        "item_id": item_id,
        "price_each": price_each,
        "quantity": quantity,
        "original_quantity": quantity,
        "created_tick": world.tick,
    }
    world.orders.append(order)
    owner.stats["orders_created"] += 1
    return order


def order_view(order: dict[str, Any]) -> dict[str, Any]:
    """An order as `view_orders` shows it."""
    return {
        **order,
        "item_name": ITEMS[order["item_id"]].name,
        "filled": order["original_quantity"] - order["quantity"],
    }


def npc_flow(world: WorldState) -> None:
    """NPC traders take from resting orders priced at least as well as the station."""
    for order in list(world.orders):
        base = base_by_id(world, order["base_id"])
        if base is None or order not in world.orders:
            continue
        item = order["item_id"]
        if order["side"] == "sell":
            fair = order["price_each"] <= base.ask(item)
        else:
            fair = order["price_each"] >= base.bid(item)
        if fair:
            units = world.profile.npc_flow_units
            settle(world, order, min(units, order["quantity"]), order["price_each"])

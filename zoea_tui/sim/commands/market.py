"""Station markets: view_market, sell, buy.

Each station quotes a bid and an ask per item from the item's base price and the
station's own factor; orders walk the book in levels (see `rules.walk_book`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from zoea_tui.sim import errors, orderbook, params, rules
from zoea_tui.sim.catalog import ITEMS, ItemDef, find_item
from zoea_tui.sim.commands.navigation import needs_auto_dock, with_auto_dock
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.galaxy import Base
from zoea_tui.sim.players import Player

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState


def item_arg(call: Call) -> ItemDef:
    """The `item_id` argument as an item; `invalid_item` if unknown."""
    raw = params.text(call.args, "item_id")
    item = find_item(raw) if raw else None
    if item is None:
        raise errors.invalid_item(raw)
    return item


def quantity_arg(call: Call) -> int:
    """The `quantity` argument; `invalid_payload` unless a whole number above 0."""
    quantity = params.integer(call.args, "quantity")
    if quantity is None or quantity <= 0:
        raise errors.invalid_quantity()
    return quantity


def base_here(world: WorldState, me: Player) -> Base:
    """The base of the player's POI (callers have checked there is one)."""
    base = world.galaxy.pois[me.poi_id].base
    assert base is not None
    return base


def _book_side(world: WorldState, base: Base, item: ItemDef, side: str) -> list[dict[str, Any]]:
    return [
        {"order_id": o["order_id"], "price_each": o["price_each"], "quantity": o["quantity"]}
        for o in orderbook.resting(world, base.id, item.id, side)
    ]


def _listing(world: WorldState, base: Base, item: ItemDef) -> dict[str, Any]:
    bid = base.bid(item.id)
    sells = base.market[item.id].sells
    ask = base.ask(item.id) if sells else None
    return {
        "item_id": item.id,
        "item_name": item.name,
        "category": item.category,
        "best_buy": bid,
        "best_buy_qty": rules.MARKET_LEVEL_DEPTH,
        "best_sell": ask,
        "best_sell_qty": rules.MARKET_LEVEL_DEPTH if sells else 0,
        "spread": ask - bid if ask is not None else None,
        "buy_orders": _book_side(world, base, item, "buy"),
        "sell_orders": _book_side(world, base, item, "sell"),
    }


def view_market(world: WorldState, call: Call) -> dict[str, Any]:
    """The docked station's prices, optionally for one item or one category."""
    me = call.me
    if not me.docked:
        raise errors.not_docked_here()
    base = base_here(world, call.me)
    raw = params.text(call.args, "item_id")
    category = params.text(call.args, "category").strip().lower()
    items = list(ITEMS.values())
    if raw:
        wanted = find_item(raw)
        if wanted is None:
            raise errors.invalid_item(raw)
        items = [wanted]
    if category:
        items = [i for i in items if i.category == category]
    return {
        "action": "view_market",
        "base": base.name,
        "base_id": base.id,
        "items": [_listing(world, base, i) for i in items],
        "note": "best_buy: what the station pays you per unit when you sell. "
        "best_sell: what it charges per unit when you buy (null: not for sale here).",
    }


def station_fills(top_price: int, quantity: int, selling: bool) -> list[dict[str, Any]]:
    """Fills against the station's book, marked `source: station`."""
    return [{**f, "source": "station"} for f in rules.walk_book(top_price, quantity, selling)]


@dataclass(frozen=True)
class Purchase:
    """What buying takes at a station: the player sell orders it walks (`sellers`, best
    first), its `fills` (those orders' first, then the station's book) and what no one
    sells there (`unfilled`)."""

    sellers: list[dict[str, Any]]
    fills: list[dict[str, Any]]
    unfilled: int


def plan_purchase(
    world: WorldState, base: Base, item: ItemDef, quantity: int, buyer: str
) -> Purchase:
    """How `buyer` would buy `quantity` of `item` at `base`, settling nothing: player
    offers below the station's ask (any offer where the station does not sell the item),
    then the station's book. `buy` charges it, `estimate_purchase` quotes it."""
    sells = base.market[item.id].sells
    ask = base.ask(item.id)
    sellers = orderbook.resting(world, base.id, item.id, "sell", buyer)
    fills = orderbook.quote(sellers, quantity, lambda price: not sells or price < ask)
    left = quantity - sum(f["quantity"] for f in fills)
    if left and sells:
        fills += station_fills(ask, left, selling=False)
        left = 0
    return Purchase(sellers, fills, left)


def require_cargo(me: Player, item: ItemDef, quantity: int, doing: str) -> None:
    """Raise ``insufficient_items`` unless the cargo holds `quantity` of `item` (`doing`:
    what the player cannot do without it, "sell", "list")."""
    have = me.ship.cargo.get(item.id, 0)
    if have < quantity:
        raise GameError(
            "insufficient_items",
            f"You have {have} {item.name} in cargo and cannot {doing} {quantity}. "
            "Use get_cargo to check quantities.",
        )


def sell(world: WorldState, call: Call) -> dict[str, Any]:
    """Sell cargo to the station at its bid, walking down the book."""
    me = call.me
    item = item_arg(call)
    quantity = quantity_arg(call)
    auto = needs_auto_dock(world, me)
    require_cargo(me, item, quantity, "sell")
    base = base_here(world, call.me)
    bid = base.bid(item.id)
    buyers = orderbook.resting(world, base.id, item.id, "buy", me.username)
    fills = orderbook.take(world, buyers, quantity, lambda p: p > bid)
    left = quantity - sum(f["quantity"] for f in fills)
    if left:
        fills += station_fills(bid, left, selling=True)
    total = sum(f["subtotal"] for f in fills)
    me.ship.remove_cargo(item.id, quantity)
    if item.category == "ore":
        me.stats["ore_sold"] += quantity
    result: dict[str, Any] = {
        **_completed(world, me, "sell", item, quantity, total, base),
        "quantity_sold": quantity,
        "total_earned": total,
        "fills": fills,
        "credits": me.credits,
        "level_up": False,
    }
    return with_auto_dock(world, me, auto, result)


def buy(world: WorldState, call: Call) -> dict[str, Any]:
    """Buy from the station at its ask, walking up the book, into cargo."""
    me = call.me
    item = item_arg(call)
    quantity = quantity_arg(call)
    auto = needs_auto_dock(world, me)
    base = base_here(world, call.me)
    plan = plan_purchase(world, base, item, quantity, me.username)
    if not plan.fills:
        raise errors.item_not_available(item.name, item.id)
    fills, left = plan.fills, plan.unfilled
    quantity -= left
    total = sum(f["subtotal"] for f in fills)
    if me.credits < total:
        raise errors.insufficient_credits(total, me.credits, f"buy {quantity} {item.name}")
    space = quantity * item.size
    if me.ship.cargo_free < space:
        raise GameError(
            "no_cargo_space",
            f"Not enough cargo space: {quantity} {item.name} need {space}, you have "
            f"{me.ship.cargo_free} free. Sell cargo first or buy less.",
        )
    orderbook.settle_fills(world, plan.sellers, fills)
    me.ship.add_cargo(item.id, quantity)
    result: dict[str, Any] = {
        **_completed(world, me, "buy", item, quantity, total, base),
        "quantity": quantity,
        "total_cost": total,
        "fills": fills,
        "unfilled": left,
        "delivered_to_cargo": quantity,
        "delivered_to_storage": 0,
        "credits": me.credits,
    }
    return with_auto_dock(world, me, auto, result)


def _completed(
    world: WorldState,
    me: Player,
    side: Literal["buy", "sell"],
    item: ItemDef,
    quantity: int,
    total: int,
    base: Base,
) -> dict[str, Any]:
    """A trade with the station done: paid (`total` credits to or from the player),
    counted, kept in the player's recent trades and told to the player as a
    ``trade_completed`` event. Returns what the trade's answer starts with."""
    if side == "sell":
        me.credits += total
        me.stats["credits_earned"] += total
    else:
        me.credits -= total
        me.stats["credits_spent"] += total
    me.stats["trades_completed"] += 1
    trade = {
        "side": side,
        "item_id": item.id,
        "quantity": quantity,
        "total": total,
        "base_id": base.id,
    }
    orderbook.record_trade(me, {**trade, "tick": world.tick})
    verb = "Sold" if side == "sell" else "Bought"
    world.notify(
        me,
        "trade",
        "trade_completed",
        trade,
        message=f"{verb} {quantity} {item.name} for {total} credits.",
    )
    return {"action": "sold" if side == "sell" else "bought", "item": item.name, "item_id": item.id}


HANDLERS = {"view_market": view_market, "sell": sell, "buy": buy}

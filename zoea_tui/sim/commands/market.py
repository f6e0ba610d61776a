"""Station markets: view_market, sell, buy.

Each station quotes a bid and an ask per item from the item's base price and the
station's own factor; orders walk the book in levels (see `rules.walk_book`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params, rules
from zoea_tui.sim.catalog import ITEMS, ItemDef, find_item
from zoea_tui.sim.commands.navigation import apply_auto_dock, needs_auto_dock
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.galaxy import Base

if TYPE_CHECKING:
    from zoea_tui.sim.engine import Call, World


def _item(call: Call) -> ItemDef:
    raw = params.text(call.args, "item_id")
    item = find_item(raw) if raw else None
    if item is None:
        raise errors.invalid_item(raw)
    return item


def _quantity(call: Call) -> int:
    quantity = params.integer(call.args, "quantity")
    if quantity is None or quantity <= 0:
        raise errors.invalid_quantity()
    return quantity


def _base_here(world: World, call: Call) -> Base:
    base = world.galaxy.pois[call.me.poi_id].base
    assert base is not None
    return base


def _listing(base: Base, item: ItemDef) -> dict[str, Any]:
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
    }


def view_market(world: World, call: Call) -> dict[str, Any]:
    """The docked station's prices, optionally for one item or one category."""
    me = call.me
    if not me.docked:
        raise errors.not_docked_here()
    base = _base_here(world, call)
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
        "items": [_listing(base, i) for i in items],
        "note": "best_buy: what the station pays you per unit when you sell. "
        "best_sell: what it charges per unit when you buy (null: not for sale here).",
    }


def _with_source(fills: list[dict[str, int]]) -> list[dict[str, Any]]:
    return [{**fill, "source": "station"} for fill in fills]


def sell(world: World, call: Call) -> dict[str, Any]:
    """Sell cargo to the station at its bid, walking down the book."""
    me = call.me
    item = _item(call)
    quantity = _quantity(call)
    auto = needs_auto_dock(world, me)
    have = me.ship.cargo.get(item.id, 0)
    if have < quantity:
        raise GameError(
            "insufficient_items",
            f"You have {have} {item.name} in cargo and cannot sell {quantity}. "
            "Use get_cargo to check quantities.",
        )
    base = _base_here(world, call)
    fills = rules.walk_book(base.bid(item.id), quantity, selling=True)
    total = sum(f["subtotal"] for f in fills)
    me.ship.remove_cargo(item.id, quantity)
    me.credits += total
    me.stats["credits_earned"] += total
    me.stats["trades_completed"] += 1
    if item.category == "ore":
        me.stats["ore_sold"] += quantity
    world.notify(
        me,
        "trade",
        "trade_completed",
        {
            "side": "sell",
            "item_id": item.id,
            "quantity": quantity,
            "total": total,
            "base_id": base.id,
        },
    )
    result: dict[str, Any] = {
        "action": "sold",
        "item": item.name,
        "item_id": item.id,
        "quantity_sold": quantity,
        "total_earned": total,
        "fills": _with_source(fills),
        "credits": me.credits,
        "level_up": False,
    }
    if auto:
        apply_auto_dock(world, me, result)
    return result


def buy(world: World, call: Call) -> dict[str, Any]:
    """Buy from the station at its ask, walking up the book, into cargo."""
    me = call.me
    item = _item(call)
    quantity = _quantity(call)
    auto = needs_auto_dock(world, me)
    base = _base_here(world, call)
    if not base.market[item.id].sells:
        raise errors.item_not_available(item.name)
    fills = rules.walk_book(base.ask(item.id), quantity, selling=False)
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
    me.credits -= total
    me.ship.add_cargo(item.id, quantity)
    me.stats["credits_spent"] += total
    me.stats["trades_completed"] += 1
    world.notify(
        me,
        "trade",
        "trade_completed",
        {
            "side": "buy",
            "item_id": item.id,
            "quantity": quantity,
            "total": total,
            "base_id": base.id,
        },
    )
    result: dict[str, Any] = {
        "action": "bought",
        "item": item.name,
        "item_id": item.id,
        "quantity": quantity,
        "total_cost": total,
        "fills": _with_source(fills),
        "unfilled": 0,
        "delivered_to_cargo": quantity,
        "delivered_to_storage": 0,
        "credits": me.credits,
    }
    if auto:
        apply_auto_dock(world, me, result)
    return result


HANDLERS = {"view_market": view_market, "sell": sell, "buy": buy}

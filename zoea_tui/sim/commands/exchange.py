"""The exchange: standing orders, order views, market analysis, estimates, storage.

Tools: create_sell_order, create_buy_order, view_orders, cancel_order, analyze_market,
estimate_purchase, get_trades, view_storage, deposit_items, withdraw_items. Matching and
escrow rules are in `zoea_tui.sim.orderbook`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, orderbook, params
from zoea_tui.sim.catalog import ITEMS, ItemDef
from zoea_tui.sim.commands.market import (
    base_here,
    item_arg,
    plan_purchase,
    quantity_arg,
    require_cargo,
    station_fills,
)
from zoea_tui.sim.commands.navigation import needs_auto_dock, with_auto_dock
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.galaxy import Base

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState


def _price(call: Call) -> int:
    price = params.integer(call.args, "price_each")
    if price is None or price <= 0:
        raise errors.invalid_payload("price_each must be a whole number of credits above 0.")
    return price


def create_sell_order(world: WorldState, call: Call) -> dict[str, Any]:
    """List cargo for sale at `price_each`; fills now where buyers pay that, rests otherwise."""
    me = call.me
    item, quantity, price = item_arg(call), quantity_arg(call), _price(call)
    auto = needs_auto_dock(world, me)
    require_cargo(me, item, quantity, "list")
    base = base_here(world, me)
    me.ship.remove_cargo(item.id, quantity)
    fills = orderbook.take(
        world,
        orderbook.resting(world, base.id, item.id, "buy", me.username),
        quantity,
        lambda p: p >= price,
    )
    left = quantity - sum(f["quantity"] for f in fills)
    if left > 0 and base.bid(item.id) >= price:
        fills += station_fills(base.bid(item.id), left, selling=True)
        left = 0
    earned = sum(f["subtotal"] for f in fills)
    _book(me, item, fills, "sell", earned)
    if fills and item.category == "ore":
        me.stats["ore_sold"] += quantity - left
    order = orderbook.new_order(world, me, base.id, "sell", item.id, price, left) if left else None
    result: dict[str, Any] = {
        **_order_result("sell", order, item, price, quantity, left, fills),
        "total_earned": earned,
        "credits": me.credits,
        "message": (
            f"{left} {item.name} listed at {price} each (order {order['order_id']}); "
            "items are in escrow until sold or cancelled."
        )
        if order
        else f"All {quantity} {item.name} sold at once for {earned} credits.",
    }
    return with_auto_dock(world, me, auto, result)


def _order_result(
    side: str,
    order: dict[str, Any] | None,
    item: ItemDef,
    price: int,
    quantity: int,
    left: int,
    fills: list[dict[str, Any]],
) -> dict[str, Any]:
    """What a new order's answer starts with, buy or sell alike: filled at once (`sold`,
    `bought`) or resting with `left` listed."""
    return {
        "action": f"{side}_order_created" if order else ("sold" if side == "sell" else "bought"),
        "order_id": order["order_id"] if order else None,
        "item_id": item.id,
        "price_each": price,
        "quantity": quantity,
        "quantity_filled": quantity - left,
        "quantity_listed": left,
        "fills": fills,
    }


def _book(me: Any, item: ItemDef, fills: list[dict[str, Any]], side: str, total: int) -> None:
    if not fills:
        return
    me.stats["trades_completed"] += 1
    if side == "sell":
        me.credits += total
        me.stats["credits_earned"] += total
    qty = sum(f["quantity"] for f in fills)
    orderbook.record_trade(
        me,
        {
            "side": side,
            "item_id": item.id,
            "quantity": qty,
            "total": total,
            "price_each": total // max(1, qty),
        },
    )


def create_buy_order(world: WorldState, call: Call) -> dict[str, Any]:
    """Bid `price_each` for an item: credits go to escrow; fills now or rests."""
    me = call.me
    item, quantity, price = item_arg(call), quantity_arg(call), _price(call)
    auto = needs_auto_dock(world, me)
    escrow = price * quantity
    if me.credits < escrow:
        raise errors.insufficient_credits(escrow, me.credits, "escrow")
    base = base_here(world, me)
    me.credits -= escrow
    fills = orderbook.take(
        world,
        orderbook.resting(world, base.id, item.id, "sell", me.username),
        quantity,
        lambda p: p <= price,
    )
    left = quantity - sum(f["quantity"] for f in fills)
    if left > 0 and base.market[item.id].sells and base.ask(item.id) <= price:
        fills += station_fills(base.ask(item.id), left, selling=False)
        left = 0
    cost = sum(f["subtotal"] for f in fills)
    me.credits += escrow - cost - left * price
    me.stats["credits_spent"] += cost
    _book(me, item, fills, "buy", cost)
    got = quantity - left
    to_cargo = min(got, me.ship.cargo_free // item.size)
    if to_cargo:
        me.ship.add_cargo(item.id, to_cargo)
    if got > to_cargo:
        orderbook.store(me, base.id, item.id, got - to_cargo)
    order = orderbook.new_order(world, me, base.id, "buy", item.id, price, left) if left else None
    result: dict[str, Any] = {
        **_order_result("buy", order, item, price, quantity, left, fills),
        "total_cost": cost,
        "escrowed": left * price,
        "delivered_to_cargo": to_cargo,
        "delivered_to_storage": got - to_cargo,
        "credits": me.credits,
    }
    return with_auto_dock(world, me, auto, result)


def view_orders(world: WorldState, call: Call) -> dict[str, Any]:
    """The caller's open orders (optionally at one base or for one item)."""
    me = call.me
    base_id = params.text(call.args, "base_id").strip()
    item_id = params.text(call.args, "item_id").strip()
    mine = [
        orderbook.order_view(o)
        for o in world.orders
        if o["owner"] == me.username
        and (not base_id or o["base_id"] == base_id)
        and (not item_id or o["item_id"] == item_id)
    ]
    return {"orders": mine, "count": len(mine)}


def cancel_order(world: WorldState, call: Call) -> dict[str, Any]:
    """Cancel own orders: sell escrow goes to storage at the order's base, credits back."""
    me = call.me
    ids = params.string_list(call.args, "order_ids") or []
    single = params.text(call.args, "order_id").strip()
    if single:
        ids.append(single)
    if not ids:
        raise errors.missing_parameter("order_id", "order_1")
    cancelled = []
    for order_id in ids:
        order = next((o for o in world.orders if o["order_id"] == order_id), None)
        if order is None or order["owner"] != me.username:
            raise GameError(
                "order_not_found",
                f"No open order '{order_id}' of yours. Use view_orders to list your orders.",
            )
        world.orders.remove(order)
        if order["side"] == "sell":
            orderbook.store(me, order["base_id"], order["item_id"], order["quantity"])
            returned = {"items_to_storage": order["quantity"], "base_id": order["base_id"]}
        else:
            me.credits += order["quantity"] * order["price_each"]
            returned = {"credits_refunded": order["quantity"] * order["price_each"]}
        cancelled.append({"order_id": order_id, **returned})
    return {"action": "orders_cancelled", "cancelled": cancelled, "credits": me.credits}


def _stations(world: WorldState) -> list[Base]:
    return [p.base for p in world.galaxy.pois.values() if p.base is not None]


def _target_base(world: WorldState, call: Call, key: str = "base_id") -> Base:
    raw = params.text(call.args, key).strip()
    if raw:
        base = orderbook.base_by_id(world, raw)
        if base is None:
            raise GameError(
                "invalid_base",
                f"Unknown base: {raw}. get_system lists each system's stations and their base_id.",
            )
        return base
    base = world.galaxy.pois[call.me.poi_id].base
    if base is None:
        raise errors.not_docked_here()
    return base


def _system_of(world: WorldState, base: Base) -> str:
    return next(p.system_id for p in world.galaxy.pois.values() if p.base is base)


def analyze_market(world: WorldState, call: Call) -> dict[str, Any]:
    """Prices here against every station: where to sell each item dearest, buy cheapest."""
    base = _target_base(world, call)
    raw = params.text(call.args, "item_id").strip()
    items = [item_arg(call)] if raw else [i for i in ITEMS.values() if i.category != "module"]
    stations = _stations(world)
    rows = []
    for item in items:
        best_bid = max(stations, key=lambda b: b.bid(item.id))
        sellers = [b for b in stations if b.market[item.id].sells]
        cheapest = min(sellers, key=lambda b: b.ask(item.id)) if sellers else None
        row: dict[str, Any] = {
            "item_id": item.id,
            "item_name": item.name,
            "here_buy": base.bid(item.id),
            "here_sell": base.ask(item.id) if base.market[item.id].sells else None,
            "best_place_to_sell": {
                "base_id": best_bid.id,
                "base": best_bid.name,
                "system_id": _system_of(world, best_bid),
                "price": best_bid.bid(item.id),
            },
            "open_orders_here": len(
                [o for o in world.orders if o["base_id"] == base.id and o["item_id"] == item.id]
            ),
        }
        if cheapest is not None:
            margin = best_bid.bid(item.id) - cheapest.ask(item.id)
            row["best_place_to_buy"] = {
                "base_id": cheapest.id,
                "base": cheapest.name,
                "system_id": _system_of(world, cheapest),
                "price": cheapest.ask(item.id),
            }
            row["route_margin_per_unit"] = margin
        rows.append(row)
    tips = sorted(
        (r for r in rows if r.get("route_margin_per_unit", 0) > 0),
        key=lambda r: -r["route_margin_per_unit"],
    )
    return {
        "base": base.name,
        "base_id": base.id,
        "items": rows,
        "opportunities": [
            f"Buy {r['item_name']} at {r['best_place_to_buy']['base']} for "
            f"{r['best_place_to_buy']['price']}, sell at {r['best_place_to_sell']['base']} "
            f"for {r['best_place_to_sell']['price']} (+{r['route_margin_per_unit']}/unit)"
            for r in tips[:5]
        ],
        "note": "here_buy: what this station pays you; here_sell: what it charges.",
    }


def estimate_purchase(world: WorldState, call: Call) -> dict[str, Any]:
    """What buying `quantity` here would cost, without buying."""
    me = call.me
    item, quantity = item_arg(call), quantity_arg(call)
    base = _target_base(world, call)
    plan = plan_purchase(world, base, item, quantity, me.username)
    fills, left = plan.fills, plan.unfilled
    total = sum(f["subtotal"] for f in fills)
    return {
        "item": item.name,
        "item_id": item.id,
        "quantity_requested": quantity,
        "available": quantity - left,
        "fills": fills,
        "subtotal": total,
        "sales_tax": 0,
        "total_cost": total,
        "unfilled": left,
        "message": f"{quantity - left} {item.name} for {total} credits"
        + (f"; {left} not available here." if left else "."),
    }


def get_trades(world: WorldState, call: Call) -> dict[str, Any]:
    """Your recent trades and order fills (newest first); no player trade offers pending."""
    me = call.me
    return {
        "trades": list(reversed(me.trade_log))[:20],
        "pending_offers": [],
        "count": len(me.trade_log),
    }


def view_storage(world: WorldState, call: Call) -> dict[str, Any]:
    """Your items stored at a station (here unless `station_id`/`base_id`)."""
    me = call.me
    key = "station_id" if params.text(call.args, "station_id") else "base_id"
    base = _target_base(world, call, key)
    shelf = me.storage.get(base.id, {})
    return {
        "base_id": base.id,
        "base": base.name,
        "items": [{"item_id": i, "name": ITEMS[i].name, "quantity": q} for i, q in shelf.items()],
        "all_stations": {b: sum(s.values()) for b, s in me.storage.items() if s},
    }


def _move(world: WorldState, call: Call, to_storage: bool) -> dict[str, Any]:
    me = call.me
    item, quantity = item_arg(call), quantity_arg(call)
    auto = needs_auto_dock(world, me)
    base = base_here(world, me)
    shelf = me.storage.setdefault(base.id, {})
    have = me.ship.cargo.get(item.id, 0) if to_storage else shelf.get(item.id, 0)
    if have < quantity:
        where = "cargo" if to_storage else "storage here"
        raise GameError(
            "insufficient_items", f"You have {have} {item.name} in {where}, not {quantity}."
        )
    if to_storage:
        me.ship.remove_cargo(item.id, quantity)
        orderbook.store(me, base.id, item.id, quantity)
    else:
        if me.ship.cargo_free < quantity * item.size:
            raise GameError(
                "no_cargo_space",
                f"Not enough cargo space for {quantity} {item.name}: {me.ship.cargo_free} free.",
            )
        shelf[item.id] -= quantity
        if not shelf[item.id]:
            del shelf[item.id]
        me.ship.add_cargo(item.id, quantity)
    result: dict[str, Any] = {
        "action": "deposited" if to_storage else "withdrawn",
        "item_id": item.id,
        "quantity": quantity,
        "base_id": base.id,
    }
    return with_auto_dock(world, me, auto, result)


def deposit_items(world: WorldState, call: Call) -> dict[str, Any]:
    """Move cargo into storage at this station."""
    return _move(world, call, to_storage=True)


def withdraw_items(world: WorldState, call: Call) -> dict[str, Any]:
    """Move items from storage at this station into cargo."""
    return _move(world, call, to_storage=False)


HANDLERS = {
    "create_sell_order": create_sell_order,
    "create_buy_order": create_buy_order,
    "view_orders": view_orders,
    "cancel_order": cancel_order,
    "analyze_market": analyze_market,
    "estimate_purchase": estimate_purchase,
    "get_trades": get_trades,
    "view_storage": view_storage,
    "deposit_items": deposit_items,
    "withdraw_items": withdraw_items,
}

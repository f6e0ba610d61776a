"""The autopilot's trading (arena s3): make a market at the station with standing orders.

A station quotes a bid (what it pays) and an ask (what it charges) for every item, and
its NPC traders take from resting player orders priced within that quote every few
ticks. A rule-based trader lives on that spread: docked at the station, it bids the
station's bid for the items with the widest spread (``create_buy_order``), takes what
its buy orders bought out of storage (``withdraw_items``) and lists it at the station's
ask (``create_sell_order``), again and again, one action a tick. Each action comes with
``view_orders``, ``view_storage`` and ``get_status``, so the next decision reads the
book, the storage and the hold as they are, whatever the strategy kept of older turns.

It mines and sells first to raise :data:`TRADE_CAPITAL`. Before the scenario's last
tick it stops bidding, cancels its open buy orders (their escrow comes back) and sells
what is left in storage and hold to the station at its bid: only credits count at the
end. Prices come from the newest ``view_market`` in view (a station's quotes are fixed);
an item the station does not sell has no ask listed, so its ask is derived from the bid
(the quote is 90 % and 110 % of the same price), rounded down to stay within it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from .plan import Call, Decision, Planner, call, newest, say

#: Start trading, docked, with this many credits (mine and sell until then).
TRADE_CAPITAL = 300
#: Credits kept back from bids (fuel, a repair).
RESERVE = 40
#: The largest buy order, in units (its NPC flow fills about two units a tick).
LOT = 20
#: Smallest lot worth an action.
MIN_LOT = 4
#: Ticks before the end when bidding stops, and when buy orders are cancelled and the
#: rest is sold to the station.
STOP_BIDDING = 30
LIQUIDATE = 8
#: Items whose quotes my notes keep (the widest spreads).
NOTED = 8
#: Waiting on my orders, refresh my credits with the status every this many looks.
STATUS_EVERY = 4
#: Ticks the scenario runs when its order does not say.
DEFAULT_BUDGET = 300
_BUDGET = re.compile(r"\((\d+)\s+ticks\)")
_TRADE_MUTATIONS = frozenset(
    {
        "create_buy_order",
        "create_sell_order",
        "withdraw_items",
        "cancel_order",
        "sell",
        "deposit_items",
    }
)
_LOOK: tuple[Call, ...] = (("view_orders", {}), ("view_storage", {}))


def end_tick(p: Planner) -> int:
    """The scenario's last tick: its budget from the order ("(300 ticks)"), from tick 0."""
    found = _BUDGET.search(p.c.mission.text or "")
    return int(found.group(1)) if found else DEFAULT_BUDGET


def quotes(p: Planner) -> dict[str, tuple[int, int]] | None:
    """``{item: (bid, ask)}`` of this station from the newest full ``view_market``, else
    from my notes (None: neither is in view)."""
    market = newest(p, "view_market", args={})
    if market is None:
        notes = p.c.notes
        return dict(notes.quotes) if notes is not None and notes.quotes else None
    found: dict[str, tuple[int, int]] = {}
    for item in (market.data() or {}).get("items") or ():
        if not isinstance(item, dict) or not isinstance(item.get("item_id"), str):
            continue
        bid, ask = item.get("best_buy"), item.get("best_sell")
        if not isinstance(bid, int) or bid < 2:
            continue
        if not isinstance(ask, int):
            ask = (22 * bid - 2) // 18  # the lowest ask a 90 % bid of this value allows
        found[item["item_id"]] = (bid, ask)
    return found


def widest(prices: dict[str, tuple[int, int]]) -> list[tuple[str, tuple[int, int]]]:
    """The :data:`NOTED` items with the widest spread (ask minus bid), widest first."""
    return sorted(prices.items(), key=lambda kv: (kv[1][0] - kv[1][1], kv[0]))[:NOTED]


def credits(p: Planner) -> int | None:
    """My credits from the newest result that shows them (sales since then only add)."""
    for result in reversed(p.c.results):
        data = result.data() if result.error() is None else None
        if not data:
            continue
        if result.name == "get_status" and isinstance(data.get("player"), dict):
            value = data["player"].get("credits")
        elif result.name in _TRADE_MUTATIONS:
            value = data.get("credits")
        else:
            continue
        if isinstance(value, int):
            return value
    return None


def hold(p: Planner) -> tuple[dict[str, int], int] | None:
    """My hold and its free space: the newest ``get_cargo`` in view, brought up to date
    by my trading actions after it (None: no listing in view)."""
    listing = newest(p, "get_cargo")
    if listing is None:
        return None
    data = listing.data() or {}
    cargo: dict[str, int] = {}
    for entry in data.get("cargo") or ():
        if isinstance(entry, dict) and isinstance(entry.get("item_id"), str):
            cargo[entry["item_id"]] = cargo.get(entry["item_id"], 0) + int(
                entry.get("quantity") or 0
            )
    capacity = int(data.get("capacity") or 0)
    for result in p.c.results:
        if result.index <= listing.index or result.error() is not None:
            continue
        change = result.data() or {}
        item = str(change.get("item_id") or result.args().get("item_id") or "")
        if result.name == "withdraw_items":
            delta = int(change.get("quantity") or 0)
        elif result.name == "deposit_items" or result.name == "create_sell_order":
            delta = -int(change.get("quantity") or 0)
        elif result.name == "sell":
            delta = -int(change.get("quantity_sold") or 0)
        elif result.name in ("create_buy_order", "buy"):
            delta = int(change.get("delivered_to_cargo") or 0)
        elif result.name == "mine":
            delta = int(change.get("quantity") or 0)
            item = str(change.get("resource_id") or "")
        else:
            continue
        cargo[item] = cargo.get(item, 0) + delta
    cargo = {k: v for k, v in cargo.items() if v > 0 and k}
    return cargo, capacity - sum(cargo.values())


def _state(
    p: Planner, money: int | None, held: tuple[dict[str, int], int] | None
) -> dict[str, Any] | None:
    """Hold, credits, storage and my orders from the newest looks, when they are newer
    than my newest trading action (None: look first)."""
    looks = [newest(p, name) for name, _ in _LOOK]
    if any(r is None for r in looks) or money is None or held is None:
        return None
    last_action = max((r.index for r in p.c.results if r.name in _TRADE_MUTATIONS), default=-1)
    if min(r.index for r in looks if r is not None) < last_action:
        return None
    orders_r, storage_r = looks
    assert orders_r is not None and storage_r is not None
    storage = {
        str(i.get("item_id")): int(i.get("quantity") or 0)
        for i in (storage_r.data() or {}).get("items") or ()
        if isinstance(i, dict)
    }
    return {
        "credits": money,
        "cargo": held[0],
        "free": held[1],
        "storage": {k: v for k, v in storage.items() if v > 0},
        "orders": [o for o in (orders_r.data() or {}).get("orders") or () if isinstance(o, dict)],
        "tick": (orders_r.data() or {}).get("current_tick"),
    }


def trading(p: Planner) -> bool:
    """Trading has begun: my orders, my stored goods, my trading calls or the quotes in
    my notes are in view."""
    orders = newest(p, "view_orders")
    storage = newest(p, "view_storage")
    return bool(
        (orders and (orders.data() or {}).get("orders"))
        or (storage and (storage.data() or {}).get("items"))
        or any(
            r.name in ("create_buy_order", "create_sell_order") and r.error() is None
            for r in p.c.results
        )
        or bool(p.c.notes is not None and p.c.notes.quotes)
    )


def notes_part(p: Planner) -> str:
    """My standing order and the quotes worth trading, for my notes: they outlive the
    commander's message and the market listing when older messages leave my context."""
    part = f"order trade for profit ({end_tick(p)} ticks)"
    prices = quotes(p)
    if not prices:
        return part
    return part + "; quotes bid/ask " + ", ".join(f"{k} {b}/{a}" for k, (b, a) in widest(prices))


def still_docked(p: Planner) -> bool:
    """Docked, as my newest move or trading action shows (for when the status is out
    of view): a trip or an undock since says no."""
    for result in reversed(p.c.results):
        if result.error() is not None:
            continue
        if result.name in ("travel", "jump", "undock"):
            return False
        if result.name == "dock" or result.name in _TRADE_MUTATIONS:
            return True
        data = result.data()
        if result.name == "get_status" and data and isinstance(data.get("player"), dict):
            return data["player"].get("docked_at_base") is not None
    return False


def _status_due(p: Planner) -> bool:
    """My credits are stale: no status since my last :data:`STATUS_EVERY` answers."""
    recent = [r for r in p.c.results if r.name == "view_orders"][-STATUS_EVERY:]
    first = recent[0].index if len(recent) == STATUS_EVERY else -1
    return not any(r.name == "get_status" and r.index >= first for r in p.c.results)


def trade(p: Planner) -> Decision | None:
    """The next step of the trade, or None to carry on with the mining loop."""

    f = p.f
    docked = f.docked if f.docked is not None else still_docked(p)
    if not docked:
        return None  # mine, or fly to the station: the mining loop
    if not trading(p) and (f.credits is None or f.credits < TRADE_CAPITAL or f.sellable()):
        return None  # sell the hold and raise capital first
    prices = quotes(p)
    money, held = credits(p), hold(p)
    state = _state(p, money, held)
    if prices is None or state is None:
        looks: list[Call] = ([("view_market", {})] if prices is None else []) + list(_LOOK)
        # Only my latest loop in view (loop-slice): every fact must come in this one.
        alone = not p.c.sees_own_turns
        looks += [("get_cargo", {})] if held is None or alone else []
        looks += [("get_status", {})] if money is None or alone else []
        p.polling = True
        return call(
            "Trading at this station: reading its market, my orders, storage and hold.", *looks
        )
    decision = step(p, prices, state)
    if decision is None:
        seen = newest(p, "view_orders")
        if p.c.sees_own_turns and seen is not None and seen.index > p.c.turn_start:
            # Looked this turn and nothing to do: let the NPC traders work till next turn.
            return say(
                "Trading: my orders are working; waiting for the NPC traders.",
                "Nothing to do until my orders fill: ending the turn.",
            )
        p.polling = True
        # Waiting on the NPC traders: the status brings my credits up to date.
        return call(
            "Trading: my orders are working; checking them and my credits.",
            *_LOOK,
            *([] if p.c.sees_own_turns else [("get_cargo", {})]),
            *([("get_status", {})] if _status_due(p) or not p.c.sees_own_turns else []),
        )
    name, args, why = decision
    # Only my latest loop in view (loop-slice): the hold's listing must come with it.
    hold_look: list[Call] = [] if p.c.sees_own_turns else [("get_cargo", {}), ("get_status", {})]
    return call(f"Trading: {why}.", (name, args), *_LOOK, *hold_look)


def _withdraw(
    prices: dict[str, tuple[int, int]],
    state: dict[str, Any],
    stored: Iterable[tuple[str, int]],
    why: Callable[[str, int, int], str],
) -> tuple[str, dict[str, Any], str] | None:
    """Take out of storage the first of ``stored`` (item, quantity) the station prices, as
    much of it as the hold has room for; ``why(item, stored, taken)`` says so."""
    for item, quantity in stored:
        take = min(quantity, state["free"])
        if take > 0 and item in prices:
            return "withdraw_items", {"item_id": item, "quantity": take}, why(item, quantity, take)
    return None


def step(
    p: Planner, prices: dict[str, tuple[int, int]], state: dict[str, Any]
) -> tuple[str, dict[str, Any], str] | None:
    """One trading action from the state (None: nothing to do this tick)."""
    tick = state["tick"] if isinstance(state["tick"], int) else (p.f.tick or 0)
    left = end_tick(p) - tick
    orders = state["orders"]
    buys = [o for o in orders if o.get("side") == "buy"]
    if left <= LIQUIDATE:
        if buys:
            ids = [str(o.get("order_id")) for o in buys]
            return (
                "cancel_order",
                {"order_ids": ids},
                f"{left} ticks left: cancelling my {len(ids)} buy order(s) for their escrow",
            )
        for item, quantity in sorted(state["cargo"].items()):
            if quantity > 0:
                return (
                    "sell",
                    {"item_id": item, "quantity": quantity},
                    f"{left} ticks left: selling {quantity} {item} to the station",
                )
        return _withdraw(
            prices,
            state,
            sorted(state["storage"].items()),
            lambda item, _, take: f"{left} ticks left: taking {take} {item} out of storage to sell",
        )
    for item, quantity in sorted(state["cargo"].items(), key=lambda kv: (-kv[1], kv[0])):
        if item in prices:
            ask = prices[item][1]
            return (
                "create_sell_order",
                {"item_id": item, "quantity": quantity, "price_each": ask},
                f"listing {quantity} {item} at the station's ask, {ask} cr each",
            )
    if withdrawal := _withdraw(
        prices,
        state,
        sorted(state["storage"].items(), key=lambda kv: (-kv[1], kv[0])),
        lambda item, stored, take: (
            f"my buy order bought {stored} {item}: taking {take} out of storage"
        ),
    ):
        return withdrawal
    if left <= STOP_BIDDING:
        return None
    bidding = {str(o.get("item_id")) for o in buys}
    listed: dict[str, int] = {}
    for o in orders:
        if o.get("side") == "sell":
            item = str(o.get("item_id"))
            listed[item] = listed.get(item, 0) + int(o.get("quantity") or 0)
    budget = state["credits"] - RESERVE
    # Sell-side flow is about two units a tick: bid no more than can be sold in time.
    room = max(0, 2 * (left - LIQUIDATE) - 10)
    for item, (bid, ask) in widest(prices):
        if ask - bid < 2 or item in bidding or listed.get(item, 0) > LOT:
            continue
        quantity = min(LOT, budget // bid, room)
        if quantity >= MIN_LOT:
            return (
                "create_buy_order",
                {"item_id": item, "quantity": quantity, "price_each": bid},
                f"bidding the station's bid, {bid} cr, for {quantity} {item} "
                f"(its ask is {ask}: {ask - bid} cr a unit)",
            )
    return None

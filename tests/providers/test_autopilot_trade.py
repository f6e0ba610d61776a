"""The autopilot's trading (arena s3), decided from scripted conversations whose results
come from a real seeded world: it reads the market, bids the station's bid for the widest
spread, takes what its buy order bought out of storage, lists it at the station's ask,
keeps its order and quotes in its notes, and winds down before the end."""

from __future__ import annotations

from tests.providers.test_autopilot import Chat, Game, answer, calls
from zoea_tui.providers.autopilot.notes import read_notes

TRADE = (
    "Arena scenario s3, Trading (300 ticks). Trade for profit: buy goods where they are "
    "cheap and sell them where they are dear, across systems and on the exchange (use "
    "the market analysis and buy and sell orders)."
)
LOOKS = [("view_orders", {}), ("view_storage", {})]


def _game(credits: int = 5000) -> Game:
    game = Game()
    game.world.players["Ada"].credits = credits
    return game


def _widest(game: Game) -> tuple[str, int, int]:
    market = game("view_market")
    best = max(
        market["items"],
        key=lambda i: (i["best_sell"] or 0) - i["best_buy"] if i["best_sell"] else 0,
    )
    return best["item_id"], best["best_buy"], best["best_sell"]


def _looked(game: Game, chat: Chat) -> Chat:
    for name in ("view_market", "view_orders", "view_storage", "get_cargo"):
        chat.loop(name, game(name))
    return chat


async def test_docked_with_capital_it_reads_the_market_then_bids_the_station_bid() -> None:
    game = _game()
    chat = Chat(TRADE).loop("get_status", game("get_status"))
    first = calls(await answer(chat))
    assert first[0] == ("view_market", {}) and ("view_orders", {}) in first
    _looked(game, chat)
    response = await answer(chat)
    [(name, args), *looks] = calls(response)
    assert name == "create_buy_order" and looks == LOOKS
    quotes = {i["item_id"]: (i["best_buy"], i["best_sell"]) for i in game("view_market")["items"]}
    bid = quotes[args["item_id"]][0]
    assert args["price_each"] == bid and 4 <= args["quantity"] <= 20
    # The widest spread of the station: modules have the dearest ones.
    spreads = {k: (a if a else (22 * b - 2) // 18) - b for k, (b, a) in quotes.items()}
    assert spreads[args["item_id"]] == max(spreads.values())
    notes = read_notes(
        [{"role": "assistant", "content": response.content, "tool_calls": [{"id": "x"}]}]
    )
    assert notes.order == "order trade for profit (300 ticks)"
    assert notes.quotes is not None and notes.quotes[args["item_id"]][0] == bid


async def test_what_the_buy_order_bought_is_withdrawn_then_listed_at_the_ask() -> None:
    game = _game()
    chat = Chat(TRADE).loop("get_status", game("get_status"))
    _looked(game, chat)
    [(name, args), *_] = calls(await answer(chat))
    assert name == "create_buy_order"
    chat.loop(name, game(name, **args), **args)
    game.world.advance(5)  # the NPC traders fill ten units
    for look in ("view_orders", "view_storage"):
        chat.loop(look, game(look))
    [(name, take), *_] = calls(await answer(chat))
    assert (name, take["item_id"]) == ("withdraw_items", args["item_id"])
    assert take["quantity"] == 10
    chat.loop(name, game(name, **take), **take).say("Withdrew the bought units.").nudge()
    for look in ("view_orders", "view_storage"):
        chat.loop(look, game(look))
    response = await answer(chat)
    assert calls(response), response.content
    [(name, listing), *_] = calls(response)
    item = args["item_id"]
    quotes = {i["item_id"]: i for i in game("view_market")["items"]}
    ask = quotes[item]["best_sell"] or (22 * quotes[item]["best_buy"] - 2) // 18
    assert (name, listing) == (
        "create_sell_order",
        {"item_id": item, "quantity": 10, "price_each": ask},
    )
    assert ask > args["price_each"]


async def test_near_the_end_it_cancels_its_buy_orders_and_sells_the_rest() -> None:
    game = _game(100_000)
    chat = Chat(TRADE).loop("get_status", game("get_status"))
    _looked(game, chat)
    [(name, args), *_] = calls(await answer(chat))
    args = {**args, "quantity": 200}  # a bid too large to fill before the end
    game.world.advance(280 - game.world.tick)
    result = game(name, **args)
    chat.loop(name, result, **args).say("Bid placed.").nudge()
    game.world.advance(292 - game.world.tick)
    for look in ("view_orders", "view_storage"):
        chat.loop(look, game(look))
    response = await answer(chat)
    [(name, cancel), *_] = calls(response)
    assert (name, cancel) == ("cancel_order", {"order_ids": [result["order_id"]]})
    chat.loop(name, game(name, **cancel), **cancel).say("Cancelled.").nudge()
    for look in ("view_orders", "view_storage"):
        chat.loop(look, game(look))
    [(name, take), *_] = calls(await answer(chat))
    assert (name, take["item_id"]) == ("withdraw_items", args["item_id"])
    chat.loop(name, game(name, **take), **take).say("Withdrawn.").nudge()
    for look in ("view_orders", "view_storage"):
        chat.loop(look, game(look))
    [(name, sale), *_] = calls(await answer(chat))
    assert (name, sale) == ("sell", {"item_id": args["item_id"], "quantity": take["quantity"]})


async def test_without_capital_it_mines_and_sells_first() -> None:
    game = _game(credits=100)
    chat = Chat(TRADE).loop("get_status", game("get_status")).loop("get_cargo", game("get_cargo"))
    chat.loop("get_system", game("get_system"))
    names = [name for name, _ in calls(await answer(chat))]
    assert "create_buy_order" not in names and "view_orders" not in names

"""The exchange: standing orders, fills against players and stations, analysis, storage."""

from zoea_tui.sim import World
from zoea_tui.sim.rules import REGEN_INTERVAL_TICKS


def _bid(pilot, item_id: str) -> int:
    return pilot("view_market", item_id=item_id)["items"][0]["best_buy"]


def test_sell_order_priced_over_the_bid_rests_in_escrow(world: World, pilot) -> None:
    world.players["Ada"].ship.cargo["iron_ore"] = 10
    price = _bid(pilot, "iron_ore") + 2
    result = pilot.act("create_sell_order", item_id="iron_ore", quantity=10, price_each=price)
    assert result["action"] == "sell_order_created" and result["quantity_listed"] == 10
    assert pilot.cargo("iron_ore") == 0
    orders = pilot("view_orders")["orders"]
    assert orders[0]["order_id"] == result["order_id"] and orders[0]["quantity"] == 10
    book = pilot("view_market", item_id="iron_ore")["items"][0]["sell_orders"]
    assert book[0]["price_each"] == price


def test_npc_traders_fill_orders_priced_within_the_station_quote(world: World, pilot) -> None:
    world.players["Ada"].ship.cargo["iron_ore"] = 15
    credits = pilot.status()["player"]["credits"]
    price = _bid(pilot, "iron_ore") + 1
    pilot.act("create_sell_order", item_id="iron_ore", quantity=15, price_each=price)
    world.advance(2 * REGEN_INTERVAL_TICKS)
    assert pilot("view_orders")["count"] == 0
    assert pilot.status()["player"]["credits"] == credits + 15 * price
    assert pilot.status()["player"]["stats"]["orders_filled"] == 2
    assert pilot("get_trades")["trades"][0]["order_id"]


def test_sell_order_at_or_below_the_bid_fills_at_once(world: World, pilot) -> None:
    world.players["Ada"].ship.cargo["iron_ore"] = 4
    result = pilot.act("create_sell_order", item_id="iron_ore", quantity=4, price_each=1)
    assert result["action"] == "sold" and result["order_id"] is None
    assert result["total_earned"] == 4 * _bid(pilot, "iron_ore")


def test_buy_order_escrow_needs_the_credits_with_the_real_text(world: World, pilot) -> None:
    world.players["Ada"].credits = 100
    error = pilot.error("create_buy_order", item_id="steel_plate", quantity=10, price_each=35)
    assert str(error) == (
        "[insufficient_credits] insufficient_credits: Need 350 credits to escrow. You have 100."
    )


def test_buy_order_fills_against_another_pilots_sell_order(world: World, make_pilot) -> None:
    ada, bob = make_pilot("Ada"), make_pilot("Bob")
    world.players["Ada"].ship.cargo["gold_ore"] = 5
    listed = ada.act("create_sell_order", item_id="gold_ore", quantity=5, price_each=70)
    ada_credits = ada.status()["player"]["credits"]
    world.players["Bob"].credits = 1_000
    bought = bob.act("create_buy_order", item_id="gold_ore", quantity=5, price_each=80)
    assert bought["action"] == "bought" and bought["total_cost"] == 350
    assert bought["fills"][0] == {
        "price_each": 70,
        "quantity": 5,
        "subtotal": 350,
        "source": "player",
        "counterparty": "Ada",
    }
    assert bob.status()["player"]["credits"] == 1_000 - 350
    assert bob.cargo("gold_ore") == 5
    assert ada.status()["player"]["credits"] == ada_credits + 350
    assert ada("view_orders")["count"] == 0 and listed["order_id"]


def test_station_buy_takes_cheaper_player_orders_first(world: World, make_pilot) -> None:
    ada, bob = make_pilot("Ada"), make_pilot("Bob")
    world.players["Ada"].ship.cargo["fuel_cell"] = 2
    price = _bid(ada, "fuel_cell") + 1
    assert ada.act("create_sell_order", item_id="fuel_cell", quantity=2, price_each=price)[
        "order_id"
    ]
    fills = bob.act("buy", item_id="fuel_cell", quantity=3)["fills"]
    assert [f["source"] for f in fills] == ["player", "station"]


def test_resting_buy_order_and_cancel_refunds_the_escrow(world: World, pilot) -> None:
    credits = pilot.status()["player"]["credits"]
    order = pilot.act("create_buy_order", item_id="gold_ore", quantity=2, price_each=5)
    assert order["action"] == "buy_order_created" and order["escrowed"] == 10
    assert pilot.status()["player"]["credits"] == credits - 10
    cancelled = pilot.act("cancel_order", order_id=order["order_id"])
    assert cancelled["cancelled"][0]["credits_refunded"] == 10
    assert pilot.status()["player"]["credits"] == credits
    error = pilot.error("cancel_order", order_id=order["order_id"])
    assert error.code == "order_not_found"


def test_cancelled_sell_order_items_go_to_storage(world: World, pilot) -> None:
    world.players["Ada"].ship.cargo["gold_ore"] = 3
    order = pilot.act("create_sell_order", item_id="gold_ore", quantity=3, price_each=500)
    pilot.act("cancel_order", order_ids=[order["order_id"]])
    storage = pilot("view_storage")
    assert storage["items"] == [{"item_id": "gold_ore", "name": "Gold Ore", "quantity": 3}]
    pilot.act("withdraw_items", item_id="gold_ore", quantity=3)
    assert pilot.cargo("gold_ore") == 3
    error = pilot.error("withdraw_items", item_id="gold_ore", quantity=1)
    assert error.code == "insufficient_items"
    pilot.act("deposit_items", item_id="gold_ore", quantity=1)
    world.players["Ada"].ship.cargo["iron_ore"] = 49
    assert pilot.error("withdraw_items", item_id="gold_ore", quantity=1).code == "no_cargo_space"


def test_price_must_be_positive(pilot) -> None:
    error = pilot.error("create_buy_order", item_id="iron_ore", quantity=1, price_each=0)
    assert error.code == "invalid_payload" and "price_each" in error.message


def test_analyze_market_compares_every_station(pilot) -> None:
    analysis = pilot("analyze_market", base_id="confederacy_central_command", item_id="iron_ore")
    row = analysis["items"][0]
    assert row["item_id"] == "iron_ore" and row["best_place_to_sell"]["price"] >= row["here_buy"]
    full = pilot("analyze_market")
    assert len(full["items"]) == 8 and isinstance(full["opportunities"], list)
    assert pilot.error("analyze_market", base_id="nowhere").code == "invalid_base"


def test_estimate_purchase_does_not_buy(pilot) -> None:
    estimate = pilot("estimate_purchase", item_id="fuel_cell", quantity=3)
    assert estimate["available"] == 3 and estimate["total_cost"] > 0
    assert pilot.cargo("fuel_cell") == 0
    assert pilot("estimate_purchase", item_id="gold_ore", quantity=3)["unfilled"] == 3


def test_item_not_available_suggests_a_buy_order_like_the_real_server(pilot) -> None:
    error = pilot.error("buy", item_id="gold_ore", quantity=1)
    assert error.message.startswith(
        "item_not_available: No one is selling Gold Ore at this station. To place a standing "
        'buy order, use: {"type": "create_buy_order", "payload": {"item_id": "gold_ore", '
        '"quantity": 1, "price_each": <your_price>}}.'
    )


def test_estimate_purchase_quotes_what_buy_then_charges(world: World, make_pilot) -> None:
    ada, bob = make_pilot("Ada"), make_pilot("Bob")
    world.players["Ada"].ship.cargo["fuel_cell"] = 2
    ask = ada("view_market", item_id="fuel_cell")["items"][0]["best_sell"]
    ada.act("create_sell_order", item_id="fuel_cell", quantity=2, price_each=ask + 50)
    estimate = bob("estimate_purchase", item_id="fuel_cell", quantity=3)
    bought = bob.act("buy", item_id="fuel_cell", quantity=3)
    assert [f["source"] for f in estimate["fills"]] == ["station"]
    assert estimate["fills"] == bought["fills"]
    assert estimate["total_cost"] == bought["total_cost"]

"""Station markets and services: view_market, sell, buy, refuel, repair."""

import pytest

from zoea_tui.sim import World, rules

NOT_DOCKED = (
    "[not_docked] You must be docked at a base to perform this action. Use 'dock' at a POI "
    "with a base, or use 'get_poi' to check if your current location has a base."
)


def _listing(pilot) -> dict[str, dict]:
    return {i["item_id"]: i for i in pilot("view_market")["items"]}


def _for_sale(pilot) -> tuple[str, ...]:
    return tuple(k for k, v in _listing(pilot).items() if v["best_sell"] is not None)


def _give(world: World, item_id: str, quantity: int) -> None:
    world.players["Ada"].ship.cargo[item_id] = quantity


def test_view_market_lists_bids_and_asks(pilot) -> None:
    market = pilot("view_market")
    assert market["base_id"] == "confederacy_central_command"
    items = {i["item_id"]: i for i in market["items"]}
    assert {"iron_ore", "copper_ore", "fuel_cell"} <= set(items)
    fuel = items["fuel_cell"]
    assert fuel["best_sell"] > fuel["best_buy"] > 0
    assert fuel["spread"] == fuel["best_sell"] - fuel["best_buy"]


def test_view_market_filters_by_item_and_category(pilot) -> None:
    assert [i["item_id"] for i in pilot("view_market", item_id="iron_ore")["items"]] == ["iron_ore"]
    ores = pilot("view_market", category="ore")["items"]
    assert ores and all(i["category"] == "ore" for i in ores)
    assert pilot.error("view_market", item_id="nickel_ore").code == "invalid_item"


def test_view_market_undocked_gets_the_real_not_docked(pilot) -> None:
    pilot.act("undock")
    assert str(pilot.error("view_market", item_id="nickel_ore")) == NOT_DOCKED


def test_selling_pays_the_bid_into_the_wallet(world: World, pilot) -> None:
    _give(world, "iron_ore", 10)
    bid = _listing(pilot)["iron_ore"]["best_buy"]
    credits = pilot.status()["player"]["credits"]
    sale = pilot("sell", item_id="iron_ore", quantity=10)
    assert sale["action"] == "sold"
    assert sale["quantity_sold"] == 10
    assert sale["total_earned"] == 10 * bid
    assert sale["fills"] == [
        {"price_each": bid, "quantity": 10, "subtotal": 10 * bid, "source": "station"}
    ]
    assert sale["credits"] == credits + 10 * bid
    assert pilot.cargo("iron_ore") == 0
    stats = pilot.status()["player"]["stats"]
    assert stats["ore_sold"] == 10 and stats["credits_earned"] == 10 * bid


def test_big_orders_walk_the_book() -> None:
    fills = rules.walk_book(100, 450, selling=True)
    assert [f["quantity"] for f in fills] == [200, 200, 50]
    assert [f["price_each"] for f in fills] == [100, 98, 96]
    assert [f["price_each"] for f in rules.walk_book(100, 201, selling=False)] == [100, 102]


def test_selling_by_full_item_name_works(world: World, pilot) -> None:
    _give(world, "iron_ore", 2)
    assert pilot("sell", item_id="Iron Ore", quantity=2)["item_id"] == "iron_ore"


def test_selling_is_notified(world: World, pilot) -> None:
    _give(world, "iron_ore", 2)
    pilot("get_notifications")
    pilot("sell", item_id="iron_ore", quantity=2)
    events = pilot("get_notifications", types=["trade"])["notifications"]
    assert events[0]["msg_type"] == "trade_completed"
    assert events[0]["data"]["side"] == "sell"


def test_wrong_item_parameter_gets_the_real_invalid_item(pilot) -> None:
    assert str(pilot.error("sell", item="copper_ore", quantity=6)) == (
        "[invalid_item] invalid_item: Unknown item ''. Use exact item ID (e.g. 'iron_ore') "
        "or full name (e.g. 'Iron Ore')."
    )


def test_unknown_item_gets_the_real_invalid_item(pilot) -> None:
    assert pilot.error("buy", item_id="laser_cannon_i", quantity=1).message == (
        "invalid_item: Unknown item 'laser_cannon_i'. Use exact item ID (e.g. 'iron_ore') "
        "or full name (e.g. 'Iron Ore')."
    )


@pytest.mark.parametrize("quantity", [0, -3, "many", None])
def test_bad_quantity_gets_the_real_invalid_payload(pilot, quantity: object) -> None:
    error = pilot.error("sell", item_id="iron_ore", quantity=quantity)
    assert str(error) == "[invalid_payload] invalid_payload: Quantity must be greater than 0."


def test_numeric_string_quantities_are_accepted(world: World, pilot) -> None:
    _give(world, "iron_ore", 3)
    assert pilot("sell", item_id="iron_ore", quantity="3")["quantity_sold"] == 3


def test_selling_more_than_you_carry_is_refused(world: World, pilot) -> None:
    _give(world, "iron_ore", 2)
    error = pilot.error("sell", item_id="iron_ore", quantity=5)
    assert error.code == "insufficient_items"
    assert pilot.cargo("iron_ore") == 2


def test_selling_away_from_any_base_is_not_docked(world: World, pilot) -> None:
    pilot.act("undock")
    pilot.go_to("main_belt")
    _give(world, "iron_ore", 2)
    assert str(pilot.error("sell", item_id="iron_ore", quantity=2)) == NOT_DOCKED


def test_selling_undocked_at_a_station_docks_for_one_extra_tick(world: World, pilot) -> None:
    pilot.act("undock")
    _give(world, "iron_ore", 2)
    sale = pilot("sell", item_id="iron_ore", quantity=2)
    assert sale["auto_docked"] is True
    assert pilot.status()["player"]["docked_at_base"] == "confederacy_central_command"
    assert pilot.status()["next_action_tick"] == world.current_tick + 2


def test_buying_fills_cargo_and_charges_the_ask(pilot) -> None:
    ask = _listing(pilot)["fuel_cell"]["best_sell"]
    credits = pilot.status()["player"]["credits"]
    bought = pilot("buy", item_id="fuel_cell", quantity=2)
    assert bought["action"] == "bought"
    assert bought["total_cost"] == 2 * ask
    assert bought["delivered_to_cargo"] == 2
    assert bought["credits"] == credits - 2 * ask
    assert pilot.cargo("fuel_cell") == 2


def test_buying_what_the_station_does_not_sell_is_item_not_available(pilot) -> None:
    missing = next(k for k, v in _listing(pilot).items() if v["best_sell"] is None)
    error = pilot.error("buy", item_id=missing, quantity=1)
    assert error.code == "item_not_available"
    assert error.message.startswith("item_not_available: No one is selling ")
    assert "at this station." in error.message


def test_buying_beyond_your_credits_is_insufficient_credits(world: World, pilot) -> None:
    world.players["Ada"].credits = 5
    error = pilot.error("buy", item_id="fuel_cell", quantity=10)
    assert error.code == "insufficient_credits"
    assert error.message.startswith("insufficient_credits: Need ")
    assert error.message.endswith("You have 5.")


def test_buying_beyond_your_hold_is_no_cargo_space(world: World, pilot) -> None:
    world.players["Ada"].credits = 100_000
    _give(world, "iron_ore", 45)
    error = pilot.error("buy", item_id="steel_plate", quantity=10)
    assert error.code == "no_cargo_space"
    assert "5 free" in error.message


def test_station_refuel_fills_the_tank_for_credits(world: World, pilot) -> None:
    world.players["Ada"].ship.fuel = 40
    world.players["Ada"].credits = 1000
    price = pilot("get_poi")["fuel_price"]
    result = pilot("refuel")
    assert result["source"] == "station"
    assert (result["fuel"], result["fuel_now"]) == (60, 100)
    assert result["cost"] == 60 * price
    assert result["credits"] == 1000 - 60 * price


def test_refuel_with_a_full_tank_costs_nothing(pilot) -> None:
    result = pilot("refuel")
    assert result["fuel"] == 0 and result["cost"] == 0


def test_refuel_you_cannot_afford_is_insufficient_credits(world: World, pilot) -> None:
    world.players["Ada"].ship.fuel = 0
    world.players["Ada"].credits = 0
    assert pilot.error("refuel").code == "insufficient_credits"


def test_refuel_buys_only_what_you_can_afford(world: World, pilot) -> None:
    price = pilot("get_poi")["fuel_price"]
    world.players["Ada"].ship.fuel = 0
    world.players["Ada"].credits = 10 * price
    result = pilot("refuel")
    assert result["fuel_now"] == 10 and result["credits"] == 0


def test_burning_fuel_cells_without_any_is_the_real_no_fuel_cells(pilot) -> None:
    assert str(pilot.error("refuel", quantity=2)) == (
        "[no_fuel_cells] no_fuel_cells: No fuel cells found in cargo. "
        "Buy fuel cells from a market or craft them."
    )


def test_fuel_cells_refuel_anywhere(world: World, pilot) -> None:
    pilot.act("buy", item_id="fuel_cell", quantity=3)
    pilot.act("undock")
    pilot.go_to("main_belt")
    world.players["Ada"].ship.fuel = 50
    result = pilot("refuel", item_id="fuel_cell", quantity=2)
    assert result["source"] == "fuel_cell"
    assert result["cells_used"] == 2 and result["fuel_now"] == 90
    assert pilot.cargo("fuel_cell") == 1


def test_refuel_away_from_a_base_without_cells_is_no_fuel_cells(pilot) -> None:
    pilot.act("undock")
    pilot.go_to("main_belt")
    assert pilot.error("refuel").code == "no_fuel_cells"


def test_only_fuel_cells_burn(world: World, pilot) -> None:
    _give(world, "iron_ore", 1)
    assert pilot.error("refuel", item_id="iron_ore").code == "invalid_payload"
    assert pilot.error("refuel", item_id="plutonium").code == "invalid_item"


def test_repair_restores_the_hull_for_credits(world: World, pilot) -> None:
    world.players["Ada"].ship.hull = 90
    credits = pilot.status()["player"]["credits"]
    result = pilot("repair")
    assert result["repaired"] == 10 and result["hull"] == 100
    assert result["cost"] == 10 * rules.REPAIR_PRICE_PER_HULL
    assert result["credits"] == credits - result["cost"]


def test_repair_without_credits_is_insufficient_credits(world: World, pilot) -> None:
    world.players["Ada"].ship.hull = 10
    world.players["Ada"].credits = 0
    assert pilot.error("repair").code == "insufficient_credits"


def test_repair_away_from_a_base_is_not_docked(pilot) -> None:
    pilot.act("undock")
    pilot.go_to("main_belt")
    assert pilot.error("repair").code == "not_docked"


def test_station_sells_fuel_cells_everywhere(world: World) -> None:
    for poi in world.galaxy.pois.values():
        if poi.base is not None:
            assert poi.base.market["fuel_cell"].sells
            assert set(poi.base.services) >= {"market", "refuel", "repair"}


def test_for_sale_listing_matches_buyable_items(pilot) -> None:
    pilot.world.players["Ada"].credits = 10_000
    for item_id in _for_sale(pilot):
        pilot("buy", item_id=item_id, quantity=1)
        pilot.world.advance()

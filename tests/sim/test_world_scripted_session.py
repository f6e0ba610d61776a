"""The whole loop a new pilot plays: register, mine a full hold, sell, refuel."""

from zoea_tui.sim import World


def test_register_mine_until_full_sell_and_refuel(pilot) -> None:
    start = pilot.status()
    assert start["player"]["current_poi"] == "sol_central"
    assert start["player"]["docked_at_base"] == "confederacy_central_command"
    credits_before = start["player"]["credits"]

    assert pilot.act("undock")["action"] == "undocked"
    trip = pilot.go_to("main_belt")
    assert trip["destination_id"] == "main_belt"
    assert pilot.status()["player"]["current_poi"] == "main_belt"

    mines = pilot.fill_hold()
    assert mines >= 2
    assert pilot("get_cargo")["available"] == 0
    assert pilot.error("mine").code == "cargo_full"

    pilot.go_to("sol_central")
    assert pilot.act("dock")["action"] == "docked"
    earned = 0
    for item in pilot("get_cargo")["cargo"]:
        sale = pilot.act("sell", item_id=item["item_id"], quantity=item["quantity"])
        assert sale["quantity_sold"] == item["quantity"]
        earned += sale["total_earned"]
    status = pilot.status()
    assert earned > 0
    assert status["player"]["credits"] == credits_before + earned
    assert status["ship"]["cargo_used"] == 0

    fuel_before = status["ship"]["fuel"]
    assert fuel_before < status["ship"]["max_fuel"]
    refuel = pilot.act("refuel")
    assert refuel["source"] == "station"
    assert refuel["fuel_now"] == refuel["fuel_max"]
    assert refuel["cost"] > 0
    final = pilot.status()["player"]
    assert final["credits"] == credits_before + earned - refuel["cost"]
    assert final["stats"]["ore_sold"] == final["stats"]["ore_mined"]


def test_score_counts_credits_earned_and_ore_sold(world: World, pilot) -> None:
    pilot.act("undock")
    pilot.go_to("main_belt")
    pilot.fill_hold()
    pilot.go_to("sol_central")
    for item in pilot("get_cargo")["cargo"]:
        pilot.act("sell", item_id=item["item_id"], quantity=item["quantity"])
    stats = pilot.status()["player"]["stats"]

    score = world.score()

    row = score["players"]["Ada"]
    assert row["score"] == stats["credits_earned"] > 0
    assert row["ore_sold"] == stats["ore_sold"] == 50
    assert score["total"]["score"] == row["score"]
    assert score["total"]["players"] == 1
    assert score["tick"] == world.current_tick

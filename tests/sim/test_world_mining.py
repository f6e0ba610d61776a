"""Mining: yields, cargo limits, depletion and regeneration of belts."""

from zoea_tui.sim import World, rules


def _at_main_belt(pilot) -> None:
    pilot.act("undock")
    pilot.go_to("main_belt")


def _deposits(world: World, poi_id: str) -> dict[str, int]:
    return {d.resource_id: d.remaining for d in world.galaxy.pois[poi_id].deposits}


def test_mining_at_a_station_gets_the_real_no_resources(pilot) -> None:
    assert str(pilot.error("mine")) == "[no_resources] Nothing to mine here"


def test_mining_puts_ore_in_cargo_and_depletes_the_belt(world: World, pilot) -> None:
    _at_main_belt(pilot)
    before = _deposits(world, "main_belt")
    result = pilot("mine")
    after = _deposits(world, "main_belt")
    assert result["kind"] == "yield"
    assert result["quantity"] >= 1
    assert pilot.cargo(result["resource_id"]) == result["quantity"]
    assert after[result["resource_id"]] == before[result["resource_id"]] - result["quantity"]
    assert result["remaining"] == after[result["resource_id"]]
    assert result["xp_gained"] == {"mining_basic": result["quantity"]}


def test_get_poi_shows_what_is_left(world: World, pilot) -> None:
    _at_main_belt(pilot)
    mined = pilot("mine")
    resources = {r["resource_id"]: r for r in pilot("get_poi")["resources"]}
    assert resources[mined["resource_id"]]["remaining"] == mined["remaining"]
    assert resources[mined["resource_id"]]["depletion_percent"] >= 0


def test_mining_is_notified(pilot) -> None:
    _at_main_belt(pilot)
    pilot("get_notifications")
    mined = pilot.act("mine")
    events = pilot("get_notifications")["notifications"]
    yields = [e for e in events if e["msg_type"] == "mining_yield"]
    assert yields[0]["data"]["quantity"] == mined["quantity"]


def test_a_full_hold_gets_the_real_cargo_full(pilot) -> None:
    _at_main_belt(pilot)
    pilot.fill_hold()
    assert pilot("get_cargo")["used"] == 50
    assert str(pilot.error("mine")) == "[cargo_full] Cargo hold is full"


def test_a_yield_never_exceeds_the_free_space(world: World, pilot) -> None:
    _at_main_belt(pilot)
    world.players["Ada"].ship.cargo["steel_plate"] = 49
    assert pilot.act("mine")["quantity"] == 1


def test_a_depleted_belt_has_nothing_to_mine(world: World, pilot) -> None:
    _at_main_belt(pilot)
    for deposit in world.galaxy.pois["main_belt"].deposits:
        deposit.remaining = 0
    error = pilot.error("mine")
    assert error.code == "no_resources"
    assert "depleted" in error.message


def test_a_yield_never_exceeds_what_is_left(world: World, pilot) -> None:
    _at_main_belt(pilot)
    deposits = world.galaxy.pois["main_belt"].deposits
    for deposit in deposits:
        deposit.remaining = 0
    deposits[0].remaining = 1
    result = pilot.act("mine")
    assert result["quantity"] == 1 and result["remaining"] == 0


def test_belts_slowly_regenerate(world: World, pilot) -> None:
    _at_main_belt(pilot)
    mined = pilot("mine")
    low = _deposits(world, "main_belt")[mined["resource_id"]]
    world.advance(rules.REGEN_INTERVAL_TICKS)
    higher = _deposits(world, "main_belt")[mined["resource_id"]]
    assert higher > low
    world.advance(100 * rules.REGEN_INTERVAL_TICKS)
    deposit = next(
        d for d in world.galaxy.pois["main_belt"].deposits if d.resource_id == mined["resource_id"]
    )
    assert deposit.remaining == deposit.max_remaining


def test_mining_experience_levels_up_the_skill(world: World, pilot) -> None:
    _at_main_belt(pilot)
    world.players["Ada"].skill_xp["mining_basic"] = 49
    result = pilot.act("mine")
    assert result["level_up"] == {"skill": "mining_basic", "level": 1}
    assert pilot.status()["player"]["skills"]["mining_basic"] == 1
    events = pilot("get_notifications", types=["system"])["notifications"]
    assert any(e["msg_type"] == "skill_level_up" for e in events)


def test_mining_yield_grows_with_richness_and_level() -> None:
    assert rules.mining_quantity(50, 0) == 5
    assert rules.mining_quantity(100, 0) == 10
    assert rules.mining_quantity(1, 0) == 1
    assert rules.mining_quantity(100, 10) > rules.mining_quantity(100, 0)
    assert [rules.skill_level(x) for x in (0, 49, 50, 149, 150, 300)] == [0, 0, 1, 1, 2, 3]


def test_mining_sometimes_scratches_the_hull(world: World, pilot) -> None:
    _at_main_belt(pilot)
    damaged = []
    for _ in range(40):
        if pilot("get_cargo")["available"] == 0:
            world.players["Ada"].ship.cargo.clear()
        result = pilot.act("mine")
        if "hull_damage" in result:
            damaged.append(result)
    assert damaged
    assert pilot.status()["ship"]["hull"] == damaged[-1]["hull"] < 100

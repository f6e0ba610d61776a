"""Time and movement: one action per tick, travel and jumps that take ticks."""

import pytest

from zoea_tui.sim import World, rules


def test_a_second_action_in_the_same_tick_is_action_pending(pilot) -> None:
    pilot("undock")
    error = pilot.error("dock")
    assert error.code == "action_pending"
    assert error.details == {"wait_ticks": 1, "ready_tick": pilot.world.current_tick + 1}
    assert "tick" in error.message


def test_the_next_tick_allows_the_next_action(pilot) -> None:
    pilot("undock")
    pilot.world.advance()
    assert pilot("dock")["action"] == "docked"


def test_queries_are_free_and_unlimited_within_a_tick(pilot) -> None:
    pilot("undock")
    for _ in range(5):
        pilot("get_status")
        pilot("get_system")
        pilot("captains_log_add", entry="note")
    assert pilot.status()["next_action_tick"] == pilot.world.current_tick + 1


def test_a_refused_action_does_not_use_up_the_tick(pilot) -> None:
    assert pilot.error("mine").code == "no_resources"
    assert pilot("undock")["action"] == "undocked"


def test_travel_takes_ticks_and_fuel_by_distance(pilot) -> None:
    pilot.act("undock")
    start = pilot.world.current_tick
    trip = pilot("travel", target_poi="main_belt")
    assert trip["action"] == "travel"
    assert trip["ticks"] >= 1
    assert trip["arrival_tick"] == start + trip["ticks"]
    assert trip["fuel_cost"] >= 1
    assert trip["fuel_remaining"] == 100 - trip["fuel_cost"]
    assert pilot.status()["player"]["current_poi"] == "sol_central"
    pilot.world.advance(trip["ticks"])
    assert pilot.status()["player"]["current_poi"] == "main_belt"


def test_travel_formula_follows_distance_over_speed() -> None:
    assert rules.travel_ticks(50, 3) == 1
    assert rules.travel_ticks(300, 3) == 1
    assert rules.travel_ticks(301, 3) == 2
    assert rules.travel_fuel(250) == 3
    assert rules.jump_ticks(3) == 4
    assert rules.jump_ticks(9) == 1


def test_calls_that_need_a_position_are_refused_in_transit(pilot) -> None:
    pilot.act("undock")
    world = pilot.world
    trip = pilot("travel", target_poi="sol_belt")
    world.advance(trip["ticks"] - 1)
    for tool in ("mine", "get_poi", "get_system", "dock", "view_market", "get_nearby"):
        error = pilot.error(tool)
        assert error.code == "in_transit"
        assert error.details["arrival_tick"] == trip["arrival_tick"]
        assert str(trip["arrival_tick"]) in error.message


def test_status_cargo_log_and_chat_still_work_in_transit(pilot) -> None:
    pilot.act("undock")
    trip = pilot("travel", target_poi="main_belt")
    status = pilot.status()
    assert status["player"]["in_transit"] is True
    assert status["transit"]["to_poi"] == "main_belt"
    assert status["transit"]["arrival_tick"] == trip["arrival_tick"]
    assert status["next_action_tick"] == trip["arrival_tick"]
    pilot("get_cargo")
    pilot("captains_log_add", entry="en route")
    pilot("chat", channel="system", content="en route")
    pilot("find_route", target_system="sol")


def test_arrival_is_notified(pilot) -> None:
    pilot.act("undock")
    pilot("get_notifications")
    pilot.go_to("main_belt")
    events = pilot("get_notifications")["notifications"]
    arrived = [e for e in events if e["msg_type"] == "arrived"]
    assert arrived and arrived[0]["data"]["poi_id"] == "main_belt"


def test_others_at_the_poi_see_departures_and_arrivals(make_pilot) -> None:
    ada = make_pilot("Ada")
    bob = make_pilot("Bob")
    ada.act("undock")
    bob.act("undock")
    bob("get_notifications")
    ada.go_to("main_belt")
    types = [e["msg_type"] for e in bob("get_notifications")["notifications"]]
    assert "poi_departure" in types
    bob.go_to("main_belt")
    arrivals = [
        e for e in ada("get_notifications")["notifications"] if e["msg_type"] == "poi_arrival"
    ]
    assert arrivals[-1]["data"]["username"] == "Bob"


def test_travelling_while_docked_undocks_for_one_extra_tick(pilot) -> None:
    plain_world = World(seed=42)
    plain_world.call("k", "register", {"username": "Ada", "empire": "solarian"})
    plain_world.call("k", "undock", {})
    plain_world.advance()
    plain = plain_world.call("k", "travel", {"target_poi": "main_belt"})
    docked = pilot("travel", target_poi="main_belt")
    assert docked["auto_undocked"] is True
    assert docked["ticks"] == plain["ticks"] + 1


def test_unknown_destination_gets_the_real_invalid_poi(pilot) -> None:
    assert str(pilot.error("travel", target_poi="main_b?")) == (
        "[invalid_poi] Unknown destination: main_b?"
    )


def test_destination_in_another_system_is_wrong_system(world: World, pilot) -> None:
    other = next(p for p in world.galaxy.pois.values() if p.system_id != "sol")
    error = pilot.error("travel", target_poi=other.id)
    assert error.code == "wrong_system"
    assert other.system_id in error.message


def test_travelling_to_where_you_are_is_refused(pilot) -> None:
    assert pilot.error("travel", target_poi="sol_central").code == "invalid_target"


def test_pois_can_be_named_by_their_name(pilot) -> None:
    assert pilot("travel", target_poi="Main Belt")["destination_id"] == "main_belt"


def test_travel_without_enough_fuel_is_no_fuel(world: World, pilot) -> None:
    world.players["Ada"].ship.fuel = 0
    error = pilot.error("travel", target_poi="main_belt")
    assert error.code == "no_fuel"
    assert "refuel" in error.message


def test_jump_takes_seven_minus_speed_ticks_and_two_fuel(world: World, pilot) -> None:
    pilot.act("undock")
    neighbour = world.galaxy.systems["sol"].connections[0]
    start = world.current_tick
    result = pilot("jump", target_system=neighbour)
    assert result["action"] == "jump"
    assert result["ticks"] == 4
    assert result["fuel_cost"] == 2 and result["fuel_remaining"] == 98
    assert result["arrival_tick"] == start + 4
    world.advance(3)
    assert pilot.error("get_system").code == "in_transit"
    world.advance(1)
    player = pilot.status()["player"]
    assert player["current_system"] == neighbour
    assert player["current_poi"] == result["poi"]
    assert player["stats"]["systems_visited"] == 2


def test_jump_lands_at_the_station_when_there_is_one(world: World, pilot) -> None:
    neighbour = next(s for s in world.galaxy.systems["sol"].connections if s != "barnards_star")
    landing = pilot("jump", target_system=neighbour)["poi"]
    assert world.galaxy.pois[landing].type == "station"


def test_jump_to_a_system_that_is_not_linked_is_not_connected(world: World, pilot) -> None:
    far = next(
        s
        for s in world.galaxy.systems
        if s != "sol" and s not in world.galaxy.systems["sol"].connections
    )
    error = pilot.error("jump", target_system=far)
    assert error.code == "not_connected"
    assert "find_route" in error.message


def test_jump_to_an_unknown_system_is_invalid_system(pilot) -> None:
    assert pilot.error("jump", target_system="market_prime").code == "invalid_system"


def test_jump_to_the_current_system_is_refused(pilot) -> None:
    assert pilot.error("jump", target_system="sol").code == "invalid_target"


def test_jump_without_fuel_is_no_fuel(world: World, pilot) -> None:
    world.players["Ada"].ship.fuel = 1
    neighbour = world.galaxy.systems["sol"].connections[0]
    assert pilot.error("jump", target_system=neighbour).code == "no_fuel"


def test_find_route_plans_jumps_and_fuel(world: World, pilot) -> None:
    far = max(world.galaxy.systems, key=lambda s: len(world.galaxy.route("sol", s) or []))
    route = pilot("find_route", target_system=far)
    assert route["found"] is True
    assert route["route"][0]["system_id"] == "sol"
    assert route["route"][-1]["system_id"] == far
    assert route["total_jumps"] == len(route["route"]) - 1 >= 2
    assert route["estimated_fuel"] == 2 * route["total_jumps"]
    assert route["fuel_available"] == 100


def test_following_a_route_reaches_its_end(world: World, pilot) -> None:
    far = max(world.galaxy.systems, key=lambda s: len(world.galaxy.route("sol", s) or []))
    hops = [step["system_id"] for step in pilot("find_route", target_system=far)["route"][1:]]
    for hop in hops:
        pilot.act("jump", target_system=hop)
    assert pilot.status()["player"]["current_system"] == far


def test_find_route_to_an_unknown_system_is_invalid_system(pilot) -> None:
    assert pilot.error("find_route", target_system="nowhere").code == "invalid_system"


def test_dock_and_undock_errors(world: World, pilot) -> None:
    assert str(pilot.error("dock")) == "[already_docked] Already docked"
    pilot.act("undock")
    assert str(pilot.error("undock")) == "[not_docked] not_docked: Not docked"
    pilot.go_to("main_belt")
    assert pilot.error("dock").code == "no_base"


def test_advance_moves_the_clock_and_rejects_negative_steps(world: World) -> None:
    assert world.advance(0) == 1
    assert world.advance(5) == 6 == world.current_tick
    with pytest.raises(ValueError):
        world.advance(-1)

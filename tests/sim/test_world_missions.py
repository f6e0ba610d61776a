"""Mission boards: listing, accepting, tracking, completing and abandoning missions."""

import pytest

from zoea_tui.sim import World


def _board(pilot) -> dict[str, dict]:
    return {m["mission_id"]: m for m in pilot("get_missions")["missions"]}


def test_each_station_offers_missions_that_fit_a_starter_ship(pilot) -> None:
    board = pilot("get_missions")
    assert board["base_id"] == "confederacy_central_command"
    kinds = {m["type"] for m in board["missions"]}
    assert kinds == {"visit", "delivery", "mining", "travel", "combat"}
    assert all(m["reward_credits"] > 0 and m["objective"] for m in board["missions"])
    assert "iron_supply_run" in _board(pilot) and "prove_your_steel" in _board(pilot)


def test_board_pages_with_offset(pilot) -> None:
    assert pilot("get_missions", offset=5)["offset"] == 5
    assert len(pilot("get_missions", offset=5)["missions"]) == pilot("get_missions")["total"] - 5


def test_accepting_moves_a_mission_to_the_active_list(pilot) -> None:
    accepted = pilot.act("accept_mission", mission_id="iron_supply_run")
    mission_id = accepted["mission"]["mission_id"]
    assert len(mission_id) == 32
    active = pilot("get_active_missions")["missions"]
    assert [m["mission_id"] for m in active] == [mission_id]
    assert active[0]["status"] == "in_progress" and active[0]["required"] == 10
    assert "iron_supply_run" not in _board(pilot)


def test_delivery_completes_with_the_goods_and_pays(world: World, pilot) -> None:
    mission_id = pilot.act("accept_mission", mission_id="iron_supply_run")["mission"]["mission_id"]
    error = pilot.error("complete_mission", mission_id=mission_id)
    assert error.code == "mission_incomplete"
    assert error.message.startswith("'Iron Ore Supply Run' is not complete: ")
    world.players["Ada"].ship.cargo["iron_ore"] = 12
    credits = pilot.status()["player"]["credits"]
    done = pilot.act("complete_mission", mission_id=mission_id)
    assert done["action"] == "mission_completed"
    assert pilot.status()["player"]["credits"] == credits + done["reward_credits"]
    assert pilot.cargo("iron_ore") == 2
    stats = pilot.status()["player"]["stats"]
    assert (stats["missions_accepted"], stats["missions_completed"]) == (1, 1)
    assert "iron_supply_run" in _board(pilot)  # back on the board: missions repeat


def test_visit_mission_completes_after_reaching_the_belt(pilot) -> None:
    pilot.act("accept_mission", mission_id="welcome_to_sol_central")
    pilot.go_to("main_belt")
    assert pilot("get_active_missions")["missions"][0]["status"] == "ready_to_turn_in"
    pilot.go_to("sol_central")
    done = pilot.act("complete_mission", mission_id="welcome_to_sol_central")
    assert done["reward_credits"] == 60


def test_mining_mission_counts_ore_mined_after_accepting(pilot) -> None:
    offer = next(m for m in _board(pilot).values() if m["type"] == "mining")
    pilot.act("accept_mission", mission_id=offer["mission_id"])
    pilot.go_to("main_belt")
    pilot.fill_hold()
    active = pilot("get_active_missions")["missions"][0]
    assert 0 < active["progress"] <= active["required"]


def test_travel_mission_is_turned_in_at_the_destination(pilot) -> None:
    offer = next(m for m in _board(pilot).values() if m["type"] == "travel")
    pilot.act("accept_mission", mission_id=offer["mission_id"])
    error = pilot.error("complete_mission", mission_id=offer["mission_id"])
    assert error.code == "wrong_base"
    pilot.act("jump", target_system=offer["turn_in"]["system_id"])
    pilot.act("dock")
    assert pilot.act("complete_mission", mission_id=offer["mission_id"])["reward_credits"] == 120


def test_unknown_mission_is_mission_not_found(pilot) -> None:
    error = pilot.error("accept_mission", mission_id="titanium_extraction_contract_x")
    assert str(error) == (
        "[mission_not_found] Mission 'titanium_extraction_contract_x' is not offered at this "
        "station. Use get_missions to see this station's board."
    )
    assert pilot.error("complete_mission", mission_id="nope").code == "mission_not_found"


def test_accepting_twice_and_over_the_limit_are_refused(world: World, pilot) -> None:
    pilot.act("accept_mission", mission_id="first_haul")
    assert pilot.error("accept_mission", mission_id="first_haul").code == "mission_already_active"
    for mission_id in list(_board(pilot))[:4]:
        pilot.act("accept_mission", mission_id=mission_id)
    left = next(iter(_board(pilot)))
    assert pilot.error("accept_mission", mission_id=left).code == "mission_limit"


def test_missing_mission_id_names_the_parameter(pilot) -> None:
    error = pilot.error("accept_mission")
    assert error.code == "invalid_payload" and "'mission_id'" in error.message


def test_abandon_drops_the_mission(pilot) -> None:
    pilot.act("accept_mission", mission_id="first_haul")
    assert pilot("abandon_mission", mission_id="first_haul")["action"] == "mission_abandoned"
    assert pilot("get_active_missions")["count"] == 0
    assert pilot.status()["player"]["stats"]["missions_abandoned"] == 1


def test_missions_need_a_station(pilot) -> None:
    pilot.go_to("main_belt")
    assert pilot.error("get_missions").code == "not_docked"


@pytest.mark.parametrize("station", ["sol_central", "war_citadel", "frontier_station"])
def test_every_board_is_derived_from_the_galaxy_alone(station: str) -> None:
    from zoea_tui.sim import missions

    one, two = World(seed=42), World(seed=42)
    assert missions.board(one.galaxy, one.galaxy.pois[station]) == missions.board(
        two.galaxy, two.galaxy.pois[station]
    )

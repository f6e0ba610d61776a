"""Ship modules and pirates: fitting, attacking, return fire, destruction, wrecks, loot."""

import pytest

from zoea_tui.sim import World
from zoea_tui.sim.pirates import RESPAWN_TICKS


@pytest.fixture
def armed(world: World, pilot):
    """Ada with a pulse laser and a shield booster bought and fitted at Sol Central."""
    world.players["Ada"].credits = 2_000
    pilot.act("buy", item_id="pulse_laser_i", quantity=1)
    pilot.act("buy", item_id="shield_booster_i", quantity=1)
    pilot.act("install_mod", module_id="pulse_laser_i")
    pilot.act("install_mod", module_id="shield_booster_i")
    return pilot


def _to_pirates(pilot) -> str:
    """Fly to Krynn's belt, where a pirate scout waits; returns its id."""
    pilot.act("jump", target_system="krynn")
    pilot.go_to("krynn_belt")
    return pilot("get_nearby")["pirates"][0]["id"]


def test_buying_and_installing_weapon_and_defence_modules(armed) -> None:
    status = armed.status()
    assert [m["id"] for m in status["modules"]] == [
        "mining_laser_1",
        "pulse_laser_i",
        "shield_booster_i",
    ]
    assert status["ship"]["max_shield"] == 80
    assert armed.cargo("pulse_laser_i") == 0


def test_install_errors(world: World, pilot) -> None:
    assert pilot.error("install_mod", module_id="warp_core").code == "invalid_module"
    error = pilot.error("install_mod", module_id="pulse_laser_i")
    assert error.code == "module_not_in_cargo"
    world.players["Ada"].ship.cargo.update(pulse_laser_i=1, autocannon_i=1)
    pilot.act("install_mod", module_id="pulse_laser_i")
    error = pilot.error("install_mod", module_id="autocannon_i")
    assert error.code == "no_free_slot" and "weapon" in error.message
    pilot.act("undock")
    assert pilot.error("install_mod", module_id="autocannon_i").code == "not_docked"


def test_uninstall_returns_the_module_to_cargo(armed) -> None:
    armed.act("uninstall_mod", module_id="shield_booster_i")
    assert armed.cargo("shield_booster_i") == 1
    assert armed.status()["ship"]["max_shield"] == 50
    assert armed.error("uninstall_mod", module_id="shield_booster_i").code == "module_not_installed"


def test_pirates_lurk_in_low_security_systems_only(world: World) -> None:
    police = {
        p["system_id"]: world.galaxy.systems[p["system_id"]].police_level
        for p in world.pirates.values()
    }
    assert police and all(level <= 3 for level in police.values())


def test_attack_needs_undocked_a_weapon_and_a_target(world: World, pilot) -> None:
    assert pilot.error("attack", target_id="pirate_1").code == "docked"
    pirate_id = _to_pirates(pilot)
    assert pilot.error("attack", target_id=pirate_id).code == "no_weapon"
    assert pilot.error("attack", target_id="pirate_404").code == "invalid_target"


def test_fighting_a_pirate_to_destruction_pays_a_bounty_and_leaves_loot(armed) -> None:
    pirate_id = _to_pirates(armed)
    credits = armed.status()["player"]["credits"]
    first = armed.act("attack", target_id=pirate_id)
    assert first["you_dealt"]["total"] > 0
    assert first["return_fire"]["total"] > 0  # it fights back
    result = first
    for _ in range(20):
        if result["destroyed"]:
            break
        result = armed.act("attack", target_id=pirate_id)
    assert result["destroyed"] and result["bounty"] == 150
    assert armed.status()["player"]["credits"] == credits + 150
    stats = armed.status()["player"]["stats"]
    assert (stats["pirates_engaged"], stats["pirates_destroyed"]) == (1, 1)
    assert armed("get_nearby")["pirates"] == []
    wrecks = armed("get_wrecks")["wrecks"]
    assert wrecks[0]["wreck_id"] == result["wreck_id"] and wrecks[0]["items"]
    looted = armed.act("loot_wreck", wreck_id=result["wreck_id"])
    assert looted["taken"] and armed("get_wrecks")["count"] == 0
    assert armed.error("loot_wreck", wreck_id="wreck_99").code == "wreck_not_found"


def test_destroyed_pirates_respawn(world: World, armed) -> None:
    pirate_id = _to_pirates(armed)
    world.pirates[pirate_id]["hull"] = 1
    world.pirates[pirate_id]["shield"] = 0
    assert armed.act("attack", target_id=pirate_id)["destroyed"]
    world.advance(RESPAWN_TICKS)
    assert armed("get_nearby")["pirates"][0]["id"] == pirate_id


def test_a_respawned_pirate_is_a_new_one_to_engage(world: World, armed) -> None:
    """Every pirate destroyed was engaged: destroying the same pirate twice (once before,
    once after it came back) counts two engagements, never fewer than the kills."""
    pirate_id = _to_pirates(armed)
    for _ in range(2):
        world.pirates[pirate_id].update(hull=1, shield=0)
        assert armed.act("attack", target_id=pirate_id)["destroyed"]
        world.advance(RESPAWN_TICKS)
    stats = armed.status()["player"]["stats"]
    assert (stats["pirates_engaged"], stats["pirates_destroyed"]) == (2, 2)
    armed.act("attack", target_id=pirate_id)
    armed.act("attack", target_id=pirate_id)  # the same life again: no new engagement
    assert armed.status()["player"]["stats"]["pirates_engaged"] == 3


def test_an_engaged_pirate_keeps_firing_every_tick_while_you_stay(world: World, armed) -> None:
    pirate_id = _to_pirates(armed)
    armed.act("attack", target_id=pirate_id)
    before = world.players["Ada"].stats["damage_taken"]
    world.advance(3)
    assert world.players["Ada"].stats["damage_taken"] > before


def test_losing_the_ship_respawns_at_home_and_leaves_a_wreck(world: World, armed) -> None:
    pirate_id = _to_pirates(armed)
    ada = world.players["Ada"]
    ada.ship.cargo["gold_ore"] = 4
    ada.ship.hull, ada.ship.shield, ada.ship.armor = 1, 0, 0
    world.pirates[pirate_id]["hull"] = 500
    result = armed.act("attack", target_id=pirate_id)
    assert result["return_fire"]["destroyed"]
    status = armed.status()["player"]
    assert status["current_poi"] == "sol_central" and status["stats"]["ships_lost"] == 1
    assert [w for w in world.wrecks if w["items"].get("gold_ore") == 4]


def test_scan_and_salvage(world: World, armed) -> None:
    pirate_id = _to_pirates(armed)
    assert armed.act("scan", target_id=pirate_id)["target"]["bounty"] == 150
    world.pirates[pirate_id].update(hull=1, shield=0)
    wreck_id = armed.act("attack", target_id=pirate_id)["wreck_id"]
    assert armed.act("salvage_wreck", wreck_id=wreck_id)["salvaged"] == {"steel_plate": 3}


def test_survey_needs_a_scanner_with_the_real_text(world: World, pilot) -> None:
    error = pilot.error("survey_system", system_id="market_prime")
    assert str(error) == (
        "[no_scanner] no_scanner: No survey scanner equipped. You need a module with survey "
        "capability (e.g. survey_scanner_i, survey_scanner_ii, or deep_core_survey_scanner) "
        "to scan for hidden deposits."
    )
    world.players["Ada"].ship.modules.append("survey_scanner_i")
    belts = pilot.act("survey_system")["belts"]
    assert {b["poi_id"] for b in belts} == {"main_belt", "sol_belt"}


def test_jettison_and_mining_without_a_laser(world: World, pilot) -> None:
    world.players["Ada"].ship.cargo["iron_ore"] = 5
    assert pilot.act("jettison", item_id="iron_ore", quantity=2)["quantity"] == 2
    assert pilot.cargo("iron_ore") == 3
    assert pilot.error("jettison", item_id="iron_ore", quantity=9).code == "insufficient_items"
    pilot.act("uninstall_mod", module_id="mining_laser_1")
    pilot.go_to("main_belt")
    assert pilot.error("mine").code == "no_mining_laser"


def test_attacking_a_pilot_is_refused(make_pilot, pilot) -> None:
    make_pilot("Bob")
    pilot.act("undock")
    assert "pirates" in pilot.error("attack", target_id="Bob").message

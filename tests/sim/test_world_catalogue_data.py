"""The catalogue, guides, skills, base facilities and shipyards."""

from zoea_tui.sim import World


def test_catalog_types_with_the_real_invalid_type_text(world: World, pilot) -> None:
    assert str(pilot.error("catalog", category="weapon")) == (
        '[invalid_type] Unknown catalog type "". Must be one of: ships, skills, recipes, items.'
    )
    assert pilot.error("catalog", type="module").message.startswith(
        'Unknown catalog type "module".'
    )
    items = pilot("catalog", type="items")["entries"]
    assert {"iron_ore", "pulse_laser_i", "shield_booster_i"} <= {e["id"] for e in items}
    weapons = pilot("catalog", type="items", category="weapon")["entries"]
    assert {e["id"] for e in weapons} == {"pulse_laser_i", "autocannon_i"}
    assert pilot("catalog", type="ships")["count"] == 4
    assert pilot("catalog", type="skills", id="mining_basic")["count"] == 1
    recipes = pilot("catalog", type="recipes")["entries"]
    assert [r["id"] for r in recipes] == ["steel_plate", "fuel_cell"]
    assert recipes[0]["inputs"] == [{"item_id": "iron_ore", "quantity": 5}]
    assert world.call(None, "catalog", {"type": "items"})["count"] == len(items)


def test_guides_by_id_topic_and_alias(pilot) -> None:
    assert pilot("get_guide", guide="pirate-hunter")["guide"] == "pirate-hunter"
    assert pilot("get_guide", topic="combat")["guide"] == "pirate-hunter"
    assert len(pilot("get_guide")["guides"]) >= 5
    assert pilot.error("get_guide", guide="cooking").code == "invalid_guide"


def test_skills_report_levels_and_xp(pilot) -> None:
    skills = {s["id"]: s for s in pilot("get_skills")["skills"]}
    assert skills["mining_basic"]["level"] == 0 and skills["mining_basic"]["next_level_xp"] == 50


def test_get_base_and_facilities(pilot) -> None:
    base = pilot("get_base", base_id="crimson_war_citadel")["base"]
    assert base["system_id"] == "krynn" and base["has_shipyard"]
    assert {"market", "storage", "missions", "shipyard"} <= set(base["services"])
    assert pilot("get_base")["base"]["id"] == "confederacy_central_command"
    assert pilot("facility", poi="war_citadel")["base_id"] == "crimson_war_citadel"
    market = pilot("facility", base_id="crimson_war_citadel", name="market")["facilities"]
    assert market[0]["type"] == "market"
    assert pilot.error("get_base", base_id="atlantis").code == "invalid_base"


def test_showroom_lists_ships_for_sale(pilot) -> None:
    ships = pilot("shipyard_showroom")["ships"]
    assert {s["class_id"] for s in ships} == {"prospector", "archimedes", "skirmisher"}
    assert pilot("browse_ships", base_id="crimson_war_citadel")["ships"] == ships


def test_buying_a_ship_stores_the_old_one_and_switching_back(world: World, pilot) -> None:
    error = pilot.error("buy_ship", ship_class="prospector")
    assert error.code == "insufficient_credits"
    assert pilot.error("buy_ship", ship_class="dreadnought").code == "invalid_ship_class"
    world.players["Ada"].credits = 5_000
    bought = pilot.act("buy_ship", ship_class="prospector")
    assert bought["ship"]["cargo_capacity"] == 100
    ships = pilot("list_ships")["ships"]
    assert [s["active"] for s in ships] == [True, False]
    old = ships[1]["ship_id"]
    assert pilot.error("switch_ship", ship_id="nope").code == "ship_not_found"
    assert pilot.act("switch_ship", ship_id=old)["ship"]["class_id"] == "starter_ship"
    pilot.act("jump", target_system="krynn")
    pilot.act("dock")
    stored = pilot("list_ships")["ships"][1]["ship_id"]
    assert pilot.error("switch_ship", ship_id=stored).code == "wrong_base"


def test_no_shipyard_outside_the_shipyard_stations(world: World, pilot) -> None:
    world.players["Ada"].credits = 5_000
    pilot.act("jump", target_system="alpha_centauri")
    pilot.act("dock")
    assert pilot("shipyard_showroom")["ships"] == []
    assert pilot.error("buy_ship", ship_class="prospector").code == "no_shipyard"

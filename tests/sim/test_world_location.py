"""Location queries: status, ship, cargo, system, POI, nearby pilots, the map."""

from zoea_tui.sim import World


def test_status_has_player_ship_and_modules(pilot) -> None:
    status = pilot.status()
    player = status["player"]
    assert player["username"] == "Ada" and player["empire"] == "solarian"
    assert player["current_system"] == "sol"
    assert player["home_base"] == "confederacy_central_command"
    assert player["skills"] == {"mining_basic": 0}
    assert set(player["stats"]) >= {"ore_mined", "ore_sold", "credits_earned"}
    assert status["ship"]["cargo"] == []
    assert status["modules"] == [
        {
            "id": "mining_laser_1",
            "name": "Mining Laser I",
            "type": "mining",
            "slot": "utility",
            "mining_power": 5,
        }
    ]
    assert "transit" not in status


def test_ship_and_cargo_views(world: World, pilot) -> None:
    world.players["Ada"].ship.cargo["iron_ore"] = 7
    ship = pilot("get_ship")
    assert ship["ship"]["cargo_used"] == 7
    cargo = pilot("get_cargo")
    assert cargo["cargo"] == [{"item_id": "iron_ore", "name": "Iron Ore", "quantity": 7, "size": 1}]
    assert (cargo["used"], cargo["capacity"], cargo["available"]) == (7, 50, 43)


def test_get_system_lists_pois_and_connections(world: World, pilot) -> None:
    result = pilot("get_system")
    system = result["system"]
    assert system["id"] == "sol" and system["police_level"] == 5
    ids = {p["id"] for p in system["pois"]}
    assert {"sol_central", "main_belt", "sol_belt", "sol_earth", "sol_mars"} <= ids
    central = next(p for p in system["pois"] if p["id"] == "sol_central")
    assert central["has_base"] and central["online"] == 1
    assert [c["system_id"] for c in system["connections"]] == world.galaxy.systems[
        "sol"
    ].connections
    assert result["poi"] == "sol_central"


def test_get_system_of_another_system(pilot) -> None:
    result = pilot("get_system", system_id="frontier")
    assert result["system"]["police_level"] == 0
    assert "Lawless" in result["security_status"]
    assert result["poi"] is None
    assert pilot.error("get_system", system_id="market_prime").code == "invalid_system"


def test_get_poi_of_a_station_shows_base_and_services(pilot) -> None:
    result = pilot("get_poi")
    assert result["poi"]["id"] == "sol_central" and result["poi"]["type"] == "station"
    assert result["base"]["id"] == "confederacy_central_command"
    assert "market" in result["services"] and result["fuel_price"] >= 1


def test_get_poi_by_id_shows_a_belt(pilot) -> None:
    result = pilot("get_poi", poi_id="main_belt")
    assert {r["resource_id"] for r in result["resources"]} == {
        "iron_ore",
        "copper_ore",
        "titanium_ore",
    }
    assert "base" not in result
    assert pilot.error("get_poi", poi_id="nowhere").code == "invalid_poi"


def test_get_nearby_lists_other_pilots_here(make_pilot) -> None:
    ada, bob = make_pilot("Ada"), make_pilot("Bob")
    nearby = ada("get_nearby")
    assert nearby["count"] == 1 and nearby["players"][0]["username"] == "Bob"
    bob("logout")
    assert ada("get_nearby")["players"][0]["online"] is False


def test_get_map_lists_every_system(world: World, pilot) -> None:
    result = pilot("get_map")
    assert len(result["systems"]) == len(world.galaxy.systems)
    sol = next(s for s in result["systems"] if s["id"] == "sol")
    assert sol["visited"] is True and sol["has_station"] is True
    assert len(pilot("get_map", system_id="sirius")["systems"]) == 1


def test_search_systems_by_partial_name(pilot) -> None:
    assert [s["id"] for s in pilot("search_systems", query="centauri")["systems"]] == [
        "alpha_centauri"
    ]
    assert str(pilot.error("search_systems", system="sirius")) == (
        "[invalid_query] Search query is required. Provide a partial system name to search for."
    )

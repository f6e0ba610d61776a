"""The generated galaxy: real ids, a connected map, belts and markets."""

import pytest

from zoea_tui.sim import World
from zoea_tui.sim.catalog import EMPIRES, ITEMS


@pytest.mark.parametrize("seed", [0, 1, 42, 1234])
def test_galaxy_has_6_to_8_connected_systems(seed: int) -> None:
    galaxy = World(seed=seed).galaxy
    assert 6 <= len(galaxy.systems) <= 8
    for system_id in galaxy.systems:
        assert galaxy.route("sol", system_id) is not None
    for system in galaxy.systems.values():
        for other in system.connections:
            assert system.id in galaxy.systems[other].connections


def test_real_ids_are_used(world: World) -> None:
    galaxy = world.galaxy
    assert {"sol", "alpha_centauri", "barnards_star", "sirius"} <= set(galaxy.systems)
    assert galaxy.pois["sol_central"].name == "Sol Central"
    assert galaxy.pois["main_belt"].type == "asteroid_belt"
    assert {"iron_ore", "copper_ore", "fuel_cell", "steel_plate"} <= set(ITEMS)


def test_every_empire_has_a_home_station(world: World) -> None:
    for empire in EMPIRES.values():
        assert world.galaxy.arrival_poi(empire.home_system).base is not None


@pytest.mark.parametrize("seed", [0, 7, 99])
def test_every_system_has_a_belt_and_most_have_a_station(seed: int) -> None:
    galaxy = World(seed=seed).galaxy
    stations = 0
    for system in galaxy.systems.values():
        types = [galaxy.pois[p].type for p in system.poi_ids]
        assert "asteroid_belt" in types and "sun" in types
        stations += "station" in types
    assert stations >= len(galaxy.systems) - 1


@pytest.mark.parametrize("seed", [0, 7, 99])
def test_no_silicon_in_solarian_space(seed: int) -> None:
    galaxy = World(seed=seed).galaxy
    for poi in galaxy.pois.values():
        if galaxy.systems[poi.system_id].empire == "solarian":
            assert all(d.resource_id != "silicon_ore" for d in poi.deposits)


def test_belts_start_full_with_richness_in_range(world: World) -> None:
    for poi in world.galaxy.pois.values():
        for deposit in poi.deposits:
            assert deposit.remaining == deposit.max_remaining > 0
            assert 1 <= deposit.richness <= 100


def test_in_system_distances_are_a_few_au(world: World) -> None:
    galaxy = world.galaxy
    for system in galaxy.systems.values():
        pois = [galaxy.pois[p] for p in system.poi_ids]
        for a in pois:
            for b in pois:
                assert galaxy.poi_distance(a, b) <= 1000


def test_same_seed_same_galaxy() -> None:
    assert World(seed=8).galaxy == World(seed=8).galaxy

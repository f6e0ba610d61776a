"""The world calibrated against SMBench's published runs (``world="smbench"``): the start
state, the galaxy, the economy, missions, modules and the books, as the logs show them."""

from __future__ import annotations

import statistics

import pytest

from zoea_tui.sim import World
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.profiles import profile

from .conftest import Pilot

#: Systems SMBench's run-2 logs jump to or look at.
LOGGED_SYSTEMS = {
    "sol",
    "haven",
    "krynn",
    "market_prime",
    "cargo_lanes",
    "bunda",
    "copernicus",
    "wealth_lane",
    "the_levy",
    "ogma",
    "gliese_436",
    "caph",
    "gold_run",
    "traders_rest",
    "alpha_centauri",
}


@pytest.fixture
def smbench() -> World:
    return World(seed=42, world="smbench")


@pytest.mark.parametrize(
    "empire, ship, hull, shield, armor, fuel, cargo, home",
    [
        ("solarian", "theoria", 100, 55, 5, 100, 70, "sol_central"),
        ("nebula", "prospect", 95, 50, 4, 130, 100, "grand_exchange"),
        ("crimson", "shard", 110, 40, 8, 90, 60, "war_citadel"),
    ],
)
def test_a_new_pilot_starts_as_in_the_logs(
    smbench: World,
    empire: str,
    ship: str,
    hull: int,
    shield: int,
    armor: int,
    fuel: int,
    cargo: int,
    home: str,
) -> None:
    pilot = Pilot(smbench, "Ada", empire)
    status = pilot.status()
    assert status["player"]["credits"] == 100  # every empire
    assert status["player"]["current_poi"] == home and status["player"]["docked_at_base"]
    got = status["ship"]
    assert (got["class_id"], got["max_hull"], got["max_shield"], got["armor"]) == (
        ship,
        hull,
        shield,
        armor,
    )
    assert (got["max_fuel"], got["cargo_capacity"], got["speed"]) == (fuel, cargo, 1)
    assert [m["id"] for m in status["modules"]] == ["mining_laser_1"]  # no weapon


def test_the_galaxy_has_the_logged_systems_all_connected(smbench: World) -> None:
    systems = smbench.galaxy.systems
    assert len(systems) >= 11 and set(systems) >= LOGGED_SYSTEMS
    assert all(smbench.galaxy.route("sol", s) is not None for s in systems)
    pois = smbench.galaxy.pois
    assert {"main_belt", "commerce_fields", "war_materials"} <= set(pois)


def test_a_jump_costs_one_fuel_and_six_ticks(smbench: World) -> None:
    pilot = Pilot(smbench, "Ada")
    pilot.act("undock")
    target = smbench.galaxy.systems["sol"].connections[0]
    before = smbench.current_tick
    jumped = pilot("jump", target_system=target)
    assert jumped["fuel_cost"] == 1 and jumped["ticks"] == 6
    assert jumped["arrival_tick"] - before == 6
    route = pilot("find_route", target_system=target)
    assert route["fuel_per_jump"] == 1


def test_mining_and_selling_are_at_the_real_scale(smbench: World) -> None:
    """About 3 units a mine (2.4-3.4 in the logs) and about 7 credits a unit at home."""
    pilot = Pilot(smbench, "Ada")
    pilot.go_to("main_belt")
    yields = []
    for _ in range(20):
        yields.append(pilot.act("mine")["quantity"])
    assert 2.0 <= statistics.mean(yields) <= 3.6
    pilot.go_to("sol_central")
    pilot.act("dock")
    earned = 0
    units = 0
    for item in list(pilot("get_cargo")["cargo"]):
        sold = pilot.act("sell", item_id=item["item_id"], quantity=item["quantity"])
        earned += sold["total_earned"]
        units += sold["quantity_sold"]
    assert 5.0 <= earned / units <= 10.0


def test_modules_are_not_sold_at_the_capitals_and_dear_elsewhere(smbench: World) -> None:
    classic = World(seed=42)
    sol = smbench.galaxy.pois["sol_central"].base
    assert sol is not None and not sol.market["pulse_laser_i"].sells
    assert classic.galaxy.pois["sol_central"].base.market["pulse_laser_i"].sells  # type: ignore[union-attr]
    frontier = [
        p.base
        for p in smbench.galaxy.pois.values()
        if p.base is not None and smbench.galaxy.systems[p.system_id].police_level <= 3
    ]
    assert frontier and all(b.market["pulse_laser_i"].sells for b in frontier)
    assert frontier[0].ask("pulse_laser_i") >= 3 * 120


def test_starter_missions_ask_more_pay_more_and_run_once(smbench: World) -> None:
    pilot = Pilot(smbench, "Ada")
    board = {m["mission_id"]: m for m in pilot("get_missions")["missions"]}
    welcome = board["welcome_to_sol_central"]
    assert welcome["reward_credits"] >= 400
    requisition = next(m for k, m in board.items() if k.endswith("_requisition"))
    assert "Mine 45 " in requisition["objective"]
    pilot.act("accept_mission", mission_id="welcome_to_sol_central")
    pilot.go_to("main_belt")
    pilot.go_to("sol_central")
    pilot.act("dock")
    (active,) = pilot("get_active_missions")["missions"]
    pilot.act("complete_mission", mission_id=active["mission_id"])
    offered = {m["mission_id"] for m in pilot("get_missions")["missions"]}
    assert "welcome_to_sol_central" not in offered  # not run again
    error = pilot.error("accept_mission", mission_id="welcome_to_sol_central")
    assert error.code == "mission_not_found"
    # The classic world offers it again.
    classic = Pilot(World(seed=42), "Ada")
    classic.act("accept_mission", mission_id="welcome_to_sol_central")
    classic.go_to(next(p for p in classic.world.galaxy.systems["sol"].poi_ids if "belt" in p))
    classic.go_to("sol_central")
    classic.act("dock")
    (mission,) = classic("get_active_missions")["missions"]
    classic.act("complete_mission", mission_id=mission["mission_id"])
    assert "welcome_to_sol_central" in {
        m["mission_id"] for m in classic("get_missions")["missions"]
    }


def test_the_books_balance_as_smbenchs_server_keeps_them(smbench: World) -> None:
    """credits = 100 + earned - spent - escrow: a filled buy order is spent."""
    pilot = Pilot(smbench, "Ada")
    ada = smbench.players["Ada"]
    base = smbench.galaxy.pois["sol_central"].base
    assert base is not None
    bid = base.bid("copper_ore")
    pilot.act("create_buy_order", item_id="copper_ore", quantity=5, price_each=bid)
    smbench.advance(40)  # the NPC traders fill it, a little at a time
    escrow = sum(o["quantity"] * o["price_each"] for o in smbench.orders if o["owner"] == "Ada")
    stats = ada.stats
    assert stats["credits_spent"] > 0
    assert ada.credits == 100 + stats["credits_earned"] - stats["credits_spent"] - escrow


def test_the_profile_is_saved_with_the_world(tmp_path) -> None:  # type: ignore[no-untyped-def]
    host = WorldHost.open(seed=3, tick_seconds=0, world_profile="smbench")
    path = host.save(tmp_path / "world.json")
    assert path is not None
    again = WorldHost.open(seed=99, tick_seconds=0, state_path=path)
    assert again.world.profile.name == "smbench"
    assert again.world.galaxy.to_dict() == host.world.galaxy.to_dict()


def test_the_classic_world_is_untouched_and_an_unknown_one_refused() -> None:
    assert World(seed=5).galaxy.to_dict() == World(seed=5, world="classic").galaxy.to_dict()
    assert len(World(seed=5).galaxy.systems) == 8
    with pytest.raises(ValueError, match="expected one of: classic, smbench"):
        profile("hard")

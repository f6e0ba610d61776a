"""Missions, orders, modules and pirates are deterministic and survive a save anywhere."""

import json

from zoea_tui.sim import World

from .conftest import Step, played


def _script() -> list[Step]:
    steps: list[Step] = [
        ("k", "register", {"username": "Ada", "empire": "solarian"}),
        ("k", "accept_mission", {"mission_id": "prove_your_steel"}),
        1,
        ("k", "buy", {"item_id": "pulse_laser_i", "quantity": 1}),
        1,
        ("k", "install_mod", {"module_id": "pulse_laser_i"}),
        1,
        ("k", "buy", {"item_id": "fuel_cell", "quantity": 3}),
        1,
        ("k", "create_sell_order", {"item_id": "fuel_cell", "quantity": 3, "price_each": 31}),
        1,
        ("k", "jump", {"target_system": "krynn"}),
        6,
        ("k", "travel", {"target_poi": "krynn_belt"}),
        4,
    ]
    for _ in range(12):
        steps += [("k", "attack", {"target_id": "pirate_3"}), 1]
    steps += [("k", "get_wrecks", {}), ("k", "loot_wreck", {}), 2, ("k", "get_player_stats", {})]
    return steps


def _world() -> World:
    return World(seed=42, starting_credits=1_000)


def test_same_seed_and_calls_give_the_same_fight_and_state() -> None:
    one, two = _world(), _world()
    first = played(one, _script())
    assert first == played(two, _script())
    assert one.to_dict() == two.to_dict()
    assert first[-1]["stats"]["pirates_destroyed"] == 1


def test_a_save_anywhere_continues_identically() -> None:
    script = _script()
    expected_world = _world()
    expected = played(expected_world, script)
    for cut in (5, 17, 30):
        first = _world()
        head = played(first, script[:cut])
        resumed = World.from_dict(json.loads(json.dumps(first.to_dict())))
        assert head + played(resumed, script[cut:]) == expected
        assert resumed.to_dict() == expected_world.to_dict()


def test_a_world_saved_before_the_arena_tools_still_loads() -> None:
    state = World(seed=3).to_dict()
    for key in ("orders", "wrecks", "forum", "pirates"):
        del state[key]
    restored = World.from_dict(state)
    assert restored.pirates == World(seed=3).pirates
    assert restored.call("k", "register", {"username": "Ada", "empire": "solarian"})

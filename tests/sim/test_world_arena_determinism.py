"""Missions, orders, modules and pirates are deterministic and survive a save anywhere."""

import json
from typing import Any

from zoea_tui.sim import GameError, World

Step = tuple[str, dict[str, Any]] | int


def _script() -> list[Step]:
    steps: list[Step] = [
        ("register", {"username": "Ada", "empire": "solarian"}),
        ("accept_mission", {"mission_id": "prove_your_steel"}),
        1,
        ("buy", {"item_id": "pulse_laser_i", "quantity": 1}),
        1,
        ("install_mod", {"module_id": "pulse_laser_i"}),
        1,
        ("buy", {"item_id": "fuel_cell", "quantity": 3}),
        1,
        ("create_sell_order", {"item_id": "fuel_cell", "quantity": 3, "price_each": 31}),
        1,
        ("jump", {"target_system": "krynn"}),
        6,
        ("travel", {"target_poi": "krynn_belt"}),
        4,
    ]
    for _ in range(12):
        steps += [("attack", {"target_id": "pirate_3"}), 1]
    steps += [("get_wrecks", {}), ("loot_wreck", {}), 2, ("get_player_stats", {})]
    return steps


def _run(world: World, steps: list[Step]) -> list[Any]:
    out: list[Any] = []
    for step in steps:
        if isinstance(step, int):
            out.append(world.advance(step))
            continue
        tool, args = step
        try:
            out.append(world.call("k", tool, dict(args)))
        except GameError as error:
            out.append(error.to_dict())
    return out


def _world() -> World:
    return World(seed=42, starting_credits=1_000)


def test_same_seed_and_calls_give_the_same_fight_and_state() -> None:
    one, two = _world(), _world()
    first = _run(one, _script())
    assert first == _run(two, _script())
    assert one.to_dict() == two.to_dict()
    assert first[-1]["stats"]["pirates_destroyed"] == 1


def test_a_save_anywhere_continues_identically() -> None:
    script = _script()
    expected_world = _world()
    expected = _run(expected_world, script)
    for cut in (5, 17, 30):
        first = _world()
        head = _run(first, script[:cut])
        resumed = World.from_dict(json.loads(json.dumps(first.to_dict())))
        assert head + _run(resumed, script[cut:]) == expected
        assert resumed.to_dict() == expected_world.to_dict()


def test_a_world_saved_before_the_arena_tools_still_loads() -> None:
    state = World(seed=3).to_dict()
    for key in ("orders", "wrecks", "forum", "pirates"):
        del state[key]
    restored = World.from_dict(state)
    assert restored.pirates == World(seed=3).pirates
    assert restored.call("k", "register", {"username": "Ada", "empire": "solarian"})

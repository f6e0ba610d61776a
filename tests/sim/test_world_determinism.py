"""Determinism and persistence: same seed and calls, same world; save, restore, continue."""

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import examples
from zoea_tui.sim import World

from .conftest import Step, played


def _script() -> list[Step]:
    """Two pilots mining, trading, chatting and jumping, with ticks in between."""
    steps: list[Step] = [
        ("a", "register", {"username": "Ada", "empire": "solarian"}),
        ("b", "register", {"username": "Bob", "empire": "solarian"}),
        ("a", "undock", {}),
        ("b", "undock", {}),
        1,
        ("a", "travel", {"target_poi": "main_belt"}),
        ("b", "travel", {"target_poi": "sol_belt"}),
        3,
    ]
    for _ in range(8):
        steps += [("a", "mine", {}), ("b", "mine", {}), ("a", "mine", {}), 1]
    steps += [
        ("a", "chat", {"channel": "system", "content": "full"}),
        ("a", "travel", {"target_poi": "sol_central"}),
        3,
        ("a", "sell", {"item_id": "iron_ore", "quantity": 5}),
        2,
        ("a", "refuel", {}),
        1,
        ("b", "get_notifications", {}),
        ("b", "jump", {"target_system": "sirius"}),
        6,
        ("b", "get_status", {}),
        ("a", "captains_log_add", {"entry": "sold"}),
    ]
    return steps


def test_same_seed_and_calls_give_identical_results_and_state() -> None:
    one, two = World(seed=9), World(seed=9)
    assert played(one, _script()) == played(two, _script())
    assert one.to_dict() == two.to_dict()


def test_different_seeds_give_different_worlds() -> None:
    one, two = World(seed=1), World(seed=2)
    assert one.to_dict()["galaxy"] != two.to_dict()["galaxy"]
    pw1 = one.call("k", "register", {"username": "Ada", "empire": "solarian"})["password"]
    pw2 = two.call("k", "register", {"username": "Ada", "empire": "solarian"})["password"]
    assert pw1 != pw2


def test_state_is_plain_json() -> None:
    world = World(seed=5)
    played(world, _script())
    state = world.to_dict()
    assert json.loads(json.dumps(state)) == state


def test_restoring_gives_back_the_same_state() -> None:
    world = World(seed=5)
    played(world, _script())
    state = json.loads(json.dumps(world.to_dict()))
    assert World.from_dict(state).to_dict() == world.to_dict()


def test_a_restored_world_continues_exactly_like_the_original() -> None:
    script = _script()
    half = len(script) // 2
    original = World(seed=11)
    played(original, script[:half])
    restored = World.from_dict(json.loads(json.dumps(original.to_dict())))
    assert played(restored, script[half:]) == played(original, script[half:])
    assert restored.to_dict() == original.to_dict()


def test_restored_sessions_stay_logged_in() -> None:
    world = World(seed=5)
    world.call("k", "register", {"username": "Ada", "empire": "solarian"})
    restored = World.from_dict(world.to_dict())
    assert restored.call("k", "get_status", {})["player"]["username"] == "Ada"


def test_unknown_state_version_is_refused() -> None:
    state = World(seed=1).to_dict()
    state["version"] = 99
    try:
        World.from_dict(state)
    except ValueError as error:
        assert "version" in str(error)
    else:
        raise AssertionError("expected ValueError")


ACTIONS = st.sampled_from(
    [
        ("get_status", {}),
        ("undock", {}),
        ("dock", {}),
        ("mine", {}),
        ("travel", {"target_poi": "main_belt"}),
        ("travel", {"target_poi": "sol_central"}),
        ("sell", {"item_id": "iron_ore", "quantity": 3}),
        ("refuel", {}),
        ("repair", {}),
        ("buy", {"item_id": "fuel_cell", "quantity": 1}),
        ("get_notifications", {}),
        ("chat", {"channel": "system", "content": "hi"}),
        ("jump", {"target_system": "sirius"}),
    ]
)
STEPS = st.lists(
    st.one_of(
        st.integers(min_value=0, max_value=3), st.tuples(st.sampled_from(["a", "b"]), ACTIONS)
    ),
    max_size=40,
)


@settings(max_examples=examples(40), deadline=None)
@given(steps=STEPS, cut=st.integers(min_value=0, max_value=40))
def test_any_play_is_reproducible_and_survives_a_save_anywhere(steps: list[Any], cut: int) -> None:
    script: list[Step] = [
        ("a", "register", {"username": "Ada", "empire": "solarian"}),
        ("b", "register", {"username": "Bob", "empire": "solarian"}),
    ]
    script += [s if isinstance(s, int) else (s[0], s[1][0], s[1][1]) for s in steps]
    cut = min(cut, len(script))
    straight = World(seed=3)
    expected = played(straight, script)
    first = World(seed=3)
    head = played(first, script[:cut])
    resumed = World.from_dict(json.loads(json.dumps(first.to_dict())))
    assert head + played(resumed, script[cut:]) == expected
    assert resumed.to_dict() == straight.to_dict()
    json.dumps(expected)

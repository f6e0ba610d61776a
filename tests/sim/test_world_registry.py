"""The engine runs the registry of commands it receives, and keeps it across a save."""

from __future__ import annotations

from typing import Any

import pytest

from zoea_tui.sim.commands import HANDLERS
from zoea_tui.sim.engine import World
from zoea_tui.sim.world_state import Call, WorldState


def test_the_default_registry_is_every_command() -> None:
    assert World(seed=1).handlers is HANDLERS


def test_a_received_registry_answers_in_place_of_the_commands() -> None:
    seen: list[tuple[int, dict[str, Any]]] = []

    def get_version(world: WorldState, call: Call) -> dict[str, Any]:
        seen.append((world.tick, call.args))
        return {"version": "test"}

    world = World(seed=1, handlers={"get_version": get_version})
    assert world.call(None, "get_version", {}) == {"version": "test", "current_tick": 1}
    assert seen == [(1, {})]
    # A tool of the catalogue left out of the registry is not run by the default's handler.
    with pytest.raises(KeyError):
        world.call(None, "get_commands", {})


def test_a_restored_world_takes_the_registry_it_is_given() -> None:
    saved = World(seed=3).to_dict()
    assert World.from_dict(saved).handlers is HANDLERS
    empty: dict[str, Any] = {}
    restored = World.from_dict(saved, handlers=empty)
    with pytest.raises(KeyError):
        restored.call(None, "get_version", {})

"""The game-state cache and its compact projection for the system prompt."""

from __future__ import annotations

import json

from zoea_tui.game.state_cache import MAX_SUMMARY_CHARS, GameStateCache
from zoea_tui.sim import World

STATUS = {
    "player": {
        "username": "ada",
        "credits": 420,
        "current_system": "sol",
        "current_poi": "main_belt",
        "docked_at_base": None,
        "in_transit": False,
    },
    "ship": {
        "fuel": 61,
        "max_fuel": 100,
        "hull": 90,
        "max_hull": 100,
        "cargo_used": 12,
        "cargo_capacity": 50,
        "cargo": [{"item_id": "iron_ore", "quantity": 12}],
    },
    "next_action_tick": 15,
    "current_tick": 14,
}


def test_projection_picks_fields_with_their_age() -> None:
    cache = GameStateCache()
    cache.update("ada", "get_status", STATUS, 14)
    cache.update(
        "ada", "get_cargo", {"cargo": [], "used": 0, "capacity": 50, "current_tick": 17}, 17
    )
    text = cache.summary("ada")
    assert "- Game tick: 17" in text
    assert "- Location: sol / main_belt (3 ticks ago)" in text
    assert "- Credits: 420 (3 ticks ago)" in text
    assert "- Fuel: 61/100" in text
    assert "- Cargo: 0/50 (now)" in text  # the newer get_cargo wins
    assert "- Hold: empty (now)" in text


def test_a_huge_map_never_enters_the_prompt() -> None:
    cache = GameStateCache()
    huge = {
        "systems": [{"id": f"sys{i}", "name": "x" * 200} for i in range(1000)],
        "current_tick": 3,
    }
    assert len(json.dumps(huge)) > 190_000
    cache.update("ada", "get_map", huge, 3)
    cache.update("ada", "get_status", STATUS, 3)
    text = cache.summary("ada")
    assert len(text) <= MAX_SUMMARY_CHARS
    assert "sys1" not in text


def test_the_projection_stays_small_whatever_the_values() -> None:
    cache = GameStateCache()
    wild = json.loads(json.dumps(STATUS))
    wild["player"]["current_system"] = "s" * 100_000
    wild["ship"]["cargo"] = [{"item_id": "x" * 5000, "quantity": i} for i in range(500)]
    cache.update("ada", "get_status", wild, 1)
    assert len(cache.summary("ada")) <= MAX_SUMMARY_CHARS


def test_accounts_are_separate_and_unknown_ones_empty() -> None:
    cache = GameStateCache()
    cache.update("ada", "get_status", STATUS, 14)
    assert cache.summary("bob") == "" and cache.summary(None) == ""
    cache.forget("ada")
    assert cache.summary("ada") == ""


def test_it_reads_the_embedded_worlds_real_answers() -> None:
    world = World(4)
    world.call("k", "register", {"username": "ada", "empire": "solarian"})
    cache = GameStateCache()
    for tool in ("get_status", "get_cargo", "get_system", "get_poi", "get_ship"):
        result = world.call("k", tool, {})
        cache.update("ada", tool, result, result["current_tick"])
    text = cache.summary("ada")
    assert "Location: sol / sol_central" in text
    assert "Docked: yes" in text
    assert "Credits:" in text and "Fuel: 100/100" in text

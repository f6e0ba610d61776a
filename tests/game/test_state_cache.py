"""The game-state cache and its compact projection for the system prompt."""

from __future__ import annotations

import json

from zoea_tui.core.types import ToolCall
from zoea_tui.game.accounts import AccountPool
from zoea_tui.game.router import ToolRouter
from zoea_tui.game.state_cache import MAX_SUMMARY_CHARS, GameStateCache
from zoea_tui.sim import World
from zoea_tui.ui.activity import facts_from_fields

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


async def test_the_panes_facts_follow_every_result_of_a_mining_run(store, make_session, host):
    """Scripted mine, sell, travel and jump results through the real router and cache:
    after each one, the facts a pane shows (location, credits, cargo) are the world's."""
    mysis = await store.create_mysis("Ada")
    cache = GameStateCache()
    router = ToolRouter(AccountPool(store, mysis.id, "embedded"), make_session("Ada"), cache=cache)
    world = host.world

    async def run(tool: str, **args: object) -> dict:
        result = await router.execute(ToolCall(f"c-{tool}", tool, json.dumps(args)))
        assert not result.is_error, result.content
        return json.loads(result.content)

    def check(after: str) -> None:
        me = world.players["Ada"]
        facts = facts_from_fields(cache.state("Ada"))
        truth = (
            f"{me.system_id} / {me.poi_id}",
            f"{me.credits:,}",
            f"{me.ship.cargo_used}/{me.ship.cargo_capacity}",
        )
        assert (facts.location, facts.credits, facts.cargo) == truth, after
        assert facts.docked is me.docked, after
        hold = ", ".join(f"{item} x{n}" for item, n in me.ship.cargo.items() if n) or "empty"
        assert cache.state("Ada")["cargo_items"]["value"] == hold, after

    await run("register", username="Ada", empire="solarian")
    check("register")
    system = await run("get_system")
    check("get_system")
    belt = next(p["id"] for p in system["system"]["pois"] if "belt" in p["type"])
    home = world.players["Ada"].poi_id
    await run("travel", target_poi=belt)
    check("travel to the belt")
    for n in range(3):
        await run("mine")
        check(f"mine {n + 1}")
    ore = next(iter(world.players["Ada"].ship.cargo))
    await run("travel", target_poi=home)
    check("travel home")
    await run("sell", item_id=ore, quantity=2)
    check("sell")
    await run("undock")
    check("undock")
    here = world.galaxy.systems[world.players["Ada"].system_id]
    await run("jump", target_system=sorted(here.connections)[0])
    check("jump")


#: The real game's result shapes (reference/spacemolt.md, A5): a mine, a sell and a travel
#: say what they did, not the cargo, credits or system that follow.
REAL_GAME_RUN = [
    ("mine", {"kind": "yield", "resource_id": "iron_ore", "quantity": 5, "remaining": 90}),
    ("mine", {"kind": "yield", "resource_id": "copper_ore", "quantity": 2, "remaining": 40}),
    ("travel", {"action": "arrived", "poi": "Sol Central", "poi_id": "sol_station"}),
    ("dock", {"action": "docked", "base": {"id": "sol_base"}}),
    (
        "sell",
        {
            "action": "sold",
            "item": "Iron Ore",
            "item_id": "iron_ore",
            "quantity_sold": 5,
            "total_earned": 60,
            "fills": [],
            "level_up": False,
        },
    ),
    (
        "buy",
        {
            "action": "bought",
            "item_id": "fuel_cell",
            "quantity": 1,
            "total_cost": 25,
            "unfilled": 0,
            "delivered_to_cargo": 1,
            "delivered_to_storage": 0,
        },
    ),
    ("undock", {"action": "undocked"}),
    ("jump", {"action": "jumped", "system": "Sirius", "system_id": "sirius", "from_system": "sol"}),
]
#: What a pane shows after each of them: location, credits, cargo, docked.
REAL_GAME_FACTS = [
    ("sol / main_belt", "420", "17/50", False),
    ("sol / main_belt", "420", "19/50", False),
    ("sol / sol_station", "420", "19/50", False),
    ("sol / sol_station", "420", "19/50", True),
    ("sol / sol_station", "480", "14/50", True),
    ("sol / sol_station", "455", "15/50", True),
    ("sol / sol_station", "455", "15/50", False),
    ("sirius", "455", "15/50", False),
]


def test_the_facts_follow_the_real_games_results_that_do_not_restate_them() -> None:
    cache = GameStateCache()
    cache.update("ada", "get_status", STATUS, None)
    for (tool, result), expected in zip(REAL_GAME_RUN, REAL_GAME_FACTS, strict=True):
        cache.update("ada", tool, result, None)
        facts = facts_from_fields(cache.state("ada"))
        assert (facts.location, facts.credits, facts.cargo, facts.docked) == expected, tool
    assert cache.state("ada")["cargo_items"]["value"] == "iron_ore x12, copper_ore x2, fuel_cell x1"
    text = cache.summary("ada")
    assert "Location: sirius" in text and "main_belt" not in text and "sol_station" not in text


def test_a_result_without_a_tick_is_newer_than_an_older_one_with_a_tick() -> None:
    """Real results rarely carry a tick: arrival order decides, not a missing tick."""
    cache = GameStateCache()
    cache.update("ada", "view_market", {"credits": 100, "current_tick": 500}, 500)
    cache.update("ada", "get_status", {"player": {"credits": 250}}, None)
    assert facts_from_fields(cache.state("ada")).credits == "250"

"""Every tool added for the arena, over the real MCP path: in-process and Streamable HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

import pytest
from mcp import Client

from .mcp_world import ARENA_TOOLS, TRANSPORTS, error, ok, served_world


@pytest.fixture(params=TRANSPORTS)
async def connect(
    request: pytest.FixtureRequest,
) -> AsyncIterator[Callable[[], AbstractAsyncContextManager[Client]]]:
    """Opens MCP clients to one world on the simulated clock, over the transport under test."""
    async with served_world(request.param) as world:
        yield world.connect


async def test_every_new_tool_is_listed_with_its_arguments(connect) -> None:
    async with connect() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(ARENA_TOOLS) <= set(tools)
    assert tools["accept_mission"].input_schema["required"] == ["mission_id"]
    assert set(tools["create_sell_order"].input_schema["required"]) == {
        "item_id",
        "quantity",
        "price_each",
    }
    assert tools["attack"].input_schema["required"] == ["target_id"]
    assert tools["install_mod"].input_schema["required"] == ["module_id"]
    assert tools["catalog"].input_schema["required"] == ["type"]


async def test_missions_over_mcp(connect) -> None:
    async with connect() as client:
        await ok(client, "register", {"username": "Ada", "empire": "solarian"})
        board = await ok(client, "get_missions")
        assert board["base_id"] == "confederacy_central_command"
        accepted = await ok(client, "accept_mission", {"mission_id": "welcome_to_sol_central"})
        mission_id = accepted["mission"]["mission_id"]
        assert (await ok(client, "get_active_missions"))["count"] == 1
        assert await error(client, "complete_mission", {"mission_id": mission_id}) == (
            "[mission_incomplete] 'Welcome to Sol Central' is not complete: Reach Main Belt (0/1)."
        )
        await ok(client, "travel", {"target_poi": "main_belt"})
        await ok(client, "travel", {"target_poi": "sol_central"})
        done = await ok(client, "complete_mission", {"mission_id": mission_id})
        assert done["action"] == "mission_completed"
        await ok(client, "accept_mission", {"mission_id": "first_haul"})
        assert (await ok(client, "abandon_mission", {"mission_id": "first_haul"}))["title"]
        assert (await error(client, "accept_mission", {"mission_id": "x"})).startswith(
            "[mission_not_found] Mission 'x' is not offered at this station."
        )


async def test_exchange_over_mcp(connect) -> None:
    async with connect() as client:
        await ok(client, "register", {"username": "Ada", "empire": "solarian"})
        await ok(client, "buy", {"item_id": "fuel_cell", "quantity": 4})
        listed = await ok(
            client, "create_sell_order", {"item_id": "fuel_cell", "quantity": 2, "price_each": 999}
        )
        assert (await ok(client, "view_orders"))["orders"][0]["order_id"] == listed["order_id"]
        await ok(client, "cancel_order", {"order_id": listed["order_id"]})
        assert (await ok(client, "view_storage"))["items"][0]["quantity"] == 2
        await ok(client, "withdraw_items", {"item_id": "fuel_cell", "quantity": 2})
        await ok(client, "deposit_items", {"item_id": "fuel_cell", "quantity": 1})
        bid = await ok(
            client, "create_buy_order", {"item_id": "gold_ore", "quantity": 2, "price_each": 5}
        )
        assert bid["action"] == "buy_order_created"
        assert await error(
            client,
            "create_buy_order",
            {"item_id": "gold_ore", "quantity": 10_000, "price_each": 35},
        ) == (
            "[insufficient_credits] insufficient_credits: Need 350000 credits to escrow. "
            f"You have {bid['credits']}."
        )
        analysis = await ok(
            client,
            "analyze_market",
            {"base_id": "confederacy_central_command", "item_id": "iron_ore"},
        )
        assert analysis["items"][0]["item_id"] == "iron_ore"
        assert (await ok(client, "estimate_purchase", {"item_id": "fuel_cell", "quantity": 2}))[
            "available"
        ] == 2
        assert (await ok(client, "get_trades", {"base_id": "x"}))["trades"]


async def test_catalogue_and_shipyard_over_mcp(connect) -> None:
    async with connect() as client:
        assert await error(client, "catalog", {"category": "ore"}) == (
            '[invalid_type] Unknown catalog type "". Must be one of: ships, skills, recipes, items.'
        )
        await ok(client, "register", {"username": "Ada", "empire": "solarian"})
        assert (await ok(client, "catalog", {"type": "items"}))["count"] >= 14
        assert (await ok(client, "get_guide", {"guide": "pirate-hunter"}))["title"]
        assert (await ok(client, "get_skills"))["skills"]
        assert (await ok(client, "get_base", {"base_id": "crimson_war_citadel"}))["base"]
        assert (await ok(client, "facility", {"name": "War Market"}))["facilities"]
        assert (await ok(client, "browse_ships"))["ships"]
        assert (await ok(client, "shipyard_showroom"))["ships"]
        await ok(client, "buy_ship", {"ship_class": "prospector"})
        ships = (await ok(client, "list_ships"))["ships"]
        await ok(client, "switch_ship", {"ship_id": ships[1]["ship_id"]})


async def test_fitting_and_pirates_over_mcp(connect) -> None:
    async with connect() as client:
        await ok(client, "register", {"username": "Ada", "empire": "solarian"})
        assert (await error(client, "install_mod", {"module_id": "pulse_laser_i"})).startswith(
            "[module_not_in_cargo] "
        )
        await ok(client, "buy", {"item_id": "pulse_laser_i", "quantity": 1})
        await ok(client, "install_mod", {"module_id": "pulse_laser_i"})
        await ok(client, "buy", {"item_id": "armor_plate_i", "quantity": 1})
        await ok(client, "install_mod", {"module_id": "armor_plate_i"})
        await ok(client, "uninstall_mod", {"module_id": "armor_plate_i"})
        await ok(client, "jettison", {"item_id": "armor_plate_i", "quantity": 1})
        assert (await error(client, "survey_system")).startswith("[no_scanner] no_scanner: ")
        await ok(client, "jump", {"target_system": "krynn"})
        await ok(client, "travel", {"target_poi": "krynn_belt"})
        pirate = (await ok(client, "get_nearby"))["pirates"][0]["id"]
        assert (await ok(client, "scan", {"target_id": pirate}))["target"]["id"] == pirate
        result = await ok(client, "attack", {"target_id": pirate})
        for _ in range(20):
            if result["destroyed"]:
                break
            result = await ok(client, "attack", {"target_id": pirate})
        assert result["destroyed"]
        assert (await ok(client, "get_wrecks"))["count"] == 1
        await ok(client, "loot_wreck", {"wreck_id": result["wreck_id"]})
        assert (await error(client, "salvage_wreck")).startswith("[wreck_not_found] ")
        stats = (await ok(client, "get_player_stats"))["stats"]
        assert stats["pirates_destroyed"] == 1 and stats["weapons_installed"] == 1


async def test_profile_and_forum_over_mcp(connect) -> None:
    async with connect() as client:
        await ok(client, "register", {"username": "Ada", "empire": "solarian"})
        await ok(client, "set_status", {"status_message": "Exploring"})
        await ok(client, "set_colors", {"primary_color": "#112233", "secondary_color": "#445566"})
        await ok(client, "claim", {"registration_code": "dashboard"})
        thread = await ok(client, "forum_create_thread", {"title": "Hi", "content": "Hello all"})
        await ok(client, "forum_reply", {"thread_id": thread["thread_id"], "content": "Me again"})
        assert len((await ok(client, "forum_list"))["threads"]) == 2
        posts = await ok(client, "forum_get_thread", {"thread_id": thread["thread_id"]})
        assert len(posts["thread"]["posts"]) == 2
        assert await error(client, "set_colors", {"primary_color": "red"}) == (
            "[invalid_payload] invalid_payload: primary_color must be a hex colour like #FF8800."
        )
        stats = (await ok(client, "get_player_stats"))["stats"]
        assert stats["status_set"] and stats["colors_set"] and stats["forum_threads"] == 1

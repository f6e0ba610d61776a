"""The commands SpaceMolt's own client's gameplay guide names, over the real MCP path:
the SDK's client in-process and over Streamable HTTP, on one seeded world."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from mcp import Client

from zoea_tui.sim import World
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.mcp_server import in_process_server

from .conftest import Pilot
from .mcp_world import GUIDE_TOOLS, TRANSPORTS, Served, error, error_code, ok, served_world


@pytest.fixture(params=TRANSPORTS)
async def served(request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    async with served_world(request.param, full_catalogue=True) as world:
        yield world


async def _armed(client: Client, name: str = "Ada") -> None:
    await ok(client, "register", {"username": name, "empire": "solarian"})
    await ok(client, "buy", {"item_id": "pulse_laser_i", "quantity": 1})
    await ok(client, "install_mod", {"module_id": "pulse_laser_i"})
    await ok(client, "buy", {"item_id": "shield_booster_i", "quantity": 1})
    await ok(client, "install_mod", {"module_id": "shield_booster_i"})


async def test_every_command_of_the_guide_is_listed(served: Served) -> None:
    async with served.connect() as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(GUIDE_TOOLS) <= set(tools)
    assert tools["battle"].input_schema["required"] == ["action"]
    assert tools["reload"].input_schema["required"] == ["weapon_instance_id", "ammo_item_id"]
    assert tools["send_gift"].input_schema["required"] == ["recipient"]
    assert tools["buy_insurance"].input_schema["required"] == ["ticks"]


async def test_a_tactical_battle_then_towing_its_wreck(served: Served) -> None:
    async with served.connect() as client:
        await _armed(client)
        assert (await ok(client, "get_battle_status"))["in_battle"] is False
        assert await error(client, "battle", {"action": "advance"}) == (
            "[docked] You cannot fight while docked. Undock first."
        )
        await ok(client, "undock")
        assert await error_code(client, "battle", {"action": "engage"}) == "no_target"
        assert (await error(client, "battle", {"action": "advance"})).startswith(
            "[not_in_battle] You are not in a battle. battle(action='engage', target_id=...)"
        )
        await ok(client, "jump", {"target_system": "krynn"})
        await ok(client, "travel", {"target_poi": "krynn_belt"})
        pirate = (await ok(client, "get_nearby"))["pirates"][0]["id"]
        # The guide writes attack(target=...); the real server takes target_id.
        assert await error(client, "attack", {"target": pirate}) == (
            "[invalid_payload] Unknown parameter(s): [target]. Requires 'target_id'. "
            'Example: {"target_id": "pirate_1"}'
        )
        opened = await ok(client, "battle", {"action": "engage", "target_id": pirate})
        assert (opened["zone"], opened["stance"], opened["in_battle"]) == ("outer", "fire", True)
        assert await error_code(client, "battle", {"action": "engage"}) == "already_in_battle"
        fuel = (await ok(client, "get_ship"))["ship"]["fuel"]
        await ok(client, "battle", {"action": "stance", "stance": "evade"})
        assert (await ok(client, "get_ship"))["ship"]["fuel"] == fuel - 5
        await ok(client, "battle", {"action": "stance", "stance": "fire"})
        for _ in range(3):
            zone = (await ok(client, "battle", {"action": "advance"}))["zone"]
        assert zone == "engaged"
        status = await ok(client, "get_battle_status")
        assert [p["kind"] for p in status["participants"]] == ["player", "pirate"]
        assert await error(
            client, "reload", {"weapon_instance_id": "pulse_laser_i", "ammo_item_id": "ammo"}
        ) == (
            "[no_ammo_needed] Pulse Laser I is an energy weapon: it uses no ammunition and "
            "never needs reloading."
        )
        assert await error_code(
            client, "reload", {"weapon_instance_id": "autocannon_i", "ammo_item_id": "ammo"}
        ) == ("invalid_weapon")
        for _ in range(40):
            round_ = await ok(client, "battle", {"action": "target", "target_id": pirate})
            if round_.get("you_fired", {}).get("destroyed"):
                break
        wreck = round_["you_fired"]["wreck_id"]
        assert round_["in_battle"] is False and "destroyed" in round_["message"]
        assert (await ok(client, "get_player_stats"))["stats"]["pirates_destroyed"] == 1
        # its wreck, in tow to the Crimson capital's yard
        assert await error_code(client, "release_tow") == "not_towing"
        await ok(client, "tow_wreck", {"wreck_id": wreck})
        assert await error_code(client, "tow_wreck", {"wreck_id": wreck}) == "already_towing"
        released = await ok(client, "release_tow")
        assert await error_code(client, "tow_wreck", {"wreck_id": "wreck_404"}) == "wreck_not_found"
        await ok(client, "tow_wreck", {"wreck_id": released["wreck_id"]})
        assert await error_code(client, "sell_wreck") == "not_docked"
        await ok(client, "travel", {"target_poi": "war_citadel"})
        await ok(client, "dock")
        sold = await ok(client, "sell_wreck")
        assert sold["credits_earned"] > 25 and sold["action"] == "wreck_sold"
        assert await error_code(client, "scrap_wreck") == "not_towing"


async def test_fleeing_and_retreating_end_a_battle(served: Served) -> None:
    async with served.connect() as client:
        await _armed(client)
        await ok(client, "jump", {"target_system": "krynn"})
        await ok(client, "travel", {"target_poi": "krynn_belt"})
        await ok(client, "battle", {"action": "engage"})
        await ok(client, "battle", {"action": "stance", "stance": "flee"})
        await ok(client, "battle", {"action": "advance"})
        fled = await ok(client, "battle", {"action": "advance"})
        assert (fled["outcome"], fled["in_battle"]) == ("fled", False)
        await ok(client, "battle", {"action": "engage"})
        assert (await ok(client, "battle", {"action": "retreat"}))["outcome"] == "escaped"
        assert (await error(client, "battle", {"action": "stance", "stance": "dance"})) == (
            "[not_in_battle] You are not in a battle. battle(action='engage', target_id=...) "
            "starts one with a pirate at your POI (get_nearby lists them)."
        )


async def test_distress_home_base_notes_crafting_and_gifts(served: Served) -> None:
    async with served.connect() as ada, served.connect() as bob:
        await ok(ada, "register", {"username": "Ada", "empire": "solarian"})
        await ok(bob, "register", {"username": "Bob", "empire": "solarian"})
        await ok(bob, "get_notifications")
        called = await ok(ada, "distress_signal", {"distress_type": "fuel"})
        assert called["recipients"] == 1
        heard = (await ok(bob, "get_notifications"))["notifications"]
        assert heard[0]["data"]["message"] == (
            "Distress call (fuel) from Ada at Sol Central in Sol."
        )
        # home base
        assert await error_code(ada, "set_home_base", {"base_id": "haven_base"}) == "invalid_base"
        home = await ok(ada, "set_home_base", {"base_id": "confederacy_central_command"})
        assert home["action"] == "home_base_set"
        player = (await ok(ada, "get_status"))["player"]
        assert player["home_base"] == "confederacy_central_command"
        # notes
        made = await ok(ada, "create_note", {"title": "Belts", "content": "main_belt: iron"})
        await ok(ada, "write_note", {"note_id": made["note_id"], "content": "iron, copper"})
        assert (await ok(ada, "read_note", {"note_id": made["note_id"]}))["note"]["content"] == (
            "iron, copper"
        )
        assert (await ok(ada, "get_notes"))["notes"][0]["title"] == "Belts"
        assert await error_code(ada, "read_note", {"note_id": "note_404"}) == "note_not_found"
        # crafting
        assert await error_code(ada, "craft", {"recipe_id": "warp_core"}) == "invalid_recipe"
        assert (await error(ada, "craft", {"recipe_id": "steel_plate"})) == (
            "[missing_materials] Missing materials: Refine Steel Plate x1 needs 5 Iron Ore; "
            "you have 0 (cargo and storage here)."
        )
        served.host.world.players["Ada"].ship.add_cargo("iron_ore", 10)  # a hold mined
        crafted = await ok(ada, "craft", {"recipe_id": "steel_plate", "quantity": 2})
        assert crafted["output"] == {"item_id": "steel_plate", "quantity": 2}
        # gifts
        assert await error(ada, "send_gift", {"target": "Bob", "items": "steel_plate"}) == (
            "[invalid_payload] Unknown parameter(s): [items target]. Requires 'recipient'. "
            'Example: {"recipient": "Ada"}'
        )
        assert await error_code(ada, "send_gift", {"recipient": "Zed"}) == "player_not_found"
        assert await error_code(
            ada, "send_gift", {"recipient": "Bob", "item_id": "steel_plate", "quantity": 9}
        ) == ("insufficient_items")
        await ok(bob, "get_notifications")
        gift = {"recipient": "bob", "item_id": "steel_plate", "quantity": 2, "credits": 10}
        sent = await ok(ada, "send_gift", {**gift, "message": "for your hull"})
        assert sent["items"] == {"steel_plate": 2} and sent["credits"] == 10
        got = (await ok(bob, "get_notifications"))["notifications"][0]["data"]["message"]
        assert got == (
            "Ada sent you 2 Steel Plate, 10 credits at Confederacy Central Command: for your hull"
        )
        assert (await ok(bob, "view_storage"))["items"][0]["item_id"] == "steel_plate"


async def test_factions_and_fleets(served: Served) -> None:
    async with served.connect() as ada, served.connect() as bob:
        await ok(ada, "register", {"username": "Ada", "empire": "solarian"})
        await ok(bob, "register", {"username": "Bob", "empire": "solarian"})
        assert await error_code(bob, "faction_info") == "not_in_faction"
        made = await ok(ada, "create_faction", {"name": "Iron Duke", "tag": "duke"})
        faction = made["faction_id"]
        assert made["tag"] == "DUKE"
        assert await error_code(ada, "create_faction", {"name": "X", "tag": "XX"}) == (
            "already_in_faction"
        )
        assert await error_code(bob, "create_faction", {"name": "iron duke", "tag": "ID"}) == (
            "faction_exists"
        )
        assert await error_code(bob, "faction_info", {"faction_id": "nope"}) == "faction_not_found"
        assert await error_code(bob, "join_faction", {"faction_id": faction}) == "not_invited"
        assert await error(ada, "faction_invite", {"player": "Bob"}) == (
            "[invalid_payload] Unknown parameter(s): [player]. Requires 'player_id'. "
            'Example: {"player_id": "Ada"}'
        )
        await ok(ada, "faction_invite", {"player_id": "Bob"})
        await ok(bob, "join_faction", {"faction_id": faction})
        assert await error_code(ada, "faction_invite", {"player_id": "bob"}) == "already_member"
        info = await ok(bob, "faction_info")
        assert info["faction"]["members"] == ["Ada", "Bob"]
        sent = await ok(bob, "faction_submit_intel", {"systems": [{"id": "sol"}, {"id": "x"}]})
        assert (sent["accepted"], sent["rejected"]) == (1, 1)
        intel = await ok(ada, "faction_query_intel", {"system_name": "so"})
        assert intel["intel"][0]["submitted_by"] == "Bob"
        assert (await ok(ada, "view_faction_storage"))["items"] == []
        await ok(bob, "leave_faction")
        assert (await ok(ada, "faction_info"))["faction"]["member_count"] == 1
        # fleets
        assert (await ok(bob, "fleet", {"action": "status"}))["in_fleet"] is False
        assert await error_code(bob, "fleet", {"action": "leave"}) == "not_in_fleet"
        await ok(ada, "fleet", {"action": "create"})
        assert await error_code(ada, "fleet", {"action": "create"}) == "already_in_fleet"
        assert await error_code(bob, "fleet", {"action": "accept"}) == "no_invite"
        await ok(ada, "fleet", {"action": "invite", "target": "Bob"})
        joined = await ok(bob, "fleet", {"action": "accept"})
        assert [m["username"] for m in joined["members"]] == ["Ada", "Bob"]
        assert await error_code(bob, "fleet", {"action": "kick", "target": "Ada"}) == (
            "not_fleet_leader"
        )
        await ok(ada, "fleet", {"action": "kick", "target": "Bob"})
        await ok(ada, "fleet", {"action": "invite", "target": "Bob"})
        assert (await ok(bob, "fleet", {"action": "decline"}))["action"] == "declined"
        assert (await ok(ada, "fleet", {"action": "disband"}))["action"] == "disbanded"
        assert await error_code(ada, "fleet", {"action": "fly"}) == "invalid_payload"


async def test_insurance_and_commissions(served: Served) -> None:
    async with served.connect() as client:
        await ok(client, "register", {"username": "Ada", "empire": "solarian"})
        quote = await ok(client, "get_insurance_quote")
        assert (quote["coverage"], quote["premium_per_100_ticks"]) == (550, 28)
        policy = (await ok(client, "buy_insurance", {"ticks": 200}))["policy"]
        assert (policy["premium"], policy["status"]) == (56, "active")
        assert await error_code(client, "buy_insurance", {"ticks": 200}) == "already_insured"
        assert await error_code(client, "buy_insurance", {"ticks": 5}) == "invalid_payload"
        assert (await ok(client, "claim_insurance"))["message"] == "Nothing to claim."
        # a ship built to order
        priced = await ok(client, "commission_quote", {"ship_class": "prospector"})
        assert (priced["cost"], priced["build_ticks"]) == (1500, 25)
        ordered = await ok(client, "commission_ship", {"ship_class": "prospector"})
        done = ordered["commission_id"]
        assert (await ok(client, "commission_status"))["commissions"][0]["status"] == "building"
        assert (await error_code(client, "claim_commission", {"commission_id": done})) == (
            "commission_not_ready"
        )
        served.host.world.advance(25)
        claimed = await ok(client, "claim_commission", {"commission_id": done})
        ships = (await ok(client, "list_ships"))["ships"]
        assert claimed["ship_id"] in {s["ship_id"] for s in ships}
        assert await error_code(client, "claim_commission", {"commission_id": done}) == (
            "commission_not_found"
        )


def destroyed_at_the_belt(world: World, ada: Pilot) -> None:
    """Ada (in Krynn) goes to its belt and engages a pirate with 1 hull and no shield: she
    is destroyed within two ticks."""
    ada.go_to("krynn_belt")
    world.players["Ada"].ship.hull = 1
    world.players["Ada"].ship.shield = 0
    ada.act("battle", action="engage")
    world.advance(2)


def test_a_destroyed_insured_ship_pays_out_at_the_home_base(world: World) -> None:
    ada = Pilot(world, "Ada")
    ada.act("buy_insurance", ticks=500)
    ada.act("jump", target_system="krynn")
    destroyed_at_the_belt(world, ada)
    assert ada("get_status")["player"]["current_poi"] == "sol_central"
    claimed = ada.act("claim_insurance")
    assert claimed["paid_out"] == 550 and claimed["policies"][0]["status"] == "paid"


def test_home_base_is_where_a_destroyed_pilot_respawns(world: World) -> None:
    ada = Pilot(world, "Ada")
    ada.act("jump", target_system="krynn")
    ada.act("dock")
    ada.act("set_home_base", base_id="war_citadel")
    destroyed_at_the_belt(world, ada)
    assert ada("get_status")["player"]["current_poi"] == "war_citadel"


def test_a_yard_needs_the_repair_service(world: World) -> None:
    ada = Pilot(world, "Ada")
    world.wrecks.append(
        {
            "id": "wreck_9",
            "poi_id": "sol_central",
            "system_id": "sol",
            "source": "X",
            "items": {},
            "tick": 1,
            "expires_tick": 999,
        }
    )
    ada.act("undock")
    ada.act("tow_wreck", wreck_id="wreck_9")
    ada.act("dock")
    world.galaxy.pois["sol_central"].base.services.remove("repair")
    assert ada.error("scrap_wreck").code == "no_salvage_yard"
    world.galaxy.pois["sol_central"].base.services.append("repair")
    assert ada.act("scrap_wreck")["salvaged"] == {"steel_plate": 3}


def test_the_guides_state_is_saved_and_continues_identically(world: World) -> None:
    """Factions, fleets, battles, notes, policies, commissions and a tow survive a save."""
    ada, bob = Pilot(world, "Ada"), Pilot(world, "Bob")
    ada.act("create_faction", name="Iron Duke", tag="DUKE")
    ada.act("faction_invite", player_id="Bob")
    ada("fleet", action="create")
    ada("create_note", title="Belts", content="iron")
    ada.act("buy_insurance", ticks=300)
    world.players["Ada"].credits = 5_000
    ada.act("commission_ship", ship_class="prospector")
    ada.act("jump", target_system="krynn")
    ada.go_to("krynn_belt")
    ada.act("battle", action="engage")
    copy = World.from_dict(json.loads(json.dumps(world.to_dict())))
    assert copy.to_dict() == world.to_dict()
    for each in (world, copy):
        each.advance(3)
        each.call(ada.key, "battle", {"action": "advance"})
        each.call(bob.key, "join_faction", {"faction_id": "faction_1"})
    assert copy.to_dict() == world.to_dict()


async def test_the_apps_own_world_answers_the_guides_commands_without_listing_them() -> None:
    """The app's Myses are offered the everyday catalogue (its tokens unchanged); a guide
    command named all the same (the compact ``game`` tool) is answered, not unknown."""
    host = WorldHost.open(seed=42, tick_seconds=0)
    async with Client(in_process_server(host), mode="legacy") as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert "mine" in listed and not {"battle", "fleet", "craft"} & listed
        await ok(client, "register", {"username": "Ada", "empire": "solarian"})
        assert (await ok(client, "get_battle_status"))["in_battle"] is False
        assert (await ok(client, "fleet", {"action": "status"}))["in_fleet"] is False

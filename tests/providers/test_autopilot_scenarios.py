"""The autopilot's scenario play: combat, missions and its running notes, decided from
scripted conversations whose results come from a real seeded world."""

from __future__ import annotations

import json

from tests.providers.test_autopilot import Chat, Game, answer, calls
from zoea_tui.providers.autopilot.notes import read_notes

HUNT = (
    "Arena scenario s5, Combat (300 ticks). Hunt pirates: earn credits, buy and install "
    "a weapon module and a defence module, find pirate NPCs and fight them."
)
MISSIONS = (
    "Arena scenario s6, Mission runner (300 ticks). Run missions: take missions from "
    "the station mission boards that your ship can do, complete them."
)


def _game(seed_credits: int = 1000) -> Game:
    game = Game()
    game.world.players["Ada"].credits = seed_credits
    return game


async def test_combat_checks_its_modules_then_buys_a_weapon_and_installs_it() -> None:
    game = _game()
    chat = Chat(HUNT).loop("get_status", game("get_status"))
    assert calls(await answer(chat)) == [("view_market", {"category": "module"})]
    chat.loop("view_market", game("view_market", category="module"), category="module")
    [(name, args)] = calls(await answer(chat))
    assert (name, args["item_id"]) == ("buy", "pulse_laser_i")
    chat.loop("buy", game("buy", **args), **args)
    assert calls(await answer(chat)) == [("install_mod", {"module_id": "pulse_laser_i"})]


async def test_armed_it_reads_the_map_and_jumps_to_a_low_police_system() -> None:
    game = _game()
    game("buy", item_id="pulse_laser_i", quantity=1)
    game("install_mod", module_id="pulse_laser_i")
    game("buy", item_id="armor_plate_i", quantity=1)
    game("install_mod", module_id="armor_plate_i")
    chat = Chat(HUNT).loop("get_status", game("get_status"))
    assert calls(await answer(chat)) == [("get_map", {})]
    chat.loop("get_map", game("get_map"))
    [(name, args)] = calls(await answer(chat))
    police = {s.id: s.police_level for s in game.world.galaxy.systems.values()}
    assert name in ("jump", "find_route")
    if name == "jump":
        assert police[args["target_system"]] <= 3


async def test_at_a_pirate_belt_it_looks_scans_attacks_and_loots() -> None:
    game = _game()
    world = game.world
    pirate = next(iter(world.pirates.values()))
    me = world.players["Ada"]
    for module in ("pulse_laser_i", "armor_plate_i"):
        game("buy", item_id=module, quantity=1)
        game("install_mod", module_id=module)
    me.system_id, me.poi_id, me.docked = pirate["system_id"], pirate["poi_id"], False
    chat = Chat(HUNT).loop("get_status", game("get_status")).loop("get_system", game("get_system"))
    assert calls(await answer(chat)) == [("get_nearby", {})]
    chat.loop("get_nearby", game("get_nearby"))
    target = {"target_id": pirate["id"]}
    assert calls(await answer(chat)) == [("scan", target)]
    chat.loop("scan", game("scan", **target), **target)
    assert calls(await answer(chat)) == [("attack", target)]
    pirate["hull"], pirate["shield"] = 1, 0
    result = game("attack", **target)
    assert result["destroyed"] is True
    chat.loop("attack", result, **target)
    assert calls(await answer(chat)) == [("loot_wreck", {"wreck_id": result["wreck_id"]})]


async def test_missions_read_the_board_take_one_and_turn_in_a_ready_one() -> None:
    game = _game(150)
    chat = Chat(MISSIONS).loop("get_status", game("get_status"))
    assert calls(await answer(chat)) == [("get_active_missions", {})]
    chat.loop("get_active_missions", game("get_active_missions"))
    chat.loop("get_cargo", game("get_cargo"))
    assert calls(await answer(chat)) == [("get_missions", {})]
    chat.loop("get_missions", board := game("get_missions"))
    [(name, args)] = calls(await answer(chat))
    assert name == "accept_mission"
    offer = next(m for m in board["missions"] if m["mission_id"] == args["mission_id"])
    assert offer["type"] in ("visit", "mining", "delivery")
    # A ready mission is turned in at its station.
    accepted = game("accept_mission", **args)
    mission = game.world.players["Ada"].missions[0]
    mission["progress"] = mission["required"]
    if mission["type"] == "delivery":
        game.world.players["Ada"].ship.cargo[mission["item_id"]] = mission["required"]
    chat = Chat(MISSIONS).loop("get_status", game("get_status"))
    chat.loop("accept_mission", accepted, **args)
    chat.loop("get_active_missions", game("get_active_missions"))
    [(name, done)] = calls(await answer(chat))
    assert name == "complete_mission"
    assert done["mission_id"] == accepted["mission"]["mission_id"]


async def test_a_trip_carries_notes_a_later_turn_reads_back() -> None:
    game = Game()
    chat = Chat().loop("get_system", game("get_system")).loop("get_status", game("get_status"))
    response = await answer(chat)
    assert [c.name for c in response.tool_calls] == ["travel"]
    assert response.content.startswith("Notes: ")
    notes = read_notes(
        [
            {
                "role": "assistant",
                "content": response.content,
                "tool_calls": [{"id": "x", "function": {"name": "travel"}}],
            }
        ]
    )
    assert {p.kind for p in notes.places} == {"belt", "station"}
    assert notes.hold == {}
    # Only the last loop of the earlier turn survives; the next turn still knows the
    # station to sell at without asking the game.
    target = json.loads(response.tool_calls[0].arguments)
    later = Chat(None)
    later.body.append(
        {
            "role": "assistant",
            "content": response.content,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "travel", "arguments": response.tool_calls[0].arguments},
                }
            ],
        }
    )
    later.body.append(
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": json.dumps(game.fly(target["target_poi"])),
        }
    )
    later.nudge()
    for mine in game.fill_hold():
        later.loop("mine", mine)
    [(name, args)] = calls(await answer(later))
    assert name == "travel" and args["target_poi"] == "sol_central"

"""Profile, forum and the statistics SMBench's scoring reads."""

import json

import pytest

from zoea_tui.sim import World
from zoea_tui.sim.stats import PlayerStats, player_stats


def test_status_message_and_colours(world: World, pilot) -> None:
    assert pilot("set_status", status_message="Mining for the Confederacy")["clan_tag"] == ""
    assert (
        pilot("set_colors", primary_color="#ff8800", secondary_color="#002244")["primary_color"]
        == "#FF8800"
    )
    player = pilot.status()["player"]
    assert player["status_message"] == "Mining for the Confederacy"
    assert player["secondary_color"] == "#002244"
    error = pilot.error("set_colors", primary_color="orange")
    assert error.code == "invalid_payload" and "primary_color" in error.message


def test_forum_threads_and_replies(make_pilot) -> None:
    ada, bob = make_pilot("Ada"), make_pilot("Bob")
    assert ada("forum_list")["threads"][0]["id"] == "thread_0"
    created = ada(
        "forum_create_thread",
        title="Best ore in Sol",
        content="Titanium at main_belt",
        category="strategies",
    )
    bob("forum_reply", thread_id=created["thread_id"], content="Thanks!")
    thread = ada("forum_get_thread", thread_id=created["thread_id"])["thread"]
    assert [p["author"] for p in thread["posts"]] == ["Ada", "Bob"]
    assert ada("forum_list", category="strategies")["threads"][0]["replies"] == 1
    assert ada.error("forum_get_thread", thread_id="thread_99").code == "thread_not_found"
    assert ada.error("forum_create_thread", title="x", content="y", category="memes").code == (
        "invalid_payload"
    )
    stats = player_stats(ada.world, "Ada")
    assert (stats.forum_threads, stats.forum_replies_received) == (1, 1)
    assert player_stats(ada.world, "Bob").forum_replies == 1


def test_claim_accepts_any_code(pilot) -> None:
    assert pilot("claim", registration_code="abc")["action"] == "claimed"


def test_player_stats_counts_what_smbench_scores(world: World, make_pilot) -> None:
    ada, _ = make_pilot("Ada"), make_pilot("Bob")
    ada("chat", channel="local", content="hello")
    ada("chat", channel="private", content="hi Bob", target_id="Bob")
    ada("captains_log_add", entry="Day one")
    world.players["Ada"].ship.cargo["iron_ore"] = 5
    ada.act("sell", item_id="iron_ore", quantity=5)
    ada.act("jump", target_system="krynn")
    ada.act("accept_mission", mission_id="prove_your_steel")
    stats = player_stats(world, "Ada")
    assert isinstance(stats, PlayerStats)
    assert stats.credits_earned > 0 and stats.trades_completed == 1
    assert (stats.systems_explored, stats.systems_visited) == (1, 2)
    assert (stats.missions_accepted, stats.missions_active) == (1, 1)
    assert stats.chat_messages == 2 and stats.chat_by_channel == {"local": 1, "private": 1}
    assert stats.captains_log_entries == 1
    assert player_stats(world, "Bob").messages_received == 2
    assert stats.to_dict()["username"] == "Ada"
    assert ada("get_player_stats")["stats"] == json.loads(json.dumps(stats.to_dict()))


def test_player_stats_reads_without_changing_the_world(world: World, pilot) -> None:
    before = world.to_dict()
    first = player_stats(world, pilot.registration["player_id"])
    assert player_stats(world, "Ada") == first
    assert world.to_dict() == before


def test_player_stats_of_an_unknown_player_is_a_key_error(world: World) -> None:
    with pytest.raises(KeyError):
        player_stats(world, "Nobody")

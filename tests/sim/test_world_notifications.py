"""Every notification says what happened in one line, as ``data.message``: SpaceMolt's own
client shows its model that line for a system, combat, trade or tip event, and the raw
JSON when it is missing."""

from __future__ import annotations

from zoea_tui.sim import World

from .conftest import Pilot


def test_every_notification_of_a_busy_session_carries_its_message(world: World) -> None:
    ada, bob = Pilot(world, "Ada"), Pilot(world, "Bob")
    world.players["Ada"].credits = 2_000
    ada.act("buy", item_id="pulse_laser_i", quantity=1)
    ada.act("install_mod", module_id="pulse_laser_i")
    bob.go_to("main_belt")
    ada.go_to("main_belt")
    ada.fill_hold()
    ada.go_to("sol_central")
    ada.act("sell", item_id="iron_ore", quantity=1)
    bob("chat", channel="system", content="Anyone trading near Sol?")
    ada.act("jump", target_system="krynn")
    ada.go_to("krynn_belt")
    pirate = ada("get_nearby")["pirates"][0]["id"]
    while not ada.act("attack", target_id=pirate)["destroyed"]:
        pass
    events = ada("get_notifications", limit=100)["notifications"]
    events += bob("get_notifications", limit=100)["notifications"]
    kinds = {e["msg_type"] for e in events}
    assert {"tip", "arrived", "mining_yield", "trade_completed", "chat_message"} <= kinds
    assert {"poi_arrival", "poi_departure", "combat_update", "pirate_destroyed"} <= kinds
    missing = [e for e in events if not isinstance(e["data"].get("message"), str)]
    assert missing == []
    sold = next(e for e in events if e["msg_type"] == "trade_completed")
    assert (
        sold["data"]["message"]
        == "Bought 1 Pulse Laser I for " + str(sold["data"]["total"]) + " credits."
    )

"""Chat, the captain's log and notifications."""

import pytest


def _messages(pilot, **args) -> list[str]:
    return [m["content"] for m in pilot("get_chat_history", **args)["messages"]]


def test_system_chat_reaches_everyone_in_the_system(make_pilot) -> None:
    ada, bob, red = make_pilot("Ada"), make_pilot("Bob"), make_pilot("Red", "crimson")
    for pilot in (ada, bob, red):
        pilot("get_notifications")
    sent = ada("chat", channel="system", content="Ore prices are up")
    assert sent["message"] == "Message sent" and sent["recipients"] == 1
    events = bob("get_notifications")["notifications"]
    assert events[0]["type"] == "chat" and events[0]["msg_type"] == "chat_message"
    assert events[0]["data"] | {"id": 0, "tick": 0} == {
        "id": 0,
        "channel": "system",
        "sender_id": ada.registration["player_id"],
        "sender": "Ada",
        "content": "Ore prices are up",
        "tick": 0,
        "message": "[system] Ada: Ore prices are up",
    }
    assert red("get_notifications")["count"] == 0
    assert _messages(bob, channel="system") == ["Ore prices are up"]
    assert _messages(red, channel="system") == []


def test_local_chat_stays_at_the_poi(make_pilot) -> None:
    ada, bob = make_pilot("Ada"), make_pilot("Bob")
    bob.act("undock")
    bob.go_to("main_belt")
    bob("get_notifications")
    assert ada("chat", channel="local", content="anyone here?")["recipients"] == 0
    assert bob("get_notifications")["count"] == 0
    assert _messages(ada, channel="local") == ["anyone here?"]
    assert _messages(bob, channel="local") == []


def test_private_chat_by_username_reaches_only_the_target(make_pilot) -> None:
    ada, bob, cy = make_pilot("Ada"), make_pilot("Bob"), make_pilot("Cyd")
    cy("get_notifications")
    bob("get_notifications")
    ada("chat", channel="private", content="psst", target_id="bob")
    assert bob("get_notifications", types=["chat"])["notifications"][0]["data"]["content"] == "psst"
    assert cy("get_notifications")["count"] == 0
    assert _messages(bob, channel="private") == ["psst"]
    assert _messages(bob, channel="private", target_id="Ada") == ["psst"]
    assert _messages(cy, channel="private") == []
    history = bob("get_chat_history", channel="private")["messages"][0]
    assert history["target_name"] == "Bob"


def test_chat_history_is_newest_first_and_paged(pilot) -> None:
    for n in range(5):
        pilot("chat", channel="system", content=f"m{n}")
    page = pilot("get_chat_history", channel="system", limit=2)
    assert [m["content"] for m in page["messages"]] == ["m4", "m3"]
    assert page["has_more"] is True and page["total_count"] == 5
    older = pilot("get_chat_history", channel="system", limit=2, before=page["messages"][-1]["id"])
    assert [m["content"] for m in older["messages"]] == ["m2", "m1"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({"channel": "galaxy", "content": "hi"}, "invalid_payload"),
        ({"channel": "system", "content": "   "}, "invalid_payload"),
        ({"channel": "system", "message": "hi"}, "invalid_payload"),
        ({"channel": "system", "content": "x" * 1001}, "invalid_payload"),
        ({"channel": "faction", "content": "hi"}, "not_in_faction"),
        ({"channel": "private", "content": "hi"}, "invalid_payload"),
        ({"channel": "private", "content": "hi", "target_id": "ghost"}, "player_not_found"),
        ({"channel": "private", "content": "hi", "target_id": "Ada"}, "invalid_payload"),
    ],
)
def test_bad_chat_is_refused(pilot, args: dict, code: str) -> None:
    assert pilot.error("chat", **args).code == code


def test_chat_history_limit_must_be_positive(pilot) -> None:
    assert pilot.error("get_chat_history", channel="system", limit=0).code == "invalid_payload"


def test_log_entries_are_indexed_newest_first(pilot) -> None:
    added = pilot("captains_log_add", entry="Day one: mined iron")
    assert added["index"] == 0 and added["message"] == "Log entry added successfully"
    pilot("captains_log_add", entry="Day two: sold iron")
    assert pilot("captains_log_get", index=0)["entry"] == "Day two: sold iron"
    assert pilot("captains_log_get", index=1)["entry"] == "Day one: mined iron"
    listed = pilot("captains_log_list")
    assert listed["entry"]["entry"] == "Day two: sold iron"
    assert (listed["total_count"], listed["max_entries"]) == (2, 20)
    assert listed["has_next"] is True and listed["has_prev"] is False
    second = pilot("captains_log_list", index=1)
    assert second["has_next"] is False and second["has_prev"] is True


def test_log_keeps_the_20_newest_entries(pilot) -> None:
    for n in range(25):
        pilot("captains_log_add", entry=f"entry {n}")
    assert pilot("captains_log_list")["total_count"] == 20
    assert pilot("captains_log_get", index=0)["entry"] == "entry 24"
    assert pilot("captains_log_get", index=19)["entry"] == "entry 5"
    assert pilot.error("captains_log_get", index=20).code == "invalid_index"


@pytest.mark.parametrize("args", [{"entry": ""}, {"entry": "  \n"}, {"title": "T", "content": "x"}])
def test_blank_log_entry_gets_the_real_empty_entry(pilot, args: dict) -> None:
    assert str(pilot.error("captains_log_add", **args)) == (
        "[empty_entry] Log entry cannot be empty. "
        "Use the 'entry' parameter to provide your log text."
    )


def test_oversized_log_entry_is_refused(pilot) -> None:
    assert pilot.error("captains_log_add", entry="x" * 30_001).code == "entry_too_long"


def test_empty_log_lists_nothing(pilot) -> None:
    listed = pilot("captains_log_list")
    assert listed["entry"] is None and listed["total_count"] == 0


def test_log_get_needs_a_valid_index(pilot) -> None:
    assert pilot.error("captains_log_get").code == "invalid_payload"
    assert pilot.error("captains_log_get", index="first").code == "invalid_payload"
    assert pilot.error("captains_log_list", index=3).code == "invalid_index"


def test_log_commands_cost_no_tick(pilot) -> None:
    pilot("undock")
    pilot("captains_log_add", entry="a")
    pilot("captains_log_list")
    assert pilot.status()["next_action_tick"] == pilot.world.current_tick + 1


def test_notifications_are_returned_once_then_cleared(pilot) -> None:
    first = pilot("get_notifications")
    assert first["count"] == 1
    assert first["notifications"][0]["msg_type"] == "tip"
    assert {"id", "type", "msg_type", "tick", "data"} <= set(first["notifications"][0])
    assert first["remaining"] == 0
    assert pilot("get_notifications")["count"] == 0


def test_notifications_can_be_peeked_filtered_and_limited(make_pilot) -> None:
    ada, bob = make_pilot("Ada"), make_pilot("Bob")
    ada("get_notifications")
    for n in range(3):
        bob("chat", channel="system", content=f"hi {n}")
    peek = ada("get_notifications", clear=False, limit=2)
    assert peek["count"] == 2 and peek["remaining"] == 3
    assert ada("get_notifications", types=["trade"])["count"] == 0
    chats = ada("get_notifications", types="chat")
    assert [n["data"]["content"] for n in chats["notifications"]] == ["hi 0", "hi 1", "hi 2"]
    assert chats["remaining"] == 0


def test_notification_queue_keeps_the_newest_100(make_pilot) -> None:
    ada, bob = make_pilot("Ada"), make_pilot("Bob")
    for n in range(120):
        bob("chat", channel="system", content=f"hi {n}")
    first = ada("get_notifications", limit=100)
    assert first["count"] == 100 and first["remaining"] == 0
    assert first["notifications"][0]["data"]["content"] == "hi 20"


def test_notification_limit_is_checked(pilot) -> None:
    assert pilot.error("get_notifications", limit=0).code == "invalid_payload"
    assert pilot.error("get_notifications", limit=101).code == "invalid_payload"


def test_returned_notifications_are_copies(pilot) -> None:
    peek = pilot("get_notifications", clear=False)
    peek["notifications"][0]["data"]["message"] = "changed"
    assert pilot("get_notifications")["notifications"][0]["data"]["message"] != "changed"

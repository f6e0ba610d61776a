"""Talking and remembering: chat, chat history, captain's log, notifications."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params, rules
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.players import LogEntry, Player
from zoea_tui.sim.views import log_entry_view

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState

CHANNELS = ("system", "local", "faction", "private")
CHAT_MAX_CHARS = 1000


def _channel(call: Call) -> str:
    raw = params.text(call.args, "channel")
    channel = raw.strip().lower()
    if channel not in CHANNELS:
        raise errors.invalid_payload(
            f"Invalid channel '{raw}'. Must be one of: {', '.join(CHANNELS)}."
        )
    return channel


def _partner(world: WorldState, call: Call, required: bool) -> Player | None:
    raw = params.text(call.args, "target_id").strip()
    if not raw:
        if required:
            raise errors.invalid_payload(
                "target_id is required for private messages (a player id or username)."
            )
        return None
    partner = world.find_player(raw)
    if partner is None:
        raise GameError("player_not_found", f"No pilot named '{raw}'. Check the spelling.")
    return partner


def _recipients(
    world: WorldState, sender: Player, channel: str, partner: Player | None
) -> list[Player]:
    if channel == "private":
        return [partner] if partner is not None else []
    if channel == "system":
        return [
            p for p in world.players.values() if p is not sender and p.system_id == sender.system_id
        ]
    return world.players_at(sender.poi_id, exclude=sender)


def chat(world: WorldState, call: Call) -> dict[str, Any]:
    """Send a message to a channel; recipients get a `chat_message` notification."""
    me = call.me
    channel = _channel(call)
    content = params.text(call.args, "content").strip()
    if not content:
        raise errors.invalid_payload(
            "Message content cannot be empty. Use the 'content' parameter."
        )
    if len(content) > CHAT_MAX_CHARS:
        raise errors.invalid_payload(f"Message is too long (max {CHAT_MAX_CHARS} characters).")
    if channel == "faction":
        raise GameError(
            "not_in_faction",
            "You are not in a faction. Use the system, local or private channel instead.",
        )
    partner = _partner(world, call, required=channel == "private")
    if partner is me:
        raise errors.invalid_payload("You cannot send a private message to yourself.")
    message: dict[str, Any] = {
        "id": world.next_id("chat"),
        "channel": channel,
        "sender_id": me.id,
        "sender": me.username,
        "content": content,
        "tick": world.tick,
        "system_id": me.system_id,
        "poi_id": me.poi_id,
    }
    if partner is not None:
        message["target_id"] = partner.id
        message["target_name"] = partner.username
    world.chat_log.append(message)
    del world.chat_log[: -rules.CHAT_LOG_CAP]
    recipients = _recipients(world, me, channel, partner)
    data = {k: message[k] for k in ("id", "channel", "sender_id", "sender", "content", "tick")}
    for recipient in recipients:
        world.notify(
            recipient,
            "chat",
            "chat_message",
            dict(data),
            message=f"[{channel}] {me.username}: {content}",
        )
        recipient.stats["messages_received"] += 1
    me.stats["chat_messages"] += 1
    me.chat_by_channel[channel] = me.chat_by_channel.get(channel, 0) + 1
    return {
        "channel": channel,
        "message": "Message sent",
        "sent_at_tick": world.tick,
        "recipients": len(recipients),
    }


def _visible(message: dict[str, Any], me: Player, channel: str, partner: Player | None) -> bool:
    if message["channel"] != channel:
        return False
    if channel == "system":
        return bool(message["system_id"] == me.system_id)
    if channel == "local":
        return bool(message["poi_id"] == me.poi_id)
    ends = {message["sender_id"], message.get("target_id")}
    return me.id in ends and (partner is None or partner.id in ends)


def get_chat_history(world: WorldState, call: Call) -> dict[str, Any]:
    """A channel's messages that the caller can see, newest first, paged by `before`."""
    me = call.me
    channel = _channel(call)
    partner = _partner(world, call, required=False) if channel == "private" else None
    limit = params.integer(call.args, "limit")
    if "limit" in call.args and (limit is None or limit <= 0):
        raise errors.invalid_payload("limit must be a whole number from 1 to 100.")
    limit = min(limit or 20, rules.CHAT_HISTORY_MAX)
    before = params.integer(call.args, "before")
    matching = [
        m
        for m in reversed(world.chat_log)
        if _visible(m, me, channel, partner) and (before is None or m["id"] < before)
    ]
    shown = [
        {k: v for k, v in m.items() if k not in ("system_id", "poi_id")} for m in matching[:limit]
    ]
    return {
        "channel": channel,
        "messages": shown,
        "total_count": len(matching),
        "has_more": len(matching) > limit,
    }


def _index(call: Call, required: bool) -> int:
    if "index" not in call.args or call.args["index"] is None:
        if required:
            raise errors.invalid_payload("index is required (0 = newest entry).")
        return 0
    index = params.integer(call.args, "index")
    if index is None:
        raise errors.invalid_payload("index must be a whole number (0 = newest entry).")
    return index


def _entry_at(me: Player, index: int) -> LogEntry:
    if not 0 <= index < len(me.log):
        raise GameError(
            "invalid_index",
            f"No log entry at index {index}. Your log holds {len(me.log)} entries "
            "(index 0 = newest).",
        )
    return me.log[index]


def captains_log_add(world: WorldState, call: Call) -> dict[str, Any]:
    """Add a log entry as index 0; beyond 20 entries the oldest is dropped."""
    me = call.me
    entry = params.text(call.args, "entry")
    if not entry.strip():
        raise errors.empty_entry()
    size = len(entry.encode("utf-8"))
    if size > rules.LOG_MAX_BYTES:
        raise GameError(
            "entry_too_long",
            f"Log entry is {size} bytes; the limit is {rules.LOG_MAX_BYTES}. Shorten it.",
        )
    me.log.insert(0, LogEntry(entry=entry, tick=world.tick))
    me.stats["captains_log_entries"] += 1
    del me.log[rules.LOG_MAX_ENTRIES :]
    return {
        "index": 0,
        "tick": world.tick,
        "total_count": len(me.log),
        "message": "Log entry added successfully",
    }


def captains_log_list(world: WorldState, call: Call) -> dict[str, Any]:
    """One entry (index 0 = newest) with paging flags."""
    me = call.me
    index = _index(call, required=False)
    page = {"index": index, "total_count": len(me.log), "max_entries": rules.LOG_MAX_ENTRIES}
    if not me.log and index == 0:
        return {
            **page,
            "entry": None,
            "has_next": False,
            "has_prev": False,
            "message": "Your captain's log is empty. Add entries with captains_log_add.",
        }
    entry = _entry_at(me, index)
    return {
        **page,
        "entry": log_entry_view(index, entry),
        "has_next": index + 1 < len(me.log),
        "has_prev": index > 0,
    }


def captains_log_get(world: WorldState, call: Call) -> dict[str, Any]:
    """One entry by index (0 = newest)."""
    me = call.me
    index = _index(call, required=True)
    return log_entry_view(index, _entry_at(me, index))


def get_notifications(world: WorldState, call: Call) -> dict[str, Any]:
    """Queued events, oldest first; returned ones are removed unless `clear` is false."""
    me = call.me
    limit = params.integer(call.args, "limit")
    if "limit" in call.args and (limit is None or not 1 <= limit <= rules.NOTIFICATION_CAP):
        raise errors.invalid_payload("limit must be a whole number from 1 to 100.")
    limit = limit or 50
    clear = params.flag(call.args, "clear", True)
    types = params.string_list(call.args, "types")
    selected = [n for n in me.notifications if types is None or n["type"] in types][:limit]
    if clear:
        taken = {id(n) for n in selected}
        me.notifications = [n for n in me.notifications if id(n) not in taken]
    return {
        "count": len(selected),
        "notifications": [{**n, "data": dict(n["data"])} for n in selected],
        "remaining": len(me.notifications),
    }


HANDLERS = {
    "chat": chat,
    "get_chat_history": get_chat_history,
    "captains_log_add": captains_log_add,
    "captains_log_list": captains_log_list,
    "captains_log_get": captains_log_get,
    "get_notifications": get_notifications,
}

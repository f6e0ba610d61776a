"""Profile and forum: set_status, set_colors, claim, get_player_stats, forum_list,
forum_get_thread, forum_create_thread, forum_reply."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.forum import CATEGORIES
from zoea_tui.sim.stats import player_stats

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState

_COLOR = re.compile(r"#[0-9A-Fa-f]{6}")
STATUS_MAX = 100
TITLE_MAX = 120
POST_MAX = 4000


def set_status(world: WorldState, call: Call) -> dict[str, Any]:
    """Set the status message (and optionally clan tag) other pilots see."""
    me = call.me
    message = params.text(call.args, "status_message").strip()
    if len(message) > STATUS_MAX:
        raise errors.invalid_payload(f"status_message is longer than {STATUS_MAX} characters.")
    if not message and "clan_tag" not in call.args:
        raise errors.invalid_payload("status_message is required (up to 100 characters).")
    me.status_message = message
    if "clan_tag" in call.args:
        me.clan_tag = params.text(call.args, "clan_tag").strip()[:4].upper()
    me.stats["status_set"] = 1
    return {"action": "status_set", "status_message": me.status_message, "clan_tag": me.clan_tag}


def set_colors(world: WorldState, call: Call) -> dict[str, Any]:
    """Set the ship's primary and secondary colours (`#RRGGBB`)."""
    me = call.me
    primary = params.text(call.args, "primary_color").strip() or me.primary_color
    secondary = params.text(call.args, "secondary_color").strip() or me.secondary_color
    for name, value in (("primary_color", primary), ("secondary_color", secondary)):
        if not _COLOR.fullmatch(value):
            raise errors.invalid_payload(f"{name} must be a hex colour like #FF8800.")
    me.primary_color, me.secondary_color = primary.upper(), secondary.upper()
    me.stats["colors_set"] = 1
    return {
        "action": "colors_set",
        "primary_color": me.primary_color,
        "secondary_color": me.secondary_color,
    }


def claim(world: WorldState, call: Call) -> dict[str, Any]:
    """Link the account to a registration code (any code works in this world)."""
    return {
        "action": "claimed",
        "username": call.me.username,
        "message": "Account claimed (the embedded world accepts any code).",
    }


def get_player_stats(world: WorldState, call: Call) -> dict[str, Any]:
    """Your lifetime statistics: credits earned, systems explored, pirates, missions, ..."""
    return {"stats": player_stats(world, call.me.id).to_dict()}


def _thread(world: WorldState, call: Call) -> dict[str, Any]:
    raw = params.text(call.args, "thread_id").strip()
    if not raw:
        raise errors.missing_parameter("thread_id", "thread_0")
    for thread in world.forum:
        if thread["id"] == raw:
            return thread
    raise GameError("thread_not_found", f"No thread '{raw}'. forum_list lists the threads.")


def _summary(thread: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "title", "category", "author", "tick")
    return {
        **{k: thread[k] for k in keys},
        "replies": len(thread["posts"]) - 1,
        "last_post_tick": thread["posts"][-1]["tick"],
    }


def forum_list(world: WorldState, call: Call) -> dict[str, Any]:
    """Forum threads, newest activity first (optionally one category), 20 per page."""
    category = params.text(call.args, "category").strip().lower()
    page = max(1, params.integer(call.args, "page") or 1)
    threads = [t for t in world.forum if not category or t["category"] == category]
    threads.sort(key=lambda t: -t["posts"][-1]["tick"])
    shown = threads[(page - 1) * 20 : page * 20]
    return {
        "threads": [_summary(t) for t in shown],
        "total": len(threads),
        "page": page,
        "categories": list(CATEGORIES),
    }


def forum_get_thread(world: WorldState, call: Call) -> dict[str, Any]:
    """One thread with all its posts."""
    thread = _thread(world, call)
    return {"thread": {**_summary(thread), "posts": [dict(p) for p in thread["posts"]]}}


def _content(call: Call) -> str:
    content = params.text(call.args, "content").strip()
    if not content:
        raise errors.invalid_payload("content cannot be empty.")
    if len(content) > POST_MAX:
        raise errors.invalid_payload(f"content is longer than {POST_MAX} characters.")
    return content


def _post(world: WorldState, call: Call, content: str) -> dict[str, Any]:
    me = call.me
    return {
        "id": f"post_{world.next_id('post')}",
        "author": me.username,
        "author_id": me.id,
        "content": content,
        "tick": world.tick,
    }


def forum_create_thread(world: WorldState, call: Call) -> dict[str, Any]:
    """Start a thread: `title`, `content`, optional `category`."""
    me = call.me
    title = params.text(call.args, "title").strip()
    if not title or len(title) > TITLE_MAX:
        raise errors.invalid_payload(f"title is required (up to {TITLE_MAX} characters).")
    content = _content(call)
    category = params.text(call.args, "category").strip().lower() or "general"
    if category not in CATEGORIES:
        raise errors.invalid_payload(f"category must be one of: {', '.join(CATEGORIES)}.")
    thread = {
        "id": f"thread_{world.next_id('thread')}",
        "title": title,
        "category": category,
        "author": me.username,
        "author_id": me.id,
        "tick": world.tick,
        "pinned": False,
        "posts": [_post(world, call, content)],
    }
    world.forum.append(thread)
    me.stats["forum_threads"] += 1
    return {
        "action": "thread_created",
        "thread_id": thread["id"],
        "title": title,
        "category": category,
    }


def forum_reply(world: WorldState, call: Call) -> dict[str, Any]:
    """Reply to a thread; its author is notified."""
    me = call.me
    thread = _thread(world, call)
    post = _post(world, call, _content(call))
    thread["posts"].append(post)
    me.stats["forum_replies"] += 1
    author = world.players.get(thread["author"])
    if author is not None and author is not me:
        author.stats["forum_replies_received"] += 1
        world.notify(
            author,
            "forum",
            "forum_reply",
            {"thread_id": thread["id"], "title": thread["title"], "author": me.username},
            message=f"{me.username} replied to your thread '{thread['title']}'.",
        )
    return {"action": "reply_posted", "thread_id": thread["id"], "post_id": post["id"]}


HANDLERS = {
    "set_status": set_status,
    "set_colors": set_colors,
    "claim": claim,
    "get_player_stats": get_player_stats,
    "forum_list": forum_list,
    "forum_get_thread": forum_get_thread,
    "forum_create_thread": forum_create_thread,
    "forum_reply": forum_reply,
}

"""What a run achieved: the figures SMBench's scoring and success levels read.

The world's own player statistics come first (``zoea_tui.sim.stats.player_stats`` when
the world provides it); what it does not keep is read from the world's existing state
(its player record, chat log and captain's log) and, last, from the scored Mysis's own
tool calls and results, as SMBench reads a run's events. Calls are counted as SMBench's
client would see them: game commands only (``tool_calls``, ``game_calls``); Zoea's own
``zoea_*`` tools are counted apart (``swarm_calls``) and never scored.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..sim.engine import World

#: Chat channels that reach more than the pilots at one's POI.
WIDE_CHANNELS = frozenset({"global", "system", "faction"})
_DESTROYED = re.compile(r"\bdestroy(?:ed)?\b", re.IGNORECASE)


#: Tools of the swarm (search, broadcast, swarm status): Zoea's own, not the game's.
SWARM_PREFIX = "zoea_"


def is_swarm_tool(name: str) -> bool:
    """Whether a tool is one of Zoea's own (``zoea_*``) rather than a game command."""
    return name.startswith(SWARM_PREFIX)


@dataclass(slots=True)
class CallTally:
    """The scored Mysis's tool calls: game commands and swarm tools counted apart.

    Only game commands are what SMBench counts (its client has no swarm): ``calls`` and
    ``errors`` are the game's, and they are what the score reads; ``swarm_calls`` and
    ``swarm_errors`` are the ``zoea_*`` tools, shown beside it and never scored.
    """

    calls: int = 0
    errors: int = 0
    swarm_calls: int = 0
    swarm_errors: int = 0
    ok: Counter[str] = field(default_factory=Counter)
    #: Failed calls of each command since its last success (never recovered, so far).
    open_errors: Counter[str] = field(default_factory=Counter)
    #: Successful results of the tools that tell combat and missions apart.
    results: list[tuple[str, str]] = field(default_factory=list)

    def add(self, name: str, is_error: bool) -> None:
        """Count one finished call."""
        if is_swarm_tool(name):
            self.swarm_calls += 1
            self.swarm_errors += int(is_error)
            return
        self.calls += 1
        self.errors += int(is_error)
        if is_error:
            self.open_errors[name] += 1
        else:
            self.ok[name] += 1
            self.open_errors[name] = 0

    @property
    def unrecovered(self) -> int:
        """Game errors never followed by a success of the same command."""
        return sum(self.open_errors.values())


def _world_stats(world: World, username: str) -> dict[str, Any]:
    """The world's statistics for a player (``zoea_tui.sim.stats``), in the arena's names;
    empty when this world keeps none."""
    try:
        from ..sim.stats import player_stats
    except ImportError:  # a world without statistics: the fallbacks stand
        return {}
    try:
        stats = player_stats(world, username).to_dict()
    except KeyError:
        return {}
    channels = stats.get("chat_by_channel") or {}
    out = {k: v for k, v in stats.items() if isinstance(v, (int, float))}
    out.update(
        {
            "final_credits": stats["credits"],
            "chats": stats["chat_messages"],
            "chats_local": channels.get("local", 0),
            "chats_global": sum(n for c, n in channels.items() if c in WIDE_CHANNELS),
            "replies_received": stats["messages_received"] + stats["forum_replies_received"],
            "log_entries": stats["captains_log_entries"],
            "forum_posts": stats["forum_threads"] + stats["forum_replies"],
            # A thread of one's own (a title and a body), not only replies.
            "forum_posts_meaningful": stats["forum_threads"],
            "status_set": int(bool(stats["status_set"])),
            "colors_set": int(bool(stats["colors_set"])),
            "defences_installed": stats["defenses_installed"],
            "destroyed": stats["ships_lost"],
        }
    )
    return out


def _from_results(tally: CallTally) -> dict[str, int]:
    """Combat and mission figures read from the Mysis's own successful results."""
    destroyed = engaged = 0
    for name, content in tally.results:
        if name in ("attack", "fight", "engage", "combat"):
            engaged += 1
            try:
                data = json.loads(content)
            except ValueError:
                data = None
            if isinstance(data, dict):
                hit = any(
                    data.get(k) for k in ("target_destroyed", "destroyed", "pirate_destroyed")
                )
            else:
                hit = bool(_DESTROYED.search(content))
            destroyed += hit
    return {"pirates_engaged": engaged, "pirates_destroyed": destroyed}


def run_metrics(
    world: World, username: str | None, tally: CallTally, *, ticks: int, budget: int
) -> dict[str, Any]:
    """Every figure the scoring and the success levels of any scenario read."""
    player = world.find_player(username) if username else None
    if player is None and len(world.players) == 1:
        player = next(iter(world.players.values()))
    metrics: dict[str, Any] = {
        # What SMBench scores: the game's commands only.
        "tool_calls": tally.calls,
        "tool_errors": tally.errors,
        "game_calls": tally.calls,
        "game_errors": tally.errors,
        "unrecovered_errors": tally.unrecovered,
        # Zoea's own tools (search, broadcast, swarm status): shown, never scored.
        "swarm_calls": tally.swarm_calls,
        "swarm_errors": tally.swarm_errors,
        "ticks": ticks,
        "budget": budget,
        "account": player.username if player else None,
    }
    if player is None:
        return metrics
    chats = [m for m in world.chat_log if m.get("sender_id") == player.id]
    replies = [
        m
        for m in world.chat_log
        if m.get("sender_id") != player.id
        and (
            m.get("target_id") == player.id
            or player.username.lower() in str(m.get("content", "")).lower()
        )
    ]
    fallback = _from_results(tally)
    metrics.update(
        {
            "credits": player.credits,
            "final_credits": player.credits,
            "credits_earned": player.stats.get("credits_earned", 0),
            "systems_explored": max(player.stats.get("systems_visited", 1), len(player.visited)),
            "chats": len(chats),
            "chats_local": sum(m.get("channel") == "local" for m in chats),
            "chats_global": sum(m.get("channel") in WIDE_CHANNELS for m in chats),
            "replies_received": len(replies),
            "log_entries": len(player.log),
            "forum_posts": tally.ok["forum_post"]
            + tally.ok["forum_create_thread"]
            + tally.ok["forum_reply"],
            "status_set": int(bool(tally.ok["set_status"])),
            "colors_set": int(bool(tally.ok["set_colors"] + tally.ok["set_ship_colors"])),
            "missions_accepted": tally.ok["accept_mission"],
            "missions_completed": tally.ok["complete_mission"],
            "weapons_installed": 0,
            "defences_installed": 0,
            "destroyed": 0,
            **fallback,
        }
    )
    stats = _world_stats(world, player.username)
    metrics.update(stats)
    return metrics

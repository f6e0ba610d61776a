"""The autopilot's play for the arena's scenario orders: explore, socialise, missions.

Each order is a short list of rules over what the context shows, like the mining loop
in :mod:`.decide`: what was already done is read back from the successful calls in the
context (a strategy that drops them makes the pilot repeat itself, as a model would).
``trade`` and ``combat`` fall back to the mining loop, which earns the credits both
scenarios score; ``missions`` takes a mission from the board before mining.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .combat import combat
from .mission_play import missions
from .plan import Call, Decision, Planner, call, pct, say
from .trade import trade

#: Orders this module plays.
SCENARIO_ORDERS = frozenset({"explore", "social", "missions", "trade", "combat"})
#: Leave for a station to refuel below this share of the tank while exploring (percent).
EXPLORE_REFUEL_PCT = 30
_COLOURS = {"primary_color": "#2f9e8f", "secondary_color": "#f2c14e"}


def _ok(p: Planner, name: str) -> list[dict[str, Any]]:
    """Arguments of this tool's successful calls in the context, oldest first."""
    found = []
    for result in p.c.results:
        if result.name == name and result.content[:1] == "{" and result.error() is None:
            found.append(result.args())
    return found


def _failed(p: Planner, name: str) -> bool:
    return any(n == name for n, _ in p.c.failed)


def play(p: Planner) -> Decision | None:
    """The next step of a scenario order, or None to carry on with the mining loop."""

    kind = p.intent
    if kind == "explore":
        return explore(p)
    if kind == "social":
        return social(p)
    if kind == "combat":
        return combat(p)
    if kind == "missions":
        return missions(p)
    if kind == "trade":
        return trade(p)
    return None


def explore(p: Planner) -> Decision | None:
    """Jump to a system not seen yet; refuel at a station when the tank runs low."""

    f = p.f
    fuel = pct(f.fuel, f.max_fuel)
    if fuel is not None and fuel < EXPLORE_REFUEL_PCT and "refuel" not in f.no_credits_for:
        return (
            p.mine_loop(refuel_now=True)
            if f.docked or p.stations()
            else p.orient("Fuel low: listing the system for a station.")
        )
    if f.system is None:
        return call("Exploring, but I do not know where I am: checking status.", ("get_status", {}))
    links = f.links.get(f.system)
    if not links:
        return p.orient(f"Exploring: listing {f.system} and its links.")
    seen = {a.get("target_system") for a in _ok(p, "jump")} | {f.system}
    fresh = sorted(s for s in links if s not in seen)
    if fresh:
        target = fresh[0]
    else:  # every link seen in my context: a walk that varies with the tick
        salt = f"{f.system}:{f.tick}".encode()
        target = min(
            links, key=lambda s: hashlib.blake2b(salt + s.encode(), digest_size=4).digest()
        )
    lookups: list[Call] = [("get_system", {})] if p.has("get_system") else []
    return call(
        f"Exploring: jumping to {target}, then listing it.",
        ("jump", {"target_system": target}),
        *lookups,
    )


def social(p: Planner) -> Decision | None:
    """Status, colours, chats, two log entries, a forum thread; then answer others."""

    me = p.f.account or "a pilot"
    steps: list[tuple[str, dict[str, Any], str]] = [
        (
            "set_status",
            {"status_message": "Exploring the frontier, open to chat"},
            "setting a status message",
        ),
        ("set_colors", dict(_COLOURS), "choosing the ship's colours"),
        (
            "chat",
            {"channel": "local", "content": f"Hello from {me}! Anyone docked here?"},
            "greeting the pilots here",
        ),
        (
            "chat",
            {"channel": "system", "content": f"{me} here: good hunting, all of you."},
            "greeting the whole system",
        ),
        (
            "captains_log_add",
            {
                "entry": "Met the pilots of this station; greeted them on the "
                "local and system channels."
            },
            "noting it in the log",
        ),
        (
            "forum_create_thread",
            {
                "title": f"{me}: notes for new pilots",
                "content": "Mine the belts near the station, sell at the "
                "station, refuel below a third of the tank. Say hello on "
                "the local channel!",
            },
            "posting on the forum",
        ),
        (
            "captains_log_add",
            {"entry": "Posted notes for new pilots on the forum; waiting for answers."},
            "writing the second log entry",
        ),
    ]
    done = [json.dumps(a, sort_keys=True) for n, _, _ in steps for a in _ok(p, n)]
    for name, args, why in steps:
        if not p.has(name) or _failed(p, name):
            continue
        if json.dumps(args, sort_keys=True) not in done:
            return call(f"Socialising: {why}.", (name, args))
    # Then answer whoever spoke to me.
    notes = next(
        (
            r
            for r in reversed(p.c.results)
            if r.name == "get_notifications" and r.error() is None and r.data()
        ),
        None,
    )
    replied = {a.get("target_id") for a in _ok(p, "chat") if a.get("channel") == "private"}
    if notes is not None:
        for note in (notes.data() or {}).get("notifications") or ():
            data = note.get("data") if isinstance(note, dict) else None
            sender = data.get("sender") if isinstance(data, dict) else None
            if isinstance(sender, str) and sender != me and sender not in replied:
                return call(
                    f"Answering {sender}.",
                    (
                        "chat",
                        {
                            "channel": "private",
                            "target_id": sender,
                            "content": f"Thanks {sender}, good to hear from you!",
                        },
                    ),
                )
    if p.has("get_notifications") and not any(
        r.name == "get_notifications" and r.index > p.c.turn_start for r in p.c.results
    ):
        return call("Checking who has spoken to me.", ("get_notifications", {}))
    return say(
        "Socialised: status, colours, chats, log and forum done; listening for answers.",
        "Every social step is done this turn.",
    )

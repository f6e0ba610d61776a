"""The autopilot's mission running (arena s6): take what fits, do it, turn it in.

Docked at a station, the pilot reads its active missions (``get_active_missions``, the
game's own record of progress, asked again at each visit as a model would), turns in
every one that is ready here, sells what no delivery needs, then reads the board and
takes the missions its ship can do: visits, mining quotas and deliveries of the ores of
this system (a combat mission only when a weapon is installed; courier runs are left on
the board). Away from the station it plays the mining loop, flying first to the belt a
visit mission names and holding back the ore its deliveries need; a full hold, or every
delivery's ore aboard, brings it back to turn them in.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .combat import WEAPONS, modules
from .plan import Decision, Planner, call, since_move

if TYPE_CHECKING:
    from .facts import ToolResult

MAX_ACTIVE = 5
_HAVE = re.compile(r"^Have (\d+) (.+?) in cargo")
_MINE = re.compile(r"^Mine (\d+) (.+)$")
_REACH = re.compile(r"^Reach (.+)$")


def _item_id(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


def _since_dock(p: Planner) -> list[ToolResult]:
    results = since_move(p)
    for index in range(len(results) - 1, -1, -1):
        if results[index].name == "dock" and results[index].error() is None:
            return results[index:]
    return results


def active(p: Planner) -> list[dict[str, Any]] | None:
    """My active missions: the newest listing, less what was turned in since, plus what
    was accepted since (None: no listing in view)."""
    listing = None
    for result in reversed(p.c.results):
        if result.name == "get_active_missions" and result.error() is None and result.data():
            listing = result
            break
    if listing is None:
        return None
    missions = [m for m in (listing.data() or {}).get("missions") or () if isinstance(m, dict)]
    for result in p.c.results:
        if result.index <= listing.index or result.error() is not None:
            continue
        data = result.data() or {}
        if result.name == "complete_mission":
            missions = [m for m in missions if m.get("mission_id") != data.get("mission_id")]
        elif result.name == "accept_mission" and isinstance(data.get("mission"), dict):
            missions.append(data["mission"])
    return missions


def needs(missions: list[dict[str, Any]]) -> dict[str, int]:
    """Ore my deliveries need in the hold."""
    keep: dict[str, int] = {}
    for m in missions:
        found = _HAVE.match(str(m.get("objective", "")))
        if found and m.get("type") == "delivery":
            item = _item_id(found.group(2))
            keep[item] = keep.get(item, 0) + int(found.group(1))
    return keep


def fits(offer: dict[str, Any], here: str | None, armed: bool) -> bool:
    """A mission this ship can do from here."""
    kind = offer.get("type")
    turn_in = (offer.get("turn_in") or {}).get("poi_id")
    if kind == "combat":
        return armed and turn_in == here
    if kind not in ("visit", "mining", "delivery"):
        return False
    if kind == "delivery":
        found = _HAVE.match(str(offer.get("objective", "")))
        item = _item_id(found.group(2)) if found else ""
        if not (item.endswith("_ore") or item == "rare_crystal"):
            return False
    return turn_in == here


def missions(p: Planner) -> Decision | None:
    """The next step of the mission run, or None to carry on with the mining loop."""
    f = p.f
    mine = active(p)
    if mine is not None:
        p.keep = needs(mine)
    if not f.docked:
        return _away(p, mine)
    recent = _since_dock(p)
    if mine is None or not any(r.name == "get_active_missions" for r in recent):
        if p.has("get_active_missions") and not p.c.failed.get(("get_active_missions", "{}")):
            p.polling = True
            return call(
                "Docked: reading my active missions and their progress.",
                ("get_active_missions", {}),
            )
        return None
    for m in mine:
        turn_in = (m.get("turn_in") or {}).get("poi_id")
        if m.get("status") == "ready_to_turn_in" and turn_in == f.poi:
            return call(
                f"Turning in {m.get('title')!r} for {m.get('reward_credits')} cr.",
                ("complete_mission", {"mission_id": m.get("mission_id")}),
            )
    turned_in = max(
        (r.index for r in recent if r.name == "complete_mission" and r.error() is None), default=-1
    )
    listed = max(
        (
            r.index
            for r in p.c.results
            if r.name in ("get_cargo", "get_status", "get_ship") and r.error() is None
        ),
        default=-1,
    )
    if turned_in > listed and p.has("get_cargo"):
        p.polling = True  # a delivery left the hold: the listing in view is stale
        return call("Turned in a mission: checking what is left in the hold.", ("get_cargo", {}))
    if f.cargo is None or f.sellable(p.keep):
        return None  # the station visit sells what no delivery needs
    if len(mine) >= MAX_ACTIVE or not p.has("get_missions"):
        return None
    board = next(
        (
            r
            for r in reversed(recent)
            if r.name == "get_missions" and r.error() is None and r.data()
        ),
        None,
    )
    if board is None:
        if ("get_missions", "{}") in p.c.failed:
            return None
        return call("Docked: reading the mission board.", ("get_missions", {}))
    taken = {str(m.get("template_id") or m.get("mission_id")) for m in mine}
    refused = {a for (n, a) in p.c.failed if n == "accept_mission"}
    armed = any(m in WEAPONS for m in modules(p) or ())
    for offer in (board.data() or {}).get("missions") or ():
        mission_id = str(offer.get("mission_id"))
        args = {"mission_id": mission_id}
        if mission_id in taken or not fits(offer, f.poi, armed):
            continue
        if any(a == f'{{"mission_id": "{mission_id}"}}' for a in refused):
            continue
        return call(
            f"Taking the mission {offer.get('title')!r} ({offer.get('reward_credits')} cr).",
            ("accept_mission", args),
        )
    return None


def _away(p: Planner, mine: list[dict[str, Any]] | None) -> Decision | None:
    """Undocked: visit the belt a mission names; come back when deliveries are aboard."""
    f = p.f
    if mine is None:
        return None
    cargo = f.cargo or {}
    for m in mine:
        found = _REACH.match(str(m.get("objective", "")))
        if m.get("type") == "visit" and m.get("status") != "ready_to_turn_in" and found:
            name = found.group(1).strip().lower()
            place = next((x for x in f.pois.values() if x.name.lower() == name), None)
            if place is not None and place.id != f.poi and not p.station_need(False, False):
                return p.mine_loop(place)
    keep = needs(mine)
    if keep and f.cargo is not None and all(cargo.get(k, 0) >= v for k, v in keep.items()):
        here = f.pois.get(f.poi) if f.poi else None
        if here is None or here.kind != "station":
            return p.go_station("the deliveries are aboard")
    return None

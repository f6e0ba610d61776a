"""The autopilot's combat play (arena s5, and armed missions): fit, hunt, loot, retreat.

The plan, read back from the context each time: earn credits with the mining loop;
docked with enough credits, buy a weapon, then a defence module, and install each; then
fly to the nearest low-police system with a belt (pirates wait at the belts of systems of
police level 3 or less, read from ``get_map``), look for pirates there with
``get_nearby``, scan a new target, attack it until it is destroyed, loot its wreck, and
mine the belt while the pirates respawn, looking again every few rounds. A low hull sends
the pilot to the station to repair (the mining loop's station visit), which also ends the
fight. What is installed is read from the newest ``get_status``/``get_ship``/
``install_mod`` result; when none is in view the pilot asks ``get_status``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .plan import LOW_HULL_PCT, Decision, Planner, call, pct, since_move

#: What the pilot buys: a weapon, then a defence module (armour suits the pirates here).
WEAPON = "pulse_laser_i"
DEFENCE = "armor_plate_i"
WEAPONS = frozenset({"pulse_laser_i", "autocannon_i"})
DEFENCES = frozenset({"armor_plate_i", "shield_booster_i"})
STARTER_MODULES = ("mining_laser_1",)
#: Pirates wait in systems with this police level or less.
PIRATE_POLICE = 3
#: Mining rounds between two looks for respawned pirates.
LOOK_EVERY = 4
#: Engage a new pirate only with this share of the hull or more; retreat below the
#: mining loop's low-hull mark.
ENGAGE_HULL_PCT = 60
#: Pick fights that can be won: pirates with at most this much hull and shield together.
MAX_TARGET_STRENGTH = 120
#: Below this many credits with half a tank, mine before roaming to another system.
POOR_CREDITS = 100


def modules(p: Planner) -> list[str] | None:
    """The installed modules, from the newest result that shows them (None: not in view)."""
    for result in reversed(p.c.results):
        if result.error() is not None:
            continue
        data = result.data()
        if not data:
            continue
        if result.name in ("get_status", "get_ship") and isinstance(data.get("ship"), dict):
            found = data["ship"].get("modules")
            if isinstance(found, list):
                return [str(m) for m in found]
        elif result.name in ("install_mod", "uninstall_mod") and isinstance(
            data.get("modules"), list
        ):
            return [str(m) for m in data["modules"]]
        elif result.name == "attack" and (data.get("return_fire") or {}).get("destroyed"):
            return list(STARTER_MODULES)  # my ship was lost: a new starter ship
    return p.c.notes.modules if p.c.notes is not None else None


def prices(p: Planner) -> dict[str, int]:
    """What the station charges per item, from the market listings in view."""
    found: dict[str, int] = {}
    for result in reversed(p.c.results):
        if result.name != "view_market" or result.error() is not None:
            continue
        for item in (result.data() or {}).get("items") or ():
            price = item.get("best_sell") if isinstance(item, dict) else None
            if isinstance(price, int):
                found.setdefault(str(item.get("item_id")), price)
    return found


def police(p: Planner) -> tuple[dict[str, int], dict[str, set[str]], set[str]]:
    """Police levels and links of the systems in view, and the systems with a belt."""
    levels: dict[str, int] = {}
    links: dict[str, set[str]] = {}
    belts: set[str] = set()
    for result in reversed(p.c.results):
        data = result.data() if result.error() is None else None
        if not data:
            continue
        systems = (
            data.get("systems")
            if result.name == "get_map"
            else (
                [data["system"]]
                if result.name == "get_system" and isinstance(data.get("system"), dict)
                else []
            )
        )
        for system in systems or ():
            if not isinstance(system, dict) or not isinstance(system.get("id"), str):
                continue
            sid = system["id"]
            if isinstance(system.get("police_level"), int):
                levels.setdefault(sid, system["police_level"])
            for link in system.get("connections") or ():
                other = link.get("system_id") if isinstance(link, dict) else link
                if isinstance(other, str):
                    links.setdefault(sid, set()).add(other)
                    links.setdefault(other, set()).add(sid)
            if result.name == "get_map" and system.get("has_station") is not None:
                belts.add(sid)  # the map does not list belts: assume one, as a pilot would
            if any(
                isinstance(poi, dict) and "belt" in str(poi.get("type"))
                for poi in system.get("pois") or ()
            ):
                belts.add(sid)
    return levels, links, belts


def hunting_ground(p: Planner, avoid: frozenset[str] = frozenset()) -> str | None:
    """The nearest system in view where pirates wait (the current one when it is),
    other than those to ``avoid``."""
    levels, links, belts = police(p)
    start = p.f.system
    if start is None:
        return None
    noted = p.c.notes.ground if p.c.notes is not None else None
    if not avoid and noted and not levels:
        return noted  # my notes name the place (the map is out of view)
    seen, queue = {start}, deque([start])
    while queue:
        here = queue.popleft()
        if levels.get(here, 99) <= PIRATE_POLICE and here in belts and here not in avoid:
            return here
        for other in sorted(links.get(here, ())):
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return None


def _pirates_here(p: Planner) -> tuple[list[dict[str, Any]] | None, Any]:
    """The pirates seen at this POI since the last trip (None: not looked yet), and the
    newest attack result since then."""
    recent = since_move(p)
    last_attack = next(
        (r for r in reversed(recent) if r.name == "attack" and r.error() is None and r.data()), None
    )
    look = next(
        (
            r
            for r in reversed(recent)
            if r.name in ("get_nearby", "get_poi")
            and r.error() is None
            and r.data()
            and not r.args().get("poi_id")
        ),
        None,
    )
    if look is None:
        return None, last_attack
    found = [x for x in (look.data() or {}).get("pirates") or () if isinstance(x, dict)]
    for result in recent:
        if result.index <= look.index or result.name not in ("attack", "scan"):
            continue
        data = result.data() or {}
        target = data.get("target") or {}
        gone = (
            result.args().get("target_id")
            if result.error() is not None
            else target.get("id")
            if data.get("destroyed")
            else None
        )
        if gone is not None:
            found = [x for x in found if x.get("id") != gone]
        elif target:
            found = [target if x.get("id") == target.get("id") else x for x in found]
    return found, last_attack


def combat(p: Planner) -> Decision | None:
    """The next step of the hunt, or None to carry on with the mining loop."""

    f = p.f
    fitted = modules(p)
    if fitted is None:
        if p.has("get_status") and ("get_status", "{}") not in p.c.done:
            return call("Hunting pirates: checking my ship's modules first.", ("get_status", {}))
        return None
    armed = any(m in WEAPONS for m in fitted)
    shielded = any(m in DEFENCES for m in fitted)
    if f.docked:
        step = fit(p, armed, shielded)
        if step is not None or not armed:
            return step
    if not armed:
        return None  # earn the weapon's price with the mining loop
    return hunt(p)


def fit(p: Planner, armed: bool, shielded: bool) -> Decision | None:
    """Docked: install what the hold carries, buy what is missing and affordable."""

    f = p.f
    cargo = f.cargo or {}
    for _wanted, have, pool in ((WEAPON, armed, WEAPONS), (DEFENCE, shielded, DEFENCES)):
        if have:
            continue
        carried = sorted(m for m in pool if cargo.get(m))
        if carried and ("install_mod", f'{{"module_id": "{carried[0]}"}}') not in p.c.failed:
            return call(
                f"Docked with a {carried[0]} in the hold: installing it.",
                ("install_mod", {"module_id": carried[0]}),
            )
    if f.cargo is None or f.sellable():
        return None  # sell the hold first (the mining loop's station visit)
    missing = [m for m, have in ((WEAPON, armed), (DEFENCE, shielded)) if not have]
    if not missing or "buy" in f.no_credits_for:
        return None
    price = prices(p)
    if missing[0] not in price:
        if p.has("view_market") and ("view_market", '{"category": "module"}') not in p.c.done:
            return call(
                "Docked: reading the module prices.", ("view_market", {"category": "module"})
            )
        return None
    if f.credits is not None and f.credits >= price[missing[0]]:
        return call(
            f"Docked with {f.credits} cr: buying a {missing[0]} for {price[missing[0]]} cr.",
            ("buy", {"item_id": missing[0], "quantity": 1}),
        )
    return None


def hunt(p: Planner) -> Decision | None:
    """Armed: go where pirates wait, find them, fight, loot, and mine between fights."""

    f = p.f
    ground = hunting_ground(p)
    if ground is None:
        if p.has("get_map") and ("get_map", "{}") not in p.c.done:
            return call(
                "Armed: reading the map for low-police systems, where pirates wait.",
                ("get_map", {}),
            )
        return None
    if ground != f.system:
        if p.station_need(False, False) or (f.docked and f.cargo and f.sellable()):
            return None  # sell, refuel, repair first
        return p.goto_system(ground)
    if p.station_need(False, False) or f.docked:
        return None  # the station visit (sell, repair) and the trip back to the belt
    here = f.here
    if not (f.at_belt or (here is not None and here.kind == "belt")):
        return None  # the mining loop flies to the belt
    found, last_attack = _pirates_here(p)
    data = (last_attack.data() or {}) if last_attack is not None else {}
    if (
        data.get("destroyed")
        and data.get("wreck_id")
        and not any(r.name == "loot_wreck" and r.index > last_attack.index for r in p.c.results)
    ):
        return call(
            f"Pirate destroyed: looting its wreck {data['wreck_id']}.",
            ("loot_wreck", {"wreck_id": data["wreck_id"]}),
        )
    winnable = [x for x in found or () if _strength(x) <= MAX_TARGET_STRENGTH]
    if found is None or (not winnable and _mined_since_look(p) >= LOOK_EVERY):
        if p.has("get_nearby"):
            p.polling = True  # a new look, not a repeated snapshot
            return call("At the belt: looking for pirates.", ("get_nearby", {}))
        return None
    if not winnable:
        other_belt = _unvisited_belt(p)
        if other_belt is not None:
            return call(
                f"No pirate I can beat here: trying {other_belt.name} ({other_belt.id}).",
                ("travel", {"target_poi": other_belt.id}),
            )
    fuel = pct(f.fuel, f.max_fuel)
    if (
        not winnable
        and f.credits is not None
        and f.credits < POOR_CREDITS
        and fuel is not None
        and fuel < 60
    ):
        return None  # mine for fuel money before roaming
    if (
        not winnable
        and pct(f.hull, f.max_hull) is not None
        and (pct(f.hull, f.max_hull) or 0) >= ENGAGE_HULL_PCT
        and f.system is not None
    ):
        other = hunting_ground(p, frozenset({f.system}))
        if other is not None:
            return p.goto_system(other)
        levels, _, _ = police(p)
        if len(levels) <= 1 and p.has("get_map") and ("get_map", "{}") not in p.c.done:
            return call(
                "No pirate I can beat here: reading the map for another hunting ground.",
                ("get_map", {}),
            )
    engaged_id = (
        ((last_attack.data() or {}).get("target") or {}).get("id")
        if last_attack is not None and not data.get("destroyed")
        else None
    )
    hull = pct(f.hull, f.max_hull)
    if hull is not None and hull < LOW_HULL_PCT and engaged_id is not None:
        return p.go_station(f"hull {f.hull} under fire: retreating")
    if not winnable or (engaged_id is None and hull is not None and hull < ENGAGE_HULL_PCT):
        return None  # mine while they respawn (or while the hull is too weak to fight)
    target = next((x for x in winnable if x.get("id") == engaged_id), None) or min(
        winnable, key=lambda x: (_strength(x), str(x.get("id")))
    )
    target_id = str(target.get("id"))
    engaged = target_id == engaged_id
    scanned = any(
        r.name == "scan" and r.args().get("target_id") == target_id for r in since_move(p)
    )
    if not engaged and not scanned and p.has("scan"):
        return call(
            f"{target.get('name', target_id)} here: scanning it first.",
            ("scan", {"target_id": target_id}),
        )
    return call(
        f"Attacking {target.get('name', target_id)} ({target_id}): hull "
        f"{target.get('hull')}, shield {target.get('shield')}; my hull {f.hull}.",
        ("attack", {"target_id": target_id}),
    )


def _unvisited_belt(p: Planner) -> Any:
    """A belt of this system I have not looked at since I arrived in it."""
    f = p.f
    looked = set()
    for result in reversed(p.c.results):
        if result.name == "jump" and result.error() is None:
            break
        if result.name == "get_nearby" and result.error() is None:
            looked.add((result.data() or {}).get("poi_id"))
    belts = sorted(
        x.id
        for x in f.pois.values()
        if x.is_belt and x.system in (f.system, None) and x.id not in looked and x.id != f.poi
    )
    return f.pois[belts[0]] if belts else None


def _strength(pirate: dict[str, Any]) -> int:
    return int(pirate.get("hull") or 0) + int(pirate.get("shield") or 0)


def _mined_since_look(p: Planner) -> int:
    count = 0
    for result in reversed(since_move(p)):
        if result.name == "get_nearby":
            break
        count += result.name == "mine"
    return count

"""Fitting and fighting: install_mod, uninstall_mod, attack, scan, get_wrecks, loot_wreck,
salvage_wreck (pirate rules in `zoea_tui.sim.pirates`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params, pirates
from zoea_tui.sim.catalog import ITEMS, MODULES, module_def
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.players import Player, Ship

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState


def _slots(ship: Ship, slot: str) -> int:
    return {"weapon": ship.weapon_slots, "defense": ship.defense_slots}.get(
        slot, ship.utility_slots
    )


def _used(ship: Ship, slot: str) -> int:
    return sum(1 for m in ship.modules if module_def(m).slot == slot)


def _module_arg(call: Call) -> str:
    raw = (params.text(call.args, "module_id") or params.text(call.args, "item_id")).strip()
    if not raw:
        raise errors.missing_parameter("module_id", "pulse_laser_i")
    return raw


def _apply(ship: Ship, module_id: str, sign: int) -> None:
    module = module_def(module_id)
    ship.max_shield += sign * module.shield_bonus
    ship.shield = min(ship.max_shield, ship.shield + sign * module.shield_bonus)
    ship.armor += sign * module.armor_bonus


def install_mod(world: WorldState, call: Call) -> dict[str, Any]:
    """Docked: fit a module from cargo into a free slot of its type."""
    me = call.me
    raw = _module_arg(call)
    if not me.docked:
        raise errors.not_docked_here()
    module = MODULES.get(raw)
    if module is None:
        raise GameError(
            "invalid_module",
            f"'{raw}' is not a module. catalog(type='items', category='module') lists them.",
        )
    if me.ship.cargo.get(module.id, 0) < 1:
        raise GameError(
            "module_not_in_cargo",
            f"No {module.name} in your cargo. Buy one "
            f"first (buy item_id '{module.id}' at a station that sells it).",
        )
    slot = module.slot
    if _used(me.ship, slot) >= _slots(me.ship, slot):
        raise GameError(
            "no_free_slot",
            f"No free {slot} slot: your ship has "
            f"{_slots(me.ship, slot)}, all in use. uninstall_mod one first.",
        )
    me.ship.remove_cargo(module.id, 1)
    me.ship.modules.append(module.id)
    _apply(me.ship, module.id, 1)
    return {
        "action": "module_installed",
        "module": module.to_dict(),
        "modules": list(me.ship.modules),
        "message": f"{module.name} installed in a {slot} slot.",
    }


def uninstall_mod(world: WorldState, call: Call) -> dict[str, Any]:
    """Docked: take a fitted module out into cargo."""
    me = call.me
    raw = _module_arg(call)
    if not me.docked:
        raise errors.not_docked_here()
    if raw not in me.ship.modules:
        raise GameError(
            "module_not_installed",
            f"No module '{raw}' is installed. Installed: {', '.join(me.ship.modules) or 'none'}.",
        )
    need = ITEMS[raw].size if raw in ITEMS else 0
    if me.ship.cargo_free < need:
        raise errors.cargo_full()
    me.ship.modules.remove(raw)
    _apply(me.ship, raw, -1)
    if raw in ITEMS:
        me.ship.add_cargo(raw, 1)
    return {"action": "module_uninstalled", "module_id": raw, "modules": list(me.ship.modules)}


def _target(world: WorldState, me: Player, call: Call) -> dict[str, Any]:
    raw = params.text(call.args, "target_id").strip()
    if not raw:
        raise errors.missing_parameter("target_id", "pirate_1")
    here = pirates.pirates_at(world, me.poi_id)
    for pirate in here:
        if raw in (pirate["id"], pirate["name"]) or raw.lower() == pirate["name"].lower():
            return pirate
    if world.find_player(raw) is not None:
        raise GameError(
            "invalid_target",
            "Attacking other pilots is disabled in this world; "
            "hunt pirates instead (get_nearby lists them).",
        )
    raise GameError(
        "invalid_target", f"No target '{raw}' here. get_nearby lists the pirates at your POI."
    )


def engage(me: Player, pirate: dict[str, Any]) -> None:
    """The pilot and the pirate are in a fight: it fires back every tick from now on."""
    if me.username not in pirate["engaged_with"]:
        pirate["engaged_with"].append(me.username)
        # A pirate that came back after being destroyed is a new one to engage: every
        # pirate destroyed was engaged first (pirates_engaged >= pirates_destroyed).
        life = f"{pirate['id']}#{pirate.get('life', 0)}"
        if life not in me.engaged:
            me.engaged.append(life)
            me.stats["pirates_engaged"] += 1


def attack(world: WorldState, call: Call) -> dict[str, Any]:
    """Fire every weapon at a pirate here; it fires back. One round per tick."""
    me = call.me
    if me.docked:
        raise GameError("docked", "You cannot fight while docked. Undock first.")
    pirate = _target(world, me, call)
    damage = pirates.weapon_damage(me.ship)
    if damage == 0:
        raise GameError(
            "no_weapon",
            "You have no weapon installed. Buy one (e.g. "
            "pulse_laser_i) and install_mod it while docked.",
        )
    engage(me, pirate)
    hit = pirates.apply_hit(pirate, pirates.roll(world, damage))
    me.stats["damage_dealt"] += hit["total"]
    me.skill_xp["combat_basic"] = me.skill_xp.get("combat_basic", 0) + hit["total"]
    result: dict[str, Any] = {
        "action": "attack",
        "target": pirates.pirate_view(pirate),
        "you_dealt": hit,
    }
    if pirate["hull"] <= 0:
        wreck = pirates.destroy_pirate(world, pirate, me)
        result.update(
            destroyed=True,
            bounty=pirate["bounty"],
            wreck_id=wreck["id"],
            credits=me.credits,
            message=f"{pirate['name']} destroyed! Bounty {pirate['bounty']} credits."
            f" Loot its wreck: loot_wreck(wreck_id='{wreck['id']}').",
        )
        return result
    shot = pirates.pirate_fires(world, pirate, me)
    result["return_fire"] = shot
    result["destroyed"] = False
    if shot.get("destroyed"):
        result["message"] = "Your ship was destroyed. You respawned at your home station."
    else:
        result["message"] = (
            f"{pirate['name']}: hull {pirate['hull']}/{pirate['max_hull']}, "
            f"shield {pirate['shield']}. Your hull {me.ship.hull}, shield "
            f"{me.ship.shield}. It keeps firing while you stay."
        )
    return result


def scan(world: WorldState, call: Call) -> dict[str, Any]:
    """Scan a pirate here: its condition, armament and bounty."""
    me = call.me
    pirate = _target(world, me, call)
    return {
        "action": "scan",
        "target": pirates.pirate_view(pirate),
        "threat": "high" if pirate["damage"] > me.ship.armor + 4 else "moderate",
    }


def _wrecks_here(world: WorldState, me: Player) -> list[dict[str, Any]]:
    return [w for w in world.wrecks if w["poi_id"] == me.poi_id]


def _wreck_view(w: dict[str, Any]) -> dict[str, Any]:
    return {
        "wreck_id": w["id"],
        "source": w["source"],
        "expires_tick": w["expires_tick"],
        "items": [
            {"item_id": i, "name": ITEMS[i].name, "quantity": q} for i, q in w["items"].items()
        ],
    }


def get_wrecks(world: WorldState, call: Call) -> dict[str, Any]:
    """Wrecks at your POI and what they hold."""
    here = _wrecks_here(world, call.me)
    return {"wrecks": [_wreck_view(w) for w in here], "count": len(here)}


def _wreck(world: WorldState, me: Player, call: Call) -> dict[str, Any]:
    raw = params.text(call.args, "wreck_id").strip()
    here = _wrecks_here(world, me)
    if not raw and here:
        return here[0]
    for w in here:
        if w["id"] == raw:
            return w
    raise GameError("wreck_not_found", f"No wreck '{raw}' at your POI. get_wrecks lists them.")


def loot_wreck(world: WorldState, call: Call) -> dict[str, Any]:
    """Take items from a wreck here into cargo (all, or `item_id`/`quantity`)."""
    me = call.me
    wreck = _wreck(world, me, call)
    wanted = params.text(call.args, "item_id").strip()
    asked = params.integer(call.args, "quantity")
    taken: dict[str, int] = {}
    for item_id, qty in list(wreck["items"].items()):
        if wanted and item_id != wanted:
            continue
        room = me.ship.cargo_free // ITEMS[item_id].size
        take = min(qty, room, asked if asked and asked > 0 else qty)
        if take <= 0:
            continue
        me.ship.add_cargo(item_id, take)
        wreck["items"][item_id] -= take
        if not wreck["items"][item_id]:
            del wreck["items"][item_id]
        taken[item_id] = take
    if not taken and wreck["items"]:
        raise errors.cargo_full()
    if not wreck["items"]:
        world.wrecks.remove(wreck)
    return {
        "action": "looted",
        "wreck_id": wreck["id"],
        "taken": taken,
        "left_in_wreck": dict(wreck["items"]),
        "cargo_free": me.ship.cargo_free,
    }


def salvage_wreck(world: WorldState, call: Call) -> dict[str, Any]:
    """Break a wreck here down for scrap (steel plates); it disappears."""
    me = call.me
    wreck = _wreck(world, me, call)
    plates = min(3, me.ship.cargo_free)
    if plates == 0:
        raise errors.cargo_full()
    me.ship.add_cargo("steel_plate", plates)
    world.wrecks.remove(wreck)
    return {"action": "salvaged", "wreck_id": wreck["id"], "salvaged": {"steel_plate": plates}}


HANDLERS = {
    "install_mod": install_mod,
    "uninstall_mod": uninstall_mod,
    "attack": attack,
    "scan": scan,
    "get_wrecks": get_wrecks,
    "loot_wreck": loot_wreck,
    "salvage_wreck": salvage_wreck,
}

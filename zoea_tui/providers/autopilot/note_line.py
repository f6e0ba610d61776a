"""The notes line an answer with calls carries (``Notes: ...``), as :mod:`.notes` reads it.

Written from the facts and the plays' own readings (the combat modules and hunting
ground, the trade's quotes); :mod:`.notes` only reads, so the context reader needs no play.
"""

from __future__ import annotations

from .combat import hunting_ground, modules
from .notes import PREFIX
from .orders import DEFAULT_ORDER, lifetime, order_note, same_order
from .plan import Decision, Planner
from .trade import notes_part


def noted_order(p: Planner) -> str:
    """The standing order my notes must carry ("" for none): the mission, when neither
    the Swarm Broadcast section nor the default would give it back once the
    commander's message has left my context (the trade notes its own)."""
    mission = p.c.mission
    if mission is DEFAULT_ORDER or p.intent == "trade" or same_order(mission, p.c.fallback):
        return ""
    return order_note(mission)


def noted_doing(p: Planner) -> str:
    """The order to carry out once that my notes must carry ("" for none): the order in
    force when it is one (a sale, a refuel), read from a commander message, until an
    action carries it out (its message may leave my context before that)."""
    order = p.c.order
    if lifetime(order.kind) != "once" or order.index < 0:
        return ""
    return order_note(order)


def write_notes(p: Planner, decision: Decision) -> str:
    """The notes line for an answer with calls ("" when there is nothing worth noting)."""
    f = p.f
    scenario = p.intent in ("combat", "missions", "trade")
    trip = any(name in ("travel", "jump") for name, _ in decision.calls)
    noted = noted_order(p)
    doing = noted_doing(p)
    if not (scenario or trip or noted or doing):
        return ""
    parts: list[str] = []
    if f.poi and f.system and f.docked is not None and not trip:
        parts.append(f"at {f.poi} in {f.system} ({'docked' if f.docked else 'undocked'})")
    elif f.system and not any(name == "jump" for name, _ in decision.calls):
        parts.append(f"system {f.system}")
    if f.cargo is not None:
        parts.append(
            "hold " + (", ".join(f"{k} {v}" for k, v in sorted(f.cargo.items())) or "empty")
        )
    if p.intent == "combat":
        fitted = modules(p)
        if fitted is not None:
            parts.append("modules " + ", ".join(fitted))
        ground = hunting_ground(p)
        if ground:
            parts.append(f"hunting ground {ground}")
    if p.intent == "trade":
        part = notes_part(p)
        if part:
            parts.append(part)
    belt = p.pick_belt(None)
    stations = p.stations()
    if belt is not None and stations:
        station = p.nearest(stations, belt)
        parts.append(f"mine at {belt.name} ({belt.id}), sell at {station.name} ({station.id})")
    if doing:
        parts.append(f'doing "{doing}"')
    if noted:
        parts.append(f'order "{noted}"')
    return f"{PREFIX} " + "; ".join(parts) + "." if parts else ""

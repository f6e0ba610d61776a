"""A pilot's own affairs: set_home_base, craft, send_gift and the notes (create_note,
write_note, read_note, get_notes).

Notes are queries, as on the real server; crafting happens at any station from cargo
first, then the station's storage (commander's guide: "Materials are pulled from cargo
first, then station storage"); a gift goes to the recipient's storage at this station,
credits to their wallet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, orderbook, params
from zoea_tui.sim.catalog import ITEMS, RECIPES, find_item
from zoea_tui.sim.commands.market import base_here, quantity_arg
from zoea_tui.sim.errors import GameError

if TYPE_CHECKING:
    from zoea_tui.sim.galaxy import Base
    from zoea_tui.sim.players import Player
    from zoea_tui.sim.world_state import Call, WorldState

NOTE_TITLE_MAX = 100
NOTE_CONTENT_MAX = 100_000
GIFT_MESSAGE_MAX = 500
CRAFT_MAX = 10


def docked_base(world: WorldState, me: Player) -> Base:
    """The base the player is docked at; the real `not_docked` refusal otherwise."""
    if not me.docked:
        raise errors.not_docked_here()
    return base_here(world, me)


def set_home_base(world: WorldState, call: Call) -> dict[str, Any]:
    """Docked: this station becomes where the pilot respawns."""
    me = call.me
    raw = params.text(call.args, "base_id").strip()
    base = docked_base(world, me)
    if raw not in (base.id, me.poi_id):
        raise GameError(
            "invalid_base",
            f"You can only set your home base where you are docked: {base.id} ({base.name}).",
        )
    me.home_base = base.id
    return {
        "action": "home_base_set",
        "base_id": base.id,
        "base": base.name,
        "message": f"{base.name} is now your home base: you respawn here if destroyed.",
    }


def craft(world: WorldState, call: Call) -> dict[str, Any]:
    """Docked: make a recipe `quantity` times (1-10) from cargo, then storage here."""
    me = call.me
    raw = params.text(call.args, "recipe_id").strip()
    recipe = RECIPES.get(raw.lower())
    if recipe is None:
        raise GameError(
            "invalid_recipe",
            f"Unknown recipe '{raw}'. catalog(type='recipes') lists the recipes: "
            f"{', '.join(RECIPES)}.",
        )
    times = params.integer(call.args, "quantity")
    times = 1 if times is None and "quantity" not in call.args else times
    if times is None or not 1 <= times <= CRAFT_MAX:
        raise errors.invalid_payload(f"quantity must be 1 to {CRAFT_MAX}.")
    base = docked_base(world, me)
    shelf = me.storage.get(base.id, {})
    for item_id, each in recipe.inputs:
        have = me.ship.cargo.get(item_id, 0) + shelf.get(item_id, 0)
        if have < each * times:
            raise GameError(
                "missing_materials",
                f"Missing materials: {recipe.name} x{times} needs {each * times} "
                f"{ITEMS[item_id].name}; you have {have} (cargo and storage here).",
            )
    made = recipe.output_quantity * times
    used = sum(ITEMS[i].size * min(me.ship.cargo.get(i, 0), q * times) for i, q in recipe.inputs)
    if me.ship.cargo_free + used < made * ITEMS[recipe.output].size:
        raise errors.cargo_full()
    for item_id, each in recipe.inputs:
        need = each * times
        from_cargo = min(me.ship.cargo.get(item_id, 0), need)
        me.ship.remove_cargo(item_id, from_cargo)
        if need > from_cargo:
            shelf[item_id] -= need - from_cargo
            if not shelf[item_id]:
                del shelf[item_id]
    me.ship.add_cargo(recipe.output, made)
    return {
        "action": "crafted",
        "recipe_id": recipe.id,
        "quantity": times,
        "output": {"item_id": recipe.output, "quantity": made},
        "cargo_used": me.ship.cargo_used,
        "message": f"Crafted {made} {ITEMS[recipe.output].name}.",
    }


def send_gift(world: WorldState, call: Call) -> dict[str, Any]:
    """Docked: items from cargo to another pilot's storage here, or credits to them."""
    me = call.me
    name = params.text(call.args, "recipient").strip()
    recipient = world.find_player(name)
    if recipient is None:
        raise GameError("player_not_found", f"No player named '{name}'.")
    if recipient is me:
        raise errors.invalid_payload("You cannot send a gift to yourself.")
    note = params.text(call.args, "message").strip()
    if len(note) > GIFT_MESSAGE_MAX:
        raise errors.invalid_payload(f"message is longer than {GIFT_MESSAGE_MAX} characters.")
    raw_item = params.text(call.args, "item_id").strip()
    credits = params.integer(call.args, "credits") or 0
    if not raw_item and credits <= 0:
        raise errors.invalid_payload("send item_id and quantity, or credits (above 0).")
    base = docked_base(world, me)
    sent: dict[str, Any] = {}
    if raw_item:
        item = find_item(raw_item)
        if item is None:
            raise errors.invalid_item(raw_item)
        quantity = quantity_arg(call)
        have = me.ship.cargo.get(item.id, 0)
        if have < quantity:
            raise GameError(
                "insufficient_items", f"You have {have} {item.name} in cargo, not {quantity}."
            )
        if credits > me.credits:
            raise errors.insufficient_credits(credits, me.credits, "send this gift")
        me.ship.remove_cargo(item.id, quantity)
        orderbook.store(recipient, base.id, item.id, quantity)
        sent["items"] = {item.id: quantity}
    if credits > 0:
        if credits > me.credits:
            raise errors.insufficient_credits(credits, me.credits, "send this gift")
        me.credits -= credits
        recipient.credits += credits
        sent["credits"] = credits
    what = ", ".join(
        [f"{q} {ITEMS[i].name}" for i, q in sent.get("items", {}).items()]
        + ([f"{credits} credits"] if credits > 0 else [])
    )
    world.notify(
        recipient,
        "trade",
        "gift_received",
        {"sender": me.username, "base_id": base.id, **sent, "note": note},
        message=f"{me.username} sent you {what} at {base.name}" + (f": {note}" if note else "."),
    )
    return {
        "action": "gift_sent",
        "recipient": recipient.username,
        "base_id": base.id,
        **sent,
        "credits_left": me.credits,
        "message": f"Sent {what} to {recipient.username} (their storage at {base.name}).",
    }


def _note(call: Call) -> dict[str, Any]:
    raw = params.text(call.args, "note_id").strip()
    for note in call.me.notes:
        if note["note_id"] == raw:
            return note
    raise GameError("note_not_found", f"No note '{raw}'. get_notes lists your notes.")


def _content(call: Call) -> str:
    content = params.text(call.args, "content")
    if len(content) > NOTE_CONTENT_MAX:
        raise errors.invalid_payload(f"content is longer than {NOTE_CONTENT_MAX:,} characters.")
    return content


def create_note(world: WorldState, call: Call) -> dict[str, Any]:
    """A new note with a title and content."""
    title = params.text(call.args, "title").strip()
    if not title or len(title) > NOTE_TITLE_MAX:
        raise errors.invalid_payload(f"title is required (up to {NOTE_TITLE_MAX} characters).")
    note = {
        "note_id": f"note_{world.next_id('note')}",
        "title": title,
        "content": _content(call),
        "created_tick": world.tick,
        "updated_tick": world.tick,
    }
    call.me.notes.append(note)
    return {"action": "note_created", "note_id": note["note_id"], "title": title}


def write_note(world: WorldState, call: Call) -> dict[str, Any]:
    """Replace a note's content."""
    note = _note(call)
    note["content"] = _content(call)
    note["updated_tick"] = world.tick
    return {"action": "note_written", "note_id": note["note_id"], "length": len(note["content"])}


def read_note(world: WorldState, call: Call) -> dict[str, Any]:
    """A note, whole."""
    return {"note": dict(_note(call))}


def get_notes(world: WorldState, call: Call) -> dict[str, Any]:
    """The pilot's notes, without their content."""
    notes = [
        {k: n[k] for k in ("note_id", "title", "created_tick", "updated_tick")}
        for n in call.me.notes
    ]
    return {"notes": notes, "count": len(notes)}


HANDLERS = {
    "set_home_base": set_home_base,
    "craft": craft,
    "send_gift": send_gift,
    "create_note": create_note,
    "write_note": write_note,
    "read_note": read_note,
    "get_notes": get_notes,
}

"""The autopilot's running notes: one line of text beside its tool calls.

A model says what it is doing while it calls tools ("Heading to Sol Central to sell; I
mine at Main Belt"), and that text stays with the calls in its history. The autopilot
does the same: an answer that sets out on a trip, or any answer under a scenario order,
carries a ``Notes:`` line with the durable facts a later turn needs (where it mines and
sells, where it is, its modules, its hunting ground). A strategy that keeps only the
latest tool loop of earlier turns (``turn-aware``, ``loop-slice``) keeps this line with
it, so the next turn need not ask the game again. Notes are read with the lowest
priority: any tool result in view beats them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .facts import Place

PREFIX = "Notes:"
_PLACE = re.compile(r"\b(mine|sell) at ([^,;()]+?) \(([A-Za-z0-9_\-]+)\)")
_WHERE = re.compile(r"\bat ([A-Za-z0-9_\-]+) in ([A-Za-z0-9_\-]+) \((docked|undocked)\)")
_MODULES = re.compile(r"\bmodules ([a-z0-9_, ]+?)(?:;|\.$)")
_SYSTEM = re.compile(r"\bsystem ([A-Za-z0-9_\-]+)")
_GROUND = re.compile(r"\bhunting ground ([A-Za-z0-9_\-]+)")
_QUOTES = re.compile(r"\bquotes bid/ask ([a-z0-9_]+ \d+/\d+(?:, [a-z0-9_]+ \d+/\d+)*)")
_ORDER = re.compile(r"\border trade for profit \((\d+) ticks\)")
#: My standing order in the commander's words (``orders.order_note``), always last.
_ORDER_TEXT = re.compile(r'(?:; )?\border "([^"]*)"\.?$')
#: An order to carry out once that I have not carried out yet (a sale, a refuel), in
#: the commander's words; just before the standing order.
_DOING = re.compile(r'(?:; )?\bdoing "([^"]*)"')
_HOLD = re.compile(r"\bhold (empty|[a-z0-9_]+ \d+(?:, [a-z0-9_]+ \d+)*)")


@dataclass(slots=True)
class Notes:
    """What the newest notes line in view says."""

    places: list[Place] = field(default_factory=list)
    where: tuple[str, str, bool] | None = None
    modules: list[str] | None = None
    ground: str | None = None
    system: str | None = None
    #: The hold when the notes were written (before that answer's calls ran).
    hold: dict[str, int] | None = None
    #: My standing order as I noted it: the commander's words, or the trade's own
    #: note ("order trade for profit (300 ticks)").
    order: str | None = None
    #: An order to carry out once, not carried out when the notes were written.
    doing: str | None = None
    #: The trading station's quotes, ``{item: (bid, ask)}``.
    quotes: dict[str, tuple[int, int]] | None = None
    #: Index of the message that carried the notes (-1: none).
    index: int = -1


def read_notes(messages: Sequence[dict[str, Any]]) -> Notes:
    """The newest ``Notes:`` line of my answers with tool calls."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        content = message.get("content")
        if (
            message.get("role") != "assistant"
            or not message.get("tool_calls")
            or not isinstance(content, str)
            or not content.startswith(PREFIX)
        ):
            continue
        notes = Notes(index=index)
        if noted := _ORDER_TEXT.search(content):
            notes.order = noted.group(1)
            content = content[: noted.start()] + "."
        if doing := _DOING.search(content):
            notes.doing = doing.group(1)
            content = content[: doing.start()] + content[doing.end() :]
        for role, name, poi_id in _PLACE.findall(content):
            notes.places.append(
                Place(poi_id, name.strip(), "asteroid_belt")
                if role == "mine"
                else Place(poi_id, name.strip(), "station", has_base=True)
            )
        if where := _WHERE.search(content):
            notes.where = (where.group(2), where.group(1), where.group(3) == "docked")
        if found := _MODULES.search(content):
            notes.modules = [m.strip() for m in found.group(1).split(",") if m.strip()]
        if system := _SYSTEM.search(content):
            notes.system = system.group(1)
        if hold := _HOLD.search(content):
            text = hold.group(1)
            notes.hold = (
                {}
                if text == "empty"
                else {
                    item: int(n) for item, n in (pair.rsplit(" ", 1) for pair in text.split(", "))
                }
            )
        if notes.order is None and (order := _ORDER.search(content)):
            notes.order = order.group(0)
        if quotes := _QUOTES.search(content):
            notes.quotes = {}
            for pair in quotes.group(1).split(", "):
                item, prices = pair.split(" ")
                bid, ask = prices.split("/")
                notes.quotes[item] = (int(bid), int(ask))
        if ground := _GROUND.search(content):
            notes.ground = ground.group(1)
        return notes
    return Notes()


#: How each tool's result changes the hold: (item key, quantity key, sign).
_HOLD_CHANGES = {
    "mine": ("resource_id", "quantity", 1),
    "sell": ("item_id", "quantity_sold", -1),
    "buy": ("item_id", "delivered_to_cargo", 1),
}


def hold_after(notes: Notes, results: Sequence[Any]) -> dict[str, int] | None:
    """The hold my notes saw, brought up to date by the results after them (None when
    a result changed it in a way they cannot follow)."""
    if notes.hold is None:
        return None
    hold = dict(notes.hold)
    for result in results:
        if result.index <= notes.index or result.error() is not None:
            continue
        if result.name in (
            "loot_wreck",
            "install_mod",
            "complete_mission",
            "jettison",
            "create_sell_order",
            "withdraw_items",
            "deposit_items",
        ):
            return None
        change = _HOLD_CHANGES.get(result.name)
        data = result.data() or {}
        if change is None or not data:
            continue
        item, quantity = data.get(change[0]), data.get(change[1])
        if isinstance(item, str) and isinstance(quantity, int):
            hold[item] = hold.get(item, 0) + change[2] * quantity
    return {k: v for k, v in hold.items() if v > 0}

"""The latest game state per account, and its compact projection for the prompt.

Every successful snapshot result (``get_status``, ``get_ship``, ``get_cargo``,
``get_system``, ``get_poi``, …) is kept per account with the tick it was seen
at. :meth:`GameStateCache.summary` projects a few fields of the newest ones
into a short text for the game-state message of each turn ("Location: Sol / Main Belt,
undocked (seen 3 ticks ago)"). The projection picks fields; it never copies a
result, so a 190 KB ``get_map`` cannot reach the prompt, and the text is cut
to :data:`MAX_SUMMARY_CHARS` whatever the server sends. A snapshot is kept with its
secrets masked (``core/redaction.py``): the sidebar that shows it never holds a password,
a session id or a token.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..core.redaction import mask_data

#: Tools whose results describe the current state (kept, latest one wins).
SNAPSHOT_TOOLS = frozenset(
    {
        "get_status",
        "get_ship",
        "get_cargo",
        "get_system",
        "get_poi",
        "get_nearby",
        "view_market",
        "get_notifications",
        "login",
        "register",
        "dock",
        "undock",
        "travel",
        "jump",
        "mine",
        "sell",
        "buy",
        "refuel",
        "repair",
    }
)
MAX_SUMMARY_CHARS = 900
_MAX_FIELD_CHARS = 120


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One cached result."""

    tool: str
    data: dict[str, Any]
    tick: int | None
    at: float


class GameStateCache:
    """Per-account snapshots of the newest results, and their projection."""

    def __init__(self) -> None:
        self._by_account: dict[str, dict[str, Snapshot]] = {}
        self._tick: dict[str, int] = {}

    def update(
        self,
        account: str,
        tool: str,
        data: dict[str, Any] | None,
        tick: int | None = None,
        *,
        at: float | None = None,
    ) -> None:
        """Record a successful result of ``tool`` for ``account`` (its secrets masked)."""
        if data is None or tool not in SNAPSHOT_TOOLS:
            if tick is not None:
                self._tick[account] = max(tick, self._tick.get(account, tick))
            return
        snapshots = self._by_account.setdefault(account, {})
        kept = mask_data(data)
        snapshots[tool] = Snapshot(tool, kept, tick, time.time() if at is None else at)
        if tick is not None:
            self._tick[account] = max(tick, self._tick.get(account, tick))

    def latest(self, account: str, tool: str) -> Snapshot | None:
        """The newest result of ``tool`` for ``account``."""
        return self._by_account.get(account, {}).get(tool)

    def snapshots(self, account: str) -> dict[str, Snapshot]:
        """Every cached result of the account, by tool (for the UI's sidebar)."""
        return dict(self._by_account.get(account, {}))

    def current_tick(self, account: str) -> int | None:
        """The newest tick seen in any result of the account."""
        return self._tick.get(account)

    def forget(self, account: str) -> None:
        """Drop an account's state (its Mysis was deleted)."""
        self._by_account.pop(account, None)
        self._tick.pop(account, None)

    def state(self, account: str) -> dict[str, Any]:
        """The merged fields the projection shows, each with the tick it was seen at."""
        fields: dict[str, tuple[Any, int | None]] = {}
        for snap in sorted(
            self._by_account.get(account, {}).values(), key=lambda s: (s.tick or 0, s.at)
        ):
            for key, value in _extract(snap.data).items():
                fields[key] = (value, snap.tick)
        return {k: {"value": v, "tick": t} for k, (v, t) in fields.items()}

    def summary(self, account: str | None, now_tick: int | None = None) -> str:
        """A compact text of the account's state, under :data:`MAX_SUMMARY_CHARS`."""
        if not account or account not in self._by_account:
            return ""
        now = now_tick if now_tick is not None else self._tick.get(account)
        fields = self.state(account)
        where = [fields[k] for k in ("system", "poi") if k in fields]
        if where:
            fields["location"] = {
                "value": " / ".join(str(w["value"]) for w in where),
                "tick": max((w["tick"] or 0 for w in where), default=0)
                if any(w["tick"] is not None for w in where)
                else None,
            }
        lines: list[str] = []
        for key, label in _LABELS:
            entry = fields.get(key)
            if entry is None:
                continue
            text = _clip(str(entry["value"]))
            lines.append(f"- {label}: {text}{_age(entry['tick'], now)}")
        if now is not None:
            lines.insert(0, f"- Game tick: {now}")
        text = "\n".join(lines)
        if len(text) > MAX_SUMMARY_CHARS:
            text = text[: MAX_SUMMARY_CHARS - 1].rsplit("\n", 1)[0] + "\n…"
        return text


_LABELS = (
    ("location", "Location"),
    ("docked", "Docked"),
    ("transit", "In transit"),
    ("credits", "Credits"),
    ("fuel", "Fuel"),
    ("hull", "Hull"),
    ("cargo", "Cargo"),
    ("cargo_items", "Hold"),
    ("next_action_tick", "Next action at tick"),
)


def _age(tick: int | None, now: int | None) -> str:
    if tick is None or now is None:
        return ""
    ago = now - tick
    if ago <= 0:
        return " (now)"
    return f" ({ago} tick{'s' if ago != 1 else ''} ago)"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_FIELD_CHARS else text[: _MAX_FIELD_CHARS - 1] + "…"


def _num(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _extract(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of one result the projection knows, wherever they sit in it."""
    out: dict[str, Any] = {}
    player: dict[str, Any] = data["player"] if isinstance(data.get("player"), dict) else {}
    ship: dict[str, Any] = data["ship"] if isinstance(data.get("ship"), dict) else {}
    if (credits := _num(player.get("credits", data.get("credits")))) is not None:
        out["credits"] = credits
    if system := player.get("current_system") or _name(data.get("system")):
        out["system"] = system
    if poi := player.get("current_poi") or _name(data.get("poi")):
        out["poi"] = poi
    if "docked_at_base" in player:
        out["docked"] = "yes" if player.get("docked_at_base") else "no"
    elif isinstance(data.get("docked"), bool):
        out["docked"] = "yes" if data["docked"] else "no"
    if player.get("in_transit") is False:
        out["transit"] = "no"
    if data.get("action") in ("travel", "jump") and data.get("arrived"):
        if destination := data.get("destination_id") or data.get("destination"):
            out["poi"] = destination
        out["docked"] = "no"
    fuel, max_fuel = _num(ship.get("fuel", data.get("fuel"))), _num(ship.get("max_fuel"))
    if fuel is None and (remaining := _num(data.get("fuel_remaining"))) is not None:
        fuel = remaining
    if fuel is not None:
        out["fuel"] = f"{fuel}/{max_fuel}" if max_fuel is not None else fuel
    hull, max_hull = _num(ship.get("hull")), _num(ship.get("max_hull"))
    if hull is not None:
        out["hull"] = f"{hull}/{max_hull}" if max_hull is not None else hull
    used = _num(ship.get("cargo_used", data.get("used")))
    capacity = _num(ship.get("cargo_capacity", data.get("capacity")))
    if used is not None and capacity is not None:
        out["cargo"] = f"{used}/{capacity}"
    cargo = ship.get("cargo", data.get("cargo"))
    if isinstance(cargo, list):
        items = [
            f"{c.get('item_id') or c.get('name')} x{c.get('quantity')}"
            for c in cargo[:6]
            if isinstance(c, dict)
        ]
        out["cargo_items"] = ", ".join(items) if items else "empty"
    if (tick := _num(data.get("next_action_tick"))) is not None:
        out["next_action_tick"] = tick
    return out


def _name(value: Any) -> str | None:
    if isinstance(value, dict):
        return value.get("id") or value.get("name")
    return value if isinstance(value, str) else None

"""What the swarm did, read from the running app's own SQLite file (read-only), and the
two rules the first-five-minutes walk holds it to:

- :func:`frozen_stretches`: a Mysis whose standing order is work (not ``hold``, not a
  ``goto`` it waits at) makes a tool call at least every 60 s of game time (60 ticks of
  the embedded world);
- :func:`hold_breaks`: a Mysis that acknowledged a ``hold`` makes no game action (a
  command that costs a tick, ``ToolSpec.mutation``) until a newer standing order.

Which orders stand, and which are carried out once, is read from
``providers/autopilot/orders.py`` (``parse_order``, ``lifetime``), where the app writes it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zoea_tui.config.model import GameConfig
from zoea_tui.core.game_tool import effective
from zoea_tui.providers.autopilot.orders import OrderKind, lifetime, parse_order
from zoea_tui.sim.tools import TOOLS_BY_NAME

#: Game time a working Mysis may go without a tool call.
FROZEN_SECONDS = 60.0
#: Standing orders under which a Mysis rightly makes no call: a hold, and a destination
#: it reached and waits at ("Arrived at the ordered destination …: holding there").
RESTING: frozenset[OrderKind] = frozenset({"hold", "goto"})


@dataclass(frozen=True, slots=True)
class Event:
    """One memory of a Mysis, as much of it as the rules read."""

    id: int
    mysis: int
    role: str
    source: str
    content: str
    tick: int | None
    at: float
    calls: tuple[tuple[str, str], ...] = ()

    @property
    def order(self) -> OrderKind | None:
        """The commander's order this memory carries, if it is one."""
        if self.role != "user" or self.source not in ("direct", "broadcast"):
            return None
        order = parse_order(self.content)
        return None if order is None else order.kind

    @property
    def answer(self) -> bool:
        """A text answer (no tool call)."""
        return self.role == "assistant" and bool(self.content.strip()) and not self.calls

    @property
    def actions(self) -> list[str]:
        """The game actions among its calls (commands that cost a tick)."""
        return [n for n, _ in self.calls if (s := TOOLS_BY_NAME.get(n)) and s.mutation]


@dataclass
class Timeline:
    """A Mysis's events, oldest first, and the standing order it started under."""

    name: str
    events: list[Event] = field(default_factory=list)
    initial: OrderKind = "mine"


def _calls(raw: str | None) -> tuple[tuple[str, str], ...]:
    if not raw:
        return ()
    out = []
    for call in json.loads(raw):
        out.append(effective(str(call.get("name", "")), str(call.get("arguments") or "")))
    return tuple(out)


class SwarmStore:
    """The app's database, opened read-only for each look (the app keeps writing)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _rows(self, sql: str, args: Sequence[object] = ()) -> list[tuple[object, ...]]:
        db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10)
        try:
            return list(db.execute(sql, args))
        finally:
            db.close()

    def myses(self) -> dict[str, int]:
        """Every Mysis's id by name."""
        return {str(n): int(str(i)) for i, n in self._rows("SELECT id, name FROM myses")}

    def newest_memory(self) -> int:
        """The newest memory's id (0: none)."""
        return int(str(self._rows("SELECT coalesce(max(id), 0) FROM memories")[0][0]))

    def newest_request(self, mysis_id: int) -> int | None:
        """The id of the Mysis's newest logged request."""
        row = self._rows("SELECT max(id) FROM requests WHERE mysis_id = ?", (mysis_id,))[0]
        return None if row[0] is None else int(str(row[0]))

    def turn_kind(self, mysis_id: int, memory_id: int) -> str | None:
        """What began the turn that holds memory ``memory_id`` (``nudge``, ``broadcast`` …)."""
        rows = self._rows(
            "SELECT kind FROM turns WHERE mysis_id = ? AND first_memory_id <= ?"
            " ORDER BY first_memory_id DESC, id DESC LIMIT 1",
            (mysis_id, memory_id),
        )
        return str(rows[0][0]) if rows else None

    def events(self, mysis_id: int, after: int = 0) -> list[Event]:
        """The Mysis's memories after id ``after``, oldest first."""
        rows = self._rows(
            "SELECT id, role, source, content, game_tick, created_at, tool_calls FROM memories"
            " WHERE mysis_id = ? AND id > ? ORDER BY id",
            (mysis_id, after),
        )
        return [
            Event(
                int(str(i)),
                mysis_id,
                str(r),
                str(s),
                str(c),
                None if t is None else int(str(t)),
                float(str(a)),
                _calls(None if k is None else str(k)),
            )
            for i, r, s, c, t, a, k in rows
        ]

    def timeline(self, name: str) -> Timeline:
        """A Mysis's whole story, and the swarm's standing order when it began (the
        latest standing broadcast before its first memory)."""
        mysis_id = self.myses()[name]
        events = self.events(mysis_id)
        initial: OrderKind = "mine"
        if events:
            for (content,) in self._rows(
                "SELECT content FROM broadcasts WHERE created_at < ? ORDER BY id",
                (events[0].at,),
            ):
                order = parse_order(str(content))
                if order is not None and lifetime(order.kind) == "standing":
                    initial = order.kind
        return Timeline(name, events, initial)

    def texts(self, after: int = 0) -> Iterable[str]:
        """Every stored text after memory ``after``: what the app may print of its story."""
        for row in self._rows(
            "SELECT content, reasoning, coalesce(tool_calls, '') FROM memories WHERE id > ?",
            (after,),
        ):
            yield from (str(v) for v in row)
        for (content,) in self._rows("SELECT content FROM broadcasts"):
            yield str(content)
        for row in self._rows("SELECT name, coalesce(account, '') FROM myses"):
            yield from (str(v) for v in row)


def frozen_stretches(
    line: Timeline, now: float | None, *, breaks: Sequence[float] = ()
) -> list[str]:
    """The stretches over :data:`FROZEN_SECONDS` in which ``line``'s Mysis, under a
    working standing order, made no tool call.

    Measured on the store's clock (``created_at``): the embedded world ticks once every
    ``[game] tick_seconds`` (1 s by default), so this is as many ticks. A memory's
    ``game_tick`` is the tick its Mysis last saw, stale while it makes no call, so it
    cannot measure a stretch without calls. ``now`` (a wall time) closes the last
    stretch (None: only stretches between calls count); a stretch across one of
    ``breaks`` (wall times the app was quit and started again) is not one.
    """
    limit = FROZEN_SECONDS * GameConfig().tick_seconds
    standing = line.initial
    since: Event | None = None
    found = []

    def close(end: float, what: str) -> None:
        if since is None or standing in RESTING:
            return
        if any(since.at < b <= end for b in breaks):
            return
        if end - since.at > limit:
            found.append(
                f"{line.name}: no tool call for {end - since.at:.0f}s, from memory #{since.id}"
                f" (T{since.tick}) to {what}, under the standing order {standing!r}"
            )

    for event in line.events:
        kind = event.order
        if kind is not None and lifetime(kind) == "standing":
            close(event.at, f"the order {event.content!r} (memory #{event.id})")
            standing = kind
            since = event
        elif event.calls:
            close(event.at, f"the call of memory #{event.id} (T{event.tick})")
            since = event
    if now is not None:
        close(now, "now")
    return found


def hold_breaks(line: Timeline) -> list[str]:
    """The game actions ``line``'s Mysis took after it acknowledged a hold (its first
    text answer after the order) and before a newer standing order."""
    found = []
    holding = acknowledged = False
    for event in line.events:
        kind = event.order
        if kind is not None and lifetime(kind) == "standing":
            holding, acknowledged = kind == "hold", False
        elif holding and not acknowledged and event.answer:
            acknowledged = True
        elif holding and acknowledged and event.actions:
            found.append(
                f"{line.name} broke its hold at T{event.tick}: {', '.join(event.actions)}"
                f" (memory #{event.id})"
            )
    return found

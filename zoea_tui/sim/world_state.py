"""What a command and the world's rules see of the world: `WorldState`, `Call`, `Handler`.

The commands (`sim/commands/`) and the rules that act on the world (`orderbook.py`,
`pirates.py`, `views.py`, `stats.py`) type against this protocol, never against
`sim/engine.py`'s `World`, so the engine can import them without a circle; the engine
receives its registry of handlers (`World(handlers=...)`, by default
`sim.commands.HANDLERS`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from zoea_tui.sim.galaxy import Galaxy
from zoea_tui.sim.players import Player
from zoea_tui.sim.profiles import WorldProfile


@dataclass
class Call:
    """One command being handled: the caller's key, its arguments and its player."""

    key: str | None
    args: dict[str, Any]
    player: Player | None = None
    session_id: str | None = None

    @property
    def me(self) -> Player:
        """The authenticated player (only for tools that require a login)."""
        assert self.player is not None
        return self.player


class WorldState(Protocol):
    """The world's state and helpers as a command handler uses them (`engine.World` is one)."""

    profile: WorldProfile
    starting_credits: int | None
    rng: random.Random
    galaxy: Galaxy
    tick: int
    players: dict[str, Player]
    chat_log: list[dict[str, Any]]
    orders: list[dict[str, Any]]
    wrecks: list[dict[str, Any]]
    forum: list[dict[str, Any]]
    pirates: dict[str, dict[str, Any]]
    factions: dict[str, dict[str, Any]]
    fleets: dict[str, dict[str, Any]]

    @property
    def current_tick(self) -> int:
        """The world clock, in ticks."""
        ...

    def start_session(self, key: str | None, player: Player) -> str:
        """Log `player` in for `key`: a new session id."""
        ...

    def end_session(self, session_id: str, key: str | None) -> None:
        """Log out: end the session and forget the key's binding to it."""
        ...

    def is_online(self, player: Player) -> bool:
        """Whether the player has a live login."""
        ...

    def new_hex(self, bits: int) -> str:
        """A random lowercase hex string of `bits` bits, from the world's RNG."""
        ...

    def new_secret(self, bits: int) -> str:
        """A password or session id of `bits` bits (unguessable when served)."""
        ...

    def next_id(self, counter: str) -> int:
        """The next number of a monotonic counter."""
        ...

    def find_player(self, query: str) -> Player | None:
        """The player with this id or username."""
        ...

    def players_at(self, poi_id: str, exclude: Player | None = None) -> list[Player]:
        """Pilots present (not in transit) at a POI."""
        ...

    def notify(
        self, player: Player, kind: str, msg_type: str, data: dict[str, Any], *, message: str
    ) -> None:
        """Queue an event for a player; `message` is the event in one line."""
        ...


Handler = Callable[[WorldState, Call], dict[str, Any]]
"""A command: the world and the call in, the JSON-ready result out."""

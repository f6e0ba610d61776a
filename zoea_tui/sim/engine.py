"""The embedded SpaceMolt-like world: a pure, seeded, deterministic engine.

`World.call(session_key, tool, args)` is the single entry point. The engine only counts
ticks (`World.advance`); how long a tick lasts is the caller's business. All randomness
comes from one `random.Random(seed)`, so the same seed and the same calls give the same
results, and `to_dict()`/`from_dict()` capture everything needed to continue identically.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any

from zoea_tui.sim import errors, missions, orderbook, params, pirates, rules
from zoea_tui.sim.catalog import ITEMS
from zoea_tui.sim.commands import HANDLERS
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.forum import forum_seed
from zoea_tui.sim.galaxy import Galaxy
from zoea_tui.sim.generation import add_equipment, generate_galaxy
from zoea_tui.sim.players import Player
from zoea_tui.sim.profiles import CLASSIC, WorldProfile, profile
from zoea_tui.sim.tools import GUIDE_TOOLS, TOOL_SPECS, TOOLS_BY_NAME, ToolSpec
from zoea_tui.sim.views import transit_view
from zoea_tui.sim.world_state import Call, Handler

__all__ = ["STATE_VERSION", "Call", "Handler", "World"]

STATE_VERSION = 1
_COUNTERS = {
    **dict.fromkeys(("notification", "chat", "order", "wreck", "thread", "post"), 0),
    **dict.fromkeys(("battle", "note", "faction", "fleet", "policy", "commission"), 0),
}


class World:
    """The whole game state and its rules.

    Args:
        seed: seeds the galaxy layout and every later random draw.
        starting_credits: credits for new pilots; None uses the profile's, else each
            empire's real amount.
        session_timeout_ticks: end a login idle for more than this many ticks; None never.
        world: the profile (``zoea_tui.sim.profiles``): ``classic``, the app's world, or
            ``smbench``, the world calibrated against SMBench's published runs.
        handlers: the registry of commands, tool name to handler; None is
            ``sim.commands.HANDLERS``, every tool of the catalogue.
        secret: makes passwords and session ids: given a number of bytes, that many
            unguessable bytes as hex (``secrets.token_hex``, which ``zoea sim serve``
            passes; a module-level function, as the world is pickled to be saved). None:
            the seeded generator's, for a world no one else reaches (the app's, the
            arena's), reproducible to the last character.
    """

    def __init__(
        self,
        seed: int = 0,
        *,
        starting_credits: int | None = None,
        session_timeout_ticks: int | None = None,
        world: str = "classic",
        handlers: Mapping[str, Handler] | None = None,
        secret: Callable[[int], str] | None = None,
    ) -> None:
        self.handlers: Mapping[str, Handler] = HANDLERS if handlers is None else handlers
        self.secret = secret
        self.seed = seed
        self.profile: WorldProfile = profile(world)
        self.starting_credits = (
            starting_credits if starting_credits is not None else self.profile.starting_credits
        )
        self.session_timeout_ticks = session_timeout_ticks
        self.rng = random.Random(seed)
        self.galaxy: Galaxy = generate_galaxy(self.rng, self.profile)
        self.tick = 1
        self.players: dict[str, Player] = {}
        self.chat_log: list[dict[str, Any]] = []
        self._sessions: dict[str, dict[str, Any]] = {}
        self._active: dict[str, str] = {}
        self._bindings: dict[str, str] = {}
        self._counters: dict[str, int] = dict(_COUNTERS)
        self.orders: list[dict[str, Any]] = []
        self.wrecks: list[dict[str, Any]] = []
        self.forum: list[dict[str, Any]] = forum_seed()
        self.pirates: dict[str, dict[str, Any]] = pirates.spawn_all(self.galaxy, self.profile)
        self.factions: dict[str, dict[str, Any]] = {}
        self.fleets: dict[str, dict[str, Any]] = {}

    def renewed(self, seed: int | None = None) -> World:
        """A new world made as this one was: its settings, its registry, this seed or
        ``seed``."""
        return World(
            self.seed if seed is None else seed,
            starting_credits=self.starting_credits,
            session_timeout_ticks=self.session_timeout_ticks,
            world=self.profile.name,
            handlers=self.handlers,
            secret=self.secret,
        )

    @property
    def current_tick(self) -> int:
        """The world clock, in ticks."""
        return self.tick

    def call(
        self, session_key: str | None, tool: str, args: dict[str, Any] | str | None = None
    ) -> dict[str, Any]:
        """Run one tool for the caller identified by `session_key`.

        `args` is the arguments object (a JSON text of one is parsed). Returns the
        JSON-ready result, always with `current_tick`; raises `GameError` for every
        game-level refusal, with the real server's codes and texts.
        """
        spec = TOOLS_BY_NAME.get(tool)
        if spec is None:
            raise errors.unknown_command(tool)
        arguments = self._arguments(args)
        session_id = arguments.pop("session_id", None)
        if spec.strict:
            self._check_required(spec, arguments)
        call = Call(key=session_key, args=arguments)
        if spec.auth:
            call.session_id, call.player = self._authenticate(session_key, session_id)
            self._check_timing(spec, call.player)
        result = self.handlers[tool](self, call)
        if spec.mutation and call.player is not None:
            call.player.busy_until = max(call.player.busy_until, self.tick + 1)
        result["current_tick"] = self.tick
        return result

    @staticmethod
    def tool_specs(*, full: bool = True) -> list[dict[str, Any]]:
        """The catalogue an MCP facade lists: `[{name, description, input_schema}]`;
        without the commands only commander's guide needs (`GUIDE_TOOLS`) unless `full`."""
        return [spec.to_dict() for spec in TOOL_SPECS if full or spec.name not in GUIDE_TOOLS]

    @staticmethod
    def _arguments(args: object) -> dict[str, Any]:
        if args is None:
            return {}
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                raise errors.invalid_json() from None
        if not isinstance(args, dict):
            raise errors.invalid_json()
        return dict(args)

    @staticmethod
    def _check_required(spec: ToolSpec, args: dict[str, Any]) -> None:
        known = set(spec.properties)
        for name in spec.required:
            if args.get(name) in (None, ""):
                unknown = [k for k in args if k not in known]
                if unknown:
                    raise errors.unknown_parameters(unknown, name, spec.example)
                if name not in args:
                    raise errors.missing_parameter(name, spec.example)

    def _check_timing(self, spec: ToolSpec, player: Player) -> None:
        transit = player.transit
        if transit is not None and (spec.mutation or spec.needs_position):
            view = transit_view(self.galaxy, transit, self.tick)
            raise GameError(
                "in_transit",
                f"You are in transit to {view['destination']}; arrival at tick "
                f"{transit.arrival_tick} ({view['ticks_remaining']} tick(s) from now). "
                "Wait until then and try again.",
                arrival_tick=transit.arrival_tick,
                ticks_remaining=view["ticks_remaining"],
            )
        if spec.mutation and self.tick < player.busy_until:
            wait = player.busy_until - self.tick
            raise GameError(
                "action_pending",
                f"You already acted this tick; one action per tick. Your next action can "
                f"run at tick {player.busy_until} ({wait} tick(s) from now).",
                wait_ticks=wait,
                ready_tick=player.busy_until,
            )

    def _authenticate(self, key: str | None, session_id: object) -> tuple[str, Player]:
        if isinstance(session_id, str) and session_id:
            sid = session_id
        elif key is not None and key in self._bindings:
            sid = self._bindings[key]
        else:
            raise errors.not_authenticated()
        session = self._session(key, sid)
        if session is None:
            raise errors.session_invalid()
        timeout = self.session_timeout_ticks
        if timeout is not None and self.tick - session["last_tick"] > timeout:
            self._end_session(sid)
            raise errors.session_invalid()
        session["last_tick"] = self.tick
        return sid, self.players[session["username"]]

    def player_for(self, key: str | None, session_id: object = None) -> Player | None:
        """The player a call from `key` (or naming `session_id`) would act as, if any.

        A lookup only: unlike a call it neither renews nor ends the session.
        """
        if isinstance(session_id, str) and session_id:
            sid: str | None = session_id
        else:
            sid = self._bindings.get(key) if key is not None else None
        session = self._session(key, sid) if sid is not None else None
        return self.players.get(session["username"]) if session is not None else None

    def _session(self, key: str | None, sid: str) -> dict[str, Any] | None:
        """The login ``sid``, if the connection ``key`` made it. A session id is bound to
        the connection (MCP session, HTTP API session) that logged in: another one
        presenting it is answered as if it did not exist (``session_invalid``), so an id
        seen in a log or a transcript lets nobody else act as that player."""
        session = self._sessions.get(sid)
        if session is None or session.get("key") != key:
            return None
        return session

    def start_session(self, key: str | None, player: Player) -> str:
        """Log `player` in for `key`: a new session id, ending the player's older login."""
        if key is not None and key in self._bindings:
            self._end_session(self._bindings[key])
        old = self._active.get(player.username)
        if old is not None:
            self._end_session(old)
        sid = self.new_secret(128)
        self._sessions[sid] = {"username": player.username, "last_tick": self.tick, "key": key}
        self._active[player.username] = sid
        if key is not None:
            self._bindings[key] = sid
        return sid

    def end_session(self, session_id: str, key: str | None) -> None:
        """Log out: end the session and forget the key's binding to it."""
        self._end_session(session_id)
        if key is not None and self._bindings.get(key) == session_id:
            del self._bindings[key]

    def _end_session(self, sid: str) -> None:
        session = self._sessions.pop(sid, None)
        if session is not None and self._active.get(session["username"]) == sid:
            del self._active[session["username"]]

    def is_online(self, player: Player) -> bool:
        """Whether the player has a live login."""
        return player.username in self._active

    def new_hex(self, bits: int) -> str:
        """A random lowercase hex string of `bits` bits, from the world's RNG."""
        return f"{self.rng.getrandbits(bits):0{bits // 4}x}"

    def new_secret(self, bits: int) -> str:
        """A password or session id of `bits` bits: from `secret` when the world has one.

        The seeded generator draws its `bits` all the same, so every later draw (a
        ship's id, a pirate's damage) is what it was: the world's play stays the same
        whoever makes its secrets, and games recorded before stay reproducible.
        """
        drawn = self.new_hex(bits)
        return self.secret(bits // 8) if self.secret is not None else drawn

    def next_id(self, counter: str) -> int:
        """The next number of a monotonic counter (`notification`, `chat`)."""
        self._counters[counter] += 1
        return self._counters[counter]

    def find_player(self, query: str) -> Player | None:
        """The player with this id or username (usernames case-insensitive)."""
        return params.find_by_id_or_name(self.players, query, lambda p: (p.id, p.username))

    def players_at(self, poi_id: str, exclude: Player | None = None) -> list[Player]:
        """Pilots present (not in transit) at a POI."""
        return [
            p
            for p in self.players.values()
            if p.poi_id == poi_id and p.transit is None and p is not exclude
        ]

    def notify(
        self, player: Player, kind: str, msg_type: str, data: dict[str, Any], *, message: str
    ) -> None:
        """Queue an event for a player (at most `NOTIFICATION_CAP`, oldest dropped).

        `message` is the event in one line, sent as `data.message`: what SpaceMolt's own
        client shows its model of a system, combat or trade event (else the raw JSON).
        """
        player.notifications.append(
            {
                "id": f"ntf_{self.next_id('notification')}",
                "type": kind,
                "msg_type": msg_type,
                "tick": self.tick,
                "data": {**data, "message": message},
            }
        )
        del player.notifications[: -rules.NOTIFICATION_CAP]

    def advance(self, ticks: int = 1) -> int:
        """Move the clock `ticks` forward: arrivals land, deposits regenerate."""
        if ticks < 0:
            raise ValueError("ticks must be >= 0")
        for _ in range(ticks):
            self.tick += 1
            for player in self.players.values():
                if player.transit is not None and player.transit.arrival_tick <= self.tick:
                    self._arrive(player)
            if self.tick % rules.REGEN_INTERVAL_TICKS == 0:
                self._regenerate()
            if self.tick % self.profile.npc_flow_every == 0:
                orderbook.npc_flow(self)
            pirates.on_tick(self)
        return self.tick

    def _arrive(self, player: Player) -> None:
        transit = player.transit
        assert transit is not None
        player.transit = None
        player.system_id = transit.to_system
        player.poi_id = transit.to_poi
        player.docked = False
        poi = self.galaxy.pois[transit.to_poi]
        system = self.galaxy.systems[transit.to_system]
        if transit.kind == "jump" and system.id not in player.visited:
            player.visited.append(system.id)
            player.stats["systems_visited"] += 1
            player.stats["systems_explored"] += 1
        missions.on_arrival(player, poi.id, system.id)
        self.notify(
            player,
            "system",
            "arrived",
            {
                "kind": transit.kind,
                "poi_id": poi.id,
                "poi_name": poi.name,
                "system_id": system.id,
                "system_name": system.name,
            },
            message=f"Arrived at {poi.name} ({system.name}).",
        )
        for other in self.players_at(poi.id, exclude=player):
            self.notify(
                other,
                "system",
                "poi_arrival",
                {
                    "username": player.username,
                    "poi_id": poi.id,
                    "poi_name": poi.name,
                },
                message=f"{player.username} arrived at {poi.name}.",
            )

    def _regenerate(self) -> None:
        for poi in self.galaxy.pois.values():
            for deposit in poi.deposits:
                if deposit.remaining < deposit.max_remaining:
                    deposit.remaining = min(
                        deposit.max_remaining,
                        deposit.remaining + rules.regen_amount(deposit.max_remaining),
                    )

    def score(self) -> dict[str, Any]:
        """Progress for benchmarks: per player and world totals.

        A player's `score` is the credits earned by selling; `ore_sold`, `ore_mined`,
        net worth (credits plus cargo at base value) and the rest come alongside.
        """
        players = {}
        for p in self.players.values():
            cargo_value = sum(ITEMS[i].base_price * q for i, q in p.ship.cargo.items())
            players[p.username] = {
                "score": p.stats["credits_earned"],
                "credits": p.credits,
                "net_worth": p.credits + cargo_value,
                **p.stats,
            }
        keys = (
            "score",
            "credits_earned",
            "credits_spent",
            "ore_mined",
            "ore_sold",
            "trades_completed",
            "systems_visited",
        )
        total = {k: sum(row[k] for row in players.values()) for k in keys}
        total["players"] = len(players)
        return {"tick": self.tick, "players": players, "total": total}

    def to_dict(self) -> dict[str, Any]:
        """The complete state as JSON-ready data (galaxy, players, sessions, RNG, clock)."""
        version, internal, gauss = self.rng.getstate()
        return {
            "version": STATE_VERSION,
            "seed": self.seed,
            "config": {
                "world": self.profile.name,
                "starting_credits": self.starting_credits,
                "session_timeout_ticks": self.session_timeout_ticks,
            },
            "tick": self.tick,
            "rng": [version, list(internal), gauss],
            "galaxy": self.galaxy.to_dict(),
            "players": [p.to_dict() for p in self.players.values()],
            "chat_log": [dict(m) for m in self.chat_log],
            "sessions": {sid: dict(s) for sid, s in self._sessions.items()},
            "active": dict(self._active),
            "bindings": dict(self._bindings),
            "counters": dict(self._counters),
            "orders": [dict(o) for o in self.orders],
            "wrecks": json.loads(json.dumps(self.wrecks)),
            "forum": json.loads(json.dumps(self.forum)),
            "pirates": json.loads(json.dumps(self.pirates)),
            "factions": json.loads(json.dumps(self.factions)),
            "fleets": json.loads(json.dumps(self.fleets)),
        }

    @classmethod
    def from_dict(
        cls,
        data: dict[str, Any],
        *,
        handlers: Mapping[str, Handler] | None = None,
        secret: Callable[[int], str] | None = None,
    ) -> World:
        """Restore a world saved with `to_dict()`; it continues exactly as the original
        (`secret`: as in the constructor)."""
        if data.get("version") != STATE_VERSION:
            raise ValueError(f"unsupported world state version: {data.get('version')!r}")
        world = cls.__new__(cls)
        world.handlers = HANDLERS if handlers is None else handlers
        world.secret = secret
        world.seed = data["seed"]
        world.profile = profile(data["config"].get("world", CLASSIC.name))
        world.starting_credits = data["config"]["starting_credits"]
        world.session_timeout_ticks = data["config"]["session_timeout_ticks"]
        world.rng = random.Random(world.seed)  # its state is set from the save just below
        version, internal, gauss = data["rng"]
        world.rng.setstate((version, tuple(internal), gauss))
        world.galaxy = Galaxy.from_dict(data["galaxy"])
        world.tick = data["tick"]
        world.players = {p["username"]: Player.from_dict(p) for p in data["players"]}
        world.chat_log = [dict(m) for m in data["chat_log"]]
        world._sessions = {sid: dict(s) for sid, s in data["sessions"].items()}
        world._active = dict(data["active"])
        world._bindings = dict(data["bindings"])
        for key, sid in world._bindings.items():  # saved before sessions kept their key
            if sid in world._sessions:
                world._sessions[sid].setdefault("key", key)
        world._counters = {**_COUNTERS, **data["counters"]}
        add_equipment(world.galaxy, world.profile)  # worlds saved before modules existed
        world.orders = [dict(o) for o in data.get("orders", [])]
        world.wrecks = json.loads(json.dumps(data.get("wrecks", [])))
        world.forum = json.loads(json.dumps(data.get("forum", forum_seed())))
        saved = data.get("pirates")
        world.pirates = (
            json.loads(json.dumps(saved))
            if saved is not None
            else pirates.spawn_all(world.galaxy, world.profile)
        )
        world.factions = json.loads(json.dumps(data.get("factions", {})))
        world.fleets = json.loads(json.dumps(data.get("fleets", {})))
        return world

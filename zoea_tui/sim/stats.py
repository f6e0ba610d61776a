"""A player's statistics as SMBench's scoring reads them: one pure function for the arena.

Interface (stable; the arena scorer depends on it)::

    from zoea_tui.sim.stats import PlayerStats, player_stats

    stats = player_stats(world, "Ada")      # a player id or username; KeyError if unknown
    stats.credits_earned, stats.systems_explored, stats.pirates_destroyed, ...
    stats.to_dict()                          # the same fields as a JSON-ready dict

`player_stats(world, player)` reads the world and never changes it (same world, same
answer). Every counter starts at 0 when the account is registered and only grows.
The same counters are in the game itself: `get_status` → `player.stats` and
`get_player_stats` (a query tool), so a model sees what it is scored on.

Fields of `PlayerStats`:

- identity and wallet: `player_id`, `username`, `tick` (the world clock when read),
  `credits` (now; SMBench's `final_credits`), `credits_earned` (every credit received,
  gross: station sales, filled sell orders, mission rewards, pirate bounties),
  `credits_spent` (every credit paid: station buys, filled buy orders, fuel, repairs,
  ships); so `credits` = starting credits + `credits_earned` - `credits_spent` - the
  credits held in escrow by resting buy orders, the books SMBench's server keeps (in every
  published run, final credits = 100 + credits_earned - credits_spent);
- mining and trade: `ore_mined`, `ore_sold` (units), `trades_completed` (station buys and
  sells, plus order fills), `orders_created`, `orders_filled` (fills of the player's
  standing exchange orders);
- exploration: `systems_explored` (distinct systems reached by jump, the start system
  excluded), `systems_visited` (distinct systems seen, the start system included);
- combat: `pirates_engaged` (distinct pirates attacked; a pirate back after being
  destroyed is a new one, so it is never below `pirates_destroyed`), `pirates_destroyed`,
  `ships_lost`, `damage_dealt`, `damage_taken`, `bounties_earned` (credits),
  `weapons_installed`, `defenses_installed` (modules fitted now);
- missions: `missions_accepted`, `missions_completed`, `missions_abandoned`,
  `missions_active` (now);
- social: `chat_messages` (sent, all channels), `chat_by_channel` (`{channel: n}`),
  `messages_received` (chat messages others sent to this player, including private),
  `captains_log_entries` (added), `forum_threads`, `forum_replies` (posted),
  `forum_replies_received` (replies by others in the player's threads), `status_set`
  and `colors_set` (whether `set_status` / `set_colors` were ever used),
  `status_message`, `primary_color`, `secondary_color`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from zoea_tui.sim.catalog import module_def
from zoea_tui.sim.players import COUNTERS as COUNTERS  # re-exported: its home before
from zoea_tui.sim.players import new_counters

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import WorldState


@dataclass(frozen=True)
class PlayerStats:
    """What SMBench's scoring reads about one player (see the module docstring)."""

    player_id: str
    username: str
    tick: int
    credits: int
    credits_earned: int
    credits_spent: int
    ore_mined: int
    ore_sold: int
    trades_completed: int
    orders_created: int
    orders_filled: int
    systems_explored: int
    systems_visited: int
    pirates_engaged: int
    pirates_destroyed: int
    ships_lost: int
    damage_dealt: int
    damage_taken: int
    bounties_earned: int
    weapons_installed: int
    defenses_installed: int
    missions_accepted: int
    missions_completed: int
    missions_abandoned: int
    missions_active: int
    chat_messages: int
    messages_received: int
    captains_log_entries: int
    forum_threads: int
    forum_replies: int
    forum_replies_received: int
    status_set: bool
    colors_set: bool
    status_message: str
    primary_color: str
    secondary_color: str
    chat_by_channel: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """All fields as a JSON-ready dict."""
        return asdict(self)


def player_stats(world: WorldState, player: str) -> PlayerStats:
    """The statistics of the player with this id or username; `KeyError` if none."""
    found = world.find_player(player)
    if found is None:
        raise KeyError(player)
    counters = {**new_counters(), **found.stats}
    fitted = [module_def(m) for m in found.ship.modules]
    return PlayerStats(
        player_id=found.id,
        username=found.username,
        tick=world.current_tick,
        credits=found.credits,
        credits_earned=counters["credits_earned"],
        credits_spent=counters["credits_spent"],
        ore_mined=counters["ore_mined"],
        ore_sold=counters["ore_sold"],
        trades_completed=counters["trades_completed"],
        orders_created=counters["orders_created"],
        orders_filled=counters["orders_filled"],
        systems_explored=counters["systems_explored"],
        systems_visited=counters["systems_visited"],
        pirates_engaged=counters["pirates_engaged"],
        pirates_destroyed=counters["pirates_destroyed"],
        ships_lost=counters["ships_lost"],
        damage_dealt=counters["damage_dealt"],
        damage_taken=counters["damage_taken"],
        bounties_earned=counters["bounties_earned"],
        weapons_installed=sum(1 for m in fitted if m.type == "weapon"),
        defenses_installed=sum(1 for m in fitted if m.type == "defense"),
        missions_accepted=counters["missions_accepted"],
        missions_completed=counters["missions_completed"],
        missions_abandoned=counters["missions_abandoned"],
        missions_active=len(found.missions),
        chat_messages=counters["chat_messages"],
        messages_received=counters["messages_received"],
        captains_log_entries=counters["captains_log_entries"],
        forum_threads=counters["forum_threads"],
        forum_replies=counters["forum_replies"],
        forum_replies_received=counters["forum_replies_received"],
        status_set=bool(counters["status_set"]),
        colors_set=bool(counters["colors_set"]),
        status_message=found.status_message,
        primary_color=found.primary_color,
        secondary_color=found.secondary_color,
        chat_by_channel=dict(found.chat_by_channel),
    )

"""World profiles: the numbers a world is built and run with.

``classic`` is the embedded world as the app has always played it. ``smbench`` is the
world calibrated against SMBench's published runs (``SpaceMolt/smbench`` run 2, 50 play
logs of the real server; docs/ARENA.md, "The arena, calibrated", has the calibration
table), which the arena plays. What the logs show, and what this profile takes from them:

- **Start state:** every pilot starts with 100 credits whatever the empire, docked at
  the home station in the empire's starter ship: the Solarian *Theoria* (hull 100,
  shield 55, armor 5, speed 1, fuel 100, cargo 70), the Nebula *Prospect* (hull 95,
  shield 50, armor 4, fuel 130, cargo 100) and the Crimson *Shard* (hull 110, shield 40,
  armor 8, fuel 90, cargo 60, two weapon slots), each with a mining laser and no weapon.
  The logs show no Voidborn or Outer Rim pilot; they get the Theoria.
- **Galaxy:** systems the logs name (``market_prime``, ``cargo_lanes``, ``bunda``,
  ``copernicus``, ``wealth_lane``, ``the_levy``, ``ogma``, ``gliese_436``, ``caph``,
  ``gold_run``, ``traders_rest``, …) around the empires' homes, with the real home POIs
  (``sol_central`` and ``main_belt``, ``grand_exchange`` and ``commerce_fields`` in Haven,
  ``war_citadel`` and ``war_materials`` in Krynn). A jump costs 1 fuel (nine jumps, nine
  fuel) and about six ticks (13 s at SMBench's 2-second ticks).
- **Economy:** a ``mine`` with the starter laser yields about 3 units (2.4–3.4 in every
  run that mined), sold at the home station for about 7 credits a unit (the best s1 run:
  871 credits for 121 units).
- **Missions:** the starter missions ask for more work (the best s6 run mined 96 units
  for two missions) and pay about a thousand credits or more each (2 800 for two); a
  starter mission is run once, not again and again.
- **Combat:** no published run installed a weapon nor destroyed a pirate; weapons are
  not on sale at the empires' capitals (``No one is selling Autocannon I at this
  station`` at the Crimson capital). Here no module is sold at a capital of police level
  4 or more; basic ones (a pulse laser, a shield booster, armour) are sold where police
  are few (level 3 or less), the others only where they are fewer (1 or less), all at
  three times the classic price; pirates are half as tough again and come back three
  times slower.
- **Exchange:** a benchmark server is reset before every run, so no other trader is
  there; the station's NPC traders take a little of a resting order, rarely (2 units
  every 10 ticks instead of 10 every 5).

What no profile changes, checked against the same logs (docs/ARENA.md, "The arena,
calibrated"): s6's score reads no outcome (50·accuracy + 50·activity), and on the real
server a run of 29 right calls out of 30 (18 of them ``get_status``), no mission done,
scored 98.3; every command the autopilot plays in its 30 requests succeeded there with
the same arguments. s2 is as easy there as here: a real jump takes 12.2–13.8 s at
2-second ticks (``7 - speed`` ticks, as here), costs 1 fuel, never failed when well
formed (24 of 24), and ``systems_explored`` counts each new system reached by a jump
(9 after 9 jumps), so ten jumps, about 65 of the 200 ticks, score the maximum. This
galaxy's 19 systems make the autopilot revisit (the real one has about 500): if
anything, s2 is harder here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zoea_tui.sim.catalog import STARTER_SHIP, ShipClass


@dataclass(frozen=True)
class WorldProfile:
    """How a world is built and run (see the module docstring)."""

    name: str
    #: The galaxy's layout: ``classic`` (eight systems) or ``smbench``.
    galaxy: str = "classic"
    #: Credits of a new pilot; None: each empire's own.
    starting_credits: int | None = None
    #: Starter ship per empire; an empire not listed gets :data:`STARTER_SHIP`.
    starter_ships: dict[str, ShipClass] = field(default_factory=dict)
    #: Fuel one jump costs.
    jump_fuel: int = 2
    #: Deposits' richness, in percent of the classic draw (mining yield follows).
    richness_pct: int = 100
    #: The range of a station's price factor for the items it quotes (percent).
    price_factor: tuple[int, int] = (85, 120)
    #: Mission requirements and rewards, in percent of the classic board's.
    mission_required_pct: int = 100
    mission_reward_pct: int = 100
    #: A completed mission goes back on the board (else a pilot runs each one once).
    missions_repeat: bool = True
    #: Basic modules are sold at stations of this police level or less (None: all), the
    #: others at this level or less; at this price factor (percent).
    basic_module_police_max: int | None = None
    module_police_max: int = 3
    module_price_pct: int = 100
    #: Pirates' hull and shield in percent of their kind's, and their respawn delay.
    pirate_toughness_pct: int = 100
    pirate_respawn_ticks: int = 20
    #: NPC traders take this many units of each fair resting order every this many ticks.
    npc_flow_units: int = 10
    npc_flow_every: int = 5

    def starter(self, empire: str) -> ShipClass:
        """The starter ship of a new pilot of ``empire``."""
        return self.starter_ships.get(empire, STARTER_SHIP)


THEORIA = ShipClass(
    id="theoria",
    name="Theoria",
    max_hull=100,
    max_shield=55,
    armor=5,
    speed=1,
    max_fuel=100,
    cargo_capacity=70,
    modules=("mining_laser_1",),
    utility_slots=3,
    shield_recharge=1,
    description="The Solarian starter ship: a steady miner with room for three utilities.",
)
PROSPECT = ShipClass(
    id="prospect",
    name="Prospect",
    max_hull=95,
    max_shield=50,
    armor=4,
    speed=1,
    max_fuel=130,
    cargo_capacity=100,
    modules=("mining_laser_1",),
    shield_recharge=1,
    description="The Nebula starter ship: the biggest hold and tank of the starters.",
)
SHARD = ShipClass(
    id="shard",
    name="Shard",
    max_hull=110,
    max_shield=40,
    armor=8,
    speed=1,
    max_fuel=90,
    cargo_capacity=60,
    modules=("mining_laser_1",),
    weapon_slots=2,
    utility_slots=1,
    shield_recharge=1,
    description="The Crimson starter ship: armoured, two weapon slots, a small hold.",
)

CLASSIC = WorldProfile("classic")
SMBENCH = WorldProfile(
    "smbench",
    galaxy="smbench",
    starting_credits=100,
    starter_ships={
        "solarian": THEORIA,
        "nebula": PROSPECT,
        "crimson": SHARD,
        "voidborn": THEORIA,
        "outerrim": THEORIA,
    },
    jump_fuel=1,
    richness_pct=45,
    price_factor=(65, 90),
    mission_required_pct=300,
    mission_reward_pct=700,
    missions_repeat=False,
    basic_module_police_max=3,
    module_police_max=1,
    module_price_pct=300,
    pirate_toughness_pct=150,
    pirate_respawn_ticks=60,
    npc_flow_units=2,
    npc_flow_every=10,
)
PROFILES: dict[str, WorldProfile] = {p.name: p for p in (CLASSIC, SMBENCH)}


def profile(name: str) -> WorldProfile:
    """The profile called ``name``; ``ValueError`` naming the choices for any other."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(
            f"unknown world {name!r}; expected one of: {', '.join(PROFILES)}"
        ) from None

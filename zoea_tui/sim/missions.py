"""Mission boards: what each station offers, and how an accepted mission makes progress.

A board is derived from the galaxy alone (no randomness, nothing saved): every station
offers the same seven missions, sized for a starter ship and shaped by its system (the
ores of its belts, its neighbours with a station); the world's profile scales their
quantities and rewards (the classic board below; ``smbench`` asks three times the work
and pays seven times the credits, as the real starter missions do):

- `welcome_to_<station>` (visit): fly to a belt of the system, come back, turn in;
- `first_haul` (delivery): carry 2 fuel cells to a neighbouring station;
- `<ore>_supply_run` (delivery): bring 10 of the system's cheapest ore here;
- `<ore>_requisition` (mining): mine 15 of a local ore (you keep it), turn in here;
- `<ore>_extraction_contract` (delivery): bring 6 of the system's dearest ore here;
- `courier_to_<system>` (travel): jump to a neighbouring system and dock at its station;
- `prove_your_steel` (combat): destroy a pirate, turn in here.

Accepted missions live on the player (`Player.missions`) as plain dicts with an instance
id; a completed mission returns to the board, so missions can be run again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zoea_tui.sim.catalog import ITEMS
from zoea_tui.sim.galaxy import Galaxy, Poi
from zoea_tui.sim.profiles import CLASSIC, WorldProfile

if TYPE_CHECKING:
    from zoea_tui.sim.players import Player

MAX_ACTIVE = 5


def _station(galaxy: Galaxy, system_id: str) -> Poi | None:
    for poi_id in galaxy.systems[system_id].poi_ids:
        if galaxy.pois[poi_id].base is not None:
            return galaxy.pois[poi_id]
    return None


def _local_ores(galaxy: Galaxy, system_id: str) -> list[str]:
    ores = {
        d.resource_id for p in galaxy.systems[system_id].poi_ids for d in galaxy.pois[p].deposits
    }
    return sorted(ores or {"iron_ore"}, key=lambda o: (ITEMS[o].base_price, o))


def _short(item_id: str) -> str:
    return item_id.removesuffix("_ore")


def board(galaxy: Galaxy, station: Poi, profile: WorldProfile = CLASSIC) -> list[dict[str, Any]]:
    """The missions a station offers (templates; `mission_id` is the template id), with
    the quantities and rewards of the world's profile (the classic board's scaled)."""
    assert station.base is not None
    need_pct, pay_pct = profile.mission_required_pct, profile.mission_reward_pct

    def units(n: int) -> int:
        return max(1, n * need_pct // 100)

    base = station.base
    system = galaxy.systems[station.system_id]
    belts = [p for p in system.poi_ids if galaxy.pois[p].type == "asteroid_belt"]
    ores = _local_ores(galaxy, system.id)
    cheap, dear = ores[0], ores[-1]
    middle = ores[1] if len(ores) > 2 else ores[0]
    neighbours = [s for s in system.connections if _station(galaxy, s) is not None]

    def make(
        mission_id: str, kind: str, title: str, description: str, reward: int, **target: Any
    ) -> dict[str, Any]:
        return {
            "mission_id": mission_id,
            "type": kind,
            "title": title,
            "description": description,
            "issuer_base": base.id,
            "issuer_name": base.name,
            "turn_in_base": target.pop("turn_in_base", base.id),
            "reward_credits": reward * pay_pct // 100,
            **target,
        }

    def ore_delivery(
        mission_id: str, title: str, verb: str, ore: str, n: int, bonus: int
    ) -> dict[str, Any]:
        """A delivery of `n` units (scaled) of a local ore to this station, paying twice
        their base price and `bonus`."""
        name = ITEMS[ore].name
        return make(
            mission_id,
            "delivery",
            f"{name} {title}",
            f"{verb} {units(n)} {name} to {base.name}.",
            n * ITEMS[ore].base_price * 2 + bonus,
            item_id=ore,
            required=units(n),
        )

    offers = []
    if belts:
        belt = galaxy.pois[belts[0]]
        offers.append(
            make(
                f"welcome_to_{station.id}",
                "visit",
                f"Welcome to {station.name}",
                f"Fly out to {belt.name} to get your bearings, then come back and turn in.",
                60,
                target_poi=belt.id,
                required=1,
            )
        )
    if neighbours:
        dest = _station(galaxy, neighbours[0])
        assert dest is not None and dest.base is not None
        offers.append(
            make(
                "first_haul",
                "delivery",
                "First Haul",
                f"Carry {units(2)} Fuel Cells to {dest.name} in "
                f"{galaxy.systems[dest.system_id].name}.",
                150,
                item_id="fuel_cell",
                required=units(2),
                turn_in_base=dest.base.id,
            )
        )
    offers.append(ore_delivery(f"{_short(cheap)}_supply_run", "Supply Run", "Bring", cheap, 10, 40))
    offers.append(
        make(
            f"{_short(middle)}_requisition",
            "mining",
            f"{ITEMS[middle].name} Requisition",
            f"Mine {units(15)} {ITEMS[middle].name} (you keep the ore), then turn in at "
            f"{base.name}.",
            15 * ITEMS[middle].base_price + 80,
            item_id=middle,
            required=units(15),
        )
    )
    offers.append(
        ore_delivery(
            f"{_short(dear)}_extraction_contract", "Extraction Contract", "Deliver", dear, 6, 100
        )
    )
    for neighbour in neighbours[:1]:
        dest = _station(galaxy, neighbour)
        assert dest is not None and dest.base is not None
        name = galaxy.systems[neighbour].name
        offers.append(
            make(
                f"courier_to_{neighbour}",
                "travel",
                f"Courier to {name}",
                f"Jump to {name} and dock at {dest.name} to deliver sealed dispatches.",
                120,
                destination_system=neighbour,
                required=1,
                turn_in_base=dest.base.id,
            )
        )
    offers.append(
        make(
            "prove_your_steel",
            "combat",
            "Prove Your Steel",
            "Destroy one pirate (they lurk at the belts of low-security systems), then turn "
            f"in at {base.name}. You need a weapon module.",
            400,
            required=1,
        )
    )
    return offers


def accepted(template: dict[str, Any], mission_id: str, tick: int) -> dict[str, Any]:
    """A new active mission from a board template."""
    return {
        **template,
        "mission_id": mission_id,
        "template_id": template["mission_id"],
        "progress": 0,
        "accepted_tick": tick,
    }


def progress(player: Player, mission: dict[str, Any]) -> int:
    """How far along a mission is (deliveries count the items in cargo)."""
    if mission["type"] == "delivery":
        return min(int(mission["required"]), player.ship.cargo.get(mission["item_id"], 0))
    return int(mission["progress"])


def is_done(player: Player, mission: dict[str, Any]) -> bool:
    """Whether the objective is met (it still has to be turned in)."""
    return progress(player, mission) >= int(mission["required"])


def on_mined(player: Player, item_id: str, quantity: int) -> None:
    """Mining missions for this ore advance."""
    for m in player.missions:
        if m["type"] == "mining" and m["item_id"] == item_id:
            m["progress"] = min(m["required"], m["progress"] + quantity)


def on_arrival(player: Player, poi_id: str, system_id: str) -> None:
    """Visit and travel missions whose destination this is are done."""
    for m in player.missions:
        if (m["type"] == "visit" and m["target_poi"] == poi_id) or (
            m["type"] == "travel" and m["destination_system"] == system_id
        ):
            m["progress"] = m["required"]


def on_pirate_destroyed(player: Player) -> None:
    """Combat missions advance."""
    for m in player.missions:
        if m["type"] == "combat":
            m["progress"] = min(m["required"], m["progress"] + 1)

"""Movement: travel inside a system, jump between systems, dock and undock.

An action that needs the other dock state switches it automatically and costs one extra
tick, flagged `auto_docked`/`auto_undocked` in its result, as on the real server
(docs/ARCHITECTURE.md, 'The embedded world').
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zoea_tui.sim import errors, params, rules
from zoea_tui.sim.commands.info import unknown_system
from zoea_tui.sim.errors import GameError
from zoea_tui.sim.players import Player, Transit
from zoea_tui.sim.views import base_view

if TYPE_CHECKING:
    from zoea_tui.sim.world_state import Call, WorldState


def needs_auto_dock(world: WorldState, player: Player) -> bool:
    """Whether a base action must dock first; `not_docked` if there is no base here."""
    if player.docked:
        return False
    if world.galaxy.pois[player.poi_id].base is None:
        raise errors.not_docked_here()
    return True


def with_auto_dock(
    world: WorldState, player: Player, auto: bool, result: dict[str, Any]
) -> dict[str, Any]:
    """A base action's answer `result`, docking as part of the action when it had to
    (`auto`, from :func:`needs_auto_dock`): the action then takes one extra tick."""
    if auto:
        player.docked = True
        player.busy_until = max(player.busy_until, world.tick + 2)
        result["auto_docked"] = True
    return result


def _no_fuel(need: int, have: int) -> GameError:
    return GameError(
        "no_fuel",
        f"Not enough fuel: this trip needs {need} and you have {have}. Refuel at a station "
        "(refuel while docked) or burn fuel cells (refuel with item_id 'fuel_cell').",
    )


@dataclass(frozen=True)
class _Trip:
    """A trip just begun: its length in ticks, its fuel cost, the fuel left after it, its
    arrival tick, and whether the pilot undocked to leave."""

    ticks: int
    fuel_cost: int
    fuel_remaining: int
    arrival: int
    undocked: bool

    def answer(self, head: dict[str, Any], message: str) -> dict[str, Any]:
        """A movement's answer: `head` (what and where), the trip's figures, `message`."""
        result = {
            **head,
            "ticks": self.ticks,
            "fuel_cost": self.fuel_cost,
            "fuel_remaining": self.fuel_remaining,
            "arrival_tick": self.arrival,
            "message": message,
        }
        if self.undocked:
            result["auto_undocked"] = True
        return result


def _set_out(
    world: WorldState, player: Player, kind: str, fuel: int, ticks: int, to: tuple[str, str]
) -> _Trip:
    """Burn `fuel` and leave for `to` (system id, POI id), arriving `ticks` later (one
    more when docked: the pilot undocks first, and the others at the POI see it go);
    `no_fuel` if the tank is short."""
    if player.ship.fuel < fuel:
        raise _no_fuel(fuel, player.ship.fuel)
    ticks += 1 if player.docked else 0
    player.ship.fuel -= fuel
    arrival = world.tick + ticks
    undocked = player.docked
    player.docked = False
    origin = world.galaxy.pois[player.poi_id]
    for other in world.players_at(origin.id, exclude=player):
        world.notify(
            other,
            "system",
            "poi_departure",
            {
                "username": player.username,
                "poi_id": origin.id,
                "poi_name": origin.name,
            },
            message=f"{player.username} left {origin.name}.",
        )
    player.transit = Transit(
        kind, player.system_id, player.poi_id, *to, departure_tick=world.tick, arrival_tick=arrival
    )
    player.busy_until = arrival
    return _Trip(ticks, fuel, player.ship.fuel, arrival, undocked)


def travel(world: WorldState, call: Call) -> dict[str, Any]:
    """Fly to a POI of the current system; in transit until the arrival tick."""
    me = call.me
    target = params.text(call.args, "target_poi")
    poi = world.galaxy.find_poi(target)
    if poi is None:
        raise errors.invalid_poi(target)
    here = world.galaxy.pois[me.poi_id]
    if poi.system_id != me.system_id:
        system = world.galaxy.systems[poi.system_id]
        raise GameError(
            "wrong_system",
            f"{poi.name} is in {system.name}, but you are in "
            f"{world.galaxy.systems[me.system_id].name}. Jump there first "
            f"(find_route with target_system '{system.id}' plans the way).",
        )
    if poi.id == here.id:
        raise GameError("invalid_target", f"You are already at {poi.name}.")
    distance = world.galaxy.poi_distance(here, poi)
    trip = _set_out(
        world,
        me,
        "travel",
        rules.travel_fuel(distance),
        rules.travel_ticks(distance, me.ship.speed),
        (poi.system_id, poi.id),
    )
    return trip.answer(
        {
            "action": "travel",
            "destination": poi.name,
            "destination_id": poi.id,
            "distance_au": distance / 100,
        },
        f"Traveling to {poi.name}: arrival at tick {trip.arrival} ({trip.ticks} tick(s)). "
        "You are in transit until then.",
    )


def jump(world: WorldState, call: Call) -> dict[str, Any]:
    """Jump to a connected system; in transit until the arrival tick."""
    me = call.me
    query = params.text(call.args, "target_system")
    target = world.galaxy.find_system(query)
    if target is None:
        raise unknown_system(query)
    here = world.galaxy.systems[me.system_id]
    if target.id == here.id:
        raise GameError("invalid_target", f"You are already in {here.name}.")
    if target.id not in here.connections:
        links = ", ".join(here.connections)
        raise GameError(
            "not_connected",
            f"{target.name} is not connected to {here.name} (links: {links}). "
            f"Use find_route with target_system '{target.id}' to plan a route.",
        )
    landing = world.galaxy.arrival_poi(target.id)
    trip = _set_out(
        world,
        me,
        "jump",
        world.profile.jump_fuel,
        rules.jump_ticks(me.ship.speed),
        (target.id, landing.id),
    )
    return trip.answer(
        {
            "action": "jump",
            "system": target.name,
            "system_id": target.id,
            "from_system": here.id,
            "poi": landing.id,
        },
        f"Jumping to {target.name}: arrival at {landing.name} at tick {trip.arrival} "
        f"({trip.ticks} tick(s)). You are in transit until then.",
    )


def dock(world: WorldState, call: Call) -> dict[str, Any]:
    """Dock at the base of the current POI."""
    me = call.me
    if me.docked:
        raise errors.already_docked()
    poi = world.galaxy.pois[me.poi_id]
    if poi.base is None:
        raise GameError(
            "no_base",
            f"There is no base at {poi.name}. Dock at a station: get_system lists the POIs "
            "that have a base.",
        )
    me.docked = True
    return {
        "action": "docked",
        "base": base_view(poi.base),
        "poi_id": poi.id,
        "story": f"Docking clamps engage. Welcome to {poi.base.name}.",
    }


def undock(world: WorldState, call: Call) -> dict[str, Any]:
    """Leave the base, staying at the POI."""
    me = call.me
    if not me.docked:
        raise errors.not_docked()
    me.docked = False
    return {"action": "undocked", "poi_id": me.poi_id}


HANDLERS = {"travel": travel, "jump": jump, "dock": dock, "undock": undock}

"""Command handlers, one module per area; `HANDLERS` maps tool names to them.

The registry the engine receives (`World(handlers=HANDLERS)`, its default); no command
imports the engine: each sees the world as `sim.world_state.WorldState`.
"""

from __future__ import annotations

from zoea_tui.sim.commands import (
    account,
    battle,
    catalogue,
    combat,
    community,
    exchange,
    groups,
    info,
    market,
    missions,
    navigation,
    personal,
    resources,
    salvage,
    shipyard,
    social,
)
from zoea_tui.sim.world_state import Handler

__all__ = ["HANDLERS", "Handler"]

HANDLERS: dict[str, Handler] = {
    **account.HANDLERS,
    **info.HANDLERS,
    **navigation.HANDLERS,
    **resources.HANDLERS,
    **market.HANDLERS,
    **social.HANDLERS,
    **missions.HANDLERS,
    **exchange.HANDLERS,
    **catalogue.HANDLERS,
    **combat.HANDLERS,
    **community.HANDLERS,
    **battle.HANDLERS,
    **personal.HANDLERS,
    **groups.HANDLERS,
    **salvage.HANDLERS,
    **shipyard.HANDLERS,
}

"""Command handlers, one module per area; `HANDLERS` maps tool names to them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from zoea_tui.sim.commands import (
    account,
    catalogue,
    combat,
    community,
    exchange,
    info,
    market,
    missions,
    navigation,
    resources,
    social,
)

if TYPE_CHECKING:
    from zoea_tui.sim.engine import Call, World

Handler = Callable[["World", "Call"], dict[str, Any]]

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
}

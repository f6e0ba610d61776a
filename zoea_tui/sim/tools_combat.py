"""Tool specs of ship fitting, combat with pirates, wrecks and other ship actions."""

from __future__ import annotations

from zoea_tui.sim.tool_spec import ToolSpec, integer_arg, string_arg

_MODULE = string_arg("A module's item id, e.g. pulse_laser_i")
_TARGET = string_arg("A pirate's id from get_nearby, e.g. pirate_1")
_WRECK = string_arg("A wreck id from get_wrecks; defaults to the first here")

COMBAT_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "install_mod",
        "ships",
        "Docked: fit a module from your cargo into a free weapon, defense or utility slot.",
        {"module_id": _MODULE},
        ("module_id",),
        mutation=True,
        group="spacemolt",
    ),
    ToolSpec(
        "uninstall_mod",
        "ships",
        "Docked: take a fitted module out into cargo.",
        {"module_id": _MODULE},
        ("module_id",),
        mutation=True,
        group="spacemolt",
    ),
    ToolSpec(
        "attack",
        "combat",
        "Fire your weapons at a pirate at your POI (undocked). It fires back, and keeps "
        "firing every tick while you stay. Destroyed pirates pay a bounty and leave a wreck.",
        {"target_id": _TARGET},
        ("target_id",),
        mutation=True,
        strict=True,
        example="pirate_1",
    ),
    ToolSpec(
        "scan",
        "combat",
        "Scan a pirate at your POI: hull, shield, armor, damage and bounty.",
        {"target_id": _TARGET},
        ("target_id",),
        mutation=True,
    ),
    ToolSpec(
        "get_wrecks",
        "combat",
        "Wrecks at your POI and their loot.",
        needs_position=True,
        group="spacemolt_salvage",
    ),
    ToolSpec(
        "loot_wreck",
        "combat",
        "Take items from a wreck at your POI into cargo (all, or item_id and quantity).",
        {
            "wreck_id": _WRECK,
            "item_id": string_arg("Only this item"),
            "quantity": integer_arg("At most this many", minimum=1),
        },
        mutation=True,
        group="spacemolt_salvage",
    ),
    ToolSpec(
        "salvage_wreck",
        "combat",
        "Break a wreck at your POI down into steel plates; the wreck is gone.",
        {"wreck_id": _WRECK},
        mutation=True,
        group="spacemolt_salvage",
    ),
    ToolSpec(
        "jettison",
        "resources",
        "Dump cargo into space (it is lost).",
        {"item_id": string_arg("Item id"), "quantity": integer_arg("Units", minimum=1)},
        ("item_id", "quantity"),
        mutation=True,
    ),
    ToolSpec(
        "survey_system",
        "resources",
        "Needs a survey scanner module: every deposit of your system with richness and amounts.",
        {"system_id": string_arg("Ignored: surveys your current system")},
        mutation=True,
    ),
)

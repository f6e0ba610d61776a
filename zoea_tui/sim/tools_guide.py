"""Tool specs of the commands SpaceMolt's own client's gameplay guide names beyond the
everyday game: tactical battles, crafting, home base, notes, factions and fleets,
insurance, ship commissions, towing wrecks, gifts and distress calls.

Names, argument names and whether a command costs a tick are the real server's v1 ones
(SpaceMolt/admiral ``docs/openapi-v1.json``, April 2026; ``fleet`` from the v2 catalogue,
SpaceMolt/spacemolt-lib ``COMMANDS.md``); the v2 group each is served under is the real
one. What each does in this world is in its handler's module (``sim/commands/``).
"""

from __future__ import annotations

from typing import Any

from zoea_tui.sim.tool_spec import ToolSpec, integer_arg, string_arg

_ARRAY: dict[str, Any] = {"type": "array", "items": {"type": "object"}}

GUIDE_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "battle",
        "combat",
        "Tactical battle with a pirate at your POI: engage (target_id, or the first pirate "
        "here) starts one at range outer; advance/retreat move a zone (outer, mid, inner, "
        "engaged; hit chance 15/35/65/90 %); stance fire, evade (half damage taken, 5 "
        "fuel), brace (a quarter, double shield regen) or flee (3 rounds to escape); target "
        "switches pirate. Each call is one round: in stance fire your weapons fire.",
        {
            "action": string_arg(
                "Battle action", enum=["advance", "retreat", "stance", "target", "engage"]
            ),
            "stance": string_arg("For action=stance", enum=["fire", "evade", "brace", "flee"]),
            "target_id": string_arg("For action=target or engage: a pirate's id"),
            "side_id": integer_arg("For action=engage: ignored, one side per pirate"),
        },
        ("action",),
        mutation=True,
        needs_position=True,
        group="spacemolt_battle",
    ),
    ToolSpec(
        "get_battle_status",
        "combat",
        "Your battle: zone, stance, flee progress and each combatant's hull and shield.",
        group="spacemolt_battle",
    ),
    ToolSpec(
        "reload",
        "combat",
        "Reload a fitted weapon's magazine from ammo in cargo.",
        {
            "weapon_instance_id": string_arg("The fitted weapon's id (get_ship lists them)"),
            "ammo_item_id": string_arg("The ammo item in cargo"),
        },
        ("weapon_instance_id", "ammo_item_id"),
        mutation=True,
        group="spacemolt_battle",
    ),
    ToolSpec(
        "distress_signal",
        "combat",
        "Broadcast a distress call to every pilot in your system (stranded without fuel, "
        "hull failing or under attack).",
        {"distress_type": string_arg("What you need", enum=["fuel", "repair", "combat"])},
        mutation=True,
        needs_position=True,
    ),
    ToolSpec(
        "craft",
        "crafting",
        "Docked: craft a recipe from materials in cargo (then station storage), up to 10 "
        "times at once. catalog(type='recipes') lists the recipes.",
        {
            "recipe_id": string_arg("A recipe id, e.g. steel_plate"),
            "quantity": integer_arg("Times to craft, 1-10 (default 1)", minimum=1, maximum=10),
        },
        ("recipe_id",),
        mutation=True,
    ),
    ToolSpec(
        "set_home_base",
        "status",
        "Docked: make this station your home base, where you respawn if destroyed.",
        {"base_id": string_arg("The base you are docked at")},
        ("base_id",),
        mutation=True,
    ),
    ToolSpec(
        "create_note",
        "notes",
        "Create a note document (maps, secrets, records).",
        {
            "title": string_arg("Up to 100 characters"),
            "content": string_arg("Up to 100,000 characters"),
        },
        ("title", "content"),
    ),
    ToolSpec(
        "write_note",
        "notes",
        "Replace a note's whole content.",
        {"note_id": string_arg("A note id from get_notes"), "content": string_arg("New text")},
        ("note_id", "content"),
    ),
    ToolSpec(
        "read_note",
        "notes",
        "A note's title and content.",
        {"note_id": string_arg("A note id from get_notes")},
        ("note_id",),
    ),
    ToolSpec("get_notes", "notes", "Your notes: ids and titles."),
    ToolSpec(
        "create_faction",
        "faction",
        "Create a faction and lead it.",
        {
            "name": string_arg("Unique, up to 40 characters"),
            "tag": string_arg("2-4 characters"),
        },
        ("name", "tag"),
        mutation=True,
    ),
    ToolSpec(
        "faction_info",
        "faction",
        "A faction's details and members (yours unless faction_id).",
        {"faction_id": string_arg("A faction id; defaults to yours")},
    ),
    ToolSpec(
        "faction_invite",
        "faction",
        "Invite a pilot to your faction; they join with join_faction.",
        {"player_id": string_arg("The pilot's id or username")},
        ("player_id",),
        mutation=True,
        strict=True,
        example="Ada",
    ),
    ToolSpec(
        "join_faction",
        "faction",
        "Join a faction that invited you.",
        {"faction_id": string_arg("The faction's id")},
        ("faction_id",),
        mutation=True,
    ),
    ToolSpec(
        "leave_faction",
        "faction",
        "Leave your faction (a leader leaving alone disbands it).",
        mutation=True,
    ),
    ToolSpec(
        "faction_submit_intel",
        "faction",
        "Share system intel with your faction: systems as get_system returns them.",
        {"systems": {**_ARRAY, "description": "System reports ({id, ...})"}},
        ("systems",),
        mutation=True,
        group="spacemolt_intel",
    ),
    ToolSpec(
        "faction_query_intel",
        "faction",
        "Your faction's shared intel (optionally one system by id or part of its name).",
        {
            "system_id": string_arg("Only this system"),
            "system_name": string_arg("Systems whose name contains this"),
        },
        group="spacemolt_intel",
    ),
    ToolSpec(
        "view_faction_storage",
        "faction",
        "Your faction's shared storage at this station.",
    ),
    ToolSpec(
        "fleet",
        "fleet",
        "Fleets of pilots: create, invite (target), accept, decline, leave, kick (target), "
        "disband, status.",
        {
            "action": string_arg(
                "Fleet action",
                enum=[
                    "create",
                    "invite",
                    "accept",
                    "decline",
                    "leave",
                    "kick",
                    "disband",
                    "status",
                ],
            ),
            "target": string_arg("A pilot's id or username, for invite and kick"),
        },
        ("action",),
    ),
    ToolSpec(
        "get_insurance_quote",
        "insurance",
        "The premium and coverage of insuring your current ship.",
    ),
    ToolSpec(
        "buy_insurance",
        "insurance",
        "Docked: insure your current ship for a number of ticks.",
        {"ticks": integer_arg("Ticks of cover, 100-10000", minimum=100, maximum=10_000)},
        ("ticks",),
        mutation=True,
    ),
    ToolSpec(
        "claim_insurance",
        "insurance",
        "Your insurance policies; docked at your home base, pays out every policy whose ship "
        "was destroyed.",
    ),
    ToolSpec(
        "commission_quote",
        "ships",
        "The cost and build time of commissioning a ship class at this shipyard.",
        {"ship_class": string_arg("A ship class id")},
        ("ship_class",),
    ),
    ToolSpec(
        "commission_ship",
        "ships",
        "Docked at a shipyard: order a ship to be built here (paid now, ready in ticks).",
        {
            "ship_class": string_arg("A ship class id"),
            "provide_materials": {
                "type": "boolean",
                "description": "Ignored: this world's yards source their own materials",
            },
        },
        ("ship_class",),
        mutation=True,
    ),
    ToolSpec(
        "commission_status",
        "ships",
        "Your ship commissions and when each is ready.",
        {"base_id": string_arg("Only this base")},
    ),
    ToolSpec(
        "claim_commission",
        "ships",
        "Docked where it was built: take a finished ship into your hangar (list_ships).",
        {"commission_id": string_arg("From commission_status")},
        ("commission_id",),
        mutation=True,
    ),
    ToolSpec(
        "tow_wreck",
        "salvage",
        "Attach a tow line to a wreck at your POI; you haul it until release_tow, "
        "sell_wreck or scrap_wreck.",
        {"wreck_id": string_arg("A wreck id from get_wrecks")},
        ("wreck_id",),
        mutation=True,
        needs_position=True,
    ),
    ToolSpec(
        "release_tow",
        "salvage",
        "Let go of the towed wreck here.",
        mutation=True,
        needs_position=True,
    ),
    ToolSpec(
        "sell_wreck",
        "salvage",
        "Docked at a station with a repair yard: sell the towed wreck for credits.",
        mutation=True,
    ),
    ToolSpec(
        "scrap_wreck",
        "salvage",
        "Docked at a station with a repair yard: scrap the towed wreck into steel plates "
        "and its contents, into cargo.",
        mutation=True,
    ),
    ToolSpec(
        "send_gift",
        "storage",
        "Docked: send items from cargo, or credits, to another pilot's storage at this "
        "station (they need not be online).",
        {
            "recipient": string_arg("The pilot's username"),
            "item_id": string_arg("An item in your cargo"),
            "quantity": integer_arg("Units of item_id", minimum=1),
            "credits": integer_arg("Credits from your wallet", minimum=1),
            "message": string_arg("Up to 500 characters"),
        },
        ("recipient",),
        mutation=True,
        strict=True,
        example="Ada",
    ),
)

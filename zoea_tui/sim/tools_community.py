"""Tool specs of the player profile, the forum and the statistics query."""

from __future__ import annotations

from zoea_tui.sim.tool_spec import ToolSpec, integer_arg, string_arg

COMMUNITY_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "set_status",
        "social",
        "Set the status message other pilots see (and optionally a clan tag).",
        {
            "status_message": string_arg("Up to 100 characters"),
            "clan_tag": string_arg("Up to 4 characters"),
        },
    ),
    ToolSpec(
        "set_colors",
        "social",
        "Paint your ship: primary_color and secondary_color as #RRGGBB.",
        {
            "primary_color": string_arg("e.g. #FF8800"),
            "secondary_color": string_arg("e.g. #002244"),
        },
    ),
    ToolSpec(
        "forum_list",
        "forum",
        "Forum threads, newest activity first.",
        {
            "category": string_arg("general, strategies, trading, help or combat"),
            "page": integer_arg("Page, 20 threads each", minimum=1),
        },
    ),
    ToolSpec(
        "forum_get_thread",
        "forum",
        "One forum thread with all its posts.",
        {"thread_id": string_arg("A thread id from forum_list")},
        ("thread_id",),
    ),
    ToolSpec(
        "forum_create_thread",
        "forum",
        "Start a forum thread.",
        {
            "title": string_arg("Up to 120 characters"),
            "content": string_arg("The first post"),
            "category": string_arg("general (default), strategies, trading, help or combat"),
        },
        ("title", "content"),
    ),
    ToolSpec(
        "forum_reply",
        "forum",
        "Reply to a forum thread.",
        {
            "thread_id": string_arg("A thread id from forum_list"),
            "content": string_arg("Your reply"),
        },
        ("thread_id", "content"),
    ),
    ToolSpec(
        "claim",
        "auth",
        "Link your account to a registration code (any code works in this world).",
        {"registration_code": string_arg("Your code")},
    ),
    ToolSpec(
        "get_player_stats",
        "status",
        "Your lifetime statistics: credits earned and spent, ore mined, systems explored, "
        "pirates destroyed, missions accepted and completed, trades, chat and forum posts.",
    ),
)

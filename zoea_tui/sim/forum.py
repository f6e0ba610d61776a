"""The forum's starting content: one pinned welcome thread (no randomness)."""

from __future__ import annotations

from typing import Any

CATEGORIES: tuple[str, ...] = ("general", "strategies", "trading", "help", "combat")


def forum_seed() -> list[dict[str, Any]]:
    """The threads a new world starts with."""
    return [
        {
            "id": "thread_0",
            "title": "Welcome, pilots: read this first",
            "category": "general",
            "author": "SpaceMolt Staff",
            "author_id": "staff",
            "tick": 0,
            "pinned": True,
            "posts": [
                {
                    "id": "post_0",
                    "author": "SpaceMolt Staff",
                    "author_id": "staff",
                    "content": "Mine at the belts, sell at the stations, take missions from "
                    "the boards (get_missions), and watch out for pirates in low-security "
                    "systems. Post your tips here with forum_reply.",
                    "tick": 0,
                }
            ],
        }
    ]

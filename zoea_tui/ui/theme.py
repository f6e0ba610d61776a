"""The ``zoea`` theme: a retro command center (deep space, neon purple and teal)."""

from __future__ import annotations

from textual.theme import Theme

from . import formatting as fmt

#: Deep space: the screen, and the track of every scrollbar.
BACKGROUND = "#08080f"

ZOEA_THEME = Theme(
    name="zoea",
    primary=fmt.BRAND,
    secondary=fmt.TEAL,
    accent=fmt.ASSISTANT,
    warning=fmt.WARNING,
    error=fmt.ERROR,
    success=fmt.USER,
    foreground=fmt.TEXT,
    background=BACKGROUND,
    surface="#10101e",
    panel="#1c1c3a",
    dark=True,
    variables={
        "border": "#4a2a8a",
        "border-blurred": "#2a2a55",
        "footer-key-foreground": fmt.TEAL,
        "footer-description-foreground": fmt.MUTED,
        "block-cursor-background": "#3a1a6a",
        "block-cursor-foreground": fmt.TEXT,
        "input-selection-background": "#5a2a9a 50%",
        # The track is the background: a view with nothing to scroll looks as if it had
        # no scrollbar (the line-API views keep theirs, so a page never lays them out).
        "scrollbar-background": BACKGROUND,
        "scrollbar": "#2a2a55",
        "scrollbar-hover": "#4a2a8a",
        "scrollbar-active": fmt.BRAND,
    },
)

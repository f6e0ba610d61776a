"""The focus view's game-state sidebar: the newest cached result of each game tool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from ...core.redaction import secret_mask
from ...game.state_cache import STATE_TOOLS, Snapshot, ticks_ago
from .. import formatting as fmt
from ..sanitize import one_line
from .text_view import TextView, guess_height, text_key

#: Tools shown first, in this order; the others follow by name.
ORDER = STATE_TOOLS
MAX_LINES_PER_TOOL = 24


def _flatten(data: Any, prefix: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """``key.sub: value`` pairs; lists become ``[N items]``, deep nesting is cut; a
    secret's value (password, session id, token) is shown only as kept."""
    pairs: list[tuple[str, str]] = []
    if isinstance(data, Mapping):
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            mask = secret_mask(str(key))
            if mask is not None and isinstance(value, str) and value:
                pairs.append((name, mask))
            elif isinstance(value, Mapping) and depth < 1:
                pairs.extend(_flatten(value, name, depth + 1))
            elif isinstance(value, Mapping):
                pairs.append((name, f"{{{len(value)} fields}}"))
            elif isinstance(value, list | tuple):
                pairs.append((name, f"[{len(value)} item{'s' if len(value) != 1 else ''}]"))
            else:
                pairs.append((name, "—" if value is None else str(value)))
    else:
        pairs.append((prefix or "value", str(data)))
    return pairs


def game_state_blocks(snapshots: Mapping[str, Snapshot], tick: int | None) -> list[Text]:
    """The sidebar's text, one block per tool (each after the first opens with the blank
    line that sets it apart)."""
    if not snapshots:
        return [
            Text(
                "No game state yet: it appears after the Mysis's first game call.",
                style=fmt.MUTED,
            )
        ]
    ordered = [t for t in ORDER if t in snapshots] + sorted(t for t in snapshots if t not in ORDER)
    blocks = []
    for n, tool in enumerate(ordered):
        snap = snapshots[tool]
        text = Text("\n" if n else "")
        text.append(one_line(tool, 40), style=f"bold {fmt.TOOL}")
        when = ticks_ago(snap.tick, tick)
        if snap.tick is not None:
            text.append(f"  T{snap.tick}", style=fmt.TEAL)
        if when:
            text.append(f" ({when})", style=fmt.MUTED)
        pairs = _flatten(snap.data)
        for key, value in pairs[:MAX_LINES_PER_TOOL]:
            text.append("\n ")
            text.append(one_line(key, 40), style=fmt.MUTED)
            text.append(": ", style=fmt.DIM)
            text.append(one_line(value, 200), style=fmt.TEXT)
        if len(pairs) > MAX_LINES_PER_TOOL:
            text.append(f"\n … {len(pairs) - MAX_LINES_PER_TOOL} more fields", style=fmt.DIM)
        blocks.append(text)
    return blocks


def game_state_text(snapshots: Mapping[str, Snapshot], tick: int | None) -> Text:
    """The sidebar's whole text from cached snapshots (pure: used by tests too)."""
    return Text("\n").join(game_state_blocks(snapshots, tick))


class GameStateSidebar(TextView):
    """What the game last told this Mysis, from the engine's cache (no database reads).

    A line-API view: new snapshots are laid out once and repainted, whatever their
    length, and never lay the screen out.
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "GAME STATE"
        self.can_focus = False

    def show_state(self, snapshots: Mapping[str, Snapshot], tick: int | None) -> None:
        """Show these snapshots: the tools in view are rendered, and a tool's block
        rendered before is reused while its text is unchanged (stepping between Myses
        renders what changed since each was shown)."""
        blocks = game_state_blocks(snapshots, tick)
        self.show_blocks(
            blocks,
            guess=lambda width: [guess_height(block, width) for block in blocks],
            keys=[text_key(block) for block in blocks],
        )

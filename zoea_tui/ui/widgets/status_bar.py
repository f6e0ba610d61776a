"""The bottom status line: network activity, game tick, and Myses per state."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual.dom import DOMNode
from textual.reactive import var
from textual.widget import Widget

from .. import formatting as fmt
from .text_view import TextRows


@dataclass(frozen=True, slots=True)
class SwarmStatus:
    """What the status bar shows (the app builds it from events)."""

    llm: int = 0
    mcp: int = 0
    tick: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    total: int = 0
    max_myses: int = 0
    connected: bool = False


def status_text(status: SwarmStatus, width: int) -> Text:
    """The status line at ``width`` cells (pure: used by tests too)."""
    left = Text(no_wrap=True)
    if not status.connected:
        left.append("◌ starting the swarm…", style=fmt.MUTED)
    elif status.llm or status.mcp:
        if status.llm:
            left.append(" ◆ LLM ", style=f"bold reverse {fmt.ASSISTANT}")
            left.append(f" {status.llm} ", style=fmt.ASSISTANT)
        if status.mcp:
            left.append(" ◆ MCP ", style=f"bold reverse {fmt.TEAL}")
            left.append(f" {status.mcp} ", style=fmt.TEAL)
    else:
        left.append("◇ network idle", style=fmt.MUTED)

    middle = Text(no_wrap=True)
    middle.append("tick ", style=fmt.MUTED)
    middle.append(f"T{status.tick}" if status.tick is not None else "T-", style=f"bold {fmt.TEAL}")

    right = Text(no_wrap=True)
    for state in ("running", "idle", "stopped", "errored"):
        n = status.counts.get(state, 0)
        glyph = fmt.STATE_GLYPHS[state]
        style = glyph.style if n else fmt.DIM
        right.append(f"{glyph.char} {n} ", style=style)
        if width >= 100:
            right.append(f"{state}  ", style=fmt.MUTED if n else fmt.DIM)
    right.append(f"· {status.total}/{status.max_myses}", style=fmt.MUTED)

    gap = max(width - left.cell_len - middle.cell_len - right.cell_len, 2)
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append_text(left)
    line.append(" " * (gap // 2))
    line.append_text(middle)
    line.append(" " * (gap - gap // 2))
    line.append_text(right)
    line.truncate(width, overflow="ellipsis")
    return line


class StatusBar(TextRows, Widget):
    """One line: LLM/MCP calls in flight, the game tick, state counts and swarm size.

    Drawn with the line API (:class:`TextRows`): a new status repaints the line only
    when its text changed, never the widget's whole render."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
    }
    """

    status: var[SwarmStatus] = var(SwarmStatus, init=False)

    def __init__(self, source: DOMNode, *, id: str | None = None) -> None:
        """Show ``source.status`` (a :class:`SwarmStatus` reactive) as it changes."""
        super().__init__(id=id)
        self._source = source

    def on_mount(self) -> None:
        self.watch(self._source, "status", self._show)

    def _show(self, status: SwarmStatus) -> None:
        self.status = status

    def watch_status(self) -> None:
        self.repaint()

    def text(self) -> Text:
        """The status line."""
        return status_text(self.status, self.content_size.width)

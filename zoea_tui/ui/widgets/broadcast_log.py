"""The swarm-broadcast history of the dashboard."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from .. import formatting as fmt
from ..sanitize import one_line


@dataclass(frozen=True, slots=True)
class BroadcastLine:
    """One broadcast as shown: when, who, what."""

    at: float
    tick: int | None
    sender: str
    content: str
    recipients: int | None = None


def broadcast_text(line: BroadcastLine) -> Text:
    """``12:01:02 T12 ◆ commander › mine ore`` (content cleaned, never markup)."""
    text = fmt.stamp(line.at, line.tick)
    text.append(" ◆ ", style=fmt.BRAND)
    from_commander = line.sender == "commander"
    text.append(
        line.sender if from_commander else one_line(line.sender, 40),
        style=f"bold {fmt.USER if from_commander else fmt.ASSISTANT}",
    )
    text.append(" › ", style=fmt.DIM)
    text.append(one_line(line.content, 2000), style=fmt.TEXT)
    if line.recipients is not None:
        text.append(f"  → {line.recipients}", style=fmt.MUTED)
    return text


class BroadcastLog(VerticalScroll):
    """The newest broadcasts, oldest at the top, sticking to the newest."""

    MAX_LINES = 100

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: deque[BroadcastLine] = deque(maxlen=self.MAX_LINES)
        self.border_title = "SWARM BROADCASTS"
        self.can_focus = False

    def compose(self):  # type: ignore[no-untyped-def]
        """One static holding every line."""
        yield Static(id="broadcast-lines")

    def on_mount(self) -> None:
        self._refresh_lines()

    def set_lines(self, lines: list[BroadcastLine]) -> None:
        """Show exactly these broadcasts (oldest first)."""
        self._lines.clear()
        self._lines.extend(lines)
        self._refresh_lines()

    def add(self, line: BroadcastLine) -> None:
        """Append a broadcast."""
        self._lines.append(line)
        self._refresh_lines()

    def _refresh_lines(self) -> None:
        static = self.query_one("#broadcast-lines", Static)
        if not self._lines:
            static.update(
                Text.assemble(
                    ("No broadcasts yet. Press ", fmt.MUTED),
                    ("b", f"bold {fmt.TEAL}"),
                    (" to give every Mysis an order.", fmt.MUTED),
                )
            )
        else:
            lines = Text("\n").join(broadcast_text(line) for line in self._lines)
            lines.no_wrap = True
            lines.overflow = "ellipsis"
            static.update(lines)
            self.call_after_refresh(self.scroll_end, animate=False)
        self.border_subtitle = f"{len(self._lines)} shown" if self._lines else ""

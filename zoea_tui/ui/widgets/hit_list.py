"""The search's hits: a line-API list, two rows per hit, rows rendered as they come into view.

Textual's option list wraps and renders every option when a new set arrives (to know
its height), then renders the visible ones again as its own rich content: 35-40 ms for
50 hits at 200x60 on two cores, on the loop, for every letter typed. Here every hit is
two rows (what and when; the snippet), so the list's height is known without rendering
anything, and a row is rendered when first painted and kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.strip import Strip

from ..textual_compat.views import resize_virtual
from .text_view import LineView, text_row
from .widget_message import WidgetMessage

#: Rows per hit: what and when, then the snippet.
HIT_ROWS = 2


class HitList(LineView, can_focus=True):
    """Hits as pairs of lines; ``up``/``down`` move the highlight, ``enter`` or a click
    chooses (:class:`HitList.Chosen`). New hits repaint the list and move its scrollbar,
    never lay the screen out."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"hit-list--highlighted"}

    DEFAULT_CSS = """
    HitList {
        padding: 0 1;
        scrollbar-background: $surface;
        scrollbar-background-hover: $surface;
        scrollbar-background-active: $surface;
        & > .hit-list--highlighted {
            background: $block-cursor-blurred-background;
        }
        &:focus > .hit-list--highlighted {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Search",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(-1)", "Last", show=False),
        Binding("enter", "choose", "Open", show=False),
    ]

    #: The hit highlighted (None: none).
    highlighted: reactive[int | None] = reactive(None)

    @dataclass
    class Chosen(WidgetMessage["HitList"]):
        """Hit ``index`` was chosen (enter or a click)."""

        index: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._hits: list[tuple[Text, Text]] = []
        #: Rendered rows by index, for ``_rows_width``.
        self._rows: dict[int, Strip] = {}
        self._rows_width = 0

    @property
    def count(self) -> int:
        """How many hits are listed."""
        return len(self._hits)

    def hit_lines(self, index: int) -> tuple[Text, Text]:
        """The two lines of hit ``index``."""
        return self._hits[index]

    def show(self, hits: list[tuple[Text, Text]]) -> None:
        """List ``hits`` (each two lines), from the top, nothing highlighted."""
        self._hits = hits
        self._rows.clear()
        self.set_reactive(HitList.highlighted, None)
        resize_virtual(self, Size(self.scrollable_content_region.width, HIT_ROWS * len(hits)))
        self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the list."""
        width = self.paint_width
        if width != self._rows_width:
            self._rows.clear()
            self._rows_width = width
        row = self.scroll_offset.y + y
        index = row // HIT_ROWS
        if index >= len(self._hits):
            return self.blank(width)
        strip = self._rows.get(row)
        if strip is None:
            line = self._hits[index][row % HIT_ROWS]
            self._rows[row] = strip = text_row(line, width, self.app.console)
        if index == self.highlighted:
            strip = strip.apply_style(self.get_component_rich_style("hit-list--highlighted"))
        return self.paint(strip)

    def watch_highlighted(self, old: int | None, new: int | None) -> None:
        for index in (old, new):
            if index is not None:
                self._refresh_hit(index)
        if new is not None:
            self.scroll_to_region(
                Region(0, new * HIT_ROWS, 1, HIT_ROWS), animate=False, immediate=True
            )

    def _refresh_hit(self, index: int) -> None:
        top = index * HIT_ROWS - self.scroll_offset.y
        self.refresh(Region(0, top, self.scrollable_content_region.width, HIT_ROWS))

    def action_move(self, delta: int) -> None:
        """Highlight the hit ``delta`` away."""
        if self._hits:
            start = -1 if self.highlighted is None and delta > 0 else (self.highlighted or 0)
            self.highlighted = max(0, min(len(self._hits) - 1, start + delta))

    def action_page(self, direction: int) -> None:
        """Highlight the hit a page away."""
        page = max(1, self.scrollable_content_region.height // HIT_ROWS)
        self.action_move(direction * page)

    def action_edge(self, index: int) -> None:
        """Highlight the first (0) or last (-1) hit."""
        if self._hits:
            self.highlighted = index % len(self._hits)

    def action_choose(self) -> None:
        """Choose the highlighted hit."""
        if self.highlighted is not None:
            self.post_message(self.Chosen(self, self.highlighted))

    def on_click(self, event: events.Click) -> None:
        """A click highlights a hit and chooses it."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = (self.scroll_offset.y + offset.y) // HIT_ROWS
        if 0 <= index < len(self._hits):
            self.highlighted = index
            self.post_message(self.Chosen(self, index))

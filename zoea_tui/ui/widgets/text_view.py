"""Scrollable text drawn with Textual's line API, whose new contents never lay the screen out.

A widget that changes height (``Static.update``, a growing container) or a scroll view
whose ``virtual_size`` is set asks Textual for a layout of the whole screen: 40-60 ms for
the focus view at 200x60 on two shared cores. A line-API view has a fixed size; new
contents change only its virtual size, which moves its scrollbar and nothing else.
:func:`resize_virtual` does that; :class:`TextView` is such a view over one Rich
renderable.

The mixins keep paints cheap: :class:`KeptRows` styles and filters each kept row once,
:class:`TextRows` repaints only the rows whose text changed, :class:`SteadyVerticalBar`
repaints a scrollbar only when what it draws changed (the parts of these that reach inside
Textual are in :mod:`zoea_tui.ui.textual_compat.views`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.content import Content
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..textual_compat.views import (
    FilteredRows,
    SteadyVerticalBar,
    resize_virtual,
)


def text_row(text: Text, width: int, console: Console) -> Strip:
    """One line of ``text`` as a strip of exactly ``width`` cells (cut with an ellipsis, or
    padded), neighbouring segments in one style merged (fewer for every frame)."""
    text = text.copy()
    text.truncate(width, overflow="ellipsis", pad=True)
    return Strip(Segment.simplify(text.render(console)), width)


class KeptRows(FilteredRows):
    """Mixin (first among the bases) for a line-API widget that keeps its rows as strips:
    each paint styles and filters a row once, not once per frame.

    Textual works a widget's style out from every ancestor's on each call of
    ``rich_style``; :meth:`render_lines` does it once per paint (``line_style``).
    Textual also runs its line filters (ANSI colours to the theme's) over every row of
    every frame, each time into a new strip; here :meth:`paint` runs them on the row kept,
    styled, and Textual caches both on the strip, so a row that has not changed costs a
    lookup. The filters' output is the same; only where they run moves.
    """

    #: The widget's style for the rows being painted.
    line_style = Style()

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in ``crop``, after working the style and the filters out once."""
        self.line_style = self.rich_style
        self.take_line_filters()
        return super().render_lines(crop)

    def paint(self, strip: Strip) -> Strip:
        """``strip`` in the widget's style, filtered as Textual would filter its line
        (:class:`~zoea_tui.ui.textual_compat.views.FilteredRows`)."""
        return self.filter_row(strip.apply_style(self.line_style))

    def blank(self, width: int) -> Strip:
        """An empty row of ``width`` cells in the widget's style."""
        return self.paint(Strip.blank(width))


class TextRows(KeptRows):
    """Mixin (first among the bases) for a widget that shows lines of text, one per row,
    each cut to its width: it keeps each row as a strip, and :meth:`repaint` repaints only
    the rows whose text changed.

    A widget gives :meth:`text` (what it shows at its size now) and, if its lines depend
    on more than its size, :meth:`rows_shape`.
    """

    #: The rows drawn: each line's text, and the same line as a strip, unpainted
    #: (:meth:`KeptRows.paint` styles it per paint; Textual's strips cache that).
    _row_texts: tuple[Text, ...] = ()
    _row_strips: tuple[Strip, ...] = ()
    #: What the rows were made for (:meth:`rows_shape`).
    _rows_shape: tuple[Any, ...] | None = None
    #: The border's title and subtitle as last set by :meth:`label_border`.
    _labels: tuple[object, object] = (None, None)

    def text(self) -> Text:
        """The lines the widget shows at its size now, one per row."""
        raise NotImplementedError

    def rows_shape(self) -> tuple[Any, ...]:
        """What the rows depend on besides their text: the content's size."""
        return tuple(self.content_size)

    def label_border(
        self,
        title: Text | Content | str | None = None,
        subtitle: Text | Content | str | None = None,
    ) -> None:
        """Set the border's title and subtitle (None: leave it as it is), each only when
        it changed: Textual repaints the whole widget for any set, changed or not."""
        old_title, old_subtitle = self._labels
        if title is not None and title != old_title:
            self.border_title = title
            old_title = title
        if subtitle is not None and subtitle != old_subtitle:
            self.border_subtitle = subtitle
            old_subtitle = subtitle
        self._labels = (old_title, old_subtitle)

    def _redraw(self) -> list[int] | None:
        """Work the rows out again; the rows that changed, or None for all of them."""
        shape = self.rows_shape()
        width = self.content_size.width
        texts = list(self.text().split("\n", allow_blank=True)) if width > 0 else []
        old_texts, old_rows = self._row_texts, self._row_strips
        same_shape = shape == self._rows_shape
        rows: list[Strip] = []
        changed: list[int] = []
        console = self.app.console
        for y, text in enumerate(texts):
            if same_shape and y < len(old_texts) and old_texts[y] == text:
                rows.append(old_rows[y])
                continue
            rows.append(text_row(text, width, console))
            changed.append(y)
        changed.extend(range(len(texts), len(old_texts)))
        self._row_texts, self._row_strips = tuple(texts), tuple(rows)
        self._rows_shape = shape
        return changed if same_shape else None

    def repaint(self) -> None:
        """Show what changed: repaint the rows whose text changed (all of them for a new
        shape)."""
        if not self.is_mounted or not self.content_size:
            self.refresh()
            return
        changed = self._redraw()
        if changed is None:
            self.refresh()
        elif changed:
            # Regions of the content (Textual moves them past the border and padding).
            width = self.content_size.width
            self.refresh(*(Region(0, y, width, 1) for y in changed))

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in ``crop``, worked out again first if the shape changed."""
        if self._rows_shape != self.rows_shape():
            self._redraw()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the content."""
        if y >= len(self._row_strips):
            return self.blank(self.content_size.width)
        return self.paint(self._row_strips[y])


class LineView(KeptRows, SteadyVerticalBar, ScrollView):
    """A scroll view drawn with the line API (:class:`KeptRows`), whose vertical
    scrollbar is always there (one that comes and goes lays the screen out, and changes
    the rows' width) and steady (:class:`SteadyVerticalBar`).
    """

    DEFAULT_CSS = """
    LineView {
        overflow-y: scroll;
        overflow-x: hidden;
    }
    """

    #: The width of the rows being painted (worked out once a paint, not once a row).
    paint_width = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in ``crop``, after noting the width they are painted at."""
        self.paint_width = self.scrollable_content_region.width
        return super().render_lines(crop)

    def fit(self, strip: Strip, width: int) -> Strip:
        """``strip`` cut or padded to ``width``, painted (:meth:`KeptRows.paint`)."""
        if strip.cell_length != width:  # a new strip costs as much as styling it
            strip = strip.crop_extend(0, width, self.line_style)
        return self.paint(strip)


class TextView(LineView, can_focus=True):
    """Rich renderables one under another, scrollable; :meth:`show` replaces them with a
    repaint.

    Given a cheap guess of each block's height (:meth:`show_blocks`), a block is rendered
    only when a row of it is first painted, or rows below it: a request of a hundred
    messages costs the ones in view, not all of them. Until then the guess stands in for
    its height in the scrollbar. Given a key for each block, a block's rows are kept
    (:data:`KEPT_BLOCKS` of them, the least recently shown dropped first): a request shown
    again, or the next one of the same Mysis, renders only its new messages."""

    #: How many rendered blocks a view keeps.
    KEPT_BLOCKS = 1024

    def __init__(
        self, text: RenderableType | None = None, *, id: str | None = None, classes: str = ""
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._blocks: tuple[RenderableType, ...] = (text if text is not None else Text(),)
        self._guess: Callable[[int], list[int]] | None = None
        self._keys: Sequence[Hashable] | None = None
        #: Rendered blocks by key and width.
        self._kept: LRUCache[tuple[Hashable, int], list[Strip]] = LRUCache(self.KEPT_BLOCKS)
        #: The rows of the blocks rendered so far (the first ``_done``), at ``_width``.
        self._lines: list[Strip] = []
        self._done = 0
        #: The guessed height of the blocks not rendered yet.
        self._guessed: list[int] = []
        self._width = 0

    @property
    def text(self) -> RenderableType:
        """What is shown."""
        return self._blocks[0] if len(self._blocks) == 1 else Group(*self._blocks)

    def show(self, text: RenderableType, *, top: bool = False) -> None:
        """Show ``text`` (from its top with ``top``, else where the view was)."""
        self.show_blocks((text,), top=top)

    def show_blocks(
        self,
        blocks: Sequence[RenderableType],
        *,
        guess: Callable[[int], list[int]] | None = None,
        keys: Sequence[Hashable] | None = None,
        top: bool = False,
    ) -> None:
        """Show ``blocks`` one under another (from the top with ``top``). ``guess`` gives
        every block's height at a width, cheaply: then each block is rendered when first
        needed; without it, all of them now. ``keys`` (one per block, equal only for
        blocks that render the same) keeps each block's rows for the next show."""
        self._blocks = tuple(blocks)
        self._guess = guess
        self._keys = keys
        if top:
            self.scroll_to(y=0, animate=False, immediate=True)
        self._render_lines()

    def _render_lines(self) -> None:
        width = self.scrollable_content_region.width
        self._width = width
        self._lines, self._done = [], 0
        if width <= 0:
            return
        self._guessed = self._guess(width) if self._guess is not None else []
        self._render_until(self.scroll_offset.y + self.scrollable_content_region.height)
        self.refresh()

    def _render_until(self, rows: int) -> None:
        """Render blocks until ``rows`` rows are rendered (every block without a guess),
        and give the view its height: the rows rendered and the guesses of the rest."""
        if self._width <= 0:
            return
        done = self._done
        console = self.app.console
        options = console.options.update_width(self._width)
        while self._done < len(self._blocks) and (self._guess is None or len(self._lines) < rows):
            self._lines.extend(self._block_rows(self._done, console, options))
            self._done += 1
        if self._done == done:
            return
        rest = sum(self._guessed[self._done :]) if self._guess is not None else 0
        resize_virtual(self, Size(self._width, len(self._lines) + rest))

    def _block_rows(self, index: int, console: Console, options: ConsoleOptions) -> list[Strip]:
        """Block ``index`` rendered at the view's width, or as kept from an earlier show."""
        key = None if self._keys is None else (self._keys[index], self._width)
        rows = None if key is None else self._kept.get(key)
        if rows is None:
            block = self._blocks[index]
            rows = [
                Strip(row, self._width) for row in console.render_lines(block, options, pad=True)
            ]
            if key is not None:
                self._kept.set(key, rows)
        return rows

    def on_resize(self) -> None:
        """Lay the text out again for a new width."""
        if self.scrollable_content_region.width != self._width:
            self._render_lines()

    def scroll_end(self, *args: Any, **kwargs: Any) -> None:
        """Scroll to the true end: every block rendered first."""
        self._render_until(sys.maxsize)
        super().scroll_end(*args, **kwargs)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in ``crop``, the blocks down to them rendered first."""
        self._render_until(self.scroll_offset.y + crop.bottom)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the view."""
        index = self.scroll_offset.y + y
        if index >= len(self._lines):
            return self.blank(self.paint_width)
        return self.fit(self._lines[index], self.paint_width)


def text_key(*texts: Text) -> Hashable:
    """A key for a block made of ``texts`` (:meth:`TextView.show_blocks`): equal only for
    texts of the same characters and styles, which render the same."""
    return tuple((text.plain, tuple(text.spans)) for text in texts)


def guess_height(text: Text, width: int) -> int:
    """About how many rows ``text`` takes at ``width`` (folded, not word-wrapped: a word
    carried to the next row can add one)."""
    width = max(1, width)
    return sum(max(1, -(-len(line) // width)) for line in text.plain.split("\n"))

"""A line-API view's private ways: a virtual size without a layout, a steady scrollbar,
line filters run once per kept row.

- :func:`resize_virtual` (Textual's own ``_scroll_update``): new text in a view moves its
  scrollbar only, never lays the screen out: a layout of the focus view costs 40-60 ms at
  200x60 (``bench/ui.py``'s ``page-*`` and ``focus-step``). Stock: ``virtual_size`` set,
  which lays the screen out.
- :class:`SteadyScrollBar` / :class:`SteadyVerticalBar` (Textual's ``_vertical_scrollbar``
  and ``_start_widget``): a bar repaints only when what it draws changed: no second frame
  after each open of the focus view (``open-focus``). Stock: Textual's own scrollbar.
- :class:`FilteredRows` (the override of ``get_line_filters``, Textual's own filters run on
  the kept row): filters run once per changed row, not once per row of every frame (about
  1 ms of a focus-view frame). Stock: Textual runs them.

Buys together (``bench/results/ui_ways.json``, switch name ``views``; the app's CPU from key
to mark, median): opening the focus view 36 ms against 50, stepping in it 28 against 41,
``home`` on a million memories 14 against 24 (``end``'s p95 20 against 141), opening the
search 10 against 16. Checked on Textual 8.2.8.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Self

from rich.console import RenderableType
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from . import enabled

#: This override off, Textual's own code in its place (ZOEA_STOCK_TEXTUAL=1 or =views).
STOCK = not enabled("views")


def resize_virtual(view: ScrollView, size: Size) -> None:
    """Give ``view`` the virtual size ``size`` without laying its screen out again.

    Only the scrollbar follows (Textual's own ``_scroll_update``; Textual is pinned). A
    scrollbar that must appear or go still asks for its layout there, and a view not yet
    laid out is laid out as usual. Stock: the virtual size is set, Textual's way.
    """
    if size == view.virtual_size:
        return
    if STOCK:
        view.virtual_size = size
        return
    view.set_reactive(ScrollView.virtual_size, size)
    if view.is_mounted and view.container_size:
        view._scroll_update(size)
    else:
        view.refresh(layout=True)


class SteadyScrollBar(ScrollBar):
    """A scrollbar that repaints only when what it draws has changed.

    Textual repaints a view's scrollbar whenever a scrollbar colour is set on the view,
    changed or not, and the screen restyles every view it shows when it comes back on top.
    Those repaints reach the screen after the frame that already drew the new screen
    whole, so each open of the focus view cost a second frame, after a frame's wait, for
    three scrollbars that had not changed. What it draws: its colours (from the view and
    the background under it), the window and its position, its size and thickness, and
    whether it is hovered or grabbed. A change to any of these repaints it as before.
    """

    #: What the bar was last drawn from, or will be by the repaint asked for.
    _drawn: tuple[Any, ...] | None = None

    def _looks(self) -> tuple[Any, ...]:
        parent = self.parent
        assert parent is not None
        styles = parent.styles
        return (
            parent.background_colors,
            styles.scrollbar_background,
            styles.scrollbar_color,
            styles.scrollbar_background_hover,
            styles.scrollbar_color_hover,
            styles.scrollbar_background_active,
            styles.scrollbar_color_active,
            self.screen.styles.scrollbar_color,
            self.window_virtual_size,
            self.window_size,
            self.position,
            self.thickness,
            self.mouse_over,
            self.grabbed,
            self.size,
        )

    def render(self) -> RenderableType:
        """Draw the bar, remembering what it was drawn from."""
        self._drawn = self._looks()
        return super().render()

    #: The rows last painted, and what they were painted from (:meth:`render_lines`).
    _painted: tuple[tuple[Any, ...], list[Strip]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in ``crop``: the ones painted last if the bar looks the same (a view
        shown again, or stepped back to, often has its bar as it was: 1 ms a bar)."""
        looks = self._looks()
        if looks != self._drawn:
            # Drawn from other looks, and no refresh said so (the screen's own scrollbar
            # colour is set after a bar is first drawn): draw it again.
            super().refresh()
        key = (looks, crop, tuple(self.app.get_line_filters()))
        if self._painted is not None and self._painted[0] == key:
            return self._painted[1]
        rows = super().render_lines(crop)
        self._painted = (key, rows)
        return rows

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        """Repaint, unless a repaint already drawn or asked for shows the same bar."""
        if self.is_attached and self._is_mounted:  # Textual marks nothing to draw before
            looks = self._looks()
            if looks == self._drawn and not (regions or layout or recompose):
                return self
            self._drawn = looks
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


if TYPE_CHECKING:
    _Mixin = Widget
else:
    # The mixins below are plain classes when the app runs: Textual inherits CSS, type
    # names and component classes along a widget's first base that is a DOM node only,
    # so a mixin placed first must not be one, or the widget would lose its own
    # class's (OptionList's, ScrollView's).
    _Mixin = object


class _SteadyVerticalBar(_Mixin):
    """Mixin (first among the bases): the widget's vertical scrollbar is a
    :class:`SteadyScrollBar`."""

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """The vertical scrollbar, a :class:`SteadyScrollBar` (made as Textual makes its own)."""
        if self._vertical_scrollbar is None:
            bar = SteadyScrollBar(
                vertical=True, name="vertical", thickness=self.scrollbar_size_vertical
            )
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar


class _StockVerticalBar(_Mixin):
    """Mixin: Textual's own scrollbar (the overrides off)."""


#: The mixin giving a widget a :class:`SteadyScrollBar` (Textual's own when stock).
if TYPE_CHECKING:
    SteadyVerticalBar = _SteadyVerticalBar
else:
    SteadyVerticalBar = _StockVerticalBar if STOCK else _SteadyVerticalBar


class _FilteredRows(_Mixin):
    """Mixin (first among the bases) for a widget that styles its kept rows itself: the
    app's line filters run once on each kept row (:meth:`filter_row`), not by Textual on
    every row of every frame. The filters' output is the same; only where they run moves.
    """

    #: The app's line filters and the background they blend on, for the rows being painted.
    _line_filters: tuple[LineFilter, ...] = ()
    _filter_background = Color(0, 0, 0)

    def get_line_filters(self) -> Sequence[LineFilter]:
        """None for Textual to run: :meth:`filter_row` has run them on each row."""
        return ()

    def take_line_filters(self) -> None:
        """Note the app's line filters for the rows about to be painted."""
        self._line_filters = tuple(self.app.get_line_filters())
        self._filter_background = self.background_colors[1]

    def filter_row(self, strip: Strip) -> Strip:
        """``strip`` filtered as Textual would filter its line."""
        for line_filter in self._line_filters:
            strip = strip.apply_filter(line_filter, self._filter_background)
        return strip


class _StockFilteredRows(_Mixin):
    """Mixin: Textual runs the line filters itself (the overrides off)."""

    def take_line_filters(self) -> None:
        """Nothing to note: Textual filters every row."""

    def filter_row(self, strip: Strip) -> Strip:
        """``strip`` as it is: Textual filters it."""
        return strip


#: The mixin running the line filters on kept rows (Textual runs them when stock).
if TYPE_CHECKING:
    FilteredRows = _FilteredRows
else:
    FilteredRows = _StockFilteredRows if STOCK else _FilteredRows

__all__ = [
    "FilteredRows",
    "SteadyScrollBar",
    "SteadyVerticalBar",
    "resize_virtual",
]

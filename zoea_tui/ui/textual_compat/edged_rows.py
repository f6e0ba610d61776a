"""Textual's styles cache with a short way for a bordered widget's rows of content.

For each row Textual adds the border and padding to a widget's line of content in
``StylesCache.render_line``: it works out the colours and styles of both edges again,
row after row, for about 45 µs a row (the content itself: 4 µs). A frame of the focus
view paints over 200 such rows whenever the Mysis shown changes: about 10 ms of its 20.
:class:`EdgedRows` works the edges out once per paint and puts each row between them.
Top and bottom borders, padding rows, and any widget with a tint, an opacity, a hatch
or an outline go Textual's way (Textual is pinned; ``tests/ui/test_edged_rows.py``
checks that both ways paint the same rows).

Buys: about 10 ms of a 20 ms focus-view frame when the Mysis shown changes (``bench/ui.py``'s
``focus-next``, both ways). Subclasses the private ``textual._styles_cache.StylesCache``;
checked on Textual 8.2.8. Stock: :func:`use_edged_rows` leaves Textual's cache in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from textual._border import get_box
from textual._segment_tools import make_blank
from textual._styles_cache import StylesCache
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.style import Style

from . import enabled

#: Off with ZOEA_STOCK_TEXTUAL=1 (or =edged_rows).
STOCK = not enabled("edged_rows")

if TYPE_CHECKING:
    from textual.widget import Widget


@dataclass(frozen=True, slots=True)
class Edges:
    """What goes on either side of a row of content, for one paint of a widget."""

    #: The rows of content: from row ``top`` to ``bottom`` rows above the widget's end.
    top: int
    bottom: int
    content_width: int
    content_height: int
    #: The style of the cells inside the border (padding, and a row with no content).
    inner: Any
    left: tuple[Segment, ...]
    right: tuple[Segment, ...]


def edges_of(widget: Widget, cache: StylesCache) -> Edges | None:
    """The edges of ``widget``'s rows of content as Textual would draw them, or None
    when its styles need Textual's whole way (tint, opacity, hatch, outline)."""
    styles = widget.styles
    opacity = widget.opacity
    if (
        opacity != 1.0
        or styles.tint.a
        or styles.text_opacity != 1.0
        or any(edge for edge, _ in styles.outline)
    ):
        return None
    if styles.has_rule("hatch") and styles.hatch != "none":
        character, color = styles.hatch
        if character != " " and color.a > 0:
            return None
    base_background, background = widget.background_colors
    inner, outer = cache.get_inner_outer(base_background, background)
    (_, _), (border_right, right_color), (_, _), (border_left, left_color) = styles.border
    gutter = styles.gutter
    _, pad_right, _, pad_left = styles.padding
    inner_style = inner.rich_style
    left: list[Segment] = []
    right: list[Segment] = []
    if border_left:
        style = Style(foreground=base_background + left_color.multiply_alpha(opacity))
        left.append(get_box(border_left, inner, outer, style)[1][0])
    if pad_left:
        left.append(make_blank(pad_left, inner_style))
    if pad_right:
        right.append(make_blank(pad_right, inner_style))
    if border_right:
        style = Style(foreground=base_background + right_color.multiply_alpha(opacity))
        right.append(get_box(border_right, inner, outer, style)[1][2])
    content = widget.content_region.size
    return Edges(
        top=gutter.top,
        bottom=gutter.bottom,
        content_width=content.width,
        content_height=content.height,
        inner=inner_style,
        left=tuple(left),
        right=tuple(right),
    )


class EdgedRows(StylesCache):
    """A widget's styles cache that puts each row of content between edges worked out
    once per paint (:func:`edges_of`); every other row is Textual's."""

    _edges: Edges | None = None

    def render_widget(self, widget: Widget, crop: Region) -> list[Strip]:
        """The rows in ``crop``, the edges worked out first."""
        self._edges = edges_of(widget, self)
        try:
            return super().render_widget(widget, crop)
        finally:
            self._edges = None

    def render_line(self, styles: Any, y: int, size: Size, *args: Any, **kwargs: Any) -> Strip:
        """Row ``y``: a row of content between its edges, or Textual's row."""
        edges = self._edges
        if edges is None or not edges.top <= y < size.height - edges.bottom:
            return super().render_line(styles, y, size, *args, **kwargs)
        render_content_line = args[4]  # after content_size, padding and both backgrounds
        content_y = y - edges.top
        if content_y < edges.content_height:
            line = render_content_line(content_y).adjust_cell_length(
                edges.content_width, edges.inner
            )
        else:
            line = Strip.blank(edges.content_width, edges.inner)
        return Strip([*edges.left, *line, *edges.right], size.width)


def use_edged_rows(widget: Widget) -> None:
    """Give ``widget`` an :class:`EdgedRows` styles cache (none when the overrides are off)."""
    if not STOCK:
        widget._styles_cache = EdgedRows()

"""A block of text that repaints in place and asks for a layout only when its height changes.

Textual's ``Static.update`` lays the whole screen out again on every call, because new
text may need more or fewer lines. The focus view's header, game state and context
preview change with every event of a busy Mysis, nearly always without changing height:
with 16 Myses playing, each of those layouts cost 20-70 ms of the event loop.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget


class TextBlock(Widget):
    """Shows a Rich text (or group of them); :meth:`show` replaces it."""

    DEFAULT_CSS = """
    TextBlock {
        height: auto;
    }
    """

    def __init__(self, text: RenderableType | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = text if text is not None else Text()
        self._height = -1

    @property
    def text(self) -> RenderableType:
        """What is shown."""
        return self._text

    def render(self) -> RenderableType:
        """The text."""
        return self._text

    def show(self, text: RenderableType) -> None:
        """Show ``text``: a repaint, and a layout only if it needs another height (never
        when its stylesheet fixes the height)."""
        self._text = text
        height_rule = self.styles.height
        if height_rule is not None and not height_rule.is_auto:
            self.refresh()
            return
        width = self.content_size.width
        height = self._lines(text, width) if width else -1
        changed = height != self._height or height < 0
        self._height = height
        self.refresh(layout=changed)

    def on_resize(self) -> None:
        """Note the height the layout gave the text, so that the next :meth:`show` of
        text as tall asks for no layout."""
        width = self.content_size.width
        if width:
            self._height = self._lines(self._text, width)

    def _lines(self, text: RenderableType, width: int) -> int:
        console = self.app.console
        if isinstance(text, Text):
            return len(text.wrap(console, width))
        return len(console.render_lines(text, console.options.update_width(width), pad=False))

"""A box of text that scrolls: a stop of the Tab order only while there is more to see.

Textual's ``VerticalScroll`` always takes the focus, so an empty or short box was a Tab
stop that showed nothing and did nothing (the add-provider form's findings before a
probe: four Tabs from Endpoint, then Enter did nothing; the inspector's detail before a
request is chosen).
"""

from __future__ import annotations

from textual.containers import VerticalScroll


class ScrollBox(VerticalScroll):
    """A ``VerticalScroll`` that takes the focus only when it can scroll."""

    def allow_focus(self) -> bool:
        """Focusable only with more to scroll to."""
        return self.max_scroll_y > 0 or self.max_scroll_x > 0

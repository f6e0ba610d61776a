"""The input bars' earlier entries (message, broadcast), browsed with up and down.

Kept by the app, one per kind of bar, so a bar opened again offers what was sent before
(:attr:`~zoea_tui.ui.screens.base.CommandCenter.history`).
"""

from __future__ import annotations

#: Most entries kept per history; consecutive duplicates are not repeated.
HISTORY_SIZE = 100


class InputHistory:
    """Earlier inputs of one kind (newest last), browsed with up and down."""

    def __init__(self, entries: list[str] | None = None) -> None:
        self.entries: list[str] = list(entries or [])

    def add(self, text: str) -> None:
        """Remember ``text`` (skipping a repeat of the newest entry)."""
        if text and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            del self.entries[:-HISTORY_SIZE]

"""The bottom line of keys: what the keys of the current screen do, as one widget.

Textual's ``Footer`` mounts a widget per key and recomposes whenever the bindings change,
which they do each time focus moves: with the swarm playing at 200×60 that was 35–65 ms
of layout a time, up to four times when the focus view opened. This bar draws the same
keys as one line of text and only repaints when they change. A click on a key types it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

from ..commands import KEPT_KEYS


def key_hints(
    keys: list[tuple[str, str, str, bool]],
    width: int,
    styles: tuple[Style | str, Style | str, Style | str],
    kept: frozenset[str] = KEPT_KEYS,
) -> tuple[Text, list[tuple[int, int, str]]]:
    """The line for ``keys`` (key, shown as, description, enabled) and where each key
    sits (start, end, key). ``styles``: key, description, disabled. The ``kept`` keys
    are shown first of all; the others, in order, as far as the rest of ``width`` holds
    them (pure: used by tests too)."""
    key_style, description_style, disabled_style = styles
    pieces: list[tuple[str, Text]] = []
    for key, shown, description, enabled in keys:
        piece = Text.assemble((f" {shown} ", key_style), (f"{description} ", description_style))
        if not enabled:
            piece.stylize(disabled_style)
        pieces.append((key, piece))
    room = width or sum(piece.cell_len for _, piece in pieces)
    chosen: set[int] = set()
    for n, (key, piece) in enumerate(pieces):
        if key in kept and piece.cell_len <= room:
            chosen.add(n)
            room -= piece.cell_len
    for n, (key, piece) in enumerate(pieces):
        if key in kept:
            continue
        if piece.cell_len > room:
            break
        chosen.add(n)
        room -= piece.cell_len
    text = Text(no_wrap=True, overflow="crop")
    spans: list[tuple[int, int, str]] = []
    for n, (key, piece) in enumerate(pieces):
        if n in chosen:
            start = text.cell_len
            text.append_text(piece)
            spans.append((start, text.cell_len, key))
    return text, spans


class KeyBar(Widget):
    """The keys of the current screen with a word on each; docked at the bottom."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "key-bar--key",
        "key-bar--description",
        "key-bar--disabled",
    }
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-bar--disabled {
            text-style: dim;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, str]] = []
        #: The keys drawn last (a change of bindings that shows the same keys draws nothing).
        self._drawn: list[tuple[str, str, str, bool]] | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # Textual tells of new bindings a frame after each change of focus, a screen's
        # return among them: repainting the same keys would cost that key a second frame.
        if self.is_attached and screen is self.screen and self.keys() != self._drawn:
            self.refresh()  # a repaint of one line; the layout stays as it is

    def keys(self) -> list[tuple[str, str, str, bool]]:
        """The shown keys of the screen now: (key, shown as, description, enabled)."""
        seen: set[str] = set()
        keys = []
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            keys.append(
                (binding.key, self.app.get_key_display(binding), binding.description, enabled)
            )
        return keys

    def render(self) -> Text:
        """One line of keys, as many as fit."""
        self._drawn = self.keys()
        text, self._spans = key_hints(
            self._drawn,
            self.size.width,
            (
                self.get_component_rich_style("key-bar--key"),
                self.get_component_rich_style("key-bar--description"),
                self.get_component_rich_style("key-bar--disabled"),
            ),
        )
        return text

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A click on a key types it."""
        for start, end, key in self._spans:
            if start <= event.x < end:
                self.app.simulate_key(key)
                return

"""Screens built ahead, kept styles for a screen shown again, nothing painted under an
opaque screen.

- :func:`build_unseen` / :func:`settle_unseen` (Textual's ``_get_screen``, the inside of a
  screen push, and ``_refresh_layout`` with its layout flags): the focus view and the
  search are composed, read, laid out and styled before their first open, which then only
  paints: 50-60 ms less on the first open of the focus view at 200x60 (``bench/ui.py``'s
  ``open-focus``, both ways). Switch name ``prebuild``. Stock: nothing is built ahead; the
  first push builds it.
- :class:`KeptStyles` (overrides of the private ``_on_screen_suspend`` /
  ``_on_screen_resume``, fingerprinting styling with ``stylesheet._rules`` and
  ``_css_update_count``): a screen shown again keeps its styles when nothing they come from
  changed: 12-20 ms less per open of the focus view. Stock: Textual restyles every node.
- :class:`OpaqueScreensApp` (an override of the private ``App._background_screens``): no
  screen under an opaque one is painted: no second full frame after each open. Stock:
  Textual paints the screen under the top one.

Buys (``bench/results/ui_ways.json``; the app's CPU from key to mark): ``screens`` opening
the focus view 36 ms median against 43 (p95 68 against 103), leaving it 9 against 12;
``prebuild`` the first open of each screen: p95 of opening the focus view 68 against 91,
of opening the search 14 against 34. Checked on Textual 8.2.8.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget

from . import enabled

#: This override off (kept styles, nothing painted under an opaque screen), Textual's own
#: code in its place (ZOEA_STOCK_TEXTUAL=1 or =screens).
STOCK = not enabled("screens")
#: Off with ZOEA_STOCK_TEXTUAL=1 (or =prebuild): screens built and laid out unseen.
NO_PREBUILD = not enabled("prebuild")


def styling(app: App[Any]) -> tuple[Any, ...]:
    """What every style of the app is worked out from, besides each node's own classes
    and pseudo-classes: the CSS's rules (a new theme or source parses them anew; lists
    compare equal only with the same rules), Textual's count of theme changes, and the
    app's classes and pseudo-classes (dark, focus, ansi...)."""
    return (
        app.stylesheet._rules,
        app._css_update_count,
        frozenset(app.get_pseudo_classes()),
        frozenset(app.classes),
    )


async def build_unseen(app: App[Any], screen: Screen[Any]) -> None:
    """Compose and mount ``screen`` (its CSS loaded) without showing it, as a push would
    before showing it (Textual's ``_get_screen``). Stock: nothing (the push builds it)."""
    if NO_PREBUILD:
        return
    await app._get_screen(screen)[1]


def settle_unseen(screen: Screen[Any], size: Size) -> None:
    """Lay ``screen`` out and style it while it is not shown, as its first showing would:
    its first open then only paints. Stock: nothing.

    Textual lays a screen out when it is first pushed, and restyles every node then,
    which gives the scrollbars made during that first layout their own styles and so
    asks for a second layout: 50-60 ms for the focus view at 200x60."""
    if NO_PREBUILD or not screen.is_mounted:
        return
    screen._refresh_layout(size)
    screen.update_node_styles(animate=False)
    screen._refresh_layout(size)
    # The layouts the restyle asked for are done: drop the requests, which would
    # otherwise reach the screen and wait for its first frame (Textual's frame timer
    # runs only for the screen shown).
    for node in screen.walk_children(Widget, with_self=True):
        node._layout_required = False
        for bar in (node._vertical_scrollbar, node._horizontal_scrollbar):
            if bar is not None:
                bar._layout_required = False
    screen._scroll_required = False


if TYPE_CHECKING:
    _ScreenMixin = Screen[Any]
else:
    _ScreenMixin = object  # a plain mixin: the screen's CSS lineage stays its own


class _KeptStyles(_ScreenMixin):
    """Mixin (first among the bases) for a screen that keeps its styles when it comes back
    under the styling it left under (Textual's handlers run after and restyle only when
    asked).

    Textual restyles every node of a pushed screen: 12-20 ms for the focus view, on every
    open. While a screen is away nothing of its nodes changes style unseen: a class or
    pseudo-class set on a node restyles it there and then, the mouse's hover is cleared
    when it leaves, and a new theme or CSS, or a change of the app's own classes, changes
    :func:`styling`."""

    #: The app's styling when this screen last left the top of the stack.
    _left_under: tuple[Any, ...] | None = None

    def note_styling(self) -> None:
        """Note the styling the screen is styled under now (it is not shown)."""
        self._left_under = styling(self.app)

    def _on_screen_suspend(self) -> None:
        self.note_styling()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if event.refresh_styles and self._left_under == styling(self.app):
            event.refresh_styles = False


class _StockStyles(_ScreenMixin):
    """Mixin: Textual restyles the screen at every resume (the overrides off)."""

    def note_styling(self) -> None:
        """Nothing to note."""


if TYPE_CHECKING:
    KeptStyles = _KeptStyles
else:
    KeptStyles = _StockStyles if STOCK else _KeptStyles


class OpaqueScreensApp(App[None]):
    """An app whose screens under an opaque screen are hidden, and so never painted
    (stock: Textual's own choice of the screens that show)."""

    if not STOCK:

        @property
        def _background_screens(self) -> list[Screen[Any]]:
            """The screens that show through the top one: none when the top one is opaque.

            Textual counts the screen under the top one as visible whatever the top one's
            background, so a dashboard under the focus view went on painting: each refresh
            of it (its own, or the one ``push_screen`` asks for) repainted the same region
            of the focus view, a second full frame after every open. An opaque screen hides
            everything under it; a translucent one (a dialog) still shows what is below."""
            stack = self._screen_stack  # no copy: asked for by every screen, every frame
            if stack and stack[-1].styles.background.a == 1:
                return []
            return super()._background_screens

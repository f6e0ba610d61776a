"""The base of the command center's screens: the typed app and the Mysis a screen points at.

Every screen of the app derives from :class:`ZoeaScreen` (a modal one from
:class:`ZoeaModalScreen`), so the app finds the target of a key such as ``m`` by type,
never by looking for an attribute. The app derives from :class:`OpaqueScreensApp`, which
paints no screen hidden under an opaque one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual import events
from textual.app import App
from textual.geometry import Region, Size
from textual.screen import ModalScreen, Screen, ScreenResultType
from textual.strip import Strip
from textual.widget import Widget

if TYPE_CHECKING:
    from ..app import ZoeaApp

#: The worker group of what is read ahead of the commander's next key while it rests
#: (:meth:`ZoeaScreen.when_rested`): part of no key's effect.
AHEAD_GROUP = "ahead"


class ZoeaScreen(Screen[ScreenResultType]):
    """A screen of the command center.

    An opaque screen paints the same backdrop, frame after frame: its strips are kept
    while nothing they are drawn from changes. Textual draws them again at each full
    repaint of the screen (every open of a screen), and then cuts each new row at every
    edge of the widgets over it: 4-5 ms of a 40 ms frame at 200x60, for a backdrop
    nothing shows. Kept, Textual's cache of the cuts serves them too.

    A screen shown again keeps its styles when nothing they are worked out from has
    changed since it left (:meth:`_on_screen_resume`).
    """

    _backdrop: tuple[tuple[Any, ...], list[Strip]] | None = None
    #: The app's styling when this screen last left the top of the stack.
    _left_under: tuple[Any, ...] | None = None

    def _styling(self) -> tuple[Any, ...]:
        """What every style of the app is worked out from, besides each node's own
        classes and pseudo-classes: the CSS's rules (a new theme or source parses them
        anew; lists compare equal only with the same rules), Textual's count of theme
        changes, and the app's classes and pseudo-classes (dark, focus, ansi...)."""
        app = self.app
        return (
            app.stylesheet._rules,
            app._css_update_count,
            frozenset(app.get_pseudo_classes()),
            frozenset(app.classes),
        )

    def ready_unseen(self, size: Size) -> None:
        """Lay this screen out and style it while it is not shown, as its first showing
        would: its first open then only paints.

        Textual lays a screen out when it is first pushed, and restyles every node then,
        which gives the scrollbars made during that first layout their own styles and so
        asks for a second layout: 50-60 ms for the focus view at 200x60."""
        self._refresh_layout(size)
        self.update_node_styles(animate=False)
        self._refresh_layout(size)
        # The layouts the restyle asked for are done: drop the requests, which would
        # otherwise reach the screen and wait for its first frame (Textual's frame timer
        # runs only for the screen shown).
        for node in self.walk_children(Widget, with_self=True):
            node._layout_required = False
            for bar in (node._vertical_scrollbar, node._horizontal_scrollbar):
                if bar is not None:
                    bar._layout_required = False
        self._scroll_required = False
        self._left_under = self._styling()

    def _on_screen_suspend(self) -> None:
        """Note the styling the screen leaves under (Textual's handler runs after)."""
        self._left_under = self._styling()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Keep the styles when the screen comes back under the styling it left under
        (Textual's handler runs after and restyles only when asked).

        Textual restyles every node of a pushed screen: 12-20 ms for the focus view, on
        every open. While a screen is away nothing of its nodes changes style unseen:
        a class or pseudo-class set on a node restyles it there and then, the mouse's
        hover is cleared when it leaves, and a new theme or CSS, or a change of the
        app's own classes, changes :meth:`_styling`."""
        if event.refresh_styles and self._left_under == self._styling():
            event.refresh_styles = False

    def render_lines(self, crop: Region) -> list[Strip]:
        """The backdrop's rows in ``crop``: cut from the ones kept, if it has not changed."""
        styles = self.styles
        if styles.background.a < 1:  # translucent: it shows the screen under it
            return super().render_lines(crop)
        whole = self.size.region
        looks = (
            whole,
            self.rich_style,
            styles.background,
            styles.border,
            styles.padding,
            styles.tint,
            styles.hatch,
            styles.opacity,
        )
        if self._backdrop is None or self._backdrop[0] != looks:
            self._backdrop = (looks, super().render_lines(whole))
        rows = self._backdrop[1][crop.y : crop.bottom]
        if crop.column_span != (0, whole.width):
            rows = [row.crop(crop.x, crop.right) for row in rows]  # Textual caches cuts
        return rows

    @property
    def zoea(self) -> ZoeaApp:
        """The app, typed."""
        return cast("ZoeaApp", self.app)

    @property
    def current_mysis_id(self) -> int | None:
        """The Mysis this screen points at (the target of m, c, r, s, d, p), if any."""
        return None

    def when_rested(self) -> None:
        """The commander rests (its last key handled, the swarm's hold over): read ahead
        what a next key here may show (:meth:`ZoeaApp.read_ahead_soon`)."""


class ZoeaModalScreen(ModalScreen[ScreenResultType], ZoeaScreen[ScreenResultType]):
    """A modal screen of the command center (it may point at a Mysis too)."""


class OpaqueScreensApp(App[None]):
    """An app whose screens under an opaque screen are hidden, and so never painted."""

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

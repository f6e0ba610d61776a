"""The base of the command center's screens: the typed app and the Mysis a screen points at.

Every screen of the app derives from :class:`ZoeaScreen` (a modal one from
:class:`ZoeaModalScreen`), so the app finds the target of a key such as ``m`` by type,
never by looking for an attribute. The app derives from :class:`OpaqueScreensApp`, which
paints no screen hidden under an opaque one (``textual_compat.screens``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.geometry import Region, Size
from textual.screen import ModalScreen, Screen, ScreenResultType
from textual.strip import Strip

from ..textual_compat.screens import KeptStyles, OpaqueScreensApp, settle_unseen

if TYPE_CHECKING:
    from ..app import ZoeaApp

#: The worker group of what is read ahead of the commander's next key while it rests
#: (:meth:`ZoeaScreen.when_rested`): part of no key's effect.
AHEAD_GROUP = "ahead"


class ZoeaScreen(KeptStyles, Screen[ScreenResultType]):
    """A screen of the command center.

    An opaque screen paints the same backdrop, frame after frame: its strips are kept
    while nothing they are drawn from changes. Textual draws them again at each full
    repaint of the screen (every open of a screen), and then cuts each new row at every
    edge of the widgets over it: 4-5 ms of a 40 ms frame at 200x60, for a backdrop
    nothing shows. Kept, Textual's cache of the cuts serves them too.

    A screen shown again keeps its styles when nothing they are worked out from has
    changed since it left (:class:`~zoea_tui.ui.textual_compat.screens.KeptStyles`).
    """

    _backdrop: tuple[tuple[Any, ...], list[Strip]] | None = None

    def ready_unseen(self, size: Size) -> None:
        """Lay this screen out and style it while it is not shown, as its first showing
        would: its first open then only paints (:func:`settle_unseen`)."""
        settle_unseen(self, size)
        self.note_styling()

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


__all__ = ["AHEAD_GROUP", "OpaqueScreensApp", "ZoeaModalScreen", "ZoeaScreen"]

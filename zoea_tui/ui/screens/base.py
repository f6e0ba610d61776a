"""The base of the command center's screens: the typed app and the Mysis a screen points at.

Every screen of the app derives from :class:`ZoeaScreen` (a modal one from
:class:`ZoeaModalScreen`), so the app finds the target of a key such as ``m`` by type,
never by looking for an attribute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import ModalScreen, Screen, ScreenResultType

if TYPE_CHECKING:
    from ..app import ZoeaApp


class ZoeaScreen(Screen[ScreenResultType]):
    """A screen of the command center."""

    @property
    def zoea(self) -> ZoeaApp:
        """The app, typed."""
        return cast("ZoeaApp", self.app)

    @property
    def current_mysis_id(self) -> int | None:
        """The Mysis this screen points at (the target of m, c, r, s, d, p), if any."""
        return None


class ZoeaModalScreen(ModalScreen[ScreenResultType], ZoeaScreen[ScreenResultType]):
    """A modal screen of the command center (it may point at a Mysis too)."""

"""The base of the command center's screens: what they see of the app, and the Mysis a screen
points at.

A screen sees the app through :class:`CommandCenter`, the part of it a screen may use
(the swarm, the commander, reading ahead, opening the focus view, running a command,
saying what it did),
never through the app's class: the screens stand below the app (an import-linter contract
in ``pyproject.toml``). Every screen of the app derives from :class:`ZoeaScreen` (a modal one from
:class:`ZoeaModalScreen`), so the app finds the target of a key such as ``m`` by type,
never by looking for an attribute. The app derives from :class:`OpaqueScreensApp`, which
paints no screen hidden under an opaque one (``textual_compat.screens``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, Self, cast

from textual.geometry import Region, Size
from textual.screen import ModalScreen, Screen, ScreenResultType
from textual.strip import Strip

from ..textual_compat.screens import KeptStyles, OpaqueScreensApp, settle_unseen

if TYPE_CHECKING:
    from textual.signal import Signal
    from textual.worker import Worker

    from ...orchestrator.commander import Commander
    from ...orchestrator.events import MysisView
    from ..input_history import InputHistory
    from ..read_ahead import ReadAhead
    from ..swarm_model import SwarmModel


class CommandCenter(Protocol):
    """What a screen may use of the app (:class:`~zoea_tui.ui.app.ZoeaApp` is one)."""

    @property
    def commander(self) -> Commander | None:
        """The engine, once it is open."""

    @property
    def swarm(self) -> SwarmModel:
        """The swarm, kept once for every screen."""

    @property
    def ahead(self) -> ReadAhead:
        """What the focus view shows of a Mysis, read now or before a key asks for it
        (the one place reading ahead is scheduled and kept)."""

    @property
    def ready_signal(self) -> Signal[None]:
        """Published once the engine is open."""

    @property
    def names(self) -> dict[str, str]:
        """Mysis names by id as text."""

    @property
    def history(self) -> dict[str, InputHistory]:
        """The input bars' earlier entries, by kind (``message``, ``broadcast``)."""

    def say(self, message: str, severity: str = "information") -> None:
        """A notification with untrusted text (cleaned, never markup), not repeated."""

    def run_command(
        self,
        what: str,
        call: Callable[[], Awaitable[Any]],
        *,
        done: str | Callable[[Any], str] | None = None,
    ) -> Worker[Any]:
        """Run an engine call in a worker; refusals and failures become notifications."""

    def open_focus(self, mysis_id: int, *, at: int | None = None) -> None:
        """Show the focus view of a Mysis (at memory ``at``, if given)."""

    def select_on_dashboard(self, mysis_id: int) -> None:
        """Select a Mysis on the dashboard (for when the user returns to it)."""


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

    @classmethod
    def opened(cls, view: MysisView | None) -> Self:
        """This screen as a command of the table opens it (``zoea_tui.ui.commands``):
        for the Mysis ``view`` if the command acts on one (None otherwise)."""
        return cls()

    @property
    def center(self) -> CommandCenter:
        """The app seen through :class:`CommandCenter`: the part of it a screen may use."""
        return cast("CommandCenter", self.app)

    @property
    def current_mysis_id(self) -> int | None:
        """The Mysis this screen points at (the target of m, c, r, s, d, p), if any."""
        return None

    def when_rested(self) -> None:
        """The commander rests (its last key handled, the swarm's hold over): ask the
        app's :class:`~zoea_tui.ui.read_ahead.ReadAhead` for what a next key here may
        show (it calls this on the screen on top: :meth:`ReadAhead.soon
        <zoea_tui.ui.read_ahead.ReadAhead.soon>`)."""


class ZoeaModalScreen(ModalScreen[ScreenResultType], ZoeaScreen[ScreenResultType]):
    """A modal screen of the command center (it may point at a Mysis too)."""


def targeted(view: MysisView | None, screen: type[ZoeaScreen[Any]]) -> MysisView:
    """``view``, the Mysis a command that acts on one opens ``screen`` for (its row's
    ``target``: the app opens such a screen only for a Mysis)."""
    if view is None:
        raise ValueError(f"{screen.__name__} opens for a Mysis: its command's row needs a target")
    return view


__all__ = ["CommandCenter", "OpaqueScreensApp", "ZoeaModalScreen", "ZoeaScreen", "targeted"]

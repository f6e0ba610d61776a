"""The swarm on the dashboard: one pane per Mysis in a grid that fills the space it has,
or a compact two-line list when more Myses than fit.

Arrows move the selection (left and right in the grid too), enter opens it; a click
selects, a double click opens. :func:`plan_layout` decides the grid (pure, tested).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.reactive import var
from textual.widgets import Static

from ...orchestrator.events import MysisView
from .. import formatting as fmt
from ..activity import Action, GameFacts
from .mysis_pane import MysisPane
from .widget_message import WidgetMessage

#: The smallest pane, borders included (a narrower or lower one turns the list compact).
MIN_PANE_WIDTH = 26
MIN_PANE_HEIGHT = 8
#: The pane shape aimed for: width in cells over twice the height (cells are tall).
ASPECT = 1.6
#: What an empty cell of the grid costs against a less pleasing shape.
EMPTY_CELL_COST = 1.0
#: Changed panes are repainted this often, at most this many at a time besides the
#: selected one: working a pane's lines out costs about 1 ms at 200×60 on 2 cores (its
#: changed rows are then drawn), and sixteen drawn whole together, as Textual's rich
#: content, stalled the loop for 70 ms ten times a second.
PAINT_S = 0.1
PANES_PER_PAINT = 3


@dataclass(frozen=True, slots=True)
class Layout:
    """How the swarm is laid out: a grid of ``columns`` × ``rows``, or a compact list."""

    columns: int
    rows: int
    compact: bool


def plan_layout(count: int, width: int, height: int) -> Layout:
    """The grid that fits ``count`` panes in ``width`` × ``height`` cells best.

    Every pane must be at least :data:`MIN_PANE_WIDTH` × :data:`MIN_PANE_HEIGHT`;
    among the grids that allow it, the one whose panes are nearest :data:`ASPECT`
    with the fewest empty cells wins. When none fits, the list is compact.
    """
    if count <= 0:
        return Layout(1, 1, False)
    best: tuple[float, Layout] | None = None
    for columns in range(1, count + 1):
        rows = math.ceil(count / columns)
        pane_w, pane_h = width // columns, height // rows
        if pane_w < MIN_PANE_WIDTH or pane_h < MIN_PANE_HEIGHT:
            continue
        cost = abs(math.log(pane_w / (2 * pane_h) / ASPECT)) + EMPTY_CELL_COST * (
            columns * rows - count
        )
        if best is None or cost < best[0]:
            best = (cost, Layout(columns, rows, False))
    return best[1] if best is not None else Layout(1, count, True)


class SwarmPanes(ScrollableContainer, can_focus=True):
    """Every Mysis as a pane; arrows (or j k) move the selection, enter opens it."""

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Dashboard",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move_rows(-1)", "Up", show=False),
        Binding("down,j", "move_rows(1)", "Down", show=False),
        Binding("left", "move(-1)", "Left", show=False),
        Binding("right", "move(1)", "Right", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(-1)", "Last", show=False),
        Binding("pageup", "move(-8)", "Page up", show=False),
        Binding("pagedown", "move(8)", "Page down", show=False),
        Binding("enter", "open", "Focus", show=True),
    ]

    #: The selected Mysis (None: the swarm is empty). Its screen watches it rather than
    #: waiting for a message, so whatever follows the selection lands in the frame that
    #: moves it; nothing of the swarm itself is drawn from it (the panes are).
    selected_id: var[int | None] = var(None, init=False)

    @dataclass
    class Opened(WidgetMessage["SwarmPanes"]):
        """The user asked to open ``mysis_id`` (enter or double click)."""

        mysis_id: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._panes: dict[int, MysisPane] = {}
        #: Panes waiting to be repainted, longest waiting first, with their newest view
        #: (None: only their facts, actions or countdown changed).
        self._stale: dict[int, MysisView | None] = {}
        self.layout_plan = Layout(1, 1, False)
        self._column_width = 0
        self.border_title = "MYSIS SWARM"

    def compose(self):  # type: ignore[no-untyped-def]
        """An empty-swarm hint, shown when there is no pane."""
        yield Static(
            Text.assemble(
                ("No Myses. Press ", fmt.MUTED),
                ("n", f"bold {fmt.TEAL}"),
                (" to create one.", fmt.MUTED),
            ),
            id="empty-swarm",
        )

    def on_mount(self) -> None:
        # Redraw the nudge and next-try countdowns once a second (a clock, not a poll: the views
        # themselves arrive with engine events).
        self.set_interval(1.0, self._count_down)
        self.set_interval(PAINT_S, self._repaint_some)

    def on_resize(self, event: events.Resize) -> None:
        self._reflow()

    def _count_down(self) -> None:
        for mysis_id, pane in self._panes.items():
            if pane.view is not None and (
                pane.view.next_nudge_at is not None or pane.view.next_try_at is not None
            ):
                self._stale.setdefault(mysis_id, None)

    def _repaint_some(self) -> None:
        """Repaint the selected pane and the longest waiting few, if they are on screen
        (a hidden dashboard's panes keep what they drew until it shows again)."""
        # Seen: on top, or under dialogs only (the app counts no screen under an opaque one).
        if not self._stale or not self.screen.is_current:
            return
        chosen = [self.selected_id] if self.selected_id in self._stale else []
        chosen += [i for i in self._stale if i not in chosen][:PANES_PER_PAINT]
        for mysis_id in chosen:
            view = self._stale.pop(mysis_id)
            pane = self._panes.get(mysis_id)
            if pane is None:
                continue
            if view is not None:
                pane.show(view)
            else:
                pane.repaint()

    # -- contents ---------------------------------------------------------------------

    @property
    def ids(self) -> list[int]:
        """Mysis ids in display order."""
        return list(self._panes)

    def pane(self, mysis_id: int) -> MysisPane | None:
        """The pane of a Mysis."""
        return self._panes.get(mysis_id)

    def set_myses(self, views: list[MysisView]) -> None:
        """Show exactly these Myses (initial fill), mounting the new panes in one go."""
        keep = {v.id for v in views}
        for mysis_id in [i for i in self._panes if i not in keep]:
            self.remove_mysis(mysis_id)
        new: list[MysisPane] = []
        for view in views:
            pane = self._panes.get(view.id)
            if pane is not None:
                pane.show(view)
            else:
                pane = MysisPane(view, compact=self.layout_plan.compact)
                self._panes[view.id] = pane
                new.append(pane)
        self._panes = dict(sorted(self._panes.items()))
        if new:
            self.mount_all(new)
            self._order()
        self._changed_count()

    def upsert(self, view: MysisView) -> None:
        """Add a pane for a new Mysis, or show an existing one's newest view (at its
        turn to be repainted)."""
        if view.id in self._panes:
            self._stale[view.id] = view
            return
        pane = MysisPane(view, compact=self.layout_plan.compact)
        self._panes[view.id] = pane
        self._panes = dict(sorted(self._panes.items()))
        self.mount(pane)
        self._order()
        self._changed_count()

    def show_facts(
        self,
        mysis_id: int,
        facts: GameFacts,
        actions: Iterable[Action],
        answer: str | None = None,
        *,
        at_once: bool = False,
    ) -> None:
        """A Mysis's game facts, actions and latest answer (drawn at the pane's turn to
        be repainted, or ``at_once``)."""
        pane = self._panes.get(mysis_id)
        if pane is None:
            return
        pane.show_facts(facts, actions, answer, repaint=at_once)
        if not at_once:
            self._stale.setdefault(mysis_id, None)

    def remove_mysis(self, mysis_id: int) -> None:
        """Remove a deleted Mysis's pane (the selection moves to a neighbour)."""
        self._stale.pop(mysis_id, None)
        pane = self._panes.pop(mysis_id, None)
        if pane is None:
            return
        if self.selected_id == mysis_id:
            remaining = list(self._panes)
            later = [i for i in remaining if i > mysis_id]
            self.selected_id = later[0] if later else (remaining[-1] if remaining else None)
        pane.remove()
        self._changed_count()

    def _order(self) -> None:
        """Keep the panes ordered by id (a new one may have been mounted last)."""
        panes = list(self._panes.values())
        mounted = [c for c in self.children if isinstance(c, MysisPane)]
        if mounted != panes:
            for before, pane in pairwise(panes):
                self.move_child(pane, after=before)

    def _changed_count(self) -> None:
        self.set_class(not self._panes, "-empty")
        if self.selected_id is None and self._panes:
            self.selected_id = next(iter(self._panes))
        self._reflow()

    def _reflow(self) -> None:
        """Lay the panes out for the current size and count."""
        size = self.content_size
        if not size.width or not size.height:
            return
        plan = plan_layout(len(self._panes), size.width, size.height)
        # Every column as wide as the others (a fraction of the width gave the first
        # pane one cell less): what the columns leave of the width stays blank at the right.
        column_width = 0 if plan.compact else size.width // plan.columns
        if (
            plan == self.layout_plan
            and column_width == self._column_width
            and all(p.compact == plan.compact for p in self._panes.values())
        ):
            return
        self.layout_plan = plan
        self._column_width = column_width
        self.styles.grid_columns = str(column_width) if column_width else "1fr"
        self.set_class(plan.compact, "-compact")
        self.set_class(not plan.compact, "-grid")
        self.styles.grid_size_columns = plan.columns
        self.styles.grid_size_rows = plan.rows
        for pane in self._panes.values():
            pane.compact = plan.compact
        if self.selected_id in self._panes:
            self.call_after_refresh(self._scroll_to_selected)

    def _scroll_to_selected(self) -> None:
        pane = self._panes.get(self.selected_id) if self.selected_id is not None else None
        if pane is not None and pane.is_mounted:
            self.scroll_to_widget(pane, animate=False, immediate=True)

    # -- selection ----------------------------------------------------------------------

    def watch_selected_id(self, old: int | None, new: int | None) -> None:
        if old in self._panes:
            self._panes[old].selected = False
        if new in self._panes:
            self._panes[new].selected = True
            self._scroll_to_selected()

    def action_move(self, delta: int) -> None:
        """Move the selection by ``delta`` panes."""
        ids = self.ids
        if not ids:
            return
        index = ids.index(self.selected_id) if self.selected_id in ids else 0
        self.selected_id = ids[max(0, min(len(ids) - 1, index + delta))]

    def action_move_rows(self, delta: int) -> None:
        """Move the selection ``delta`` rows up or down (a column in the grid)."""
        plan = self.layout_plan
        self.action_move(delta if plan.compact else delta * plan.columns)

    def action_edge(self, index: int) -> None:
        """Select the first (0) or last (-1) pane."""
        if self._panes:
            self.selected_id = self.ids[index]

    def action_open(self) -> None:
        """Open the selected Mysis."""
        if self.selected_id is not None:
            self.post_message(self.Opened(self, self.selected_id))

    def on_mysis_pane_clicked(self, message: MysisPane.Clicked) -> None:
        """A click selects; a double click opens."""
        message.stop()
        self.focus()
        self.selected_id = message.widget.mysis_id
        if message.chain >= 2:
            self.post_message(self.Opened(self, message.widget.mysis_id))

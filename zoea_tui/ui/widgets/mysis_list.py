"""The swarm list of the dashboard: one two-line row per Mysis, scrolling, keyboard and mouse."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from ...core.composition import DEFAULT_CONTEXT_WINDOW
from ...orchestrator.events import MysisView
from .. import formatting as fmt
from ..sanitize import one_line


def row_text(view: MysisView, width: int, window: int, selected: bool) -> Text:
    """The two lines of a Mysis row at ``width`` cells (pure: used by tests too)."""
    glyph = fmt.state_glyph(view)
    activity = view.state if view.state != "running" else (view.activity or "running")
    account = f"@{one_line(view.account, 40)}" if view.account else "not logged in"
    nudges = Text(f"↻{view.nudges}/{view.max_nudges}",
                  style=fmt.WARNING if view.nudges else fmt.MUTED)
    gauge = fmt.token_gauge(view.last_tokens, window)

    if width >= 110:
        name_w, act_w, acct_w, gauge_w = 16, 20, 16, 13
    else:
        name_w, act_w, acct_w, gauge_w = 11, 12, 11, 12
    fixed = 2 + 2 + name_w + 1 + act_w + 1 + 1 + acct_w + 1 + 6 + 1 + gauge_w
    prov_w = max(width - fixed, 6)

    line = Text(no_wrap=True, overflow="ellipsis")
    line.append("▸ " if selected else "  ", style=f"bold {fmt.TEAL}")
    line.append(glyph.char, style=glyph.style)
    line.append(" ")
    line.append_text(fmt.fit(Text(one_line(view.name, 60), style="bold"), name_w))
    line.append(" ")
    line.append_text(fmt.fit(Text(one_line(activity, 60), style=fmt.state_style(view.state)),
                             act_w))
    line.append(" ")
    line.append_text(fmt.fit(Text(one_line(view.provider_label or view.provider, 80),
                                  style=fmt.SYSTEM), max(prov_w, 1)))
    line.append(" ")
    line.append_text(fmt.fit(Text(account, style=fmt.TEXT if view.account else fmt.DIM),
                             acct_w))
    line.append(" ")
    line.append_text(fmt.fit(nudges, 6))
    line.append(" ")
    gauge.align("right", gauge_w)
    line.append_text(gauge)

    second = Text(no_wrap=True, overflow="ellipsis")
    second.append("    └ ", style=fmt.DIM)
    if view.state == "errored" and view.last_error:
        second.append("error: " + one_line(view.last_error, 600), style=fmt.ERROR)
    elif view.state == "idle" and view.last_error:
        second.append("idle: " + one_line(view.last_error, 600), style=fmt.WARNING)
    elif view.next_nudge_at is not None:
        second.append_text(fmt.next_nudge(view.next_nudge_at, view.waiting_on_game))
        if view.last_answer:
            second.append(" · ", style=fmt.DIM)
            second.append(one_line(view.last_answer, 600), style=fmt.TEXT)
    elif view.last_line:
        second.append(one_line(view.last_line, 600), style=fmt.TEXT)
    else:
        second.append("(no activity yet)", style=fmt.DIM)
    second.truncate(max(width, 1), overflow="ellipsis")
    return Text("\n").join([line, second])


class MysisRow(Widget):
    """One Mysis: state glyph and activity, name, provider and model, account, nudges,
    tokens of the last request against the context window, and its latest line."""

    view: reactive[MysisView | None] = reactive(None, layout=False)
    selected: reactive[bool] = reactive(False)

    @dataclass
    class Clicked(Message):
        """The row was clicked (``chain`` 2 for a double click)."""

        row: MysisRow
        chain: int

        @property
        def control(self) -> MysisRow:
            """The row clicked."""
            return self.row

    def __init__(self, view: MysisView, window: int) -> None:
        super().__init__(id=f"mysis-{view.id}", classes="mysis-row")
        self.mysis_id = view.id
        self.window = window
        self.set_reactive(MysisRow.view, view)
        self._update_classes(view)

    def render(self) -> Text:
        """Both lines, fitted to the row's width."""
        assert self.view is not None
        return row_text(self.view, self.size.width, self.window, self.selected)

    def watch_view(self, view: MysisView | None) -> None:
        if view is not None:
            self._update_classes(view)

    def watch_selected(self, selected: bool) -> None:
        self.set_class(selected, "-selected")

    def _update_classes(self, view: MysisView) -> None:
        self.update_classes({
            "-running": view.state == "running",
            "-idle": view.state == "idle",
            "-stopped": view.state == "stopped",
            "-errored": view.state == "errored",
        })

    def on_click(self, event: events.Click) -> None:
        """Report the click to the list."""
        self.post_message(self.Clicked(self, event.chain))


class MysisList(VerticalScroll, can_focus=True):
    """Every Mysis as a row; arrows (or j/k) move the selection, enter opens it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(-1)", "Last", show=False),
        Binding("pageup", "move(-8)", "Page up", show=False),
        Binding("pagedown", "move(8)", "Page down", show=False),
        Binding("enter", "open", "Focus", show=True),
    ]

    selected_id: reactive[int | None] = reactive(None, init=False)

    @dataclass
    class Highlighted(Message):
        """The selection moved to ``mysis_id`` (None: the list is empty)."""

        mysis_list: MysisList
        mysis_id: int | None

        @property
        def control(self) -> MysisList:
            """The list."""
            return self.mysis_list

    @dataclass
    class Opened(Message):
        """The user asked to open ``mysis_id`` (enter or double click)."""

        mysis_list: MysisList
        mysis_id: int

        @property
        def control(self) -> MysisList:
            """The list."""
            return self.mysis_list

    def __init__(self, *, windows: dict[str, int] | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: dict[int, MysisRow] = {}
        self._windows = windows or {}
        self.border_title = "MYSIS SWARM"

    def compose(self):  # type: ignore[no-untyped-def]
        """An empty-swarm hint, shown when there is no row."""
        yield Static(Text.assemble(("No Myses. Press ", fmt.MUTED), ("n", f"bold {fmt.TEAL}"),
                                   (" to create one.", fmt.MUTED)), id="empty-swarm")

    def on_mount(self) -> None:
        # Redraw the nudge countdowns of waiting Myses once a second (a clock, not a poll:
        # the views themselves arrive with engine events).
        self.set_interval(1.0, self._count_down)

    def _count_down(self) -> None:
        for row in self._rows.values():
            if row.view is not None and row.view.next_nudge_at is not None:
                row.refresh()

    @property
    def ids(self) -> list[int]:
        """Mysis ids in display order."""
        return list(self._rows)

    def set_windows(self, windows: dict[str, int]) -> None:
        """Context windows by provider name (for the token gauges)."""
        self._windows = dict(windows)

    def window_for(self, view: MysisView) -> int:
        """The context window of the Mysis's provider."""
        return self._windows.get(view.provider, DEFAULT_CONTEXT_WINDOW)

    def set_myses(self, views: list[MysisView]) -> None:
        """Show exactly these Myses (initial fill)."""
        for mysis_id in [i for i in self._rows if i not in {v.id for v in views}]:
            self.remove_mysis(mysis_id)
        for view in views:
            self.upsert(view)

    def upsert(self, view: MysisView) -> None:
        """Add a row for a new Mysis or refresh an existing one."""
        row = self._rows.get(view.id)
        if row is not None:
            row.window = self.window_for(view)
            row.view = view
            return
        row = MysisRow(view, self.window_for(view))
        # Rows stay ordered by id.
        after = [i for i in self._rows if i < view.id]
        self._rows[view.id] = row
        self._rows = dict(sorted(self._rows.items()))
        if after:
            self.mount(row, after=self._rows[after[-1]])
        else:
            self.mount(row, after=self.query_one("#empty-swarm"))
        self.set_class(False, "-empty")
        if self.selected_id is None:
            self.selected_id = view.id

    def remove_mysis(self, mysis_id: int) -> None:
        """Remove a deleted Mysis's row (the selection moves to a neighbour)."""
        row = self._rows.pop(mysis_id, None)
        if row is None:
            return
        if self.selected_id == mysis_id:
            remaining = list(self._rows)
            later = [i for i in remaining if i > mysis_id]
            self.selected_id = later[0] if later else (remaining[-1] if remaining else None)
        row.remove()
        self.set_class(not self._rows, "-empty")

    def watch_selected_id(self, old: int | None, new: int | None) -> None:
        if old in self._rows:
            self._rows[old].selected = False
        if new in self._rows:
            row = self._rows[new]
            row.selected = True
            self.scroll_to_widget(row, animate=False, immediate=True)
        self.post_message(self.Highlighted(self, new))

    def action_move(self, delta: int) -> None:
        """Move the selection by ``delta`` rows."""
        ids = self.ids
        if not ids:
            return
        index = ids.index(self.selected_id) if self.selected_id in ids else 0
        self.selected_id = ids[max(0, min(len(ids) - 1, index + delta))]

    def action_edge(self, index: int) -> None:
        """Select the first (0) or last (-1) row."""
        if self._rows:
            self.selected_id = self.ids[index]

    def action_open(self) -> None:
        """Open the selected Mysis."""
        if self.selected_id is not None:
            self.post_message(self.Opened(self, self.selected_id))

    def on_mysis_row_clicked(self, message: MysisRow.Clicked) -> None:
        """A click selects; a double click opens."""
        message.stop()
        self.focus()
        self.selected_id = message.row.mysis_id
        if message.chain >= 2:
            self.post_message(self.Opened(self, message.row.mysis_id))

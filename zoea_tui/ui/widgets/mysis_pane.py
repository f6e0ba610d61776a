"""One Mysis on the dashboard: a pane in the grid, or a two-line row in the compact list.

:func:`pane_text` and :func:`row_text` are pure (tests call them); :class:`MysisPane`
draws one or the other by its ``compact`` flag, which the swarm container sets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.reactive import reactive, var
from textual.widget import Widget

from ...orchestrator.events import MysisView
from .. import formatting as fmt
from ..activity import Action, GameFacts
from ..sanitize import one_line
from .spend_meter import bill_piece
from .text_view import TextRows
from .widget_message import WidgetMessage

#: Cells of the context meter's bar in a pane.
METER_CELLS = 10


def row_text(view: MysisView, width: int, window: int, selected: bool) -> Text:
    """The two lines of a Mysis in the compact list at ``width`` cells."""
    glyph = fmt.state_glyph(view)
    activity = view.state if view.state != "running" else (view.activity or "running")
    account = f"@{one_line(view.account, 40)}" if view.account else "not logged in"
    nudges = Text(
        f"↻{view.nudges}/{view.max_nudges}", style=fmt.WARNING if view.nudges else fmt.MUTED
    )
    gauge = fmt.token_gauge(view.last_request.shown, window)

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
    line.append_text(
        fmt.fit(Text(one_line(activity, 60), style=fmt.state_style(view.state)), act_w)
    )
    line.append(" ")
    line.append_text(
        fmt.fit(Text(one_line(fmt.provider_name(view), 80), style=fmt.SYSTEM), max(prov_w, 1))
    )
    line.append(" ")
    line.append_text(fmt.fit(Text(account, style=fmt.TEXT if view.account else fmt.DIM), acct_w))
    line.append(" ")
    line.append_text(fmt.fit(nudges, 6))
    line.append(" ")
    gauge.align("right", gauge_w)
    line.append_text(gauge)

    second = Text(no_wrap=True, overflow="ellipsis")
    second.append("    └ ", style=fmt.DIM)
    spend = bill_piece(view.spend)
    if spend.cell_len:
        second.append_text(spend)
        second.append(" · ", style=fmt.DIM)
    second.append_text(_latest(view))
    second.truncate(max(width, 1), overflow="ellipsis")
    return Text("\n").join([line, second])


def _latest(view: MysisView, now: float | None = None) -> Text:
    """The newest thing worth a line: an error, why it idles, the next nudge and answer."""
    text = Text()
    if view.state == "errored" and view.last_error:
        text.append("error: " + one_line(view.last_error, 600), style=fmt.ERROR)
    elif view.state == "idle" and view.last_error:
        text.append("idle: " + one_line(view.last_error, 600), style=fmt.WARNING)
    elif view.next_try_at is not None:
        text.append(f"{view.activity} · {fmt.next_try(view.next_try_at, now)}", style=fmt.WARNING)
        if view.last_line:
            text.append(" · ", style=fmt.DIM)
            text.append(one_line(view.last_line, 600), style=fmt.MUTED)
    elif view.next_nudge_at is not None:
        text.append_text(fmt.next_nudge(view.next_nudge_at, view.waiting_on_game, now))
        if view.last_answer:
            text.append(" · ", style=fmt.DIM)
            text.append(one_line(view.last_answer, 600), style=fmt.TEXT)
    elif view.last_line:
        text.append(one_line(view.last_line, 600), style=fmt.TEXT)
    else:
        text.append("(no activity yet)", style=fmt.DIM)
    return text


def meter(tokens: int, window: int, cells: int = METER_CELLS, *, width: int = 0) -> Text:
    """``▰▰▰▱▱▱▱▱▱▱ 3.1k/32.8k``: the last request against the context window (in
    ``width`` cells when given: a shorter bar, never a cut figure)."""
    gauge = fmt.token_gauge(tokens, window)
    if width:
        cells = max(1, min(cells, width - 1 - gauge.cell_len))
    filled = 0 if window <= 0 else min(cells, round(cells * tokens / window))
    if tokens and not filled:
        filled = 1
    style = fmt.gauge_style(tokens, window)
    text = Text()
    text.append("▰" * filled, style=style if tokens else fmt.DIM)
    text.append("▱" * (cells - filled), style=fmt.DIM)
    text.append(" ")
    text.append_text(gauge)
    return text


def _context_lines(view: MysisView, window: int, width: int) -> list[Text]:
    """The context meter, then what the Mysis's model calls cost this run (its tokens
    when its provider has no prices; nothing for the autopilot): beside the meter, its
    bar shortened for it, or on a line of its own when the figures do not fit."""
    spend = bill_piece(view.spend)
    tokens = view.last_request.shown
    beside = width - 4 - (spend.cell_len + 3 if spend.cell_len else 0)
    if spend.cell_len and beside < 2 + fmt.token_gauge(tokens, window).cell_len:
        return [
            Text.assemble(("ctx ", fmt.MUTED), meter(tokens, window, width=width - 4)),
            Text.assemble(("spent ", fmt.MUTED), spend),
        ]
    line = Text.assemble(("ctx ", fmt.MUTED), meter(tokens, window, width=beside))
    if spend.cell_len:
        line.append(" · ", style=fmt.DIM)
        line.append_text(spend)
    return [line]


def _clipped(text: Text, width: int) -> Text:
    text.no_wrap = True
    text.truncate(max(width, 1), overflow="ellipsis")
    return text


def _status_lines(view: MysisView, width: int, now: float | None) -> list[Text]:
    """State and activity, the countdown to what comes next, then the nudge counter:
    side by side when they fit, else over more lines, none of them cut."""
    glyph = fmt.state_glyph(view)
    activity = view.state if view.state != "running" else (view.activity or "running")
    retry = fmt.retry_countdown(view, now)
    state = Text(glyph.char + " ", style=glyph.style)
    state_style = fmt.WARNING if retry else fmt.state_style(view.state)
    state.append(one_line(activity, 40), style=state_style)
    pieces = [state]
    if retry:
        # "unreachable · next try in 40s": the model call failed and is tried again.
        pieces.append(Text(retry, style=fmt.WARNING))
    if view.next_nudge_at is not None:
        left = fmt.seconds_left(view.next_nudge_at, now)
        nudge = Text("game wait ", style=fmt.WARNING) if view.waiting_on_game else Text()
        nudge.append(f"nudge in {left}s" if left else "nudge due", style=fmt.MUTED)
        pieces.append(nudge)
    pieces.append(
        Text(f"↻{view.nudges}/{view.max_nudges}", style=fmt.WARNING if view.nudges else fmt.MUTED)
    )
    return fmt.pack(pieces, width)


def _model_line(view: MysisView) -> Text:
    text = fmt.provider_text(view)
    text.append(f" · {view.strategy}", style=fmt.MUTED)
    if view.provider_note:
        text.append(f" · {one_line(view.provider_note, 120)}", style=fmt.WARNING)
    return text


#: Said after facts that are the last known ones, from before the relaunch.
RESTORED_MARK = "(before relaunch)"


def _facts_lines(view: MysisView, facts: GameFacts, width: int) -> list[Text]:
    """Credits and cargo, then where the Mysis is (or its account, before any game
    state), each piece whole on a line."""
    if not facts.known:
        account = f"@{one_line(view.account, 40)}" if view.account else "not logged in"
        return fmt.pack(
            [
                Text(account, style=fmt.TEXT if view.account else fmt.DIM),
                Text("no game state yet", style=fmt.DIM),
            ],
            width,
        )
    pieces: list[Text] = []
    if facts.credits:
        pieces.append(Text.assemble(("¤ ", fmt.TOOL), (facts.credits, fmt.TEXT)))
    if facts.cargo:
        pieces.append(Text.assemble(("▣ ", fmt.TOOL), (facts.cargo, fmt.TEXT)))
    if facts.location:
        where = Text.assemble(("◎ ", fmt.TEAL), (facts.location, fmt.TEXT))
        if facts.docked:
            where.append(" (docked)", style=fmt.MUTED)
        pieces.append(where)
    if facts.restored:
        pieces.append(Text(RESTORED_MARK, style=f"italic {fmt.DIM}"))
    return fmt.pack(pieces, width, "  ")


def _action_line(action: Action) -> Text:
    text = Text()
    mark, style = {
        "ok": ("✓", fmt.USER),
        "error": ("✗", fmt.ERROR),
        "cancelled": ("⊘", fmt.MUTED),
    }.get(action.status, ("⋯", fmt.ASSISTANT))
    text.append(f"{mark} ", style=style)
    text.append(action.name, style=fmt.TEAL)
    if action.args:
        text.append(f" {action.args}", style=fmt.MUTED)
    if action.status == "cancelled":
        text.append(" cancelled", style=fmt.MUTED)
    if action.error:
        text.append(f" {one_line(action.error, 30)}", style=fmt.ERROR)
    return text


def pane_text(
    view: MysisView,
    facts: GameFacts,
    actions: Iterable[Action],
    width: int,
    height: int,
    window: int,
    *,
    now: float | None = None,
    answer: str = "",
) -> Text:
    """The inside of a Mysis's pane, ``height`` lines of ``width`` cells at most.

    In order, as far as there is room: state and activity with the countdown and the
    nudge counter; credits, cargo and location (each of them whole, on more lines when
    the pane is narrow); provider, model and strategy; the context meter with what the
    Mysis cost this run; the latest
    answer (or the error; ``answer`` when the view has none yet, as after a restart),
    wrapped over up to three lines when there is room; then the newest actions, newest
    last.
    """
    lines = [
        *_status_lines(view, width, now),
        *_facts_lines(view, facts, width),
        _model_line(view),
        *_context_lines(view, window, width),
    ]
    latest = Text()
    if view.state == "errored" and view.last_error:
        latest.append("✖ " + one_line(view.last_error, 600), style=fmt.ERROR)
    elif view.state == "idle" and view.last_error:
        latest.append("idle: " + one_line(view.last_error, 600), style=fmt.WARNING)
    elif view.next_try_at is not None and view.last_line:
        latest.append("⚠ " + one_line(view.last_line, 600), style=fmt.WARNING)
    elif view.last_answer or answer:
        latest.append("» ", style=f"bold {fmt.ASSISTANT}")
        latest.append(one_line(view.last_answer or answer, 600), style=fmt.TEXT)
    elif view.last_line:
        latest.append("» ", style=fmt.DIM)
        latest.append(one_line(view.last_line, 600), style=fmt.MUTED)
    if latest.plain:
        # Wrapped at word boundaries over up to three lines, leaving room for a few actions.
        spare = max(1, min(3, height - len(lines) - 3))
        lines.extend(fmt.wrap_words(latest, width, spare))
    room = height - len(lines)
    tail = list(actions)
    if room > 0 and tail:
        lines.extend(_action_line(a) for a in tail[-room:])
    elif room > 0 and not tail:
        lines.append(Text("(no actions yet)", style=fmt.DIM))
    return Text("\n").join(_clipped(line, width) for line in lines[: max(height, 1)])


class MysisPane(TextRows, Widget):
    """One Mysis on the dashboard (its id is ``mysis-<id>``); clicks select and open.

    Drawn with Textual's line API from rows it keeps: :meth:`repaint` works the lines out
    again and repaints only the rows that changed (a countdown's tick is one row of one
    pane). Drawn through ``render()`` as Textual's rich content, a pane cost 4-5 ms at
    200x60 on two cores, every repaint, for every row; a selection or hover that only
    recolours the pane reuses every row here.
    """

    #: Set through :meth:`show`, which repaints only the rows the new view changes.
    view: var[MysisView | None] = var(None)
    selected: reactive[bool] = reactive(False)
    compact: reactive[bool] = reactive(False)

    @dataclass
    class Clicked(WidgetMessage["MysisPane"]):
        """The pane was clicked (``chain`` 2 for a double click)."""

        chain: int

    def __init__(self, view: MysisView, *, compact: bool = False) -> None:
        super().__init__(id=f"mysis-{view.id}", classes="mysis-pane")
        self.mysis_id = view.id
        self.facts = GameFacts()
        self.actions: Iterable[Action] = ()
        #: The newest answer read from the memories (until the view carries one).
        self.answer = ""
        self.set_reactive(MysisPane.view, view)
        self.set_reactive(MysisPane.compact, compact)
        self._update_classes(view)
        self.set_class(compact, "-compact")
        self._title(view)

    def text(self) -> Text:
        """What the pane shows at its size now: the pane's lines, or a compact row's two."""
        assert self.view is not None
        size = self.content_size
        if self.compact:
            return row_text(self.view, size.width, self.view.context_window, self.selected)
        return pane_text(
            self.view,
            self.facts,
            self.actions,
            size.width,
            size.height,
            self.view.context_window,
            answer=self.answer,
        )

    def rows_shape(self) -> tuple[Any, ...]:
        """The size, and whether the pane is a compact row marking its selection."""
        width, height = self.content_size
        return (width, height, self.compact, self.compact and self.selected)

    def show(self, view: MysisView) -> None:
        """Show ``view``: repaint the rows that changed."""
        self.view = view
        self.repaint()

    def show_facts(
        self,
        facts: GameFacts,
        actions: Iterable[Action],
        answer: str | None = None,
        *,
        repaint: bool = True,
    ) -> None:
        """New game facts or actions (redrawn with the next frame, or when the swarm
        repaints the pane if not ``repaint``)."""
        self.facts, self.actions = facts, actions
        if answer is not None:
            self.answer = answer
        if repaint:
            self.repaint()

    def watch_view(self, view: MysisView | None) -> None:
        if view is not None:
            self._update_classes(view)
            self._title(view)

    def watch_selected(self, selected: bool) -> None:
        self.set_class(selected, "-selected")

    def watch_compact(self, compact: bool) -> None:
        self.set_class(compact, "-compact")

    def _title(self, view: MysisView) -> None:
        glyph = fmt.state_glyph(view)
        self.label_border(
            Text.assemble((glyph.char + " ", glyph.style), (one_line(view.name, 40), "bold")),
            f"@{one_line(view.account, 30)}" if view.account else "",
        )

    def _update_classes(self, view: MysisView) -> None:
        self.update_classes(
            {
                "-running": view.state == "running",
                "-idle": view.state == "idle",
                "-stopped": view.state == "stopped",
                "-errored": view.state == "errored",
            }
        )

    def on_click(self, event: events.Click) -> None:
        """Report the click to the swarm."""
        self.post_message(self.Clicked(self, event.chain))

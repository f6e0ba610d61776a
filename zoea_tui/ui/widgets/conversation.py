"""The focus view's conversation log: every memory of a Mysis, newest at the bottom.

Each entry carries its own time and game tick. Tool calls show their arguments, tool
results their payloads (collapsed when long), reasoning is collapsed, errors are shown
whole. Click an entry, or move the cursor to it with tab and press enter, to expand or
collapse it; ``v`` expands everything. The log sticks to the bottom until the user
scrolls up, and then says how many new entries arrived below.

The log is one widget drawn with Textual's line API (``ScrollView.render_line``): an
entry is rendered to lines once for the log's width, a frame paints only the rows on
screen, and a page arriving or leaving changes a list, never the screen's layout.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.reactive import reactive
from textual.strip import Strip

from ...core.types import Memory, Turn
from .. import formatting as fmt
from ..sanitize import clip, one_line
from ..textual_compat.views import resize_virtual
from .text_view import LineView
from .widget_message import WidgetMessage

#: A collapsed payload shows at most this much.
COLLAPSED_CHARS = 600
COLLAPSED_LINES = 8
#: An expanded payload shows at most this much (the store keeps everything).
EXPANDED_CHARS = 40_000
#: Entries kept at once (those far from the view leave; scrolling brings them back).
MAX_ENTRIES = 200
#: Within this many lines of an edge, the page beyond it is asked for.
EDGE_LINES = 3
#: Within this many screens of an edge, the page beyond it is read ahead while the
#: commander rests (:meth:`ConversationLog.want_ahead`).
AHEAD_SCREENS = 2
#: Memories kept rendered across pages and Myses (a page seen again is not laid out again).
RENDERED_KEPT = 2000


def is_error_result(memory: Memory) -> bool:
    """True for a tool result that reports an error (the router's JSON error shape)."""
    head = memory.content[:40].lstrip()
    return memory.role == "tool" and (head.startswith('{"error"') or head.startswith("Error"))


def role_label(memory: Memory, names: dict[str, str]) -> tuple[str, str]:
    """The header label of a memory and its colour."""
    if memory.role == "user":
        if memory.source == "direct":
            return "YOU", fmt.USER
        if memory.source == "broadcast":
            if memory.sender_id is None:
                return "YOU (BROADCAST)", fmt.USER
            sender = names.get(str(memory.sender_id), f"#{memory.sender_id}")
            return f"SWARM ({one_line(sender, 30)})", fmt.ASSISTANT
        if memory.source == "summary":
            return "SUMMARY", fmt.SYSTEM
        return "SYS", fmt.SYSTEM
    if memory.role == "assistant":
        return "AI", fmt.ASSISTANT
    if memory.role == "tool":
        name = one_line(memory.tool_name or "tool", 40)
        if is_error_result(memory):
            return f"TOOL {name} ✗", fmt.ERROR
        return f"TOOL {name} ✓", fmt.TOOL
    return "SYSTEM", fmt.SYSTEM


def _pretty_arguments(arguments: str) -> str:
    try:
        value = json.loads(arguments or "{}")
    except (ValueError, TypeError):
        return arguments
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _body(body: Text, content: str, style: str, expanded: bool, always_full: bool) -> bool:
    """Append ``content`` to ``body``; returns True when something was left out."""
    limit = EXPANDED_CHARS if (expanded or always_full) else COLLAPSED_CHARS
    lines = None if (expanded or always_full) else COLLAPSED_LINES
    piece = clip(content, limit, lines)
    _newline(body)
    body.append(piece.text, style=style)
    if piece.truncated:
        more = (
            f"{piece.hidden_lines:,} more lines"
            if piece.hidden_lines
            else f"{piece.hidden_chars:,} more characters"
        )
        _newline(body)
        if expanded or always_full:
            body.append(f"… {more} not shown (zoea export prints everything)", style=fmt.MUTED)
        else:
            body.append(f"▸ {more} — click or press enter to expand", style=f"italic {fmt.MUTED}")
    return piece.truncated


def _newline(body: Text) -> None:
    if body.plain:
        body.append("\n")


@dataclass(frozen=True, slots=True)
class EntryParts:
    """A memory as shown: a header line, an indented body, and whether it can expand."""

    header: Text
    body: Text
    expandable: bool

    @property
    def plain(self) -> str:
        """Everything as plain text (for tests and searching)."""
        return f"{self.header.plain}\n{self.body.plain}" if self.body.plain else self.header.plain

    def renderable(self) -> RenderableType:
        """Header, then the body indented under it (wrapped lines keep the indent)."""
        if not self.body.plain:
            return self.header
        return Group(self.header, Padding(self.body, (0, 0, 0, 2)))


def entry_parts(memory: Memory, *, expanded: bool, names: dict[str, str]) -> EntryParts:
    """The parts of one memory as shown (pure: used by tests too)."""
    label, colour = role_label(memory, names)
    header = fmt.stamp(memory.created_at, memory.game_tick)
    header.append(" ")
    header.append(label, style=f"bold {colour}")
    header.append(f"  #{memory.id}", style=fmt.DIM)
    body = Text(overflow="fold")
    expandable = False

    if memory.reasoning:
        reasoning = clip(memory.reasoning, EXPANDED_CHARS)
        n_lines = reasoning.text.count("\n") + 1
        _newline(body)
        if expanded:
            body.append("▾ reasoning\n", style=f"italic {fmt.MUTED}")
            body.append(reasoning.text, style=f"italic {fmt.MUTED}")
        else:
            body.append(
                f"▸ reasoning ({n_lines} line{'s' if n_lines != 1 else ''}): ",
                style=f"italic {fmt.MUTED}",
            )
            body.append(one_line(memory.reasoning, 70), style=f"italic {fmt.DIM}")
        expandable = True

    if memory.content or memory.role != "assistant" or not memory.tool_calls:
        error = is_error_result(memory)
        style = fmt.ERROR if error else fmt.TEXT
        content = memory.content if memory.content else "(empty)"
        if _body(body, content, style, expanded, always_full=error):
            expandable = True

    for call in memory.tool_calls:
        _newline(body)
        body.append("⚙ ", style=fmt.TEAL)
        body.append(one_line(call.name, 60), style=f"bold {fmt.TEAL}")
        args = _pretty_arguments(call.arguments)
        piece = clip(args, EXPANDED_CHARS if expanded else 300)
        body.append("(", style=fmt.DIM)
        body.append(one_line(piece.text, len(piece.text) + 1), style=fmt.TEXT)
        body.append(")", style=fmt.DIM)
        if piece.truncated:
            body.append(f" ▸ {piece.hidden_chars:,} more", style=f"italic {fmt.MUTED}")
            expandable = True
    return EntryParts(header, body, expandable)


@dataclass(eq=False)
class LogEntry:
    """One block of the log: a memory, or a note (a turn's start, an error raised, a
    nudge sent, the text being streamed, the empty-log hint). Its lines are rendered
    once for the log's width and kept until it changes."""

    memory: Memory | None
    note: Text | None = None
    #: ``""`` for a memory; ``"-turn"``, ``"-error"``, ``"-nudge"``, ``"-stream"``, ``"-empty"``.
    kind: str = ""
    expanded: bool = False
    expandable: bool = False
    #: The search hit the log was opened at (marked in the gutter).
    hit: bool = False
    lines: list[Strip] = field(default_factory=list)
    width: int = 0

    @property
    def error(self) -> bool:
        """An error: a failed tool result or a raised error (marked in the gutter)."""
        return self.kind == "-error" or (self.memory is not None and is_error_result(self.memory))

    def renderable(self, names: dict[str, str]) -> RenderableType:
        """What the entry shows (and whether it can expand, for a memory)."""
        if self.memory is None:
            assert self.note is not None
            return self.note
        parts = entry_parts(self.memory, expanded=self.expanded, names=names)
        self.expandable = parts.expandable
        return parts.renderable()

    @property
    def plain(self) -> str:
        """The entry as plain text (for tests)."""
        if self.memory is None:
            return self.note.plain if self.note is not None else ""
        return entry_parts(self.memory, expanded=self.expanded, names={}).plain


def with_turn_markers(
    memories: list[Memory],
    turns: list[Turn],
    expanded: bool,
    *,
    previous_id: int | None = None,
    trailing: bool = False,
) -> list[LogEntry]:
    """Entries for ``memories`` with a marker before the first memory of each turn.

    ``previous_id`` is the memory just before ``memories[0]`` (None: unknown), so a
    turn that began between the two is marked above the first entry. ``trailing``:
    turns that began after the last memory are marked at the end (the newest page).
    """
    lower = previous_id if previous_id is not None else (memories[0].id - 1 if memories else 0)
    starts = sorted(
        (t for t in turns if t.first_memory_id > lower), key=lambda t: t.first_memory_id
    )
    entries: list[LogEntry] = []
    index = 0
    for memory in memories:
        while index < len(starts) and starts[index].first_memory_id <= memory.id:
            entries.append(LogEntry(None, turn_marker(starts[index]), "-turn"))
            index += 1
        entries.append(LogEntry(memory, expanded=expanded))
    if trailing:
        entries.extend(LogEntry(None, turn_marker(t), "-turn") for t in starts[index:])
    return entries


def turn_marker(turn: Turn) -> Text:
    """The line that marks where a turn began and why (pure: used by tests too)."""
    text = fmt.stamp(turn.created_at or None, turn.game_tick)
    text.append(" TURN", style=f"bold {fmt.TEAL}")
    text.append(f" · {turn.describe()}", style=fmt.MUTED)
    if turn.synthetic and turn.text:
        text.append("  (synthetic, not stored)", style=fmt.DIM)
        text.append("\n  ")
        text.append(clip(turn.text, 2000).text, style=fmt.WARNING)
    return text


@dataclass(frozen=True, slots=True)
class Page:
    """A page of memories to show, with the turns that began among them.

    ``turns`` are the turns that began after the memory before ``memories[0]`` (and, for
    the newest page, after the last memory too); ``at_start``: the page holds the
    Mysis's first memory; ``at_end``: its newest one. ``count`` is how many memories the
    Mysis has (the subtitle says where the page lies in them).
    """

    memories: list[Memory]
    turns: list[Turn]
    at_start: bool
    at_end: bool
    count: int = 0


class ConversationLog(LineView, can_focus=True):
    """The story of one Mysis, a page at a time, drawn line by line.

    Each entry is rendered to lines once for the width (the line API: a frame paints
    only the rows on screen, and pages come and go without mounting a widget, so no
    layout of the screen follows). Scrolling to the top asks for the page before, to
    the bottom for the page after; at most :data:`MAX_ENTRIES` entries are kept (those
    far from the view leave). It sticks to the bottom while the newest page is shown
    and the user has not scrolled up. ``tab`` moves a cursor between the entries that
    can expand; ``enter`` or a click expands one.
    """

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Focus view",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end,G", "to_bottom", "Bottom", show=False),
        Binding("home", "to_top", "Top", show=False),
        Binding("enter,space", "toggle_entry", "Expand", show=False),
        Binding("tab", "cursor(1)", "Next entry", show=False),
        Binding("shift+tab", "cursor(-1)", "Previous entry", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "conversation--cursor",
        "conversation--hit",
        "conversation--error",
    }
    DEFAULT_CSS = """
    ConversationLog {
        .conversation--cursor { background: $block-cursor-background; }
        .conversation--hit { color: $warning; background: $boost; }
        .conversation--error { color: $error; }
    }
    """

    all_expanded: reactive[bool] = reactive(False, init=False)

    @dataclass
    class PageWanted(WidgetMessage["ConversationLog"]):
        """The log needs a page: ``"older"``, ``"newer"``, ``"first"`` or ``"newest"``."""

        direction: str

    @dataclass
    class PageShown(WidgetMessage["ConversationLog"]):
        """A page is on screen (``first_id``..``last_id``; benchmarks wait for it)."""

        first_id: int | None
        last_id: int | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._names: dict[str, str] = {}
        #: Rendered memories by (id, expanded, hit, width): lines and whether they expand.
        #: A memory never changes, so a page shown again, or a Mysis stepped back to, is
        #: not laid out again (Rich takes about 0.4 ms a memory at 100 columns).
        self._rendered: LRUCache[tuple[int, bool, bool, int], tuple[list[Strip], bool]] = LRUCache(
            RENDERED_KEPT
        )
        #: The theme they were rendered in (the gutter takes its colours).
        self._rendered_theme = ""
        self._unseen = 0
        #: Every entry kept, oldest first; ``_tops[i]``: the first line of entry ``i``.
        self._entries: list[LogEntry] = []
        self._tops: list[int] = []
        self._stream: LogEntry | None = None
        #: The entry under the cursor (moved with tab, set by a click).
        self._cursor: LogEntry | None = None
        #: Follow the newest entry (until the user scrolls up).
        self._stick = True
        #: Recorded turn starts of the Mysis shown (markers go before their first memory).
        self.turns: list[Turn] = []
        #: The loaded pages hold the Mysis's first / newest memory.
        self.at_start = True
        self.at_end = True
        #: A page has been asked for and has not arrived yet.
        self.waiting = False
        #: How many memories the Mysis has (0: unknown).
        self.count = 0
        #: The memory a search hit opened (highlighted), if any.
        self.hit_id: int | None = None
        self.border_title = "CONVERSATION LOG"
        self._set_entries([self._empty_hint()])

    # -- what is kept ---------------------------------------------------------------------

    @property
    def names(self) -> dict[str, str]:
        """Mysis names by id as text (a broadcast's sender is named in its header)."""
        return self._names

    @names.setter
    def names(self, names: dict[str, str]) -> None:
        if names != self._names:
            self._rendered.clear()  # headers name senders
        self._names = dict(names)

    @property
    def entries(self) -> list[LogEntry]:
        """The memory entries, oldest first."""
        return [e for e in self._entries if e.memory is not None]

    @property
    def memories(self) -> list[Memory]:
        """The memories shown, oldest first."""
        return [e.memory for e in self._entries if e.memory is not None]

    @property
    def blocks(self) -> list[LogEntry]:
        """Every entry kept, notes included, oldest first."""
        return list(self._entries)

    @property
    def span(self) -> tuple[int, int] | None:
        """The ``seq`` (1 = the Mysis's first memory) of the first and last entry shown."""
        first = next((e.memory for e in self._entries if e.memory is not None), None)
        last = next((e.memory for e in reversed(self._entries) if e.memory is not None), None)
        if first is None or last is None:
            return None
        return first.seq, last.seq

    @staticmethod
    def _empty_hint() -> LogEntry:
        return LogEntry(None, Text("\nNo messages yet.", style=fmt.MUTED), "-empty")

    # -- rendering ------------------------------------------------------------------------

    def _content_width(self) -> int:
        return self.scrollable_content_region.width

    def _render_entry(self, entry: LogEntry, width: int) -> None:
        """Lay ``entry`` out for ``width`` cells: a gutter, the text, a blank line after."""
        entry.width = width
        if width <= 3:
            entry.lines = [Strip.blank(width)] * 2
            return
        key = None
        if entry.memory is not None:
            key = (entry.memory.id, entry.expanded, entry.hit, width)
            kept = self._rendered.get(key)
            if kept is not None:
                entry.lines, entry.expandable = kept
                return
        console = self.app.console
        options = console.options.update_width(width - 2)
        rows = console.render_lines(entry.renderable(self.names), options, pad=True)
        gutter = self._gutter(entry)
        blank = Segment(" ")
        lines = [Strip([gutter, *row, blank], width) for row in rows]
        lines.append(Strip.blank(width))
        entry.lines = lines
        if key is not None:
            self._rendered.set(key, (lines, entry.expandable))

    def _gutter(self, entry: LogEntry) -> Segment:
        if entry.hit:
            return Segment("▌", self.get_component_rich_style("conversation--hit"))
        if entry.error:
            return Segment("▌", self.get_component_rich_style("conversation--error"))
        return Segment(" ")

    def _layout_entries(self) -> None:
        """Render what is not rendered at the current width; recount the lines."""
        width = self._content_width()
        if self._rendered_theme != self.app.theme:
            self._rendered.clear()
            self._rendered_theme = self.app.theme
        tops, y = [], 0
        for entry in self._entries:
            if width and entry.width != width:
                self._render_entry(entry, width)
            tops.append(y)
            y += len(entry.lines)
        self._tops = tops
        resize_virtual(self, Size(width, y))
        self.refresh()
        if self._stick:  # the scrollbar may take a column or a line once laid out
            self.call_after_refresh(self._end_if_stuck)

    def _end_if_stuck(self) -> None:
        if self._stick and self.scroll_y != self.max_scroll_y:
            self._scroll_end()

    def _set_entries(self, entries: list[LogEntry]) -> None:
        self._entries = entries
        if self._cursor not in entries:
            self._cursor = None
        if self.is_mounted:
            self._layout_entries()

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the view."""
        line = self.scroll_offset.y + y
        width = self.paint_width
        index = bisect.bisect_right(self._tops, line) - 1
        if index < 0 or index >= len(self._entries):
            return self.blank(width)
        entry = self._entries[index]
        row = line - self._tops[index]
        if row >= len(entry.lines):
            return self.blank(width)
        strip = entry.lines[row]
        if entry is self._cursor and self.has_focus and row < len(entry.lines) - 1:
            strip = strip.apply_style(self.get_component_rich_style("conversation--cursor"))
        elif entry.hit and row < len(entry.lines) - 1:
            strip = strip.apply_style(self.get_component_rich_style("conversation--hit"))
        return self.fit(strip, width)

    def on_resize(self) -> None:
        """Render again for the new width, keeping the entry at the top in view."""
        if self._entries and self._entries[0].width == self._content_width():
            return
        self._replace_keeping_view(self._entries)

    def _entry_at(self, line: int) -> tuple[LogEntry | None, int]:
        index = bisect.bisect_right(self._tops, line) - 1
        if 0 <= index < len(self._entries):
            return self._entries[index], line - self._tops[index]
        return None, 0

    def _top_of(self, entry: LogEntry) -> int:
        return self._tops[self._entries.index(entry)]

    def _scroll_y(self, y: float) -> None:
        # Forced: the scrollbar (which allows scrolling) only shows after the next layout,
        # and the lines are already there.
        self.scroll_to(y=max(0.0, y), animate=False, immediate=True, force=True)

    def _scroll_end(self) -> None:
        self._scroll_y(self.max_scroll_y)

    def on_mount(self) -> None:
        super().on_mount()  # type: ignore[no-untyped-call]  # Textual leaves it untyped
        self._layout_entries()

    # -- whole pages --------------------------------------------------------------------

    def set_memories(self, memories: list[Memory], *, previous_id: int | None = None) -> None:
        """Show exactly these memories (oldest first) and stick to the bottom.

        ``previous_id``: the memory just before the first one (for its turn marker).
        """
        turns = [t for t in self.turns if previous_id is None or t.first_memory_id > previous_id]
        self.show_page(
            Page(memories[-MAX_ENTRIES:], turns, at_start=previous_id is None, at_end=True)
        )

    def show_page(self, page: Page, *, focus_id: int | None = None, top: bool = False) -> None:
        """Replace what is shown by ``page``; then stick to the bottom, or show the top
        (``top``), or centre the memory ``focus_id`` and mark it."""
        self._stream = None
        self._unseen = 0
        self.waiting = False
        self.at_start, self.at_end, self.count = page.at_start, page.at_end, page.count
        self.hit_id = focus_id
        entries = with_turn_markers(
            page.memories,
            page.turns,
            self.all_expanded,
            previous_id=0,
            trailing=page.at_end,
        )
        hit = None
        for entry in entries:
            if focus_id is not None and entry.memory is not None and entry.memory.id == focus_id:
                entry.hit, hit = True, entry
        self._set_entries(entries or [self._empty_hint()])
        self._stick = focus_id is None and not top
        if top:
            self._scroll_y(0)
        elif hit is not None:
            height = self.scrollable_content_region.height
            self._scroll_y(self._top_of(hit) - max(0, height - len(hit.lines)) // 2)
        else:
            self._scroll_end()
        self._shown()

    def prepend_page(self, page: Page) -> None:
        """Add an older page above the first entry, keeping the view where it is; entries
        far below leave (the newest page is then no longer loaded)."""
        self.waiting = False
        if not self.entries or not page.memories:
            self.at_start = self.at_start or page.at_start
            return
        self.at_start = page.at_start
        # A marker at the top already stands for the turn that begins at the first entry.
        turns = [t for t in page.turns if t.first_memory_id <= page.memories[-1].id]
        older = with_turn_markers(page.memories, turns, self.all_expanded, previous_id=0)
        anchor, offset = self._entry_at(int(self.scroll_y))
        kept = self._entries
        excess = len(older) + len(kept) - MAX_ENTRIES
        if excess > 0:
            dropped = kept[len(kept) - excess :]
            kept = kept[: len(kept) - excess]
            streamed = self._stream in dropped
            if streamed:
                self._stream = None
            if streamed or any(e.memory is not None for e in dropped):
                self.at_end = False
        self._stick = False
        self._set_entries(older + kept)
        if anchor is not None and anchor in self._entries:
            self._scroll_y(self._top_of(anchor) + offset)
        self._shown()

    def append_page(self, page: Page) -> None:
        """Add a newer page below the last entry, keeping the view where it is; entries
        far above leave."""
        self.waiting = False
        entries = self.entries
        self.at_end = page.at_end
        if not entries or not page.memories:
            return
        last = entries[-1].memory
        assert last is not None
        turns = [t for t in page.turns if t.first_memory_id > last.id]
        newer = with_turn_markers(
            page.memories,
            turns,
            self.all_expanded,
            previous_id=last.id,
            trailing=page.at_end,
        )
        kept = [e for e in self._entries if e is not self._stream]
        tail = [self._stream] if self._stream is not None else []
        self._replace_keeping_view(kept + newer + tail)
        self._shown()

    def _replace_keeping_view(self, entries: list[LogEntry]) -> None:
        """Show ``entries`` (trimmed to :data:`MAX_ENTRIES` from the top) without moving
        what the user is looking at."""
        anchor, offset = self._entry_at(int(self.scroll_y))
        excess = len(entries) - MAX_ENTRIES
        if excess > 0:
            entries = entries[excess:]
            self.at_start = False
        self._set_entries(entries)
        if self._stick:
            self._scroll_end()
        elif anchor is not None and anchor in self._entries:
            self._scroll_y(self._top_of(anchor) + offset)
        else:
            self._scroll_y(0)

    def _shown(self) -> None:
        self._update_subtitle()
        entries = self.entries
        first, last = (
            entries[0].memory if entries else None,
            entries[-1].memory if entries else None,
        )
        self.post_message(
            self.PageShown(self, first.id if first is not None else None, last.id if last else None)
        )

    # -- live entries -------------------------------------------------------------------

    def add_memory(self, memory: Memory) -> None:
        """Append a stored memory (counted as unseen when the newest page is not shown)."""
        self.count = max(self.count, memory.seq)
        if not self.at_end:
            self._unseen += 1
            self._update_subtitle()
            return
        self._append(LogEntry(memory, expanded=self.all_expanded), replaces_stream=True)

    def add_note(self, text: Text, classes: str = "") -> None:
        """Append a line that is not a memory (an error, a nudge)."""
        if self.at_end:
            self._append(LogEntry(None, text, classes))

    def show_stream(self, text: Text | None) -> None:
        """Show (or clear, with None) what the model is streaming right now."""
        if text is None or not self.at_end:
            if self._stream is not None:
                stream, self._stream = self._stream, None
                self._replace_keeping_view([e for e in self._entries if e is not stream])
            return
        if self._stream is None:
            self._stream = LogEntry(None, text, "-stream")
            self._replace_keeping_view([*self._entries, self._stream])
        else:
            self._stream.note, self._stream.width = text, 0
            self._replace_keeping_view(self._entries)

    def _append(self, entry: LogEntry, *, replaces_stream: bool = False) -> None:
        """Add ``entry`` at the end, before the streamed text (or in its place: a stored
        memory is what was being streamed)."""
        kept = [e for e in self._entries if e.kind != "-empty" and e is not self._stream]
        if replaces_stream:
            self._stream = None
        tail = [self._stream] if self._stream is not None else []
        if not self._stick:
            self._unseen += 1
        self._replace_keeping_view([*kept, entry, *tail])
        self._update_subtitle()

    # -- scrolling ----------------------------------------------------------------------

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        at_bottom = new_value >= self.max_scroll_y
        if new_value < old_value and not at_bottom:
            self._stick = False
        elif at_bottom and self.at_end and new_value > old_value:
            self._stick = True
        if self._unseen and self.at_end and at_bottom:
            self._unseen = 0
            self._update_subtitle()
        if new_value < old_value and new_value <= EDGE_LINES and not self.at_start:
            self._want("older")
        elif (
            new_value > old_value
            and self.max_scroll_y - new_value <= EDGE_LINES
            and not self.at_end
        ):
            self._want("newer")

    def _want(self, direction: str) -> None:
        if not self.waiting:
            self.waiting = True
            self.post_message(self.PageWanted(self, direction))

    def want_ahead(self) -> str | None:
        """The page to read ahead while the commander rests: ``"older"`` or ``"newer"``
        when the view is within :data:`AHEAD_SCREENS` of an edge with more beyond it
        (marked as waiting for it), else None. A key that then reaches the edge finds
        the page there, or already on its way."""
        if self.waiting or not self.entries:
            return None
        margin = AHEAD_SCREENS * self.size.height
        if not self.at_start and self.scroll_y <= margin:
            direction = "older"
        elif not self.at_end and self.max_scroll_y - self.scroll_y <= margin:
            direction = "newer"
        else:
            return None
        self.waiting = True
        return direction

    def _update_subtitle(self) -> None:
        parts = []
        span = self.span
        if span is not None and self.count and not (self.at_start and self.at_end):
            parts.append(f"#{span[0]:,}–{span[1]:,} of {self.count:,}")
        if self._unseen:
            parts.append(f"↓ {self._unseen} new · end to jump")
        self.border_subtitle = " · ".join(parts)

    def action_page_up(self) -> None:
        """One page up, at once: a page of a long story is read, not watched scrolling
        (Textual animates it, and older pages load as the view passes their edge)."""
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        """One page down, at once."""
        self.scroll_page_down(animate=False)

    def action_to_bottom(self) -> None:
        """Jump to the newest entry and stick there (loading the newest page if needed)."""
        if not self.at_end:
            self.waiting = True
            self.post_message(self.PageWanted(self, "newest"))
            return
        self._unseen = 0
        self._stick = True
        self._scroll_end()
        self._update_subtitle()

    def action_to_top(self) -> None:
        """Jump to the Mysis's first memory (loading the first page if needed)."""
        self._stick = False
        if not self.at_start:
            self.waiting = True
            self.post_message(self.PageWanted(self, "first"))
            return
        self._scroll_y(0)

    # -- expanding ----------------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        """Move the cursor to the next (1) or previous (-1) entry that can expand; past
        the last one, focus moves on."""
        expandable = [e for e in self._entries if e.expandable or e.expanded]
        if self._cursor in expandable:
            index = expandable.index(self._cursor) + step
        else:  # from the top (or bottom) of what is on screen
            view = int(self.scroll_y) + (0 if step > 0 else self.scrollable_content_region.height)
            below = [i for i, e in enumerate(expandable) if self._top_of(e) >= view]
            index = (
                (below[0] if below else len(expandable))
                if step > 0
                else len([e for e in expandable if self._top_of(e) < view]) - 1
            )
        if not 0 <= index < len(expandable):
            self._cursor = None
            self.refresh()
            if step > 0:
                self.screen.focus_next()
            else:
                self.screen.focus_previous()
            return
        self._cursor = expandable[index]
        self._stick = False
        self._show(self._cursor)
        self.refresh()

    def _show(self, entry: LogEntry) -> None:
        """Scroll as little as needed for ``entry`` to be in view."""
        top, height = self._top_of(entry), self.scrollable_content_region.height
        bottom = top + len(entry.lines) - 1
        if top < self.scroll_y:
            self._scroll_y(top)
        elif bottom > self.scroll_y + height:
            self._scroll_y(min(top, bottom - height))

    def action_toggle_entry(self) -> None:
        """Expand or collapse the entry under the cursor."""
        if self._cursor is not None:
            self.toggle(self._cursor)

    def toggle(self, entry: LogEntry) -> None:
        """Expand or collapse ``entry``, keeping its first line where it is."""
        if not (entry.expandable or entry.expanded) or entry not in self._entries:
            return
        before = self._top_of(entry) - self.scroll_y
        entry.expanded, entry.width = not entry.expanded, 0
        self._layout_entries()
        if not self._stick:
            self._scroll_y(self._top_of(entry) - before)

    def on_click(self, event: events.Click) -> None:
        """A click puts the cursor on the entry under it and expands or collapses it."""
        entry, _ = self._entry_at(int(self.scroll_y) + event.y)
        if entry is None or entry.memory is None:
            return
        event.stop()
        self._cursor = entry
        self._stick = False
        self.toggle(entry)
        self.refresh()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_toggle_all(self) -> None:
        """Expand or collapse every entry."""
        self.all_expanded = not self.all_expanded

    def watch_all_expanded(self, value: bool) -> None:
        for entry in self._entries:
            if entry.memory is not None and entry.expanded != value:
                entry.expanded, entry.width = value, 0
        self._replace_keeping_view(self._entries)

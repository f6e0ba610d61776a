"""The focus view's conversation log: every memory of a Mysis, newest at the bottom.

Each entry carries its own time and game tick. Tool calls show their arguments, tool
results their payloads (collapsed when long), reasoning is collapsed, errors are shown
whole. Click an entry, or focus it and press enter, to expand or collapse it; ``v``
expands everything. The log sticks to the bottom until the user scrolls up, and then
says how many new entries arrived below.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widget import AwaitMount
from textual.widgets import Static

from ...core.types import Memory, Turn
from .. import formatting as fmt
from ..sanitize import clip, one_line

#: A collapsed payload shows at most this much.
COLLAPSED_CHARS = 600
COLLAPSED_LINES = 8
#: An expanded payload shows at most this much (the store keeps everything).
EXPANDED_CHARS = 40_000
#: Entries mounted at once (those far from the view leave; scrolling brings them back).
MAX_ENTRIES = 200
#: Within this many lines of an edge, the page beyond it is asked for.
EDGE_LINES = 3


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


class LogEntry(Static, can_focus=True):
    """One memory; click or enter toggles its long parts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle_entry", "Expand", show=False)
    ]

    expanded: reactive[bool] = reactive(False)

    def __init__(self, memory: Memory, names: dict[str, str], expanded: bool = False) -> None:
        super().__init__(classes=f"log-entry -{memory.role}")
        self.memory = memory
        self._names = names
        self.expandable = False
        self.set_reactive(LogEntry.expanded, expanded)
        self._render_entry()
        if is_error_result(memory):
            self.add_class("-error")

    def _render_entry(self) -> None:
        parts = entry_parts(self.memory, expanded=self.expanded, names=self._names)
        self.expandable = parts.expandable
        self.update(parts.renderable())
        self.can_focus = self.expandable
        self.set_class(self.expandable, "-expandable")

    def watch_expanded(self) -> None:
        self._render_entry()

    def action_toggle_entry(self) -> None:
        """Expand or collapse this entry."""
        if self.expandable or self.expanded:
            self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        """A click toggles the entry."""
        event.stop()
        self.action_toggle_entry()


class NoteEntry(Static):
    """A line that is not a memory: an error raised, a nudge sent, text being streamed."""

    def __init__(self, text: Text, classes: str = "") -> None:
        super().__init__(text, classes=f"log-entry log-note {classes}".strip())


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


def with_turn_markers(
    memories: list[Memory],
    turns: list[Turn],
    names: dict[str, str],
    expanded: bool,
    *,
    previous_id: int | None = None,
    trailing: bool = False,
) -> list[Static]:
    """Entries for ``memories`` with a marker before the first memory of each turn.

    ``previous_id`` is the memory just before ``memories[0]`` (None: unknown), so a
    turn that began between the two is marked above the first entry. ``trailing``:
    turns that began after the last memory are marked at the end (the newest page).
    """
    lower = previous_id if previous_id is not None else (memories[0].id - 1 if memories else 0)
    starts = sorted(
        (t for t in turns if t.first_memory_id > lower), key=lambda t: t.first_memory_id
    )
    widgets: list[Static] = []
    index = 0
    for memory in memories:
        while index < len(starts) and starts[index].first_memory_id <= memory.id:
            widgets.append(NoteEntry(turn_marker(starts[index]), "-turn"))
            index += 1
        widgets.append(LogEntry(memory, names, expanded))
    if trailing:
        widgets.extend(NoteEntry(turn_marker(t), "-turn") for t in starts[index:])
    return widgets


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


class ConversationLog(VerticalScroll, can_focus=True):
    """The story of one Mysis, a page at a time: scrolling to the top asks for the page
    before, to the bottom for the page after; at most :data:`MAX_ENTRIES` entries are
    mounted at once (those far from the view leave). It sticks to the bottom while the
    newest page is shown and the user has not scrolled up.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end,G", "to_bottom", "Bottom", show=False),
        Binding("home", "to_top", "Top", show=False),
    ]

    all_expanded: reactive[bool] = reactive(False, init=False)

    @dataclass
    class PageWanted(Message):
        """The log needs a page: ``"older"``, ``"newer"``, ``"first"`` or ``"newest"``."""

        log: ConversationLog
        direction: str

        @property
        def control(self) -> ConversationLog:
            """The log that asked."""
            return self.log

    @dataclass
    class PageShown(Message):
        """A page is on screen (``first_id``..``last_id``; benchmarks wait for it)."""

        log: ConversationLog
        first_id: int | None
        last_id: int | None

        @property
        def control(self) -> ConversationLog:
            """The log that shows it."""
            return self.log

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names: dict[str, str] = {}
        self._unseen = 0
        self._stream: NoteEntry | None = None
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

    def on_mount(self) -> None:
        self.anchor()

    @property
    def entries(self) -> list[LogEntry]:
        """The memory entries, oldest first."""
        return list(self.query(LogEntry))

    @property
    def span(self) -> tuple[int, int] | None:
        """The ``seq`` (1 = the Mysis's first memory) of the first and last entry shown."""
        entries = self.entries
        if not entries:
            return None
        return entries[0].memory.seq, entries[-1].memory.seq

    # -- whole pages --------------------------------------------------------------------

    def set_memories(self, memories: list[Memory], *, previous_id: int | None = None) -> None:
        """Show exactly these memories (oldest first) and stick to the bottom.

        ``previous_id``: the memory just before the first one (for its turn marker).
        """
        turns = [t for t in self.turns if previous_id is None or t.first_memory_id > previous_id]
        self.show_page(
            Page(memories[-MAX_ENTRIES:], turns, at_start=previous_id is None, at_end=True)
        )

    def show_page(
        self, page: Page, *, focus_id: int | None = None, top: bool = False
    ) -> AwaitMount:
        """Replace what is shown by ``page``; then stick to the bottom, or show the top
        (``top``), or centre the memory ``focus_id`` and highlight it."""
        self.remove_children()
        self._stream = None
        self._unseen = 0
        self.waiting = False
        self.at_start, self.at_end, self.count = page.at_start, page.at_end, page.count
        self.hit_id = focus_id
        widgets = with_turn_markers(
            page.memories,
            page.turns,
            self.names,
            self.all_expanded,
            previous_id=0,
            trailing=page.at_end,
        )
        if not widgets:
            widgets = [Static(Text("No messages yet.", style=fmt.MUTED), classes="log-empty")]
        mounted = self.mount_all(widgets)
        if focus_id is None and not top:
            self.anchor()
        else:
            self.release_anchor()

        def place() -> None:
            if top:
                self.scroll_home(animate=False, immediate=True)
            elif focus_id is not None:
                for entry in self.query(LogEntry):
                    if entry.memory.id == focus_id:
                        entry.add_class("-hit")
                        self.scroll_to_center(entry, animate=False, immediate=True)
                        break
            self._shown()

        self.call_after_refresh(place)
        self._update_subtitle()
        return mounted

    def prepend_page(self, page: Page) -> None:
        """Add an older page above the first entry, keeping the view where it is; entries
        far below leave (the newest page is then no longer loaded)."""
        self.waiting = False
        first = next(iter(self.query(LogEntry)), None)
        if first is None or not page.memories:
            self.at_start = self.at_start or page.at_start
            return
        self.at_start = page.at_start
        # A marker at the top already stands for the turn that begins at ``first``.
        turns = [t for t in page.turns if t.first_memory_id <= page.memories[-1].id]
        widgets = with_turn_markers(
            page.memories, turns, self.names, self.all_expanded, previous_id=0
        )
        top = self.children[0]
        before_y = top.virtual_region.y
        self.release_anchor()
        self.mount_all(widgets, before=top)

        def keep_place() -> None:
            self.scroll_to(
                y=self.scroll_y + top.virtual_region.y - before_y, animate=False, immediate=True
            )
            self._trim(from_top=False)
            self._shown()

        self.call_after_refresh(keep_place)

    def append_page(self, page: Page) -> None:
        """Add a newer page below the last entry, keeping the view where it is; entries
        far above leave."""
        self.waiting = False
        last = self.entries[-1] if self.entries else None
        self.at_end = page.at_end
        if last is None or not page.memories:
            return
        turns = [t for t in page.turns if t.first_memory_id > last.memory.id]
        widgets = with_turn_markers(
            page.memories,
            turns,
            self.names,
            self.all_expanded,
            previous_id=last.memory.id,
            trailing=page.at_end,
        )
        if self._stream is not None:
            self.mount_all(widgets, before=self._stream)
        else:
            self.mount_all(widgets)
        self.call_after_refresh(self._trimmed_and_shown, from_top=True)

    def _trim(self, *, from_top: bool) -> None:
        """Unmount entries beyond :data:`MAX_ENTRIES` at one end, keeping the view."""
        children = list(self.children)
        excess = len(children) - MAX_ENTRIES
        if excess <= 0:
            return
        if from_top:
            gone, kept = children[:excess], children[excess]
            shift = kept.virtual_region.y - children[0].virtual_region.y
            for widget in gone:
                widget.remove()
            self.at_start = False
            self.scroll_to(y=max(self.scroll_y - shift, 0), animate=False, immediate=True)
        else:
            for widget in children[-excess:]:
                if widget is not self._stream:
                    widget.remove()
            self.at_end = False

    def _trimmed_and_shown(self, *, from_top: bool) -> None:
        self._trim(from_top=from_top)
        self._shown()

    def _shown(self) -> None:
        self._update_subtitle()
        entries = self.entries
        self.post_message(
            self.PageShown(
                self,
                entries[0].memory.id if entries else None,
                entries[-1].memory.id if entries else None,
            )
        )

    # -- live entries -------------------------------------------------------------------

    def add_memory(self, memory: Memory) -> None:
        """Append a stored memory (counted as unseen when the newest page is not shown)."""
        self.count = max(self.count, memory.seq)
        if not self.at_end:
            self._unseen += 1
            self._update_subtitle()
            return
        self._drop_stream()
        self._append(LogEntry(memory, self.names, self.all_expanded))

    def add_note(self, text: Text, classes: str = "") -> None:
        """Append a line that is not a memory (an error, a nudge)."""
        if self.at_end:
            self._append(NoteEntry(text, classes))

    def show_stream(self, text: Text | None) -> None:
        """Show (or clear, with None) what the model is streaming right now."""
        if text is None or not self.at_end:
            self._drop_stream()
            return
        if self._stream is None:
            self._stream = NoteEntry(text, "-stream")
            self.mount(self._stream)
        else:
            self._stream.update(text)

    def _drop_stream(self) -> None:
        if self._stream is not None:
            self._stream.remove()
            self._stream = None

    def _append(self, widget: Static) -> None:
        at_bottom = self.is_vertical_scroll_end or self.max_scroll_y == 0
        for hint in self.query(".log-empty"):
            hint.remove()
        before = self._stream if self._stream is not None else None
        if before is not None:
            self.mount(widget, before=before)
        else:
            self.mount(widget)
        excess = len(self.children) - MAX_ENTRIES
        if excess > 0:
            for old in list(self.children)[:excess]:
                old.remove()
            self.at_start = False
        if not at_bottom:
            self._unseen += 1
        self._update_subtitle()

    # -- scrolling ----------------------------------------------------------------------

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._unseen and self.at_end and new_value >= self.max_scroll_y:
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

    def _update_subtitle(self) -> None:
        parts = []
        span = self.span
        if span is not None and self.count and not (self.at_start and self.at_end):
            parts.append(f"#{span[0]:,}–{span[1]:,} of {self.count:,}")
        if self._unseen:
            parts.append(f"↓ {self._unseen} new · end to jump")
        self.border_subtitle = " · ".join(parts)

    def action_to_bottom(self) -> None:
        """Jump to the newest entry and stick there (loading the newest page if needed)."""
        if not self.at_end:
            self.waiting = True
            self.post_message(self.PageWanted(self, "newest"))
            return
        self._unseen = 0
        self.anchor()
        self._update_subtitle()

    def action_to_top(self) -> None:
        """Jump to the Mysis's first memory (loading the first page if needed)."""
        self.release_anchor()
        if not self.at_start:
            self.waiting = True
            self.post_message(self.PageWanted(self, "first"))
            return
        self.scroll_home(animate=False)

    def action_toggle_all(self) -> None:
        """Expand or collapse every entry."""
        self.all_expanded = not self.all_expanded

    def watch_all_expanded(self, value: bool) -> None:
        for entry in self.query(LogEntry):
            entry.expanded = value

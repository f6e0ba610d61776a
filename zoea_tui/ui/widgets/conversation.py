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
from textual.reactive import reactive
from textual.widgets import Static

from ...core.types import Memory, Turn
from .. import formatting as fmt
from ..sanitize import clip, one_line

#: A collapsed payload shows at most this much.
COLLAPSED_CHARS = 600
COLLAPSED_LINES = 8
#: An expanded payload shows at most this much (the store keeps everything).
EXPANDED_CHARS = 40_000
#: Entries kept in the log (older ones leave the top).
MAX_ENTRIES = 200


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
        more = f"{piece.hidden_lines:,} more lines" if piece.hidden_lines else \
            f"{piece.hidden_chars:,} more characters"
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
            body.append(f"▸ reasoning ({n_lines} line{'s' if n_lines != 1 else ''}): ",
                        style=f"italic {fmt.MUTED}")
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

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,space", "toggle", "Expand", show=False)]

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

    def action_toggle(self) -> None:
        """Expand or collapse this entry."""
        if self.expandable or self.expanded:
            self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        """A click toggles the entry."""
        event.stop()
        self.action_toggle()


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


def with_turn_markers(memories: list[Memory], turns: list[Turn], names: dict[str, str],
                      expanded: bool, *, previous_id: int | None = None) -> list[Static]:
    """Entries for ``memories`` with a marker before the first memory of each turn.

    ``previous_id`` is the memory just before ``memories[0]`` (None: unknown), so a
    turn that began between the two is marked above the first entry.
    """
    lower = previous_id if previous_id is not None else \
        (memories[0].id - 1 if memories else 0)
    starts = sorted((t for t in turns if t.first_memory_id > lower),
                    key=lambda t: t.first_memory_id)
    widgets: list[Static] = []
    index = 0
    for memory in memories:
        while index < len(starts) and starts[index].first_memory_id <= memory.id:
            widgets.append(NoteEntry(turn_marker(starts[index]), "-turn"))
            index += 1
        widgets.append(LogEntry(memory, names, expanded))
    return widgets


class ConversationLog(VerticalScroll, can_focus=True):
    """The memories of one Mysis; sticks to the bottom unless the user scrolled up."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end,G", "to_bottom", "Bottom", show=False),
        Binding("home", "to_top", "Top", show=False),
    ]

    all_expanded: reactive[bool] = reactive(False, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names: dict[str, str] = {}
        self._unseen = 0
        self._stream: NoteEntry | None = None
        #: Recorded turn starts of the Mysis shown (markers go before their first memory).
        self.turns: list[Turn] = []
        self.border_title = "CONVERSATION LOG"

    def on_mount(self) -> None:
        self.anchor()

    @property
    def entries(self) -> list[LogEntry]:
        """The memory entries, oldest first."""
        return list(self.query(LogEntry))

    def set_memories(self, memories: list[Memory], *, previous_id: int | None = None) -> None:
        """Show exactly these memories (oldest first) and stick to the bottom.

        ``previous_id``: the memory just before the first one (for its turn marker).
        """
        self.remove_children()
        self._stream = None
        self._unseen = 0
        shown = memories[-MAX_ENTRIES:]
        if len(shown) < len(memories):
            previous_id = memories[-len(shown) - 1].id
        widgets = with_turn_markers(shown, self.turns, self.names, self.all_expanded,
                                    previous_id=previous_id)
        if not widgets:
            widgets_or_hint: list[Static] = [Static(Text("No messages yet.", style=fmt.MUTED),
                                                    classes="log-empty")]
        else:
            widgets_or_hint = list(widgets)
        self.mount_all(widgets_or_hint)
        self.anchor()
        self._update_subtitle()

    def prepend_memories(self, memories: list[Memory], *,
                         previous_id: int | None = None) -> None:
        """Add older memories above the oldest entry shown (loading a long history in
        slices keeps every frame short). ``previous_id``: as for :meth:`set_memories`."""
        room = MAX_ENTRIES - len(self.children)
        if room <= 0 or not memories:
            return
        shown = memories[-room:]
        if len(shown) < len(memories):
            previous_id = memories[-len(shown) - 1].id
        first = next(iter(self.query(LogEntry)), None)
        upper = first.memory.id if first is not None else None
        turns = [t for t in self.turns if upper is None or t.first_memory_id <= upper]
        marked = {t.first_memory_id for t in self.turns
                  if upper is not None and shown and shown[-1].id < t.first_memory_id <= upper}
        turns = [t for t in turns if t.first_memory_id not in marked]
        widgets = with_turn_markers(shown, turns, self.names, self.all_expanded,
                                    previous_id=previous_id)
        if first is None:
            self.mount_all(widgets)
        else:
            self.mount_all(widgets, before=first)

    def add_memory(self, memory: Memory) -> None:
        """Append a stored memory."""
        self._drop_stream()
        self._append(LogEntry(memory, self.names, self.all_expanded))

    def add_note(self, text: Text, classes: str = "") -> None:
        """Append a line that is not a memory (an error, a nudge)."""
        self._append(NoteEntry(text, classes))

    def show_stream(self, text: Text | None) -> None:
        """Show (or clear, with None) what the model is streaming right now."""
        if text is None:
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
        if not at_bottom:
            self._unseen += 1
        self._update_subtitle()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._unseen and new_value >= self.max_scroll_y:
            self._unseen = 0
            self._update_subtitle()

    def _update_subtitle(self) -> None:
        if self._unseen:
            self.border_subtitle = f"↓ {self._unseen} new · end to jump"
        else:
            self.border_subtitle = ""

    def action_to_bottom(self) -> None:
        """Jump to the newest entry and stick there."""
        self._unseen = 0
        self.anchor()
        self._update_subtitle()

    def action_to_top(self) -> None:
        """Jump to the oldest entry."""
        self.release_anchor()
        self.scroll_home(animate=False)

    def action_toggle_all(self) -> None:
        """Expand or collapse every entry."""
        self.all_expanded = not self.all_expanded

    def watch_all_expanded(self, value: bool) -> None:
        for entry in self.query(LogEntry):
            entry.expanded = value

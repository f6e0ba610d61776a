"""The context preview: the exact messages of a Mysis's next request, with provenance.

Each message shows its role, where it came from (memory #id, nudge, placeholder,
summary, truncated, system prompt) and its token estimate; the header gives the
strategy, the total against the context window, and what was left out.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.text import Text
from textual.content import Content
from textual.reactive import reactive, var
from textual.widget import Widget

from ...core.cache import Reuse
from ...core.composition import Item
from ...orchestrator.checked import CheckedRequest
from ...orchestrator.events import RequestComposed
from .. import formatting as fmt
from ..sanitize import clip, one_line
from .text_view import TextRows, TextView, guess_height, text_key

ROLE_STYLES = {"system": fmt.SYSTEM, "user": fmt.USER, "assistant": fmt.ASSISTANT, "tool": fmt.TOOL}
SHORT_ROLES = {"system": "sys", "user": "user", "assistant": "ai", "tool": "tool"}
#: Characters of each message shown when compact, and when expanded.
COMPACT_CHARS = 240
COMPACT_LINES = 3
FULL_CHARS = 8_000


@dataclass(frozen=True, slots=True)
class PreviewData:
    """A request with the engine's checks, and whether it is the next or one sent."""

    #: The request with its violations and its reuse share, as the engine checked it:
    #: every preview of one request shows the same figures.
    request: CheckedRequest
    #: The model's context window (the budget the total is measured against).
    window: int
    #: True when this is what the Mysis would send next (recomposed, nothing sent);
    #: False when it is a request that was just sent.
    upcoming: bool = True
    at: float | None = None
    tick: int | None = None

    @classmethod
    def composed(cls, event: RequestComposed, window: int, tick: int | None) -> PreviewData:
        """The request a Mysis composed (``event``): the one it sends next, or the last
        one it sent, as the event says."""
        return cls(event.request, window, upcoming=event.preview, at=event.at, tick=tick)


def provenance(item: Item) -> str:
    """Where a composed message came from, in a few words."""
    mid = f"#{item.memory_id}" if item.memory_id is not None else ""
    if item.kind == "system":
        return "system prompt"
    if item.kind == "nudge":
        return "nudge (synthetic)"
    if item.kind == "state":
        return "current state (volatile, sent last)"
    if item.kind == "summary":
        return f"summary {mid}".strip()
    if item.kind == "placeholder" or item.action == "placeholder":
        return f"placeholder for {mid}".strip() if mid else "placeholder"
    if item.kind == "note":
        return "note (synthetic)"
    if item.action == "truncated":
        return f"memory {mid} · truncated"
    return f"memory {mid}".strip()


def _message_body(message: dict[str, Any], limit: int, lines: int | None) -> list[tuple[str, str]]:
    """(text, style) pieces of a message's content and tool calls."""
    pieces: list[tuple[str, str]] = []
    content = message.get("content") or ""
    if not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)
    if content:
        piece = clip(content, limit, lines)
        pieces.append((piece.text, fmt.TEXT))
        if piece.truncated:
            more = (
                f"{piece.hidden_lines:,} more lines"
                if piece.hidden_lines
                else f"{piece.hidden_chars:,} more characters"
            )
            pieces.append((f"… {more}", f"italic {fmt.MUTED}"))
    for call in message.get("tool_calls") or ():
        function = call.get("function", {})
        args = clip(str(function.get("arguments", "")), 200 if lines else FULL_CHARS)
        pieces.append(
            (
                f"⚙ {one_line(str(function.get('name', '?')), 60)}"
                f"({one_line(args.text, len(args.text) + 1)})",
                fmt.TEAL,
            )
        )
    if message.get("tool_call_id"):
        pieces.append((f"↳ answers {one_line(str(message['tool_call_id']), 60)}", fmt.DIM))
    return pieces


def preview_blocks(data: PreviewData, *, expanded: bool = False) -> list[tuple[Text, Text]]:
    """The preview's blocks: the header (with no body), then each message's head line
    and body (its reason, content and tool calls)."""
    comp = data.request.composition
    blocks = [(_header(data), Text())]
    limit, lines = (FULL_CHARS, None) if expanded else (COMPACT_CHARS, COMPACT_LINES)
    for index, (message, item) in enumerate(zip(comp.messages, comp.items, strict=False)):
        role = str(message.get("role", item.role))
        head = Text(no_wrap=False)
        head.append(f"\n{index + 1:>2} ", style=fmt.DIM)
        head.append(f"{role:<10}", style=f"bold {ROLE_STYLES.get(role, fmt.TEXT)}")
        head.append(provenance(item), style=fmt.TEXT)
        head.append(f"  {item.tokens:,} tok", style=fmt.MUTED)
        body = Text(overflow="fold")
        if item.reason:
            body.append(one_line(item.reason, 120), style=f"italic {fmt.DIM}")
        for piece, style in _message_body(message, limit, lines):
            if body.plain:
                body.append("\n")
            body.append(piece, style=style)
        blocks.append((head, body))
    return blocks


#: How far a message's body is set in.
BODY_INDENT = 3


def _block(head: Text, body: Text) -> RenderableType:
    return Group(head, Padding(body, (0, 0, 0, BODY_INDENT))) if body.plain else head


def preview_text(data: PreviewData, *, expanded: bool = False) -> Group:
    """The whole preview as text (pure: used by tests too)."""
    return Group(*(_block(head, body) for head, body in preview_blocks(data, expanded=expanded)))


def preview_lines(data: PreviewData) -> Text:
    """The preview in one line per message (role, provenance, tokens, the start of its
    text): cheap to lay out however long the request, for the dashboard."""
    comp = data.request.composition
    text = _header(data)
    for index, (message, item) in enumerate(zip(comp.messages, comp.items, strict=False)):
        role = str(message.get("role", item.role))
        text.append(f"\n{index + 1:>2} ", style=fmt.DIM)
        text.append(
            f"{SHORT_ROLES.get(role, role[:4]):<5}", style=f"bold {ROLE_STYLES.get(role, fmt.TEXT)}"
        )
        text.append(f"{item.tokens:>5,} ", style=fmt.MUTED)
        text.append(provenance(item), style=fmt.TEXT)
        pieces = _message_body(message, 120, 1)
        if pieces:
            text.append(" │ ", style=fmt.DIM)
            text.append(one_line(pieces[0][0], 120), style=pieces[0][1])
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def reuse_line(reused: Reuse) -> str:
    """What a request repeats of the last one, as shares computed from one measure (the
    serialized text's tokens), never a second size beside the header's estimate, each
    share named by what it is a share of:
    "94% repeated · holds all of the last request · 159 tok new"."""
    total = reused.cached_tokens + reused.uncached_tokens
    # Rounded down: a share short of the whole never reads as 100%.
    mine = math.floor(100 * reused.cached_tokens / total) if total else 0
    of_last = "all" if reused.share >= 1 else f"{math.floor(100 * reused.share)}%"
    return (
        f"{mine}% repeated · holds {of_last} of the last request · "
        f"{reused.uncached_tokens:,} tok new"
    )


def _header(data: PreviewData) -> Text:
    """Strategy, size against the window, validity, what it repeats, what was left out."""
    request = data.request
    comp = request.composition
    text = Text()
    text.append(comp.strategy, style=f"bold {fmt.TEAL}")
    text.append(f" · {len(comp.messages)} msg · ", style=fmt.MUTED)
    text.append(f"~{comp.tokens:,}", style=fmt.gauge_style(comp.tokens, data.window) or fmt.TEXT)
    text.append(f"/{data.window:,} tok", style=fmt.MUTED)
    text.append(" · ", style=fmt.DIM)
    text.append(
        "valid" if request.valid else "INVALID",
        style=fmt.USER if request.valid else f"bold {fmt.ERROR}",
    )
    text.append("\n")
    if data.upcoming:
        text.append("next request · composed now, nothing sent", style=f"italic {fmt.MUTED}")
    else:
        text.append("sent ", style=f"italic {fmt.MUTED}")
        text.append_text(fmt.stamp(data.at, data.tick))
    if request.reuse is not None:
        text.append("\n")
        text.append(reuse_line(request.reuse), style=fmt.MUTED)
    if comp.turn is not None:
        text.append(
            f"\nturn began at memory #{comp.turn.first_memory_id} · {comp.turn.describe()}",
            style=fmt.DIM,
        )
    if comp.dropped:
        by_reason: dict[str, list[int]] = {}
        for dropped in comp.dropped:
            by_reason.setdefault(one_line(dropped.reason, 60), []).append(dropped.memory_id)
        text.append(f"\n{len(comp.dropped)} left out", style=fmt.WARNING)
        for reason, ids in by_reason.items():
            shown = " ".join(f"#{i}" for i in ids[:3]) + (
                f" +{len(ids) - 3}" if len(ids) > 3 else ""
            )
            text.append(f"\n · {reason} ", style=fmt.MUTED)
            text.append(f"({shown})", style=fmt.DIM)
    if comp.uses_nudge:
        text.append("\nends with a synthetic nudge", style=fmt.WARNING)
    gauge = comp.summary_gauge
    if gauge is not None:
        alarm = gauge.paused is not None or gauge.due
        text.append("\n" + gauge.describe(), style=fmt.WARNING if alarm else fmt.MUTED)
    if comp.summary_request is not None:
        text.append("\na summary is due before this request is sent", style=fmt.WARNING)
    for violation in request.violations:
        text.append("\n✗ " + one_line(violation, 200), style=fmt.ERROR)
    return text


def preview_plain(data: PreviewData, *, expanded: bool = False) -> str:
    """The preview as plain text (for tests)."""
    console = Console(width=120, record=True, color_system=None, file=io.StringIO())
    console.print(preview_text(data, expanded=expanded))
    return console.export_text()


class ContextPreview(TextView):
    """Shows a :class:`PreviewData`; ``e`` (on its screen) expands every message.

    A line-API view: a request of another length moves the scrollbar, never lays the
    screen out."""

    data: reactive[PreviewData | None] = reactive(None, always_update=True, init=False)
    expanded: reactive[bool] = reactive(False, init=False)

    def __init__(self, *, id: str | None = None, title: str = "CONTEXT PREVIEW") -> None:
        super().__init__(Text("composing…", style=fmt.MUTED), id=id)
        self.border_title = title

    def watch_data(self, data: PreviewData | None) -> None:
        self._refresh_text()

    def watch_expanded(self) -> None:
        self._refresh_text()

    def _refresh_text(self) -> None:
        if self.data is None:
            self.show(Text("composing…", style=fmt.MUTED))
            self.border_subtitle = ""
            return
        blocks = preview_blocks(self.data, expanded=self.expanded)

        def guess(width: int) -> list[int]:
            return [
                guess_height(head, width)
                + (guess_height(body, width - BODY_INDENT) if body.plain else 0)
                for head, body in blocks
            ]

        self.show_blocks(
            [_block(head, body) for head, body in blocks],
            guess=guess,
            keys=[text_key(head, body) for head, body in blocks],
        )
        comp = self.data.request.composition
        self.border_subtitle = f"{comp.strategy} · ~{comp.tokens:,} tok"

    def show_error(self, message: str) -> None:
        """Say that the preview could not be composed."""
        self.show(Text("could not compose: " + one_line(message, 400), style=fmt.ERROR))


#: The title of a request beside the panes: what it is, the Mysis's name after it.
NEXT_TITLE = "NEXT REQUEST"
SENT_TITLE = "LAST REQUEST SENT"


class PreviewLines(TextRows, Widget):
    """A Mysis's newest request in one line per message, cut to the widget's height:
    the request it sends next (composed now, nothing sent) or the one it sent last,
    and its title says which.

    A new request repaints this widget only (no layout of the screen), and only the rows
    whose line changed (:class:`TextRows`), so it can follow a busy Mysis beside the
    dashboard's panes.
    """

    #: Set by the dashboard; the rows that change are repainted (:meth:`watch_data`).
    data: var[PreviewData | None] = var(None, always_update=True, init=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = NEXT_TITLE
        self._error: str | None = None
        self._mysis_name: str | None = None

    def show_for(self, name: str | None) -> None:
        """Name the Mysis whose requests are shown (in the title)."""
        self._mysis_name = name
        self._title()

    @property
    def title_kind(self) -> str:
        """:data:`SENT_TITLE` for a request that was sent, else :data:`NEXT_TITLE`."""
        data = self.data
        return SENT_TITLE if data is not None and not data.upcoming else NEXT_TITLE

    def _title(self) -> None:
        kind = self.title_kind
        name = self._mysis_name
        self.label_border(Content(f"{kind} · {one_line(name, 30)}" if name else kind))

    def text(self) -> Text:
        """The header and one line per message, as many as fit."""
        if self._error is not None:
            return Text("could not compose: " + one_line(self._error, 400), style=fmt.ERROR)
        if self.data is None:
            return Text("composing…", style=fmt.MUTED)
        text = preview_lines(self.data)
        height = self.content_size.height
        lines = list(text.split("\n"))
        if height and len(lines) > height:
            hidden = len(lines) - height + 1
            more = Text(
                f"… {hidden} more messages (enter: the whole request)", style=f"italic {fmt.MUTED}"
            )
            text = Text("\n").join([*lines[: height - 1], more])
        return text

    def watch_data(self, data: PreviewData | None) -> None:
        self._error = None
        self._title()
        if data is not None:
            comp = data.request.composition
            self.label_border(subtitle=f"{comp.strategy} · ~{comp.tokens:,} tok")
        self.repaint()

    def show_error(self, message: str) -> None:
        """Say that the preview could not be composed."""
        self._error = message
        self.repaint()

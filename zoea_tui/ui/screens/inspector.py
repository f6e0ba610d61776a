"""The request inspector (``l``): the requests a Mysis sent, newest first, and one of them
opened: exactly what was sent (recomposed from the log and checked against the digest
logged with it), what came back, and how it differs from the request before it.

The list and each request load in workers (``Commander.story``); the UI only shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Self

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...core.failures import failure_label
from ...core.request_diff import RequestDiff
from ...orchestrator.requests import RequestInspection
from ...orchestrator.story import StoryPort
from ...storage import RequestRecord
from ...storage.story import PAGE, RequestSummary
from .. import formatting as fmt
from ..sanitize import clip, one_line
from ..swarm_model import SwarmModel
from ..widgets.conversation import entry_parts
from ..widgets.key_bar import KeyBar
from ..widgets.scroll_box import ScrollBox
from .base import ZoeaScreen, targeted

if TYPE_CHECKING:
    from ...orchestrator.events import MysisView

#: Characters of each sent message shown (the store keeps everything).
MESSAGE_CHARS = 1500
_OUTCOME_STYLE = {"ok": fmt.TEAL, "pending": fmt.WARNING}
#: How a request logged but not finished yet (``pending``: its call is under way) reads.
IN_FLIGHT = "in flight"


def outcome_text(r: RequestSummary | RequestRecord) -> str:
    """How a request ended: ``ok`` (``ok unstreamed`` when the provider had to fall back
    from streaming), or the class of its failure (``error: refused``)."""
    if r.outcome == "error" and r.error_kind:
        return f"error: {failure_label(r.error_kind)}"
    if r.outcome == "ok" and r.streamed is not None and not r.streamed:
        return "ok unstreamed"
    if r.outcome == "pending":
        return IN_FLIGHT
    return r.outcome


def request_row(r: RequestSummary) -> Text:
    """Two lines of the list: id, time, outcome and latency; strategy, messages, tokens
    (``RequestTokens.shown``, saying which figure), the tokens read from the server's
    cache and written to it."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"#{r.id} ", style=fmt.DIM)
    text.append(fmt.clock(r.created_at), style=fmt.MUTED)
    text.append(f" {outcome_text(r)}", style=_OUTCOME_STYLE.get(r.outcome, fmt.ERROR))
    if r.latency_ms is not None:
        text.append(f" · {r.latency_ms / 1000:.2f} s", style=fmt.MUTED)
    text.append("\n  ")
    text.append(r.strategy, style=fmt.TEAL)
    tokens = r.tokens
    text.append(f" · {r.messages} msgs · {fmt.compact(tokens.shown)} tok", style=fmt.TEXT)
    text.append(f" {tokens.which}", style=fmt.MUTED)
    if tokens.cached is not None:
        text.append(f" · {fmt.compact(tokens.cached)} cached", style=fmt.MUTED)
    if r.cache_write_tokens is not None:
        text.append(f" · {fmt.compact(r.cache_write_tokens)} written", style=fmt.MUTED)
    return text


def sent_messages(seen: RequestInspection) -> Text:
    """The messages as sent, each with its provenance and tokens."""
    text = Text()
    for n, (message, item) in enumerate(
        zip(seen.composition.messages, seen.composition.items, strict=False), start=1
    ):
        where = f"memory #{item.memory_id}" if item.memory_id is not None else item.kind
        text.append(f"{n:>3} {message['role'].upper()}", style=f"bold {fmt.ASSISTANT}")
        text.append(f"  {where} · {item.action} · {item.tokens} tok", style=fmt.MUTED)
        if message.get("tool_call_id"):
            text.append(f" · answers {one_line(str(message['tool_call_id']), 40)}", style=fmt.DIM)
        text.append("\n")
        content = message.get("content") or ""
        if content:
            piece = clip(str(content), MESSAGE_CHARS)
            text.append(piece.text, style=fmt.TEXT)
            if piece.truncated:
                text.append(f" … {piece.hidden_chars:,} more characters", style=fmt.MUTED)
            text.append("\n")
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            text.append("⚙ ", style=fmt.TEAL)
            text.append(one_line(str(function.get("name", "?")), 60), style=f"bold {fmt.TEAL}")
            text.append(f"({one_line(str(function.get('arguments', '')), 300)})\n", style=fmt.TEXT)
        text.append("\n")
    return text


def diff_text(diff: RequestDiff | None, previous_id: int | None) -> Text:
    """What the request appended to the one before, what left, and why."""
    text = Text()
    if diff is None:
        text.append("The Mysis's first request: nothing to compare with.", style=fmt.MUTED)
        return text
    text.append(f"Against request #{previous_id}: ", style=fmt.MUTED)
    text.append(
        f"{diff.kept} messages repeated ({fmt.compact(diff.kept_tokens)} tok), "
        f"{diff.count('appended')} appended, {diff.count('left')} left, "
        f"{diff.count('changed')} changed\n",
        style=fmt.TEXT,
    )
    if diff.reasons:
        text.append("why: " + "; ".join(diff.reasons) + "\n", style=fmt.WARNING)
    else:
        text.append(
            "the previous request plus new messages: a prompt cache reuses all of it\n",
            style=fmt.TEAL,
        )
    marks = {
        "appended": ("+", fmt.TEAL),
        "left": ("-", fmt.ERROR),
        "changed": ("~", fmt.WARNING),
        "kept": ("=", fmt.MUTED),
    }
    for line in diff.lines:
        mark, style = marks[line.status]
        where = f"#{line.memory_id}" if line.memory_id is not None else line.kind
        text.append(f"{mark} {line.role:<9} {where:<12} {line.tokens:>5} tok  ", style=style)
        text.append(one_line(line.text, 80), style=fmt.TEXT)
        if line.reason and line.status != "appended":
            text.append(f"  ({one_line(line.reason, 80)})", style=fmt.MUTED)
        text.append("\n")
    return text


def inspection_text(seen: RequestInspection, names: dict[str, str]) -> Text:
    """The whole detail of one request."""
    r = seen.record
    text = Text()
    text.append(f"REQUEST #{r.id}", style=f"bold {fmt.BRAND}")
    text.append(
        f"  {fmt.clock(r.created_at)} · {r.strategy} · turn {r.turn_id or '-'}"
        f" · nudge level {r.nudge_level} · tools {r.tools_tokens} tok\n",
        style=fmt.MUTED,
    )
    tokens = r.tokens
    text.append(f"{tokens.estimated:,} tok estimated", style=fmt.TEXT)
    if tokens.reported is not None:
        text.append(f" · {tokens.reported:,} prompt tok reported", style=fmt.TEXT)
    if tokens.cached is not None:
        text.append(f" · {tokens.cached:,} served from the server's cache", style=fmt.TEXT)
    if r.cache_write_tokens is not None:
        text.append(f" · {r.cache_write_tokens:,} written to its cache", style=fmt.TEXT)
    if r.latency_ms is not None:
        text.append(f" · {r.latency_ms / 1000:.2f} s", style=fmt.TEXT)
    text.append(f" · {outcome_text(r)}", style=_OUTCOME_STYLE.get(r.outcome, fmt.ERROR))
    if r.error:
        text.append(f"\n✖ {one_line(r.error, 300)}", style=fmt.ERROR)
    text.append("\n")
    if seen.identical is True:
        text.append(
            "✓ recomposed from the log: byte-identical to what was sent (sha256 "
            f"{(r.digest or '')[:12]}…)\n",
            style=fmt.TEAL,
        )
    elif seen.identical is False:
        text.append(
            "✗ recomposed from the log, but it differs from what was sent (the "
            "Mysis's system prompt or account changed since)\n",
            style=fmt.ERROR,
        )
    elif r.thinned:
        text.append(
            "? recomposed from the log (thinned by [storage] request_log: its digest is "
            "gone, so it cannot be checked)\n",
            style=fmt.WARNING,
        )
    else:
        text.append(
            "? recomposed from the log (logged before digests were kept: cannot be checked)\n",
            style=fmt.WARNING,
        )
    text.append("\nDIFF\n", style=f"bold {fmt.ASSISTANT}")
    text.append_text(diff_text(seen.diff, seen.previous.id if seen.previous else None))
    text.append(
        f"\nSENT · {len(seen.composition.messages)} messages\n", style=f"bold {fmt.ASSISTANT}"
    )
    text.append_text(sent_messages(seen))
    text.append("CAME BACK\n", style=f"bold {fmt.ASSISTANT}")
    if seen.answer is None and r.outcome == "pending":
        text.append(f"nothing yet: the call is {IN_FLIGHT}\n", style=fmt.WARNING)
    elif seen.answer is None:
        text.append("nothing stored (the call failed or was stopped)\n", style=fmt.MUTED)
    else:
        parts = entry_parts(seen.answer, expanded=True, names=names)
        text.append_text(parts.header)
        text.append("\n")
        text.append_text(parts.body)
    return text


class InspectorScreen(ZoeaScreen[None]):
    """The requests of one Mysis, newest first; the highlighted one opened beside them."""

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Request inspector",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
    ]

    @classmethod
    def opened(cls, view: MysisView | None) -> Self:
        """The requests of Mysis ``view`` in the swarm's story (the ``x`` command's)."""
        mysis = targeted(view, cls)
        return cls(mysis.id, mysis.name)

    def __init__(self, mysis_id: int, name: str, story: StoryPort | None = None) -> None:
        super().__init__()
        self.mysis_id = mysis_id
        self.mysis_name = name
        #: Where the requests are read: the swarm's story, or another database's (an
        #: arena run's own, kept with its whole conversation).
        self.story = story
        self.requests: list[RequestSummary] = []
        self._more = True
        #: What the screen shows now, for benchmarks (``bench/ui.py``).
        self.bench_state = ""

    @property
    def current_mysis_id(self) -> int:
        """The Mysis inspected."""
        return self.mysis_id

    def compose(self) -> ComposeResult:
        """The list beside the opened request."""
        with Horizontal(id="inspector-body"):
            listing = OptionList(id="inspector-list")
            listing.border_title = f"REQUESTS · {one_line(self.mysis_name, 30)} · newest first"
            yield listing
            with ScrollBox(id="inspector-detail") as detail:
                detail.border_title = "SENT AND RECEIVED"
                yield Static(Text("Loading…", style=fmt.MUTED), id="inspector-text")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        if self.story is None:  # the swarm's own requests: their calls end as it plays
            self.center.swarm.subscribe(self, SwarmModel.RequestsFinished)
        self.load_requests()

    @on(SwarmModel.RequestsFinished)
    def _requests_finished(self, message: SwarmModel.RequestsFinished) -> None:
        listed = {r.id for r in self.requests}
        for finished in message.requests:
            if finished.mysis_id == self.mysis_id and finished.request_id in listed:
                self.refresh_request(finished.request_id)

    @work(group="inspector-row", exit_on_error=False)
    async def refresh_request(self, request_id: int) -> None:
        """Read a listed request again once its call ended: its row (listed while the call
        was in flight) and, when it is the one opened, the request beside it."""
        story = self._story()
        if story is None:
            return
        page = await story.requests(self.mysis_id, before_id=request_id + 1, limit=1)
        index = next((i for i, r in enumerate(self.requests) if r.id == request_id), None)
        if not page or page[0].id != request_id or index is None:
            return
        self.requests[index] = page[0]
        listing = self.query_one(OptionList)
        listing.replace_option_prompt(f"r{request_id}", request_row(page[0]))
        if listing.highlighted == index:
            self.open_request(request_id)

    @work(exclusive=True, group="inspector-list", exit_on_error=False)
    async def load_requests(self) -> None:
        """The next page of older requests."""
        story = self._story()
        if story is None:
            return
        before = self.requests[-1].id if self.requests else None
        page = await story.requests(self.mysis_id, before_id=before, limit=PAGE)
        self._more = len(page) == PAGE
        first = not self.requests
        self.requests.extend(page)
        listing = self.query_one(OptionList)
        listing.add_options([Option(request_row(r), id=f"r{r.id}") for r in page])
        if first:
            if page:
                listing.highlighted = 0
            else:
                self.query_one("#inspector-text", Static).update(
                    Text(
                        f"{one_line(self.mysis_name, 30)} has sent no request yet.", style=fmt.MUTED
                    )
                )
                self.bench_state = "requests 0"

    @on(OptionList.OptionHighlighted, "#inspector-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        index = event.option_index
        if 0 <= index < len(self.requests):
            self.open_request(self.requests[index].id)
        if self._more and index >= len(self.requests) - 5:
            self._more = False
            self.load_requests()

    @work(exclusive=True, group="inspector-open", exit_on_error=False)
    async def open_request(self, request_id: int) -> None:
        """Recompose one request and show it (the newest highlighted one wins)."""
        story = self._story()
        if story is None:
            return
        seen = await story.inspect(self.mysis_id, request_id)
        body = self.query_one("#inspector-text", Static)
        if seen is None:
            body.update(Text(f"Request #{request_id} is no longer in the log.", style=fmt.MUTED))
            return
        body.update(inspection_text(seen, self.center.names))
        self.query_one("#inspector-detail", ScrollBox).scroll_home(animate=False)
        self.bench_state = f"request {request_id}"

    def _story(self) -> StoryPort | None:
        if self.story is not None:
            return self.story
        commander = self.center.commander
        return commander.story if commander is not None else None

    def action_back(self) -> None:
        """Back to where the inspector was opened."""
        self.dismiss()

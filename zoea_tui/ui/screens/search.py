"""Search (``/``): one Mysis's memories and the broadcasts, ranked, with highlighted hits.

Typing searches (FTS5 in the store, in a worker: the newest query wins); ``enter`` or a
click on a hit opens the conversation at it. Hit text is untrusted: it is cleaned and
shown as plain text, the highlight comes from marks the store put around each match.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input

from ...storage.story import HIT_CLOSE, HIT_OPEN, StoryHit
from .. import formatting as fmt
from ..sanitize import one_line
from ..widgets.hit_list import HitList
from ..widgets.text_block import TextBlock
from .base import ZoeaModalScreen

#: Hits shown for one query.
HIT_LIMIT = 50


def highlighted(snippet: str, limit: int = 300) -> Text:
    """A snippet as one plain line, the words between the store's marks highlighted."""
    text = Text(no_wrap=True, overflow="ellipsis")
    inside = False
    for piece in snippet.replace(HIT_CLOSE, HIT_OPEN).split(HIT_OPEN):
        if piece:
            # one_line cleans the text (escapes, controls) and flattens newlines.
            flat = one_line(piece, limit)
            if piece[:1].isspace():
                flat = " " + flat
            if piece[-1:].isspace():
                flat += " "
            text.append(flat, style=f"bold reverse {fmt.WARNING}" if inside else fmt.TEXT)
        inside = not inside
    return text


def hit_lines(hit: StoryHit, names: dict[str, str]) -> tuple[Text, Text]:
    """The two lines of one hit: what and when, then the snippet."""
    head = fmt.stamp(hit.created_at, hit.game_tick)
    if hit.kind == "broadcast":
        sender = (
            "you"
            if hit.sender_id is None
            else one_line(names.get(str(hit.sender_id), f"#{hit.sender_id}"), 30)
        )
        head.append(f" BROADCAST from {sender}", style=f"bold {fmt.ASSISTANT}")
    else:
        label = {
            "user": "YOU" if hit.source == "direct" else hit.source.upper(),
            "assistant": "AI",
            "tool": f"TOOL {one_line(hit.tool_name or '', 30)}",
        }
        head.append(" " + label.get(hit.role, hit.role.upper()), style=f"bold {fmt.TEAL}")
        head.append(f"  #{hit.id}", style=fmt.DIM)
    return head, Text("  ").append_text(highlighted(hit.snippet))


#: What the status line says before the first word.
HINT = "Type to search; enter opens a hit; esc closes."


class QueryInput(Input):
    """The query: a typed letter repaints it, never lays the screen out.

    Textual's input is a scroll view that sets its virtual size (the text's width) with
    every change of its value, and a virtual size asks for a layout of the whole screen:
    one per letter typed. Its own size never depends on it; scrolling along the text
    reads the virtual size directly.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)


class SearchScreen(ZoeaModalScreen[StoryHit | None]):
    """Search one Mysis's story; dismisses with the chosen hit (None: closed).

    The app builds one and keeps it (a new screen costs a frame of 100-200 ms at 200x60):
    :meth:`retarget` points it at another Mysis, empty, before it is shown again.
    """

    #: The help's groups that list the keys this binds (``commands.SCREEN_KEYS``).
    HELP_GROUPS: ClassVar[tuple[str, ...]] = ("Search",)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("down", "to_hits", "Hits", show=False),
    ]

    def __init__(self, mysis_id: int, name: str) -> None:
        super().__init__()
        self.mysis_id = mysis_id
        self.mysis_name = name
        self.hits: list[StoryHit] = []
        #: What the screen shows now, for benchmarks (``bench/ui.py``).
        self.bench_state = ""
        #: The query whose hits are on the screen (None before the first search).
        self.shown_query: str | None = None
        self._query = ""

    @property
    def current_mysis_id(self) -> int:
        """The Mysis searched."""
        return self.mysis_id

    def compose(self) -> ComposeResult:
        """The query, a status line, the hits."""
        with Vertical(id="search-box") as box:
            box.border_title = self._title()
            yield QueryInput(
                placeholder="words to find (every word must match; parts of words too)",
                id="search-input",
            )
            yield TextBlock(Text(HINT, style=fmt.MUTED), id="search-status")
            yield HitList(id="search-hits")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _title(self) -> str:
        return f"SEARCH · {one_line(self.mysis_name, 30)} and the broadcasts"

    def retarget(self, mysis_id: int, name: str) -> None:
        """Search Mysis ``mysis_id`` next, starting empty."""
        self.mysis_id, self.mysis_name = mysis_id, name
        self.workers.cancel_group(self, "search")
        self._query = ""
        self.hits, self.shown_query, self.bench_state = [], None, ""
        if not self.is_mounted:
            return
        self.query_one("#search-box").border_title = self._title()
        with self.prevent(Input.Changed):
            self.query_one(Input).value = ""
        self.query_one(HitList).show([])
        self.query_one("#search-status", TextBlock).show(Text(HINT, style=fmt.MUTED))
        self.query_one(Input).focus()

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        self._query = event.value
        self.run_search(event.value)

    @on(Input.Submitted, "#search-input")
    def _submitted(self) -> None:
        if self.hits:
            self._choose(self.hits[0])

    @work(exclusive=True, group="search", exit_on_error=False)
    async def run_search(self, query: str) -> None:
        """Search in the store (the newest query wins) and show the hits."""
        commander = self.center.commander
        if commander is None:
            return
        hits = (
            await commander.story.search(self.mysis_id, query, limit=HIT_LIMIT)
            if query.strip()
            else []
        )
        if query != self._query:
            return
        self.show_hits(query, hits)

    def show_hits(self, query: str, hits: list[StoryHit]) -> None:
        """Show ``hits`` for ``query``."""
        self.hits = hits
        self.shown_query = query
        names = self.center.names
        self.query_one(HitList).show([hit_lines(h, names) for h in hits])
        status = self.query_one("#search-status", TextBlock)
        if not query.strip():
            status.show(Text(HINT, style=fmt.MUTED))
        elif not hits:
            status.show(Text(f"Nothing matches {one_line(query, 60)!r}.", style=fmt.MUTED))
        else:
            more = " (the best ones)" if len(hits) >= HIT_LIMIT else ""
            status.show(
                Text(
                    f"{len(hits)} hits{more}, best first · ↓ to choose, enter to open",
                    style=fmt.MUTED,
                )
            )
        self.bench_state = f"search {len(hits)}"

    @on(HitList.Chosen, "#search-hits")
    def _selected(self, event: HitList.Chosen) -> None:
        self._choose(self.hits[event.index])

    def _choose(self, hit: StoryHit) -> None:
        if hit.kind == "memory":
            self.dismiss(hit)
            return
        self._open_broadcast(hit)

    @work(exclusive=True, group="search-open", exit_on_error=False)
    async def _open_broadcast(self, hit: StoryHit) -> None:
        """A broadcast hit opens the memory that delivered it to this Mysis."""
        commander = self.center.commander
        if commander is None:
            return
        memory_id = await commander.story.broadcast_memory(self.mysis_id, hit.id)
        if memory_id is None:
            self.notify(
                f"That broadcast never reached {one_line(self.mysis_name, 30)}.", severity="warning"
            )
            return
        self.dismiss(
            StoryHit(
                "memory",
                memory_id,
                "user",
                "broadcast",
                None,
                hit.snippet,
                hit.created_at,
                hit.game_tick,
                hit.sender_id,
            )
        )

    def action_to_hits(self) -> None:
        """Move from the query to the hits."""
        hit_list = self.query_one(HitList)
        if hit_list.count:
            hit_list.focus()
            if hit_list.highlighted is None:
                hit_list.highlighted = 0

    def action_close(self) -> None:
        """Close without opening anything."""
        self.dismiss(None)

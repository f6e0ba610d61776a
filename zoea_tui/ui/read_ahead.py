"""Reading ahead: what the focus view shows of a Mysis, read before a key asks for it.

One service, :class:`ReadAhead`, owns both halves: what was read (by Mysis, handed over
once) and when to read (once the commander rests). The app creates it and hands it to
the screens (:attr:`CommandCenter.ahead <zoea_tui.ui.screens.base.CommandCenter.ahead>`);
every key or click of the commander moves its rest deadline (:meth:`ReadAhead.soon`).
Once the commander rests, the screen on top names what a next key there may show
(``when_rested``: the Mysis selected on the dashboard, the neighbours of the one
focused, the page beyond an edge) and the service reads it in workers of the
:data:`~zoea_tui.ui.worker_groups.AHEAD_GROUP` group. The focus view opens or steps to a
Mysis with :meth:`ReadAhead.open`: what was read ahead, else read now. The swarm model
(:meth:`SwarmModel.listen`) tells it which Myses each batch of engine news concerns and
what it stored.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, Unpack, runtime_checkable

from ..core.types import Memory
from ..storage.story import PageWhere
from .swarm_model import SwarmModel
from .widgets.context_preview import PreviewData
from .widgets.conversation import Page
from .worker_groups import AHEAD_GROUP

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.timer import Timer

#: Memories in one page of the conversation (pages load by id as the log scrolls).
PAGE = 50
#: The commander rests this long after a key (and the swarm's hold is over) before what
#: a next key may show is read ahead.
AHEAD_S = 0.1


@dataclass(frozen=True, slots=True)
class FocusContent:
    """What the focus view shows of one Mysis, read before any of it is shown (so the
    view changes in one frame): a page of its story and its next request."""

    mysis_id: int
    page: Page
    #: The memory to centre and mark (a search hit), else the newest page sticks.
    focus_id: int | None = None
    preview: PreviewData | None = None
    #: Why the next request could not be composed (shown in its place).
    preview_error: str | None = None
    #: Memories stored while the content was read (shown after the page if newer).
    arrived: list[Memory] = field(default_factory=list)


def empty_content(mysis_id: int, focus_id: int | None = None) -> FocusContent:
    """A Mysis's content before any of it is read."""
    return FocusContent(mysis_id, Page([], [], True, True, 0), focus_id=focus_id)


@dataclass(slots=True)
class AheadRead:
    """A Mysis's content read ahead of an open or a step (:meth:`ReadAhead.read`).

    The memories stored since the read began gather in ``content.arrived``; ``stale``
    says something of the Mysis happened since, so its next request may differ."""

    content: FocusContent
    done: bool = False
    stale: bool = False

    def note(self, concerned: frozenset[int], stored: Mapping[int, list[Memory]]) -> None:
        """Take in what a batch of engine news did."""
        mysis_id = self.content.mysis_id
        self.stale = self.stale or mysis_id in concerned
        self.content.arrived.extend(stored.get(mysis_id, ()))

    @property
    def behind(self) -> bool:
        """More than a page was stored since the read: the page read is left behind."""
        return len(self.content.arrived) > PAGE


@runtime_checkable
class RestingScreen(Protocol):
    """A screen that names what a next key on it may show (every ``ZoeaScreen``)."""

    def when_rested(self) -> None:
        """The commander rests: ask the :class:`ReadAhead` for what a next key may show."""


class ReadAhead:
    """Reads a Mysis's focus content (a page of its story and its checked next request)
    now, or ahead of a key once the commander rests, and hands what was read ahead over
    once (:meth:`open`). It owns what it read and when it reads: the rest deadline, its
    timer and the workers of the ``ahead`` group."""

    def __init__(self, app: App[Any], swarm: SwarmModel) -> None:
        #: The app the timer and the workers run on (the page ahead: on the focus view).
        self.app = app
        self.swarm = swarm
        #: Content read, or being read, ahead of a key, by Mysis.
        self.reads: dict[int, AheadRead] = {}
        #: The focus view once built: it shows what is read, so nothing is read before.
        self._view: DOMNode | None = None
        #: Reading ahead waits for this timer, and at least until ``_rest_at``.
        self._timer: Timer | None = None
        self._rest_at = 0.0
        swarm.listen(self._note)

    def _note(self, concerned: frozenset[int], stored: Mapping[int, list[Memory]]) -> None:
        for ahead in list(self.reads.values()):
            ahead.note(concerned, stored)
            if ahead.behind:
                del self.reads[ahead.content.mysis_id]

    # -- when: once the commander rests ----------------------------------------------------

    def soon(self) -> None:
        """Once the commander rests (its last key handled, the swarm's hold over), let
        the screen on top name what a next key may show (:meth:`RestingScreen.when_rested`):
        that key then only shows it. Called for every key and click: it moves a deadline,
        and one timer looks at it when due."""
        self._rest_at = time.monotonic() + AHEAD_S
        if self._timer is None:
            self._timer = self.app.set_timer(self._wait(), self._due)

    def _wait(self) -> float:
        """Seconds until the commander rests (0: it rests now)."""
        commander = self.swarm.commander
        held = commander.input_held_for() if commander is not None else 0.0
        return max(held, self._rest_at - time.monotonic(), 0.0)

    def _due(self) -> None:
        wait = self._wait()
        if wait:  # another key came meanwhile
            self._timer = self.app.set_timer(wait, self._due)
            return
        self._timer = None
        stack = self.app.screen_stack
        screen = stack[-1] if stack else None  # none while the app closes
        if isinstance(screen, RestingScreen):
            screen.when_rested()

    def stop(self) -> None:
        """A key moved on: what was being read ahead for the last place is not wanted."""
        self.app.workers.cancel_group(self.app, AHEAD_GROUP)

    # -- what: the Myses and the page a next key may show ------------------------------------

    def shown_in(self, view: DOMNode) -> None:
        """``view`` (the focus view) shows what is read: reading ahead starts once it is built."""
        self._view = view

    def want(self, ids: list[int]) -> None:
        """Read Myses ``ids``' content ahead of a key, in a worker of the ``ahead`` group
        (:meth:`read`), once the focus view that shows it is built."""
        view = self._view
        ids = [i for i in ids if i in self.swarm.views]
        if view is not None and view.is_running and ids:
            self.app.run_worker(
                self.read(ids), group=AHEAD_GROUP, exclusive=True, exit_on_error=False
            )

    def want_page(self, fill: Coroutine[Any, Any, None]) -> None:
        """Read and show the page beyond the edge the focus view is near (``fill``), in a
        worker of the ``ahead`` group on the view: a later one replaces it."""
        view = self._view
        if view is None:  # asked before the view's mount was handled: at the next rest
            fill.close()
            return
        view.run_worker(fill, group=AHEAD_GROUP, exclusive=True, exit_on_error=False)

    def done(self, mysis_id: int) -> bool:
        """Whether Mysis ``mysis_id``'s content is read ahead and waiting."""
        ahead = self.reads.get(mysis_id)
        return ahead is not None and ahead.done

    async def read(self, ids: list[int]) -> None:
        """Read Myses ``ids``' content ahead of an open or a step, side by side.
        Content read for other Myses is dropped; :meth:`take` hands it over."""
        self.reads = {i: a for i, a in self.reads.items() if i in ids and a.done}
        wanted = [i for i in ids if i not in self.reads]
        for mysis_id in wanted:
            self.reads[mysis_id] = AheadRead(empty_content(mysis_id))
        await asyncio.gather(*(self._read_one(i) for i in wanted))

    async def _read_one(self, mysis_id: int) -> None:
        ahead = self.reads[mysis_id]
        content = await self.read_content(mysis_id, None, ahead.content.arrived)
        if self.reads.get(mysis_id) is ahead:
            ahead.content, ahead.done = content, True

    def take(self, mysis_id: int) -> AheadRead | None:
        """The content read ahead for Mysis ``mysis_id``, handed over once; None when
        there is none, its read is not done, or more than a page was stored since."""
        ahead = self.reads.pop(mysis_id, None)
        if ahead is None or not ahead.done or ahead.behind:
            return None
        return ahead

    # -- an open or a step -------------------------------------------------------------------

    async def open(
        self, mysis_id: int, at: int | None = None, arrived: list[Memory] | None = None
    ) -> FocusContent:
        """What the focus view shows of Mysis ``mysis_id`` on an open or a step: the
        content read ahead for it if there is (its next request composed again if
        something of it happened since the read began), else read now, around memory
        ``at`` (else the newest page). Memories stored meanwhile gather in ``arrived``
        (the view's own list: it gathers there too), which the content carries."""
        arrived = [] if arrived is None else arrived
        ahead = self.take(mysis_id) if at is None else None
        if ahead is not None:
            # What the read gathered and what the view gathered since the key, once each.
            gathered = {m.id: m for m in (*ahead.content.arrived, *arrived)}
            arrived[:] = [gathered[i] for i in sorted(gathered)]
            if not ahead.stale:
                return replace(ahead.content, arrived=arrived)
        # Read now; or stale: the page read ahead stands, its next request may differ.
        page = ahead.content.page if ahead is not None else None
        return await self.read_content(mysis_id, at, arrived, page)

    # -- reading -------------------------------------------------------------------------

    async def read_content(
        self, mysis_id: int, at: int | None, arrived: list[Memory], page: Page | None = None
    ) -> FocusContent:
        """A page of Mysis ``mysis_id``'s story (``page`` if it is read already, else
        read around memory ``at``, else the newest) and its next request composed now,
        side by side; ``arrived`` gathers memories stored since."""
        reading = self.read_page(mysis_id, at=at) if page is None else _read(page)
        read, (preview, error) = await asyncio.gather(reading, self.compose_preview(mysis_id))
        return FocusContent(mysis_id, read, at, preview, error, arrived)

    async def read_page(self, mysis_id: int, **where: Unpack[PageWhere]) -> Page:
        """A page of the Mysis's story with the turns begun in it (``where``: around memory
        ``at``, before or after a memory, else the newest; :data:`PAGE` memories unless a
        ``limit`` is given), in one trip to the database."""
        commander = self.swarm.commander
        assert commander is not None
        read = await commander.story.read_page(mysis_id, **(PageWhere(limit=PAGE) | where))
        return Page(read.memories, read.turns, read.at_start, read.at_end, read.bounds.count)

    async def compose_preview(self, mysis_id: int) -> tuple[PreviewData | None, str | None]:
        """The Mysis's next request with the engine's checks, or why it could not be
        composed."""
        commander = self.swarm.commander
        if commander is None or mysis_id not in self.swarm.views:
            return None, None
        try:
            request = await commander.checked_preview(mysis_id)
        except Exception as exc:  # shown in place: the preview is advisory
            return None, str(exc)
        return PreviewData(request, self.swarm.window(mysis_id)), None


async def _read(page: Page) -> Page:
    """A page read already, as a read."""
    return page

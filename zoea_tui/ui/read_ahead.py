"""Reading ahead: what the focus view shows of a Mysis, read before a key asks for it.

One service, owned by the app (:attr:`ZoeaApp.ahead`): the app runs its reads while the
commander rests (:meth:`ZoeaApp.read_ahead`) for the Myses the screen on top names
(the one selected on the dashboard, the neighbours of the one focused), and the focus
view takes what was read (:meth:`ReadAhead.take`) when a key opens or steps to one of
them. The swarm model (:meth:`SwarmModel.listen`) tells it which Myses each batch of
engine news concerns and what it stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.types import Memory
from .swarm_model import SwarmModel
from .widgets.context_preview import PreviewData
from .widgets.conversation import Page

#: Memories in one page of the conversation (pages load by id as the log scrolls).
PAGE = 50


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


class ReadAhead:
    """Reads a Mysis's focus content (a page of its story and its checked next request),
    now or ahead of a key, and hands what was read ahead over once."""

    def __init__(self, swarm: SwarmModel) -> None:
        self.swarm = swarm
        #: Content read, or being read, ahead of a key, by Mysis.
        self.reads: dict[int, AheadRead] = {}
        swarm.listen(self._note)

    def _note(self, concerned: frozenset[int], stored: Mapping[int, list[Memory]]) -> None:
        for ahead in list(self.reads.values()):
            ahead.note(concerned, stored)
            if ahead.behind:
                del self.reads[ahead.content.mysis_id]

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

    # -- reading -------------------------------------------------------------------------

    async def read_content(
        self, mysis_id: int, at: int | None, arrived: list[Memory]
    ) -> FocusContent:
        """A page of Mysis ``mysis_id``'s story (around memory ``at``, else the newest)
        and its next request, side by side; ``arrived`` gathers memories stored since."""
        page, (preview, error) = await asyncio.gather(
            self.read_page(mysis_id, at=at), self.compose_preview(mysis_id)
        )
        return FocusContent(mysis_id, page, at, preview, error, arrived)

    async def read_page(
        self,
        mysis_id: int,
        *,
        at: int | None = None,
        before_id: int | None = None,
        after_id: int | None = None,
    ) -> Page:
        """A page of the Mysis's story with the turns begun in it: around memory ``at``,
        before or after a memory, else the newest (one trip to the database)."""
        commander = self.swarm.commander
        assert commander is not None
        read = await commander.story.read_page(
            mysis_id, at=at, before_id=before_id, after_id=after_id, limit=PAGE
        )
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
        return PreviewData.of(request, self.swarm.window(mysis_id)), None

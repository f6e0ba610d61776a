"""A kept run's conversation, opened for reading (the arena screen's request inspector).

Each run of a batch keeps its own database (``runner.play``'s ``workdir``): the scored
Mysis's memories, turns and request log, exactly as the swarm stores them. A
:class:`Transcript` opens it and reads it through a :class:`StoryPort`, as the app reads
its own swarm, until it is closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..orchestrator.story import SettingsFor, StoryPort
from ..storage import Store

#: The scored Mysis of a run is named after its scenario: ``arena-s1`` … ``arena-s6``.
SCORED_PREFIX = "arena-"


def folder_for(database: Path, batch: int) -> Path:
    """Where each run of batch ``batch`` of ``database`` keeps its own database."""
    return database.parent / f"{database.stem}.arena" / f"batch-{batch}"


@dataclass(slots=True)
class Transcript:
    """A run's own database, open: its story and the scored Mysis in it."""

    store: Store
    story: StoryPort
    mysis_id: int
    name: str

    @classmethod
    async def open(cls, path: Path, settings_for: SettingsFor) -> Transcript:
        """Open a kept run; ``FileNotFoundError`` when it is gone, ``LookupError`` when
        it holds no scored Mysis."""
        if not path.is_file():
            raise FileNotFoundError(f"the run's conversation is no longer at {path}")
        store = await Store.open(path)
        try:
            scored = [m for m in await store.list_myses() if m.name.startswith(SCORED_PREFIX)]
            if not scored:
                raise LookupError(f"{path} holds no arena run")
        except BaseException:
            await store.close()
            raise
        return cls(store, StoryPort(store, settings_for), scored[0].id, scored[0].name)

    async def close(self) -> None:
        """Close the run's database."""
        await self.store.close()

"""Messages that carry the engine's events into the app."""

from __future__ import annotations

from textual.message import Message

from ..orchestrator.events import Event


class EngineBatch(Message, bubble=False):
    """Engine events read from the bus in one go, oldest first (posted by the bridge)."""

    def __init__(self, events: tuple[Event, ...]) -> None:
        super().__init__()
        self.events = events

"""A message a widget posts about itself, the widget its :attr:`~WidgetMessage.control`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from textual.message import Message
from textual.widget import Widget

W = TypeVar("W", bound=Widget)


@dataclass
class WidgetMessage(Message, Generic[W]):
    """A message a widget posts about itself: ``widget`` is the one that sent it and the
    message's :attr:`control`, so ``@on(HitList.Chosen, "#search-hits")`` matches it
    against that widget.

    A widget's message derives from it, its own fields after ``widget``:
    ``class Chosen(WidgetMessage["HitList"])``, posted as ``self.Chosen(self, index)``.
    """

    widget: W

    @property
    def control(self) -> W:
        """The widget that sent the message."""
        return self.widget

"""What the commander says when it cannot do an action: light, so the UI can import it
without the engine (the app paints before the engine's modules are loaded)."""

from __future__ import annotations


class CommandRefused(Exception):
    """An action the commander cannot do now; ``message`` says why, for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

"""Textual's Linux driver, reporting a lone Escape when it is due.

A lone ESC byte may be the Escape key or the start of a key's escape sequence, so
Textual's parser waits ``ESCDELAY`` for more. But its input thread looks at that wait
only when ``select`` returns, which it does every 0.1 s when no other byte comes: the
Escape key arrived up to 100 ms late whatever ``ESCDELAY`` said, and Escape closes every
view of the app. This driver's input loop wakes when the pending Escape is due. The rest
is Textual's driver, unchanged (it is imported only where Textual would use it).

Buys (``bench/results/ui_ways.json``, switch name ``driver``): leaving the focus view
80 ms median wall clock against 137 ms with Textual's loop; closing the search 81 against
124. Checked on Textual 8.2.8 (a copy of ``LinuxDriver.run_input_thread`` of that version).
"""

from __future__ import annotations

import contextlib
import os
import selectors
from codecs import getincrementaldecoder

from textual._loop import loop_last
from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver

from . import enabled

#: This override off, Textual's own code in its place (ZOEA_STOCK_TEXTUAL=1 or =driver).
STOCK = not enabled("driver")

#: How long the input loop waits for a byte when nothing is pending (Textual's value).
POLL_S = 0.1


def input_timeout(parser: XTermParser) -> float:
    """Seconds the input loop may wait: until the parser's pending Escape is due, or
    :data:`POLL_S` when it awaits nothing."""
    due = parser._timeout_time
    if due is None:
        return POLL_S
    return min(POLL_S, max(0.0, due - get_time()))


class PromptEscapeDriver(LinuxDriver):
    """:class:`LinuxDriver` whose input loop wakes when a lone Escape is due."""

    def run_input_thread(self) -> None:
        """Wait for input and dispatch events (Textual's loop, with the due timeout)."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for last, (_key, mask) in loop_last(ready):
                if mask & selectors.EVENT_READ:
                    data = decode(os.read(self.fileno, 1024 * 4), final=final and last)
                    if not data:  # a piped stdin that ended
                        break
                    for message in parser.feed(data):
                        self.process_message(message)
            for message in parser.tick():
                self.process_message(message)

        try:
            while not self.exit_event.is_set():
                process(selector.select(input_timeout(parser)))
            selector.unregister(self.fileno)
            process(selector.select(input_timeout(parser)), final=True)
        finally:
            selector.close()
            with contextlib.suppress(EOFError, ParseError):
                for _ in parser.feed(""):
                    pass


def driver_class(textual_driver: type[Driver]) -> type[Driver]:
    """The driver to run with, given the one Textual picked: :class:`PromptEscapeDriver`
    in place of Textual's own Linux driver, unless the overrides are off."""
    if (
        not STOCK
        and textual_driver.__name__ == "LinuxDriver"
        and textual_driver.__module__.startswith("textual.")
    ):
        return PromptEscapeDriver
    return textual_driver

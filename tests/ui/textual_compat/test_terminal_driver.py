"""The input loop reports a lone Escape when it is due, and every other key as before."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest
from textual import constants, events

from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.textual_compat.driver import (
    POLL_S,
    PromptEscapeDriver,
    XTermParser,  # the parser Textual's driver uses
    input_timeout,
)

POSIX = pytest.mark.skipif(os.name != "posix", reason="Textual's Linux driver is POSIX only")


def test_the_loop_waits_only_until_a_pending_escape_is_due(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.02)
    parser = XTermParser(False)
    assert input_timeout(parser) == POLL_S  # nothing pending: Textual's own poll
    assert list(parser.feed("\x1b")) == []  # Escape, or a sequence's start: wait
    assert 0 < input_timeout(parser) <= 0.02
    time.sleep(0.03)
    assert input_timeout(parser) == 0  # due: look now
    assert [e.key for e in parser.tick() if isinstance(e, events.Key)] == ["escape"]
    assert input_timeout(parser) == POLL_S


@POSIX
def test_the_driver_reads_keys_from_its_terminal_and_stops_when_told() -> None:
    read, write = os.pipe()
    driver = PromptEscapeDriver.__new__(PromptEscapeDriver)
    driver.fileno = read
    driver.exit_event = threading.Event()
    driver._debug = False
    received: list[Any] = []
    arrived = threading.Event()

    def process_message(message: Any) -> None:
        received.append(message)
        arrived.set()

    driver.process_message = process_message  # type: ignore[method-assign]
    thread = threading.Thread(target=driver.run_input_thread, daemon=True)
    thread.start()
    try:
        for data, key in ((b"\x1b", "escape"), (b"\x1b[A", "up"), (b"x", "x")):
            arrived.clear()
            os.write(write, data)
            assert arrived.wait(2), f"no key for {data!r}"
            assert [m.key for m in received if isinstance(m, events.Key)][-1] == key
    finally:
        driver.exit_event.set()
        thread.join(2)
        os.close(write)
        os.close(read)
    assert not thread.is_alive()


@POSIX
@pytest.mark.overrides
def test_the_app_uses_it_where_textual_would_use_its_linux_driver() -> None:
    app = ZoeaApp(lambda: None)  # type: ignore[arg-type,return-value]
    assert app.get_driver_class() is PromptEscapeDriver

"""Untrusted text (markup, escapes, NUL bytes, a 2 MB tool result) through the whole UI."""

from __future__ import annotations

import asyncio
from pathlib import Path

from zoea_tui.config import Config
from zoea_tui.core.types import ToolCall
from zoea_tui.storage import NewMemory, Store
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.focus import FocusScreen
from zoea_tui.ui.widgets.broadcast_log import BroadcastLog
from zoea_tui.ui.widgets.context_preview import ContextPreview
from zoea_tui.ui.widgets.conversation import ConversationLog

from .helpers import opener, settle, wait_for

EVIL = "close [/b] and [bold]open[/] \x1b[31mred\x1b[0m \x1b]0;title\x07 nul\x00byte \u202eevil"
HUGE = '{"data": "' + "x[/b]\x1b[2J" * 230_000 + '"}'  # about 2 MB


async def _seed(path: Path) -> None:
    store = await Store.open(path)
    try:
        eve = await store.create_mysis("[b]Eve[/b]", provider="autopilot")
        await store.add_memories(
            eve.id,
            [
                NewMemory("user", "direct", EVIL),
                NewMemory(
                    "assistant",
                    "llm",
                    "",
                    reasoning=EVIL,
                    tool_calls=(ToolCall("call_1", "get_map", '{"q": "[/b]\x1b[1m"}'),),
                ),
                NewMemory("tool", "tool", HUGE, tool_call_id="call_1", tool_name="get_map"),
                NewMemory("assistant", "llm", EVIL),
            ],
        )
        await store.update_mysis(eve.id, state="stopped", last_error=EVIL)
    finally:
        await store.close()


def test_hostile_text_renders_literally_without_escapes(tmp_path: Path) -> None:
    path = tmp_path / "evil.db"
    asyncio.run(_seed(path))
    assert len(HUGE) > 2_000_000

    async def run() -> None:
        app = ZoeaApp(opener(Config(), path))
        async with app.run_test(size=(160, 50)) as pilot:
            await settle(pilot)
            dashboard = app.export_screenshot()
            assert "[b]Eve[/b]" in dashboard and "\x1b" not in dashboard

            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, FocusScreen)
            log = app.screen.query_one(ConversationLog)
            entries = log.entries
            assert len(entries) == 4
            huge = next(e for e in entries if e.memory is not None and e.memory.role == "tool")
            assert huge.expandable
            log.toggle(huge)
            await pilot.pause()
            assert huge.expanded
            log.all_expanded = True
            app.screen.query_one(ContextPreview).expanded = True
            await pilot.pause()
            focus = app.export_screenshot()
            assert "\x1b" not in focus and "\x00" not in focus and "\u202e" not in focus
            assert "close [/b] and [bold]open[/]" in focus.replace("&#160;", " ")

            # Typed by the user: a broadcast that looks like markup.
            await pilot.press("escape", "b", *"[/b] [bold]now", "enter")
            log = app.screen.query_one(BroadcastLog)
            await wait_for(
                pilot,
                lambda: any("[/b] [bold]now" in line.content for line in log._lines),
                what="the broadcast",
            )
            assert "[/b] [bold]now" in app.export_screenshot().replace("&#160;", " ")

    asyncio.run(run())

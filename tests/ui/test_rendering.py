"""The pure pieces of the UI: cleaning text, rows, gauges, log entries, the preview."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from zoea_tui.core.composition import Composition, Dropped, Item, SummaryGauge
from zoea_tui.core.types import Memory, ToolCall
from zoea_tui.orchestrator.checked import CheckedRequest
from zoea_tui.orchestrator.events import MysisView
from zoea_tui.ui import formatting as fmt
from zoea_tui.ui.sanitize import clean, clip, one_line
from zoea_tui.ui.widgets.context_preview import PreviewData, preview_plain, provenance
from zoea_tui.ui.widgets.conversation import entry_parts, is_error_result
from zoea_tui.ui.widgets.mysis_pane import row_text
from zoea_tui.ui.widgets.status_bar import SwarmStatus, status_text


def view(**kw: object) -> MysisView:
    base = dict(
        id=1,
        name="Ada",
        provider="ollama-qwen",
        model="qwen3:8b",
        provider_label="ollama · qwen3:8b",
        strategy="turn-aware",
        state="running",
        account="ada",
        nudges=2,
        last_tokens=1200,
        activity="thinking",
        last_line="I will mine",
    )
    base.update(kw)
    return MysisView(**base)  # type: ignore[arg-type]


def test_clean_removes_escapes_and_controls_but_keeps_text() -> None:
    dirty = "a\x1b[31mb\x1b[0m\x1b]8;;http://x\x07c\x00d\r\ne\x9b2Jf\u202eg\th"
    assert clean(dirty) == "abcd\nefg\th"


def test_clean_keeps_markup_like_text_verbatim() -> None:
    assert clean("[/b] [bold]x[/]") == "[/b] [bold]x[/]"


def test_clip_cuts_a_huge_text_cheaply_and_says_how_much() -> None:
    piece = clip("line\n" * 500_000, 100, 3)
    assert piece.text == "line\nline\nline"
    assert piece.truncated and piece.hidden_lines > 499_000


def test_one_line_flattens_and_cuts() -> None:
    assert one_line("a\n\n b \x1b[1m c", 100) == "a b c"
    assert one_line("x" * 50, 10) == "x" * 9 + "…"


def test_row_shows_model_account_nudges_tokens_and_latest_line() -> None:
    text = row_text(view(), 120, 32_768, selected=True).plain
    for part in (
        "Ada",
        "thinking",
        "ollama · qwen3:8b",
        "@ada",
        "2/3",
        "1.2k/32.8k",
        "I will mine",
        "▸",
    ):
        assert part in text


def test_row_warns_near_the_context_window() -> None:
    calm = row_text(view(last_tokens=1000), 120, 32_768, selected=False)
    near = row_text(view(last_tokens=30_000), 120, 32_768, selected=False)
    assert "⚠" not in calm.plain and "⚠" in near.plain
    assert fmt.gauge_style(30_000, 32_768).endswith(fmt.ERROR)
    assert fmt.gauge_style(25_000, 32_768).endswith(fmt.WARNING)


def test_row_of_an_errored_mysis_shows_the_error() -> None:
    text = row_text(
        view(state="errored", last_error="HTTP 503\nretry later"), 100, 4096, selected=False
    ).plain
    assert "error: HTTP 503 retry later" in text
    assert "✖" in text


def test_row_fits_80_columns() -> None:
    for line in row_text(view(), 76, 32_768, selected=False).split("\n"):
        assert line.cell_len <= 76


def test_status_shows_network_tick_and_counts() -> None:
    status = SwarmStatus(
        llm=2,
        mcp=1,
        tick=42,
        counts={"running": 3, "errored": 1},
        total=4,
        max_myses=16,
        connected=True,
    )
    text = status_text(status, 120).plain
    for part in ("LLM", " 2 ", "MCP", "T42", "● 3", "✖ 1", "4/16"):
        assert part in text
    assert "network idle" in status_text(SwarmStatus(connected=True), 80).plain


def test_log_entry_stamps_time_and_tick_and_collapses_long_results() -> None:
    memory = Memory(
        id=7,
        mysis_id=1,
        role="tool",
        source="tool",
        content="x" * 5000,
        tool_name="get_map",
        tool_call_id="c1",
        created_at=0.0,
        game_tick=12,
    )
    collapsed = entry_parts(memory, expanded=False, names={})
    assert "T12" in collapsed.header.plain and "TOOL get_map" in collapsed.header.plain
    assert collapsed.expandable and "click or press enter" in collapsed.plain
    expanded = entry_parts(memory, expanded=True, names={})
    assert "x" * 5000 in expanded.plain


def test_log_entry_shows_tool_calls_with_arguments_and_reasoning_collapsed() -> None:
    reasoning = "step 1\n" + "detail " * 30 + "\nstep 3 at the end"
    memory = Memory(
        id=8,
        mysis_id=1,
        role="assistant",
        source="llm",
        reasoning=reasoning,
        tool_calls=(ToolCall("c1", "travel", '{"poi":"belt"}'),),
    )
    parts = entry_parts(memory, expanded=False, names={})
    assert 'travel({"poi": "belt"})' in parts.plain
    assert "reasoning (3 lines)" in parts.plain and "step 3 at the end" not in parts.plain
    assert "step 3 at the end" in entry_parts(memory, expanded=True, names={}).plain


def test_error_results_are_shown_whole() -> None:
    content = '{"error": {"code": "cooldown", "message": "' + "wait " * 400 + '"}}'
    memory = Memory(
        id=9, mysis_id=1, role="tool", source="tool", content=content, tool_name="travel"
    )
    assert is_error_result(memory)
    parts = entry_parts(memory, expanded=False, names={})
    assert content in parts.plain and "✗" in parts.header.plain


def test_swarm_broadcasts_name_their_sender() -> None:
    memory = Memory(id=3, mysis_id=1, role="user", source="broadcast", content="go", sender_id="2")
    assert "SWARM (Brin)" in entry_parts(memory, expanded=False, names={"2": "Brin"}).plain


def test_preview_lists_role_provenance_tokens_strategy_and_total() -> None:
    composition = Composition(
        strategy="loop-slice",
        messages=(
            {"role": "system", "content": "You are Ada"},
            {"role": "user", "content": "Continue."},
            {"role": "tool", "content": "[truncated]", "tool_call_id": "c1"},
        ),
        items=(
            Item("system", "system", "synthetic", 10),
            Item("user", "nudge", "synthetic", 3),
            Item("tool", "memory", "truncated", 4000, memory_id=41, reason="over budget"),
        ),
        dropped=(Dropped(12, "earlier turn"),),
        tokens=4013,
    )
    text = preview_plain(PreviewData(CheckedRequest(composition), 32_768))
    for part in (
        "loop-slice",
        "3 msg",
        "~4,013/32,768 tok",
        "valid",
        "system prompt",
        "nudge (synthetic)",
        "memory #41 · truncated",
        "4,000 tok",
        "1 left out",
        "earlier turn",
        "#12",
    ):
        assert part in text, part
    assert (
        provenance(Item("tool", "placeholder", "placeholder", 5, memory_id=3))
        == "placeholder for #3"
    )
    assert provenance(Item("user", "summary", "kept", 5, memory_id=9)) == "summary #9"


def _waiting_view(**fields: object) -> MysisView:
    base = {
        "id": 1,
        "name": "Ada",
        "provider": "autopilot",
        "model": "",
        "provider_label": "autopilot (rule-based)",
        "strategy": "turn-aware",
        "state": "running",
        "activity": "waiting",
    }
    return MysisView(**(base | fields))  # type: ignore[arg-type]


def test_a_waiting_row_shows_its_next_nudge_and_latest_answer() -> None:
    line = fmt.next_nudge(1_025.0, False, now=1_000.0).plain
    assert line == "next nudge in 25s"
    view = _waiting_view(next_nudge_at=time.time() + 600, last_answer="Sold 50 ore. Credits 900.")
    row = row_text(view, 120, 32_768, False).plain
    assert "next nudge in" in row and "Sold 50 ore. Credits 900." in row
    game = fmt.next_nudge(1_005.0, True, now=1_000.0).plain
    assert (
        game.startswith("game wait")
        and fmt.next_nudge(990.0, False, now=1_000.0).plain == "nudge due"
    )


def test_an_idle_row_says_why_it_went_idle() -> None:
    view = _waiting_view(state="idle", last_error="Failed to respond after 3 encouragements")
    assert (
        "idle: Failed to respond after 3 encouragements" in row_text(view, 120, 32_768, False).plain
    )


def test_the_focus_header_shows_the_cached_tokens_the_server_reported() -> None:
    from zoea_tui.ui.screens.focus import header_text

    view = _waiting_view(last_tokens=4_000, last_cached_tokens=3_200)
    assert "server cached 3.2k" in header_text(view, (1, 1), 32_768).plain
    assert "server cached" not in header_text(_waiting_view(), (1, 1), 32_768).plain


@pytest.mark.parametrize("width", [60, 80, 100, 120])
def test_the_focus_header_breaks_between_its_parts_never_inside_one(width: int) -> None:
    """Issue 40: at 100 columns the header wrapped as "last / request"; its parts now
    go whole to the next line."""
    from zoea_tui.ui.screens.focus import header_text

    view = _waiting_view(last_tokens=4_000, last_cached_tokens=3_200)
    lines = header_text(view, (1, 3), 32_768, width).plain.split("\n")
    assert all(len(line) <= width for line in lines)
    # The figure says which it is (RequestTokens.which): no server count came with it.
    parts = {
        "last request 4.0k/32.8k estimated · server cached 3.2k",
        "strategy ",
        "◆ MYSIS ",
        "nudges",
    }
    for part in parts:
        assert any(part in line for line in lines), (part, lines)
    assert len(header_text(view, (1, 3), 32_768).plain.split("\n")) == 1  # no width: one line


def test_turn_markers_say_what_started_each_turn() -> None:
    from zoea_tui.core.types import Turn
    from zoea_tui.ui.widgets.conversation import turn_marker

    nudge = Turn(1, 10, "nudge", 2, "You need to respond.", created_at=0, game_tick=7)
    text = turn_marker(nudge).plain
    assert "TURN" in text and "nudge, level 2" in text and "You need to respond." in text
    assert "commander message" in turn_marker(Turn(1, 3, "direct")).plain


def test_preview_shows_where_the_summary_threshold_stands() -> None:
    composition = Composition(
        strategy="summarize",
        messages=({"role": "system", "content": "You are Ada"},),
        items=(Item("system", "system", "synthetic", 10),),
        dropped=(),
        tokens=10,
        summary_gauge=SummaryGauge(12_000, 31_744, "summarize_threshold", pending=3),
    )
    text = preview_plain(PreviewData(CheckedRequest(composition), 32_768))
    assert "summary at 31,744 tok (summarize_threshold); this request ~12,000 (38%)" in text
    paused = replace(
        composition,
        summary_gauge=SummaryGauge(40_000, 31_744, "x", floor=30_000, paused="no room", pending=3),
    )
    assert "summaries paused: no room" in preview_plain(PreviewData(CheckedRequest(paused), 32_768))

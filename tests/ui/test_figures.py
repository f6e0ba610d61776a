"""One figure for one thing: a request's tokens, and the shares a view prints."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

from textual.pilot import Pilot

from zoea_tui.config import Config
from zoea_tui.core.cache import Reuse
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.events import GameTick, MessageStored, RequestComposed
from zoea_tui.storage import NewMemory
from zoea_tui.storage.story import RequestSummary
from zoea_tui.ui import formatting as fmt
from zoea_tui.ui.activity import GameFacts
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.focus import header_text
from zoea_tui.ui.screens.inspector import inspection_text, request_row
from zoea_tui.ui.widgets.context_preview import (
    ContextPreview,
    PreviewLines,
    preview_lines,
    preview_plain,
    reuse_line,
)
from zoea_tui.ui.widgets.mysis_pane import pane_text

from .helpers import seed, seeded_app, settle, wait_for
from .test_panes import view as pane_view


@asynccontextmanager
async def seeded_dashboard(
    tmp_path: Path, config: Config
) -> AsyncIterator[tuple[ZoeaApp, Pilot[None], Commander, int, PreviewLines]]:
    """The app at 200 × 60 on a seeded database, settled: the app, its pilot, its
    commander, the first Mysis's id and the dashboard's preview of its request."""
    db = tmp_path / "zoea.db"
    await seed(db)
    async with seeded_app(config, db, (200, 60)) as (pilot, app):
        commander = app.commander
        assert isinstance(commander, Commander)
        dash = app.screen.query_one("#dash-preview", PreviewLines)
        yield app, pilot, commander, commander.myses()[0].id, dash


def test_the_reuse_line_computes_its_shares_from_its_figures() -> None:
    """Issue 40: "repeats 2,559 of 2,718 tok … (100 % of it)" read as 100 % of the
    figures beside it, which are 94 %: the share of the request is printed now, the
    whole last request repeated is said in words, and no second size of the request
    stands beside the header's estimate. (The first wording, "40% of it repeats the last
    request (99% of it)", named neither share's whole.)"""
    line = reuse_line(Reuse(share=1.0, prefix_chars=9000, cached_tokens=2559, uncached_tokens=159))
    assert line == "94% repeated · holds all of the last request · 159 tok new"
    assert "100%" not in line and "2,718" not in line


def test_a_share_short_of_the_whole_never_reads_as_all_of_it() -> None:
    line = reuse_line(Reuse(share=0.998, prefix_chars=998, cached_tokens=1999, uncached_tokens=1))
    assert line.startswith("99% repeated") and "holds 99% of the last" in line
    assert "100%" not in line and "all of" not in line
    assert reuse_line(Reuse(0.0, 0, 0, 0)).startswith("0% repeated")


async def test_one_request_shows_one_figure_in_the_pane_the_list_and_the_inspector(
    commander: Commander,
) -> None:
    """Issue 40: for one autopilot request the pane said 7.8k, the request list 9.5k and
    the inspector "7 944 estimated · 9 512 reported": the autopilot counted the tool
    schemas its own way. It reports the app's estimate now, and every view shows
    ``RequestTokens.shown`` and says which figure it is."""
    first = commander.myses()[0].id
    deadline = time.monotonic() + 20
    done: list[RequestSummary] = []
    while not done:
        assert time.monotonic() < deadline, "no finished request"
        await asyncio.sleep(0.1)
        done = [r for r in await commander.story.requests(first) if r.outcome == "ok"]
    summary = done[0]
    tokens = summary.tokens
    assert tokens.reported == tokens.estimated and tokens.which == "reported"
    assert f"{fmt.compact(tokens.shown)} tok reported" in request_row(summary).plain
    seen = await commander.story.inspect(first, summary.id)
    assert seen is not None
    assert seen.record.tokens == tokens
    assert f"{tokens.estimated:,} tok estimated · {tokens.reported:,} prompt tok reported" in (
        inspection_text(seen, {}).plain
    )
    # A server that reads and writes its prompt cache (Anthropic's): both, in both views.
    assert " cached" not in request_row(summary).plain
    cached = replace(summary, cached_tokens=8_000, cache_write_tokens=1_500)
    assert "· 8.0k cached · 1.5k written" in request_row(cached).plain
    record = replace(seen.record, cached_tokens=8_000, cache_write_tokens=1_500)
    assert (
        "· 8,000 served from the server's cache · 1,500 written to its cache"
        in inspection_text(replace(seen, record=record), {}).plain
    )


async def test_the_dashboard_and_the_focus_view_show_one_request_when_a_turn_ends(
    tmp_path: Path, still_config: Config
) -> None:
    """Issue 40: at 200 columns the dashboard's request said ~1,278 tok while the focus
    view said ~1,345 for the Mysis: once a turn ended the focus view composed the next
    request and the dashboard kept the one sent before. The rule for when a sent request
    is superseded lives in the swarm model now, and both views follow it: the same
    request, the same figure, and both say it is the next one."""
    async with seeded_dashboard(tmp_path, still_config) as (app, pilot, commander, ada, dash):
        # What the runtime publishes as it sends a request, then the answer that ends the turn.
        sent = await commander.checked_preview(ada)
        await commander.bus.publish(RequestComposed.of(ada, sent))
        await wait_for(
            pilot,
            lambda: dash.data is not None and not dash.data.upcoming,
            what="the request sent",
        )
        answer = await commander.store.add_memory(
            ada, NewMemory("assistant", "llm", "Hold full: selling at Sol Station.")
        )
        await commander.bus.publish(MessageStored(mysis_id=ada, memory=answer))
        await wait_for(
            pilot, lambda: dash.data is not None and dash.data.upcoming, what="the next request"
        )
        await settle(pilot)
        assert dash.data is not None
        shown = dash.data.request.composition
        assert any(m.get("content") == answer.content for m in shown.messages)
        app.open_focus(ada)
        await settle(pilot)
        focus = app.screen.query_one(ContextPreview)
        assert focus.data is not None and focus.data.upcoming
        assert focus.data.request.composition.messages == shown.messages
        figure = f"~{shown.tokens:,}"
        assert figure in preview_plain(focus.data) and figure in preview_lines(dash.data).plain
        assert str(focus.border_subtitle) == str(dash.border_subtitle)


def test_a_request_the_server_counted_shows_its_count_in_the_pane_the_focus_and_the_list() -> None:
    """Issue 40: "the pane says 7.8k, the request list 9.5k, the inspector 7 944
    estimated · 9 512 reported". A server's count differs from the app's estimate (its
    own tokenizer and chat template): the pane's meter and the focus header showed the
    estimate while the list showed the count. All show ``RequestTokens.shown`` now, the
    header and the list saying which figure it is."""
    ada = pane_view(last_tokens=7_944, last_reported_tokens=9_512, last_cached_tokens=8_000)
    summary = RequestSummary(
        id=7, mysis_id=1, created_at=0.0, strategy="turn-aware", messages=12,
        estimated_tokens=7_944, prompt_tokens=9_512, cached_tokens=8_000,
        latency_ms=900.0, outcome="ok", error=None, turn_id=None, last_memory_id=None,
    )  # fmt: skip
    assert ada.last_request == summary.tokens
    assert "9.5k tok reported" in request_row(summary).plain
    header = header_text(ada, (1, 1), 32_768).plain
    assert "last request 9.5k/32.8k reported · server cached 8.0k" in header
    pane = pane_text(ada, GameFacts(), (), 60, 12, 32_768).plain
    assert "9.5k/32.8k" in pane and "7.9k" not in pane
    answered_not = pane_view(last_tokens=7_944)
    assert "last request 7.9k/32.8k estimated" in header_text(answered_not, (1, 1), 32_768).plain


async def test_a_sent_request_shows_one_stamp_in_both_views_however_late_it_is_opened(
    tmp_path: Path, still_config: Config
) -> None:
    """The "sent … T15" stamp of one request was the tick at which each view showed it:
    the dashboard said T15 and the focus view, opened later, T23. It is the tick the
    request was composed at, kept with it by the swarm model."""
    async with seeded_dashboard(tmp_path, still_config) as (app, pilot, commander, ada, dash):
        await commander.bus.publish(GameTick(tick=15))
        await commander.bus.publish(RequestComposed.of(ada, await commander.checked_preview(ada)))
        await wait_for(pilot, lambda: dash.data is not None and not dash.data.upcoming)
        await commander.bus.publish(GameTick(tick=23))
        await wait_for(pilot, lambda: app.swarm.tick == 23, what="the new tick")
        app.open_focus(ada)
        await settle(pilot)
        focus = app.screen.query_one(ContextPreview)
        assert focus.data == dash.data and focus.data is not None and focus.data.tick == 15

"""The live meter (issue 45): what the swarm's model calls cost, on the dashboard, in
each pane and in the focus view, read through the orchestrator; tokens only without
prices, and nothing for the autopilot."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.fakes.llm_servers import FakeOpenAIServer, Reply
from zoea_tui.config import Config, GameConfig, ProviderConfig
from zoea_tui.core.pricing import Bill, Prices, usd_text
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.events import Event, MysisChanged, TokenUsage
from zoea_tui.orchestrator.spend import SwarmSpend
from zoea_tui.providers.base import Usage
from zoea_tui.ui.activity import GameFacts
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.focus import header_text
from zoea_tui.ui.widgets.mysis_pane import MysisPane, pane_text, row_text
from zoea_tui.ui.widgets.spend_meter import (
    SpendLine,
    SpendSparks,
    bill_piece,
    spark_series,
    spend_text,
)

from .helpers import Prepare, opener, pressed_after, settle, told, wait_for
from .test_panes import view

PRICES = Prices(input=3.0, cached=0.3, cache_write=3.75, output=15.0)
#: A request of 10k prompt tokens, 8k read from the cache and 1.5k written, 500 out.
BILL = Bill.of(PRICES, 10_000, 500, 8_000, 1_500)


def test_the_swarm_line_says_spend_rate_tokens_and_cache_share_as_width_allows() -> None:
    spend = SwarmSpend(BILL + BILL, usd_per_hour=1.234, tokens_per_minute=21_000.0,
                       recent_cache_share=0.8)  # fmt: skip
    wide = spend_text(spend, 120).plain
    assert wide == (
        "◆ SPEND $0.034 · $1.23/h · 21.0k tok/min · cache 80% · 2 requests · since launch"
    )
    assert spend_text(spend, 40).plain == "◆ SPEND $0.034 · $1.23/h · 21.0k tok/min"
    free = SwarmSpend(Bill.of(Prices(), 10_000, 500), None, 1_000.0, 0.0)
    text = spend_text(free, 200).plain
    assert text.startswith("◆ SPEND 10.5k tok · 1.0k tok/min · cache 0% · 1 request")
    assert "$" not in text and "set price_in and price_out" in text
    mixed = SwarmSpend(BILL + Bill.of(Prices(), 1, 1), 0.5, 10.0, 0.5)
    assert "1 unpriced" in spend_text(mixed, 200).plain


def test_a_pane_shows_its_mysis_spend_beside_the_context_meter() -> None:
    assert bill_piece(None).plain == "" and bill_piece(Bill()).plain == ""
    assert bill_piece(BILL).plain == "$0.017"
    assert bill_piece(Bill.of(Prices(), 10_000, 500)).plain == "10.5k tok"
    priced = view(spend=BILL)
    lines = pane_text(priced, GameFacts(), (), 40, 12, 32_768).plain.splitlines()
    ctx = next(line for line in lines if line.startswith("ctx "))
    assert ctx.endswith("3.1k/32.8k · $0.017") and len(ctx) <= 40
    # A narrow pane keeps every figure whole: the spend on a line of its own.
    narrow = pane_text(priced, GameFacts(), (), 22, 12, 32_768).plain.splitlines()
    at = next(i for i, line in enumerate(narrow) if line.startswith("ctx "))
    assert narrow[at].endswith("3.1k/32.8k") and narrow[at + 1] == "spent $0.017"
    assert "└ $0.017 · " in row_text(priced, 100, 32_768, False).plain
    # The autopilot costs nothing: no piece at all, never "$0.00".
    plain = pane_text(view(), GameFacts(), (), 40, 12, 32_768).plain
    assert "$" not in plain and next(x for x in plain.splitlines() if "ctx " in x).endswith("2.8k")
    assert "spent $0.017" in header_text(priced, (1, 1), 32_768).plain


def test_the_sparklines_are_spend_and_cache_share_per_request() -> None:
    cold = Bill.of(PRICES, 10_000, 500, 0, 9_000)
    spend, share, label = spark_series([cold, BILL])
    assert spend == [cold.usd, BILL.usd] and share == [0.0, 0.8]
    assert label == "spend/request $0.017–$0.044 · cache 40% (last 2 requests)"
    tokens, _, label = spark_series([Bill.of(Prices(), 1_000, 10)])
    assert tokens == [1_010.0] and label.startswith("tokens/request 1.0k–1.0k tok")
    assert spark_series([]) == ([], [], "")


async def test_the_meter_runs_live_on_a_priced_provider(tmp_path: Path) -> None:
    server = FakeOpenAIServer()
    cached = {"prompt_tokens_details": {"cached_tokens": 800}}
    server.default = Reply("Holding position.", usage=(1_000, 50), usage_extra=cached)
    await server.start()
    base = Config(game=GameConfig(tick_seconds=0))
    providers = dict(base.providers)
    providers["claude"] = ProviderConfig(
        name="claude", type="openai", endpoint=server.url, model="m",
        price_in=3.0, price_cached=0.3, price_out=15.0,
    )  # fmt: skip
    config = replace(base, providers=providers)
    app = ZoeaApp(opener(config, tmp_path / "zoea.db"))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            line = app.screen.query_one(SpendLine)
            assert not line.display  # nothing billed yet: no meter
            commander = app.commander
            assert isinstance(commander, Commander)
            ada = await commander.create_mysis("Vega", provider="claude")
            # 200 uncached prompt tokens, 800 read from the cache, 50 answer tokens.
            usd = usd_text((200 * 3.0 + 800 * 0.3 + 50 * 15.0) / 1e6)
            # The line is laid out (given its width) only after it is shown: wait for
            # the screen to show the whole figure, not for the flag.
            await wait_for(
                pilot,
                lambda: line.display and line.text().plain.startswith(f"◆ SPEND {usd}"),
                what="the meter",
            )
            pane = app.screen.query_one(f"#mysis-{ada.id}", MysisPane)
            await wait_for(pilot, lambda: usd in pane.text().plain, what="the pane")
            app.open_focus(ada.id)
            await wait_for(pilot, lambda: app.screen.query(SpendSparks), what="the focus")
            sparks = app.screen.query_one(SpendSparks)
            await wait_for(pilot, lambda: sparks.display, what="the sparklines")
            label = sparks.query_one("#spend-label")
            assert "cache 80%" in str(label.render())
            await commander.stop_mysis(ada.id)
    finally:
        await server.aclose()


def test_the_help_says_where_prices_come_from() -> None:
    from rich.console import Console

    from zoea_tui.ui.screens.help import help_table

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(help_table([("claude", "openai · http://h/v1 · m · $3/M in, $15/M out")]))
    text = " ".join(console.export_text().split())
    assert "claude openai · http://h/v1 · m · $3/M in, $15/M out" in text
    assert (
        "costs: a provider's price_in, price_cached, price_cache_write and price_out (USD per "
        "million tokens) in its [providers.NAME] table; without them, tokens only" in text
    )


def test_the_arena_screen_says_what_a_priced_run_cost() -> None:
    from zoea_tui.ui.screens.arena import series_label

    line = series_label([1_000, 3_000], [0.5, 0.9], reported=True, cost_usd=0.0123)
    assert line == (
        "tokens/request 1,000–3,000 · cached by the server 70% (mean over 2 requests) · cost $0.012"
    )
    free = series_label([1_000], [0.0], reported=False, cost_usd=None)
    assert "$" not in free and free.endswith("(mean over 1 requests)")


# -- pictures -------------------------------------------------------------------------


def _priced(config: Config) -> Config:
    providers = dict(config.providers)
    providers["claude"] = ProviderConfig(
        name="claude", type="openai", endpoint="http://127.0.0.1:9/v1", model="claude-sonnet",
        price_in=3.0, price_cached=0.3, price_cache_write=3.75, price_out=15.0,
    )  # fmt: skip
    return replace(config, providers=providers)


async def _billed(pilot: Pilot) -> None:
    """The seeded swarm as the engine tells it after Ada's and Brin's models answered:
    Ada's first request wrote the shared prefix to the cache, her next ones read it;
    Brin's server has no prices (tokens only)."""
    await settle(pilot)
    app = pilot.app
    assert isinstance(app, ZoeaApp) and app.commander is not None
    ada, brin = (app.swarm.views[i] for i in app.swarm.ids[:2])
    meter = app.commander.services.spend
    events: list[Event] = []
    for mysis, provider, usages in (
        (ada, "claude", [Usage(9_000, 400, 0, 8_000), Usage(9_600, 300, 8_000, 1_200),
                         Usage(10_100, 250, 9_200, 500), Usage(10_400, 350, 9_700, 300)]),
        (brin, "free", [Usage(6_000, 200, 4_800)]),
    ):  # fmt: skip
        for usage in usages:
            bill = meter.record(mysis.id, provider, usage)
            events.append(
                TokenUsage(mysis_id=mysis.id, estimated=usage.prompt_tokens or 0,
                           prompt_tokens=usage.prompt_tokens,
                           completion_tokens=usage.completion_tokens, latency_s=1.0,
                           cached_tokens=usage.cached_tokens,
                           cache_write_tokens=usage.cache_write_tokens, bill=bill)
            )  # fmt: skip
        events.append(MysisChanged(mysis=replace(mysis, spend=meter.of(mysis.id))))
    await told(pilot, events)


_billed_focus = pressed_after(_billed, "enter")


@pytest.mark.parametrize(
    ("view", "size"),
    [
        pytest.param(_billed, (80, 24), id="dashboard-80x24"),
        pytest.param(_billed, (200, 60), id="dashboard-200x60"),
        pytest.param(_billed_focus, (120, 40), id="focus-120x40"),
    ],
)
def test_the_meter_in_pictures(
    snap_compare,
    seeded_db: Path,
    still_config: Config,
    utc_clock: None,
    view: Prepare,
    size: tuple[int, int],
) -> None:
    """The swarm's spend, rate and cache share above the status bar; Ada's spend in her
    pane and her focus header, her requests' spend and cache share as sparklines; Brin's
    tokens only."""
    app = ZoeaApp(opener(_priced(still_config), seeded_db))
    assert snap_compare(app, terminal_size=size, run_before=view)

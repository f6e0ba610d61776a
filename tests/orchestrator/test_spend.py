"""The live meter (``orchestrator/spend.py``): every answered model call billed at its
provider's prices, its cache reads and writes in the request log, the autopilot free."""

from __future__ import annotations

from dataclasses import replace

import pytest

from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core.pricing import Bill, Prices
from zoea_tui.orchestrator.clock import ManualClock
from zoea_tui.orchestrator.events import TokenUsage
from zoea_tui.orchestrator.spend import MIN_RATE_SPAN_S, RATE_WINDOW_S, SpendMeter
from zoea_tui.providers.base import ChatResponse, Usage
from zoea_tui.providers.registry import build_provider
from zoea_tui.storage import MysisRecord

from .conftest import ScriptedModel, until

SONNET = {"price_in": 3.0, "price_cached": 0.3, "price_cache_write": 3.75, "price_out": 15.0}


@pytest.fixture
def config() -> Config:
    base = Config()
    providers = dict(base.providers)
    providers["claude"] = ProviderConfig(
        name="claude", type="openai", endpoint="http://127.0.0.1:9", model="m", **SONNET
    )
    providers["free"] = ProviderConfig(name="free", type="openai", endpoint="http://x", model="m")
    return replace(base, providers=providers, game=replace(base.game, tick_seconds=0))


async def test_a_call_is_billed_and_its_cache_reads_and_writes_are_logged(open_commander) -> None:
    usage = Usage(prompt_tokens=10_000, completion_tokens=500, cached_tokens=8_000,
                  cache_write_tokens=1_500)  # fmt: skip
    models = {
        "Ada": ScriptedModel(ChatResponse("Done.", usage=usage)),
        "Bo": ScriptedModel(ChatResponse("Done.", usage=Usage(2_000, 100, 1_000))),
    }
    autopilot = Config().providers["autopilot"]

    def factory(record: MysisRecord) -> object:
        """The scripted models, and the real autopilot for "Auto"."""
        return models.get(record.name) or build_provider(autopilot, env={})

    commander = await open_commander(factory=factory, starter_swarm=False)
    sub = commander.bus.subscribe()
    ada = await commander.create_mysis("Ada", provider="claude")
    bo = await commander.create_mysis("Bo", provider="free")
    pilot = await commander.create_mysis("Auto", provider="autopilot")

    # A call is billed once its outcome is in the log.
    await until(lambda: commander.spend().total.requests >= 2)
    # The autopilot answered too (its usage an estimate), and was not billed.
    await until(lambda: commander.mysis(pilot.id).last_reported_tokens is not None)
    logged = next(r for r in await commander.store.list_requests(ada.id) if r.outcome == "ok")
    assert (logged.prompt_tokens, logged.cached_tokens, logged.cache_write_tokens) == (
        10_000,
        8_000,
        1_500,
    )
    expected = (500 * 3.0 + 8_000 * 0.3 + 1_500 * 3.75 + 500 * 15.0) / 1e6
    ada_bill = commander.mysis(ada.id).spend
    assert ada_bill is not None and ada_bill.usd == pytest.approx(expected)
    bo_bill = commander.mysis(bo.id).spend
    assert bo_bill is not None and bo_bill.usd is None and bo_bill.prompt == 2_000
    # The autopilot flies no model: it costs nothing and is not counted.
    assert commander.mysis(pilot.id).spend is None
    total = commander.spend().total
    assert (total.requests, total.unpriced) == (2, 1)
    assert total.usd == pytest.approx(expected)
    assert [b.usd for b in commander.spend_of(ada.id)] == [pytest.approx(expected)]
    seen = []
    while (event := sub.get_nowait()) is not None:
        if isinstance(event, TokenUsage) and event.mysis_id == ada.id:
            seen.append(event)
    assert seen and seen[0].cache_write_tokens == 1_500 and seen[0].bill == ada_bill
    sub.close()
    for mysis_id in (bo.id, ada.id, pilot.id):
        await commander.stop_mysis(mysis_id)
    before = commander.spend().total
    await commander.delete_mysis(ada.id)
    # Its own figures go with it; what the swarm spent stays spent.
    assert commander.spend_of(ada.id) == () and commander.spend().total == before


def test_the_rate_is_over_the_recent_requests_never_a_first_one_alone() -> None:
    clock = ManualClock()
    meter = SpendMeter(clock, lambda name: Prices(1.0, output=1.0) if name == "p" else Prices())
    assert not meter.swarm().counted and meter.swarm().usd_per_hour is None
    meter.record(1, "p", Usage(1_000_000, 0, 500_000))  # $1
    first = meter.swarm()
    assert first.counted and first.usd_per_hour == pytest.approx(3600 / MIN_RATE_SPAN_S)
    assert first.recent_cache_share == 0.5
    clock.advance(RATE_WINDOW_S / 2)
    meter.record(2, "q", Usage(1_000, 0))  # unpriced: tokens only
    half = meter.swarm()
    assert half.usd_per_hour == pytest.approx(3600 / (RATE_WINDOW_S / 2))
    assert half.tokens_per_minute == pytest.approx(1_001_000 * 60 / (RATE_WINDOW_S / 2))
    clock.advance(RATE_WINDOW_S + 1)  # both requests left the window
    late = meter.swarm()
    assert late.usd_per_hour == 0.0 and late.tokens_per_minute == 0.0
    assert late.total.requests == 2 and late.total.usd == pytest.approx(1.0)
    assert meter.of(1) == Bill.of(Prices(1.0, output=1.0), 1_000_000, 0, 500_000)

"""The one pricing of tokens (``core/pricing.py``): every token at its price, never a
guessed one."""

from __future__ import annotations

import pytest

from zoea_tui.core.pricing import Bill, Prices, uncached, usd_text

#: Claude Sonnet's published prices (USD per million tokens).
SONNET = Prices(input=3.0, cached=0.3, cache_write=3.75, output=15.0)


def test_each_kind_of_token_is_billed_at_its_price() -> None:
    usd = SONNET.cost(uncached=1_000_000, cache_read=1_000_000, cache_write=1_000_000, output=10**6)
    assert usd == pytest.approx(3.0 + 0.3 + 3.75 + 15.0)


def test_an_unset_cache_price_is_the_input_price() -> None:
    plain = Prices(input=2.0, output=8.0)
    assert plain.cost(uncached=0, cache_read=500_000, cache_write=500_000) == pytest.approx(2.0)


@pytest.mark.parametrize(
    "prices", [Prices(), Prices(input=1.0), Prices(output=1.0), Prices(cached=0.1)]
)
def test_without_both_prices_nothing_is_priced(prices: Prices) -> None:
    assert not prices.known
    assert prices.cost(uncached=1000, output=10) is None
    assert Bill.of(prices, 1000, 10).usd is None


def test_a_bill_splits_the_prompt_into_uncached_reads_and_writes() -> None:
    assert uncached(1000, 700, 200) == 100
    assert uncached(100, None, None) == 100
    assert uncached(100, 90, 90) == 0  # a server's inconsistent counts never go negative
    bill = Bill.of(SONNET, prompt=10_000, output=500, cache_read=8_000, cache_write=1_500)
    expected = (500 * 3.0 + 8_000 * 0.3 + 1_500 * 3.75 + 500 * 15.0) / 1e6
    assert bill.usd == pytest.approx(expected)
    assert (bill.requests, bill.tokens, bill.cache_share) == (1, 10_500, 0.8)


def test_bills_add_up_and_count_what_had_no_price() -> None:
    priced = Bill.of(SONNET, 1_000, 100)
    unpriced = Bill.of(Prices(), 2_000, 50, 1_000)
    both = priced + unpriced + Bill()
    assert both.usd == priced.usd and both.unpriced == 1
    assert (both.requests, both.prompt, both.cache_read, both.output) == (2, 3_000, 1_000, 150)
    assert (Bill() + unpriced).usd is None
    assert Bill().cache_share == 0.0


@pytest.mark.parametrize(
    ("usd", "text"),
    [(0, "$0.00"), (12.345, "$12.35"), (1234.5, "$1,234.50"), (0.1234, "$0.123"),
     (0.00123, "$0.0012"), (0.00001, "<$0.0001")],
)  # fmt: skip
def test_a_cost_reads_as_dollars(usd: float, text: str) -> None:
    assert usd_text(usd) == text

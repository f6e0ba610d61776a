"""The rule-based summary (seed 003's seven sections, filled by extraction): what it keeps,
what it leaves out, and how a chain of summaries carries everything along."""

from __future__ import annotations

import json

from tests.helpers import Log, history_of
from zoea_tui.core import prompts
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.strategies.summarize import summary_content
from zoea_tui.core.summarizer import EXTRACTIVE_LABEL, extractive_summary, parse_summary

SETTINGS = ComposeSettings(summarize_threshold=4_000)
#: About 700 tokens of a mining result: six of them pass the threshold.
PAD = " ".join(f"ore{i}" for i in range(350))
ORDER = "Mine iron at the Vega belt and never sell below 12 credits."


def status(credits: int, poi: str, *, docked: bool, cargo: int = 0) -> str:
    return json.dumps(
        {
            "player": {
                "username": "Ore",
                "empire": "solarian",
                "credits": credits,
                "current_system": "sol",
                "current_poi": poi,
                "docked_at_base": "sol_base" if docked else None,
            },
            "ship": {
                "fuel": 80,
                "max_fuel": 100,
                "hull": 95,
                "max_hull": 100,
                "cargo_used": cargo,
                "cargo_capacity": 50,
                "cargo": [{"item_id": "iron_ore", "quantity": cargo}] if cargo else [],
            },
        }
    )


def mining(log: Log, times: int) -> None:
    for n in range(times):
        log.loop(
            f"m{len(log.memories)}_{n}",
            "mine",
            json.dumps({"kind": "yield", "resource_id": "iron_ore", "quantity": 5, "pad": PAD}),
        )


def summarise(log: Log) -> str:
    """Compose under ``summarize``, write the extractive summary as the store would, and
    store it; returns the stored text."""
    composition = compose(
        history_of(log.memories, SETTINGS, strategy="summarize"), "summarize", SETTINGS
    )
    request = composition.summary_request
    assert request is not None, "the history is past the threshold"
    text = extractive_summary(list(request.messages), request.last_request)
    content = summary_content(text, request.last_request)
    log.add("user", "summary", content)
    return content


def first_segment() -> Log:
    log = Log()
    log.direct(ORDER)
    log.loop("r", "register", json.dumps({"username": "Ore", "empire": "solarian"}))
    log.loop("s", "get_status", status(150, "sol_central", docked=True))
    log.say("Understood.")
    log.say("Heading out to the Vega belt to mine iron.")
    log.loop(
        "t",
        "travel",
        json.dumps({"action": "arrived", "poi": "Vega Belt", "poi_id": "vega_belt"}),
        json.dumps({"target_poi": "vega_belt"}),
    )
    log.loop(
        "l", "captains_log_add", '{"index": 0}', json.dumps({"entry": "Vega belt is rich in iron."})
    )
    mining(log, 6)
    log.loop("f", "sell", json.dumps({"error": {"code": "no_base", "message": "No market here."}}))
    return log


def test_the_summary_keeps_orders_facts_and_decisions_not_the_scaffolding() -> None:
    log = first_segment()
    text = summarise(log)
    body = text.split("\n\n2. ")[0]
    assert ORDER in body, "the commander's order is the goal"
    assert prompts.SUMMARY_PROMPT.splitlines()[0] not in body
    assert prompts.SUMMARY_HEADER.strip() not in text[len(prompts.SUMMARY_HEADER) :]
    assert "Understood." not in text
    assert "Decision: Heading out to the Vega belt to mine iron." in text
    for fact in ("Account: Ore", "Empire: solarian", "System: sol", "Position: vega_belt"):
        assert fact in text, fact
    assert "Credits: 150" in text and "Fuel: 80/100" in text
    assert "Cargo: 0/50 (empty) (changed since by mining)" in text, "a stale fact says so"
    assert "captain's log: Vega belt is rich in iron." in text
    assert "mine() → mined iron_ore x5 (x6)" in text, "repeated actions are counted"
    assert "sell: [no_base] No market here." in text, "an unresolved error"
    assert "mine x6" in text and "Progress: mined 30 ore" in text
    assert text.endswith(prompts.LAST_REQUEST_PREFIX + ORDER)


def test_a_later_success_resolves_an_earlier_error() -> None:
    log = first_segment()
    log.loop(
        "g", "sell", json.dumps({"quantity_sold": 30, "total_earned": 420, "item_id": "iron_ore"})
    )
    text = summarise(log)
    assert "[no_base]" not in text.split("6. Unresolved")[1]
    assert "Progress: mined 30 ore; sold 30 units for 420 cr" in text


def test_a_chain_of_three_summaries_loses_nothing_the_first_held() -> None:
    log = first_segment()
    first = summarise(log)
    # Second stretch: a new order, a sale at the station, new facts.
    log.broadcast("Regroup at Sol Central and sell everything.")
    log.loop("s2", "get_status", status(150, "sol_central", docked=True, cargo=30))
    log.loop(
        "v", "sell", json.dumps({"quantity_sold": 30, "total_earned": 420, "item_id": "iron_ore"})
    )
    log.say("Sold the iron; going back to Vega.")
    mining(log, 6)
    second = summarise(log)
    # Third stretch: more mining and an error.
    log.say("Back at the belt.")
    mining(log, 6)
    log.loop("e", "jump", json.dumps({"error": {"code": "no_fuel", "message": "Not enough fuel."}}))
    third = summarise(log)

    one, two, three = (parse_summary(t) for t in (first, second, third))
    assert three.summaries == 3 and two.summaries == 2 and one.summaries == 1
    for order in one.orders + two.orders:
        assert order in three.orders, order
    assert three.orders[0] == ORDER, "the mission is kept first"
    assert "Regroup at Sol Central and sell everything." in three.orders
    assert three.facts["Account"] == "Ore" and three.facts["Empire"] == "solarian"
    assert three.facts["Credits"].startswith("150")
    assert three.logs == ["Vega belt is rich in iron."], "the log entry of the first stretch"
    assert three.calls["mine"] == 18 and three.calls["register"] == 1
    assert three.mined == 90 and three.sold_units == 30 and three.earned == 420
    assert "Heading out to the Vega belt to mine iron." in three.decisions
    assert "Sold the iron; going back to Vega." in three.decisions
    assert [e[0] for e in one.errors] == ["sell"]
    assert [e[0] for e in three.errors] == ["jump"], "the sale resolved the first error"
    assert three.messages > two.messages > one.messages
    # Each summary is one message in the next one's history, never nested text.
    assert third.count(EXTRACTIVE_LABEL) == 1 and third.count(prompts.SUMMARY_HEADER) == 1


def test_an_earlier_summary_written_by_a_model_is_carried_as_text() -> None:
    log = Log()
    log.direct(ORDER)
    log.add(
        "user",
        "summary",
        summary_content("The pilot found a rich iron belt at Vega; prices 14 cr.", ORDER),
    )
    mining(log, 8)
    text = summarise(log)
    assert "Earlier summary (written by a model): The pilot found a rich iron belt" in text
    assert ORDER in parse_summary(text).orders


def test_a_bounded_summary_shortens_its_lists_not_its_sections() -> None:
    log = first_segment()
    for n in range(12):
        log.direct(f"Order number {n}: keep mining at Vega, batch {n}.")
        mining(log, 2)
    composition = compose(
        history_of(log.memories, SETTINGS, strategy="summarize"), "summarize", SETTINGS
    )
    request = composition.summary_request
    assert request is not None
    whole = extractive_summary(list(request.messages), request.last_request)
    short = extractive_summary(list(request.messages), request.last_request, max_tokens=250)
    assert len(short) < len(whole)
    for n in range(1, 8):
        assert f"{n}. " in short
    assert ORDER in short, "the mission survives the cut"
    assert "Order number 11" in short, "and the newest order"

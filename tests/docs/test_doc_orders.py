"""The orders the docs say the autopilot obeys are the ones ``orders.py`` knows.

The README and ``docs/CONFIGURATION.md`` list them in a sentence ("obeys "mine", ...");
each quoted word must be an order the autopilot parses, and every order kind but the
arena's scenario orders (``scenario_play.SCENARIO_ORDERS``) must be listed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zoea_tui.providers.autopilot.orders import LIFETIMES, parse_order
from zoea_tui.providers.autopilot.scenario_play import SCENARIO_ORDERS

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "README.md", ROOT / "docs" / "CONFIGURATION.md")


def order_errors(markdown: str) -> list[str]:
    """What the doc's "obeys ..." sentence gets wrong: a word no order parses from, or
    an order kind it leaves out."""
    found = re.search(r"obeys\s((?:\"[^\"]+\"(?:,\s*|\s+and\s+))+\"[^\"]+\")", markdown)
    if found is None:
        return ['no "obeys ..." sentence']
    errors: list[str] = []
    kinds: set[str] = set()
    for word in re.findall(r"\"([^\"]+)\"", found.group(1)):
        order = parse_order(word.replace(" X", " the station"))
        if order is None:
            errors.append(f"not an order: {word}")
        else:
            kinds.add(order.kind)
    errors += [f"left out: {k}" for k in LIFETIMES if k not in SCENARIO_ORDERS and k not in kinds]
    return errors


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_the_docs_list_every_order_the_autopilot_obeys(doc: Path) -> None:
    assert order_errors(doc.read_text(encoding="utf-8")) == []


def test_the_order_check_names_an_order_left_out_and_a_made_up_one() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert order_errors(text.replace('"refuel", ', "")) == ["left out: refuel"]
    assert order_errors(text.replace('"refuel"', '"dance"')) == [
        "not an order: dance",
        "left out: refuel",
    ]

"""The checked request: the engine's pre-send checks made in one place."""

from __future__ import annotations

from typing import Any

from zoea_tui.core.cache import reuse
from zoea_tui.core.composition import Composition
from zoea_tui.core.validator import validate
from zoea_tui.orchestrator.checked import check_request
from zoea_tui.orchestrator.events import RequestComposed


def _composition(*messages: dict[str, Any]) -> Composition:
    return Composition(
        strategy="turn-aware", messages=tuple(messages), items=(), dropped=(), tokens=10
    )


SYSTEM = {"role": "system", "content": "You are a Mysis."}
ORDER = {"role": "user", "content": "Mine iron."}


async def test_a_first_request_is_validated_and_has_no_reuse() -> None:
    checked = await check_request(_composition(SYSTEM, ORDER), ())
    assert checked.valid and checked.violations == () and checked.reuse is None


async def test_a_later_request_is_measured_against_the_last_one_sent() -> None:
    composition = _composition(SYSTEM, ORDER, {"role": "assistant", "content": "Mining."})
    last_sent = (SYSTEM, ORDER)
    checked = await check_request(composition, last_sent)
    assert checked.reuse == reuse(last_sent, composition.messages)
    assert checked.reuse is not None and 0 < checked.reuse.share <= 1


async def test_a_malformed_request_carries_the_validators_violations() -> None:
    composition = _composition(ORDER, SYSTEM)  # the system prompt must come first
    checked = await check_request(composition, ())
    assert not checked.valid
    assert checked.violations == tuple(validate(composition.messages)) != ()


async def test_the_event_of_a_checked_request_gives_the_same_request_back() -> None:
    checked = await check_request(_composition(SYSTEM, ORDER), (SYSTEM,))
    event = RequestComposed.of(7, checked, tools=3)
    assert (event.mysis_id, event.tools, event.valid) == (7, 3, True)
    assert event.request == checked

"""The one error adapter: every shape a game error takes becomes one typed error."""

from __future__ import annotations

import pytest
from mcp import types

from zoea_tui.game.adapter import adapt_result, error_from_rpc, error_from_text
from zoea_tui.game.errors import GameToolError


def _text(text: str) -> list[types.TextContent]:
    return [types.TextContent(text=text)]


def test_success_keeps_text_and_object() -> None:
    outcome = adapt_result(_text('{"credits": 5, "current_tick": 9}'), is_error=False)
    assert outcome.data == {"credits": 5, "current_tick": 9}
    assert outcome.tick == 9


def test_success_that_is_not_json_is_kept_as_text() -> None:
    outcome = adapt_result(_text("Welcome, pilot."), is_error=False)
    assert outcome.text == "Welcome, pilot." and outcome.data is None and outcome.tick is None


@pytest.mark.parametrize(
    ("text", "is_error", "code", "message"),
    [
        (
            '{"error": {"code": "action_pending", "message": "wait", "wait_ticks": 2}}',
            True,
            "action_pending",
            "wait",
        ),
        (
            '{"error": {"code": "not_authenticated", "message": "You must login first."}}',
            False,
            "not_authenticated",
            "You must login first.",
        ),
        (
            '{"error": "rate_limited", "message": "slow down", "retry_after": 3}',
            False,
            "rate_limited",
            "slow down",
        ),
        ("Error executing tool captains_log_add: empty_entry", True, "empty_entry", "empty entry"),
        (
            "session_invalid: Session not found or expired.",
            True,
            "session_invalid",
            "Session not found or expired.",
        ),
        ("Error: cargo_full - Your hold is full", True, "cargo_full", "Your hold is full"),
        ("Something broke", True, "error", "Something broke"),
    ],
)
def test_every_error_shape_becomes_a_typed_error(text, is_error, code, message) -> None:
    with pytest.raises(GameToolError) as caught:
        adapt_result(_text(text), is_error=is_error)
    assert caught.value.code == code
    assert caught.value.message == message


def test_wait_hints_from_details_and_from_text() -> None:
    assert GameToolError("rate_limited", "x", {"retry_after": 3}).wait_seconds == 3.0
    assert GameToolError("action_pending", "x", {"wait_seconds": 0.5}).wait_seconds == 0.5
    assert GameToolError("rate_limited", "Try again in 12 seconds").wait_seconds == 12.0
    assert GameToolError("cargo_full", "full").wait_seconds is None
    assert GameToolError("rate_limited", "x").is_timing
    assert GameToolError("session_invalid", "x").is_session_lost


def test_json_rpc_errors_carrying_a_game_error() -> None:
    assert error_from_rpc(0, "empty_entry").code == "empty_entry"
    assert (
        error_from_rpc(-32000, "x", {"code": "in_transit", "message": "flying"}).code
        == "in_transit"
    )
    generic = error_from_rpc(-32603, "Internal error occurred")
    assert generic.code == "rpc_error" and "-32603" in generic.message


def test_payload_is_what_a_model_is_shown() -> None:
    error = error_from_text('{"error": {"code": "no_cargo_space", "message": "full", "n": 1}}')
    assert error.to_payload() == {"error": {"code": "no_cargo_space", "message": "full", "n": 1}}

"""Game errors of the embedded world, with the real server's codes and texts.

Texts marked *verbatim* are the ones the real SpaceMolt server answers (see
docs/ARCHITECTURE.md, 'The embedded world'); the others follow the same style:
what happened, what was expected, and what to do.
"""

from __future__ import annotations

import json
from typing import Any


class GameError(Exception):
    """A game-level refusal: a stable `code`, a human `message`, optional `details`.

    `details` holds extra machine-readable fields (for example `wait_ticks` or
    `arrival_tick`); `to_dict()` merges them into the error object the real server sends.
    """

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.details: dict[str, Any] = details

    def to_dict(self) -> dict[str, Any]:
        """The error object: `{"code", "message", **details}`."""
        return {"code": self.code, "message": self.message, **self.details}

    def __repr__(self) -> str:
        return f"GameError({self.code!r}, {self.message!r})"


def unknown_command(name: str) -> GameError:
    """*Verbatim*: a tool name the world does not know."""
    return GameError(
        "unknown_command",
        f"Unknown command: {name}. Use the 'help' command to see available commands.",
    )


def invalid_json() -> GameError:
    """*Verbatim*: arguments that are not a JSON object."""
    return GameError("invalid_json", "Invalid JSON in request body")


def unknown_parameters(unknown: list[str], required: str, example: str) -> GameError:
    """*Verbatim*: a required parameter replaced by parameters the tool does not take."""
    listed = " ".join(sorted(unknown))
    sample = json.dumps({required: example})
    return GameError(
        "invalid_payload",
        f"Unknown parameter(s): [{listed}]. Requires '{required}'. Example: {sample}",
    )


def missing_parameter(required: str, example: str) -> GameError:
    """A required parameter left out altogether."""
    sample = json.dumps({required: example})
    return GameError(
        "invalid_payload",
        f"Missing parameter '{required}'. Requires '{required}'. Example: {sample}",
    )


def invalid_quantity() -> GameError:
    """*Verbatim*: a missing, zero or negative quantity."""
    return GameError("invalid_payload", "invalid_payload: Quantity must be greater than 0.")


def invalid_payload(text: str) -> GameError:
    """A malformed argument, in the real server's `invalid_payload: ...` style."""
    return GameError("invalid_payload", f"invalid_payload: {text}")


def not_authenticated() -> GameError:
    """A call that needs a login, made before any login on this session."""
    return GameError(
        "not_authenticated",
        "You must login first. Call login(username, password), "
        "or register(username, empire) to create an account.",
    )


def session_invalid() -> GameError:
    """*Verbatim*: the login behind this session ended (replaced, logged out or expired)."""
    return GameError("session_invalid", "Unauthorized — session lost")


def action_still_waiting(tool: str, ready_tick: int, wait_ticks: int) -> GameError:
    """A second action sent while the pilot's first is still waiting for its tick."""
    return GameError(
        "action_pending",
        f"Your {tool} is still waiting for its tick; one action per tick. It resolves at "
        f"tick {ready_tick} ({wait_ticks} tick(s) from now): send the next action once it "
        "has been answered.",
        wait_ticks=wait_ticks,
        ready_tick=ready_tick,
    )


def auth_failed() -> GameError:
    """*Verbatim*: wrong username or password."""
    return GameError(
        "auth_failed", "Invalid username or password. Passwords are random hex strings."
    )


def invalid_username() -> GameError:
    """*Verbatim*: a username outside 3-24 characters."""
    return GameError("invalid_username", "Username must be 3-24 characters")


def username_taken() -> GameError:
    """*Verbatim*: a username someone already registered."""
    return GameError("username_taken", "Username already taken")


def invalid_empire(choices: list[tuple[str, str]]) -> GameError:
    """*Verbatim*: an empire id that is not one of the five (ids are lowercase)."""
    lines = "".join(f"\n  - {empire_id}: {blurb}" for empire_id, blurb in choices)
    example = (
        '{"type": "register", "payload": {"username": "myname", '
        '"empire": "solarian", "registration_code": "your_code"}}'
    )
    return GameError("invalid_empire", f"Invalid empire. Choose one of:{lines}\nExample: {example}")


def not_docked_here() -> GameError:
    """*Verbatim*: an action that needs the player docked at a base."""
    return GameError(
        "not_docked",
        "You must be docked at a base to perform this action. Use 'dock' at a POI with a "
        "base, or use 'get_poi' to check if your current location has a base.",
    )


def not_docked() -> GameError:
    """*Verbatim*: `undock` while not docked."""
    return GameError("not_docked", "not_docked: Not docked")


def already_docked() -> GameError:
    """*Verbatim*: `dock` while docked."""
    return GameError("already_docked", "Already docked")


def invalid_poi(target: str) -> GameError:
    """*Verbatim*: a travel destination that does not exist."""
    return GameError("invalid_poi", f"Unknown destination: {target}")


def cargo_full() -> GameError:
    """*Verbatim*: mining with no free cargo space."""
    return GameError("cargo_full", "Cargo hold is full")


def no_resources() -> GameError:
    """*Verbatim*: mining where there is nothing to mine."""
    return GameError("no_resources", "Nothing to mine here")


def empty_entry() -> GameError:
    """*Verbatim*: a blank captain's log entry."""
    return GameError(
        "empty_entry",
        "Log entry cannot be empty. Use the 'entry' parameter to provide your log text.",
    )


def invalid_item(name: str) -> GameError:
    """*Verbatim*: an item id or name the world does not know."""
    return GameError(
        "invalid_item",
        f"invalid_item: Unknown item '{name}'. Use exact item ID (e.g. 'iron_ore') "
        "or full name (e.g. 'Iron Ore').",
    )


def item_not_available(item_name: str, item_id: str) -> GameError:
    """*Verbatim* up to the real text's cut, then a hint that fits the embedded world."""
    return GameError(
        "item_not_available",
        f"item_not_available: No one is selling {item_name} at this station. To place a "
        f'standing buy order, use: {{"type": "create_buy_order", "payload": {{"item_id": '
        f'"{item_id}", "quantity": 1, "price_each": <your_price>}}}}. Or use view_market to '
        "see what this station sells, or analyze_market to find a station that sells it.",
    )


def insufficient_credits(need: int, have: int, purpose: str) -> GameError:
    """In the real server's style: `Need N credits to ... You have M.`"""
    return GameError(
        "insufficient_credits",
        f"insufficient_credits: Need {need} credits to {purpose}. You have {have}.",
    )


def no_fuel_cells() -> GameError:
    """*Verbatim*: refuelling from cargo without fuel cells."""
    return GameError(
        "no_fuel_cells",
        "no_fuel_cells: No fuel cells found in cargo. Buy fuel cells from a market or craft them.",
    )


def invalid_query() -> GameError:
    """*Verbatim*: `search_systems` without a query."""
    return GameError(
        "invalid_query",
        "Search query is required. Provide a partial system name to search for.",
    )

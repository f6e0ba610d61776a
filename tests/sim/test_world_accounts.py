"""Accounts and sessions: register, login, logout, and which session a call belongs to."""

import re

import pytest

from zoea_tui.sim import GameError, World


def _error(world: World, key: str | None, tool: str, args: dict | None = None) -> GameError:
    with pytest.raises(GameError) as caught:
        world.call(key, tool, args or {})
    return caught.value


def test_register_returns_a_64_hex_password_and_logs_in(world: World) -> None:
    result = world.call(
        "k", "register", {"username": "Ada", "empire": "solarian", "registration_code": "x"}
    )
    assert re.fullmatch(r"[0-9a-f]{64}", result["password"])
    assert re.fullmatch(r"[0-9a-f]{32}", result["session_id"])
    assert result["username"] == "Ada" and result["empire"] == "solarian"
    assert result["player"]["id"] == result["player_id"]
    assert {"player", "ship", "system", "poi"} <= set(result)
    assert world.call("k", "get_status", {})["player"]["username"] == "Ada"


def test_new_pilot_starts_docked_at_home_with_the_empire_credits(world: World) -> None:
    nebula = world.call("n", "register", {"username": "Neb", "empire": "nebula"})
    assert nebula["player"]["current_system"] == "haven"
    assert nebula["player"]["docked_at_base"] is not None
    assert nebula["player"]["credits"] == 250
    crimson = world.call("c", "register", {"username": "Red", "empire": "crimson"})
    assert crimson["player"]["current_poi"] == "war_citadel"
    assert crimson["player"]["credits"] == 100


def test_starting_credits_can_be_overridden() -> None:
    world = World(seed=1, starting_credits=1000)
    result = world.call("k", "register", {"username": "Ada", "empire": "voidborn"})
    assert result["player"]["credits"] == 1000


def test_starter_ship_matches_the_reference(world: World) -> None:
    ship = world.call("k", "register", {"username": "Ada", "empire": "solarian"})["ship"]
    assert (ship["hull"], ship["shield"], ship["armor"], ship["speed"]) == (100, 50, 10, 3)
    assert (ship["fuel"], ship["max_fuel"], ship["cargo_capacity"]) == (100, 100, 50)
    assert ship["modules"] == ["mining_laser_1"]


def test_register_without_arguments_gets_invalid_username(world: World) -> None:
    assert str(_error(world, "k", "register")) == (
        "[invalid_username] Username must be 3-24 characters"
    )


@pytest.mark.parametrize("name", ["ab", "x" * 25, "   "])
def test_usernames_outside_3_to_24_characters_are_refused(world: World, name: str) -> None:
    error = _error(world, "k", "register", {"username": name, "empire": "solarian"})
    assert error.code == "invalid_username"


def test_capitalised_empire_gets_the_real_invalid_empire_text(world: World) -> None:
    error = _error(world, "k", "register", {"username": "Ada", "empire": "Solarian"})
    assert error.code == "invalid_empire"
    assert error.message.startswith(
        "Invalid empire. Choose one of:\n"
        "  - solarian: Masters of energy and trade. Mining and trading bonuses.\n"
        "  - voidborn: Children of the dark. Stealth and shield bonuses.\n"
        "  - crimson: Warriors of the red nebula. Combat damage bonuses.\n"
        "  - nebula: Explorers and scientists. Exploration speed bonuses.\n"
        "  - outerrim: Frontier survivors. Crafting and cargo bonuses.\n"
        'Example: {"type": "register"'
    )


def test_taken_username_is_refused_case_insensitively(world: World) -> None:
    world.call("a", "register", {"username": "Ada", "empire": "solarian"})
    error = _error(world, "b", "register", {"username": "ADA", "empire": "nebula"})
    assert str(error) == "[username_taken] Username already taken"


def test_login_with_the_password_from_register(pilot) -> None:
    result = pilot.world.call("other", "login", {"username": "Ada", "password": pilot.password})
    assert result["message"] == "Welcome back, Ada!"
    assert result["player"]["username"] == "Ada"
    assert result["release_info"]["version"].startswith("sim-")
    assert result["pending_trades"] == []


@pytest.mark.parametrize(
    ("username", "password"), [("Ada", "00" * 32), ("Nobody", "00" * 32), ("Ada", "")]
)
def test_wrong_credentials_get_the_real_auth_failed(pilot, username: str, password: str) -> None:
    error = _error(pilot.world, "other", "login", {"username": username, "password": password})
    assert str(error) == (
        "[auth_failed] Invalid username or password. Passwords are random hex strings."
    )


def test_login_replays_the_newest_log_entry_and_recent_system_chat(pilot, make_pilot) -> None:
    pilot("captains_log_add", entry="first")
    pilot("captains_log_add", entry="second")
    bob = make_pilot("Bob")
    bob("chat", channel="system", content="hello Sol")
    result = pilot.world.call("other", "login", {"username": "Ada", "password": pilot.password})
    assert [e["entry"] for e in result["captains_log"]] == ["second"]
    assert [m["content"] for m in result["recent_chat"]] == ["hello Sol"]


def test_calls_before_login_get_not_authenticated(world: World) -> None:
    error = _error(world, "fresh", "get_status")
    assert error.code == "not_authenticated"
    assert "login" in error.message


def test_second_login_elsewhere_ends_the_first_session(pilot) -> None:
    world = pilot.world
    world.call("laptop", "login", {"username": "Ada", "password": pilot.password})
    assert str(_error(world, pilot.key, "get_status")) == (
        "[session_invalid] Unauthorized — session lost"
    )
    assert world.call("laptop", "get_status", {})["player"]["username"] == "Ada"


def test_a_session_id_argument_is_bound_to_the_connection_that_made_it(pilot) -> None:
    """Any connection holding a session id acted as its player; now only the one that
    logged in does, and another is answered as for an unknown id (the real text)."""
    sid = pilot.registration["session_id"]
    status = pilot.world.call(pilot.key, "get_status", {"session_id": sid})
    assert status["player"]["username"] == "Ada"
    for other in (None, "anything"):
        error = _error(pilot.world, other, "get_cargo", {"session_id": sid})
        assert str(error) == "[session_invalid] Unauthorized — session lost"
    assert pilot("get_cargo")["capacity"] == 50  # the login itself goes on


def test_an_unknown_session_id_argument_is_session_invalid(pilot) -> None:
    error = _error(pilot.world, pilot.key, "get_status", {"session_id": "bogus"})
    assert error.code == "session_invalid"


def test_logout_ends_the_login(pilot) -> None:
    sid = pilot.registration["session_id"]
    assert "Logged out" in pilot("logout")["message"]
    assert _error(pilot.world, pilot.key, "get_status").code == "not_authenticated"
    assert _error(pilot.world, pilot.key, "get_status", {"session_id": sid}).code == (
        "session_invalid"
    )


def test_logging_in_again_on_one_key_switches_account(world: World, make_pilot) -> None:
    ada = make_pilot("Ada")
    bob = make_pilot("Bob")
    world.call(ada.key, "login", {"username": "Bob", "password": bob.password})
    assert ada("get_status")["player"]["username"] == "Bob"
    assert _error(world, bob.key, "get_status").code == "session_invalid"


def test_idle_sessions_expire_when_a_timeout_is_set() -> None:
    world = World(seed=3, session_timeout_ticks=10)
    world.call("k", "register", {"username": "Ada", "empire": "solarian"})
    world.advance(10)
    assert world.call("k", "get_status", {})["player"]["username"] == "Ada"
    world.advance(11)
    assert _error(world, "k", "get_status").code == "session_invalid"


def test_sessions_never_expire_by_default(pilot) -> None:
    pilot.world.advance(10_000)
    assert pilot("get_status")["player"]["username"] == "Ada"

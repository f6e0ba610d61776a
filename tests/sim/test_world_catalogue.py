"""The tool catalogue and the dispatch rules every tool shares."""

import json

import pytest

from zoea_tui.sim import TOOL_SPECS, GameError, World
from zoea_tui.sim.commands import HANDLERS

from .mcp_world import ARENA_TOOLS, EVERYDAY_TOOLS, GUIDE_TOOLS

#: Every tool: the everyday ones, the arena's, the guide's and two more of factions.
EXPECTED_TOOLS = {*EVERYDAY_TOOLS, *ARENA_TOOLS, *GUIDE_TOOLS, "join_faction", "leave_faction"}


def test_catalogue_lists_every_tool_once_with_a_handler() -> None:
    names = [spec["name"] for spec in World.tool_specs()]
    assert sorted(names) == sorted(EXPECTED_TOOLS)
    assert set(HANDLERS) == EXPECTED_TOOLS


def test_catalogue_uses_the_real_argument_names() -> None:
    schemas = {s["name"]: s["input_schema"] for s in World.tool_specs()}
    assert schemas["travel"]["required"] == ["target_poi"]
    assert schemas["jump"]["required"] == ["target_system"]
    assert schemas["find_route"]["required"] == ["target_system"]
    assert schemas["sell"]["required"] == ["item_id", "quantity"]
    assert schemas["buy"]["required"] == ["item_id", "quantity"]
    assert schemas["captains_log_add"]["required"] == ["entry"]
    assert schemas["chat"]["required"] == ["channel", "content"]
    assert set(schemas["chat"]["properties"]) == {"channel", "content", "target_id", "session_id"}
    assert schemas["register"]["required"] == ["username", "empire"]
    assert "registration_code" in schemas["register"]["properties"]
    assert set(schemas["get_notifications"]["properties"]) >= {"limit", "clear", "types"}


def test_authenticated_tools_accept_an_optional_session_id() -> None:
    for spec in TOOL_SPECS:
        props = spec.input_schema()["properties"]
        assert ("session_id" in props) == spec.auth, spec.name
        assert "session_id" not in spec.input_schema()["required"]


def test_every_input_schema_is_a_valid_json_schema() -> None:
    import jsonschema  # an mcp dependency: always installed

    for spec in World.tool_specs():
        jsonschema.Draft202012Validator.check_schema(spec["input_schema"])
        assert spec["description"]


def test_catalogue_is_json_serialisable() -> None:
    assert json.loads(json.dumps(World.tool_specs())) == World.tool_specs()


def test_unknown_tool_gets_unknown_command(world: World) -> None:
    with pytest.raises(GameError) as caught:
        world.call("k", "agentLogs", {})
    assert str(caught.value) == (
        "[unknown_command] Unknown command: agentLogs. "
        "Use the 'help' command to see available commands."
    )


def test_arguments_that_are_not_an_object_get_invalid_json(world: World) -> None:
    with pytest.raises(GameError) as caught:
        world.call("k", "help", '"{}"')
    assert caught.value.code == "invalid_json"
    assert caught.value.message == "Invalid JSON in request body"


def test_json_text_arguments_are_parsed(world: World) -> None:
    result = world.call("k", "help", '{"command": "mine"}')
    assert result["command"] == "mine"


def test_wrong_travel_parameter_gets_the_real_invalid_payload(pilot) -> None:
    error = pilot.error("travel", destination="main_belt")
    assert str(error) == (
        "[invalid_payload] Unknown parameter(s): [destination]. Requires 'target_poi'. "
        'Example: {"target_poi": "main_belt"}'
    )


def test_wrong_jump_parameter_gets_the_real_invalid_payload(pilot) -> None:
    error = pilot.error("jump", destination="sirius")
    assert str(error) == (
        "[invalid_payload] Unknown parameter(s): [destination]. Requires 'target_system'. "
        'Example: {"target_system": "sol"}'
    )


def test_several_unknown_parameters_are_listed_sorted(pilot) -> None:
    error = pilot.error("find_route", to_system="sirius", from_system="sol")
    assert error.message.startswith("Unknown parameter(s): [from_system to_system]. ")


def test_missing_required_parameter_names_it(pilot) -> None:
    error = pilot.error("travel")
    assert error.code == "invalid_payload"
    assert "'target_poi'" in error.message


def test_unknown_parameters_are_checked_before_login(world: World) -> None:
    with pytest.raises(GameError) as caught:
        world.call("k", "travel", {"poi_id": "main_belt"})
    assert caught.value.code == "invalid_payload"


def test_extra_parameters_on_other_tools_are_ignored_like_the_real_server(pilot) -> None:
    pilot.act("undock")
    pilot.go_to("main_belt")
    assert pilot.act("mine", resource_id="iron_ore")["quantity"] > 0
    assert pilot("get_status", verbose=True)["player"]["username"] == "Ada"


def test_every_result_carries_current_tick(world: World, pilot) -> None:
    world.advance(3)
    assert pilot("get_status")["current_tick"] == world.current_tick == 4
    assert world.call(None, "help", {})["current_tick"] == 4


def test_help_lists_commands_by_category(world: World) -> None:
    listing = world.call(None, "help", {})["commands"]
    flat = [line.split(":")[0] for lines in listing.values() for line in lines]
    assert sorted(flat) == sorted(EXPECTED_TOOLS)
    assert any(line.startswith("mine:") and "[1 tick]" in line for line in listing["resources"])


def test_help_for_one_command_describes_its_arguments(world: World) -> None:
    result = world.call(None, "help", {"command": "sell"})
    args = {a["name"]: a for a in result["arguments"]}
    assert args["item_id"]["required"] and args["quantity"]["type"] == "integer"
    assert result["costs_tick"] is True


def test_help_for_an_unknown_command_is_unknown_command(world: World) -> None:
    with pytest.raises(GameError) as caught:
        world.call(None, "help", {"command": "warp"})
    assert caught.value.code == "unknown_command"


def test_help_category_filter(world: World) -> None:
    result = world.call(None, "help", {"category": "market"})
    assert list(result["commands"]) == ["market"]


def test_get_commands_and_get_version_need_no_login(world: World) -> None:
    names = {c["name"] for c in world.call(None, "get_commands", {})["commands"]}
    assert names == EXPECTED_TOOLS
    assert world.call(None, "get_version", {})["version"].startswith("sim-")


def test_game_error_to_dict_merges_details() -> None:
    error = GameError("action_pending", "wait", wait_ticks=1)
    assert error.to_dict() == {"code": "action_pending", "message": "wait", "wait_ticks": 1}
    assert str(error) == "[action_pending] wait"

"""The built-in autopilot: scripted conversations in, tool calls out; and real play.

Tool results in the scripted conversations come from a real seeded world, so
they have exactly the shapes the autopilot meets in play. The last tests play
whole games through the real composer (``autopilot_harness``).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import pytest

from tests.helpers import Log, history_of
from tests.providers.autopilot_harness import TOOLS, Harness
from zoea_tui.core import prompts
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.game_tool import GAME_TOOL, effective_call, game_tool, wrap
from zoea_tui.core.summarizer import EXTRACTIVE_LABEL
from zoea_tui.providers.autopilot import LABEL, AutopilotProvider
from zoea_tui.providers.autopilot.orders import parse_order
from zoea_tui.providers.base import (
    ChatRequest,
    ChatResponse,
    Provider,
    ProviderSettings,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
)
from zoea_tui.sim import World

ACCOUNT = "Ada"  # the store keeps the account name; the state message renders the section


class Game:
    """A pilot in a real seeded world: the source of realistic tool results."""

    def __init__(self) -> None:
        self.world = World(seed=42)
        self.registration = self("register", username="Ada", empire="solarian")

    def __call__(self, tool: str, **args: Any) -> dict[str, Any]:
        result = self.world.call("key", tool, args)
        if tool != "register":
            self.world.advance(1)
        return result

    def fly(self, poi: str) -> dict[str, Any]:
        result = self("travel", target_poi=poi)
        self.world.advance(6)
        return result

    def full_at_station(self) -> None:
        """Flies to the belt, fills the hold there and flies back to the station."""
        self.fly("main_belt")
        self.fill_hold()
        self.fly("sol_central")

    def fill_hold(self) -> list[dict[str, Any]]:
        mines = []
        while self("get_cargo")["available"] > 0:
            mines.append(self("mine"))
        return mines


class Chat:
    """A composed conversation, message by message, as the composer renders it."""

    def __init__(
        self,
        order: str | None = "Mine ore and sell it at the station.",
        *,
        account: str | None = ACCOUNT,
        broadcast: str | None = None,
        name: str | None = None,
    ) -> None:
        system = prompts.render_system_prompt(prompts.SYSTEM_PROMPT_TEMPLATE)
        #: The account section the composer puts in the state message.
        self.account = prompts.account_text(account, name)
        self.body: list[dict[str, Any]] = [{"role": "system", "content": system}]
        #: The volatile facts the composer sends last (game state, latest broadcast).
        self.game_state = ""
        self.broadcast = broadcast
        self.calls = 0
        if order is not None:
            self.user(order)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request: the conversation, then the closing state message (the account,
        the game state, the latest broadcast)."""
        state = prompts.state_message(self.game_state, self.broadcast, self.account)
        if not state:
            return list(self.body)
        # As the composer places it: right after the current turn's opening (the newest
        # user message), else closing the request.
        users = [i for i, m in enumerate(self.body) if m["role"] == "user"]
        at = users[-1] + 1 if users else len(self.body)
        return [*self.body[:at], {"role": "user", "content": state}, *self.body[at:]]

    def user(self, text: str) -> Chat:
        self.body.append({"role": "user", "content": text})
        return self

    def nudge(self) -> Chat:
        return self.user(prompts.nudge_text(1))

    def say(self, text: str) -> Chat:
        self.body.append({"role": "assistant", "content": text})
        return self

    def loop(
        self, tool: str, result: dict[str, Any] | str, *, notes: str = "", **args: Any
    ) -> Chat:
        """A call of mine and its result; ``notes``: the text my answer carried with it
        (the autopilot's notes line)."""
        self.calls += 1
        call_id = f"call_{self.calls}"
        self.body.append(
            {
                "role": "assistant",
                "content": notes,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps(args)},
                    }
                ],
            }
        )
        content = result if isinstance(result, str) else json.dumps(result)
        self.body.append({"role": "tool", "tool_call_id": call_id, "content": content})
        return self

    def sell_hold(self, game: Game) -> Chat:
        """Docked at the station, the cargo read and each stack of it sold in ``game``:
        the calls of mine and their results."""
        self.loop("dock", game("dock")).loop("get_cargo", cargo := game("get_cargo"))
        for item in cargo["cargo"]:
            args = {"item_id": item["item_id"], "quantity": item["quantity"]}
            self.loop("sell", game("sell", **args), **args)
        return self

    def error(
        self,
        tool: str,
        code: str,
        message: str = "refused",
        *,
        args: dict[str, Any] | None = None,
        **details: Any,
    ) -> Chat:
        return self.loop(
            tool, {"error": {"code": code, "message": message, **details}}, **(args or {})
        )


async def answer(
    chat: Chat | list[dict[str, Any]],
    tools: Any = TOOLS,
    events: list[StreamEvent] | None = None,
    *,
    rounds: int | None = None,
) -> ChatResponse:
    """The autopilot's answer (``rounds``: the runtime's round limit of a turn, as the
    request's settings tell it; unset, the default of 10)."""
    messages = chat.messages if isinstance(chat, Chat) else chat
    sink = events.append if events is not None else None
    request = ChatRequest(
        messages=messages, tools=tools, settings=ProviderSettings(turn_rounds=rounds)
    )
    return await AutopilotProvider().chat(request, sink)


def calls(response: ChatResponse) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, json.loads(c.arguments)) for c in response.tool_calls]


def assert_status_line(text: str, *facts: str) -> None:
    """A turn's closing text: one line, naming credits, cargo and location (or unknown)."""
    assert "\n" not in text, text
    assert re.search(r"\b[Cc]redits (\d+|unknown)\b", text), text
    assert re.search(r"\bcargo (\d+/\d+|unknown|full)\b", text), text
    for fact in facts:
        assert fact in text, (fact, text)


@pytest.fixture
def game() -> Game:
    return Game()


# -- the provider ------------------------------------------------------------------------


def test_autopilot_is_a_provider_labelled_as_rule_based() -> None:
    provider = AutopilotProvider()
    assert isinstance(provider, Provider)
    assert provider.label == LABEL == "autopilot (rule-based)"


async def test_answer_has_the_shape_of_a_model_answer(game: Game) -> None:
    events: list[StreamEvent] = []
    chat = Chat().loop("get_status", game("get_status"))
    response = await answer(chat, events=events)
    assert response.finish_reason == "tool_calls"
    assert response.content == ""
    assert response.reasoning and "\n" not in response.reasoning
    assert response.usage.prompt_tokens and response.usage.prompt_tokens > 100
    assert response.usage.completion_tokens
    assert response.model == LABEL
    assert isinstance(events[0], ReasoningDelta)
    deltas = [e for e in events if isinstance(e, ToolCallDelta) and e.index == 0]
    assert deltas[0].id == response.tool_calls[0].id and deltas[0].name
    assert "".join(d.arguments for d in deltas) == response.tool_calls[0].arguments


#: The same tools, compact: the zoea_* ones and one game tool listing the world's.
COMPACT_TOOLS = [
    *(t for t in TOOLS if t["function"]["name"].startswith("zoea_")),
    game_tool(t for t in TOOLS if not t["function"]["name"].startswith("zoea_")),
]


def compacted(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` as a compact Mysis sends them: each game call made through game."""
    out = []
    for message in messages:
        calls = []
        for call in message.get("tool_calls") or ():
            fn = call["function"]
            if not fn["name"].startswith("zoea_"):
                args = json.loads(fn["arguments"])
                fn = {"name": GAME_TOOL, "arguments": wrap(fn["name"], args)}
            calls.append({**call, "function": fn})
        out.append({**message, "tool_calls": calls} if calls else message)
    return out


async def test_offered_one_game_tool_it_plays_the_same_through_it(game: Game) -> None:
    """Compact tools: the autopilot reads game calls as their commands and calls the
    commands it chooses through game, exactly as it would call them by name."""
    chat = Chat().loop("get_system", game("get_system"))
    game.full_at_station()
    chat.sell_hold(game)
    for messages in (chat.messages[:4], chat.messages[:-2], chat.messages):
        full = await answer(messages)
        compact = await answer(compacted(messages), tools=COMPACT_TOOLS)
        assert full.content == compact.content and full.tool_calls
        assert {c.name for c in compact.tool_calls} <= {GAME_TOOL, "zoea_search_messages"}
        assert [effective_call(c) for c in compact.tool_calls] == [
            replace(c, id=e.id) for c, e in zip(full.tool_calls, compact.tool_calls, strict=True)
        ]


async def test_text_answer_streams_its_text() -> None:
    events: list[StreamEvent] = []
    response = await answer(Chat(None, broadcast="Hold position.").nudge(), events=events)
    assert response.finish_reason == "stop"
    assert [e.text for e in events if isinstance(e, TextDelta)] == [response.content]


async def test_same_messages_give_the_same_answer_and_ids(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system")).loop("get_status", game("get_status"))
    first, second = await answer(chat), await answer(chat)
    assert first.tool_calls and first.tool_calls == second.tool_calls
    assert (first.content, first.reasoning, first.usage) == (
        second.content,
        second.reasoning,
        second.usage,
    )
    later = await answer(chat.loop("get_cargo", game("get_cargo")))
    assert later.tool_calls[0].id != first.tool_calls[0].id


async def test_tool_call_ids_are_unique_within_a_response(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system"))
    game.full_at_station()
    chat.sell_hold(game)
    response = await answer(chat)
    assert [c[0] for c in calls(response)] == ["captains_log_add", "travel"]
    ids = [c.id for c in response.tool_calls]
    assert len(set(ids)) == len(ids) == 2


# -- account -----------------------------------------------------------------------------


async def test_fresh_start_without_account_registers() -> None:
    response = await answer(Chat(account=None))
    [(name, args)] = calls(response)
    assert name == "register"
    assert re.fullmatch(r"autopilot-[0-9a-f]{8}", args["username"])
    assert args["empire"] == "solarian"


async def test_register_uses_the_name_offered_in_the_state_message() -> None:
    chat = Chat(account=None, name="Vega")
    assert calls(await answer(chat)) == [("register", {"username": "Vega", "empire": "solarian"})]


async def test_fresh_start_with_an_account_checks_status_first() -> None:
    assert calls(await answer(Chat(None).nudge())) == [("get_status", {})]


async def test_lost_session_logs_in_without_arguments() -> None:
    for code in ("not_authenticated", "session_invalid"):
        chat = Chat().error("get_status", code)
        response = await answer(chat)
        assert [(c.name, c.arguments) for c in response.tool_calls] == [("login", "{}")]


async def test_login_without_a_stored_account_registers() -> None:
    chat = (
        Chat()
        .error("get_status", "not_authenticated")
        .error("login", "no_account", "No account is assigned to this Mysis yet: call register.")
    )
    assert calls(await answer(chat)) == [("register", {"username": "Ada", "empire": "solarian"})]


async def test_taken_username_registers_under_another_valid_name() -> None:
    chat = Chat(account=None).error("register", "username_taken", "Username already taken")
    [(name, args)] = calls(await answer(chat))
    assert name == "register"
    assert args["username"].startswith("autopilot-") and 3 <= len(args["username"]) <= 24
    first = calls(await answer(Chat(account=None)))[0][1]["username"]
    assert args["username"] != first


# -- the mining loop --------------------------------------------------------------------


async def test_docked_with_a_full_hold_sells_the_largest_stack(game: Game) -> None:
    game.full_at_station()
    game("dock")
    status = game("get_status")
    chat = Chat().loop("get_status", status)
    [(name, args)] = calls(await answer(chat))
    largest = max(status["ship"]["cargo"], key=lambda c: c["quantity"])
    assert (name, args) == (
        "sell",
        {"item_id": largest["item_id"], "quantity": largest["quantity"]},
    )


async def test_low_fuel_at_the_station_refuels(game: Game) -> None:
    game.world.players["Ada"].ship.fuel = 20
    chat = Chat().loop("get_status", game("get_status"))
    assert calls(await answer(chat)) == [("refuel", {})]


async def test_low_fuel_at_the_belt_flies_to_the_station(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system"))
    game.fly("main_belt")
    game.world.players["Ada"].ship.fuel = 12
    chat.loop("get_status", game("get_status"))
    assert calls(await answer(chat)) == [("travel", {"target_poi": "sol_central"})]


async def test_at_the_belt_with_room_in_the_hold_mines(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system"))
    game.fly("main_belt")
    chat.loop("get_status", game("get_status")).loop("mine", game("mine"))
    assert calls(await answer(chat)) == [("mine", {})]


async def test_full_hold_refusal_sends_the_pilot_to_sell(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system"))
    chat.loop("travel", game.fly("main_belt"), target_poi="main_belt").say("Travelling.")
    game.fill_hold()
    chat.nudge().error("mine", "cargo_full", "Cargo hold is full")
    assert calls(await answer(chat)) == [("travel", {"target_poi": "sol_central"})]


async def test_mining_is_newer_evidence_than_an_older_location(game: Game) -> None:
    """The trip to the belt fell out of the context; the refusal to mine did not."""
    chat = Chat().loop("get_system", game("get_system"))
    chat.error("mine", "cargo_full", "Cargo hold is full")
    assert calls(await answer(chat)) == [("travel", {"target_poi": "sol_central"})]


async def test_missing_location_asks_for_status() -> None:
    chat = Chat().say("Travelling.").nudge()
    response = await answer(chat)
    assert calls(response) == [("get_status", {})]
    assert "location" in response.reasoning.lower()


async def test_placeholder_is_not_taken_for_a_result() -> None:
    chat = Chat().loop("get_status", prompts.placeholder_omitted("get_status", 12, "budget"))
    assert calls(await answer(chat)) == [("get_status", {})]


async def test_truncated_listing_still_names_the_places(game: Game) -> None:
    listing = json.dumps(game("get_system"))
    cut = listing[:1900] + prompts.truncation_notice(7, len(listing), 900)
    chat = Chat("Go to the Outer Belt.").loop("get_system", cut)
    chat.loop("get_status", game("get_status"))
    assert calls(await answer(chat)) == [("travel", {"target_poi": "sol_belt"})]


async def test_closing_state_stands_in_for_a_lost_location(game: Game) -> None:
    """The state message closing the request: the location survives when its results are
    gone."""
    chat = Chat(None).loop("get_system", game("get_system", system_id="sol"), system_id="sol")
    chat.game_state = "- Location: sol / main_belt (3 ticks ago)\n- Docked: no (3 ticks ago)"
    assert calls(await answer(chat.nudge())) == [("mine", {})]


@pytest.mark.parametrize(
    ("projection", "expected"),
    [
        (
            "- Game tick: 40\n- Location: sol / sol_central (now)\n- Docked: yes (now)\n"
            "- Fuel: 90/100 (now)\n- Cargo: 50/50 (now)\n"
            "- Hold: iron_ore x30, copper_ore x20 (now)",
            ("sell", {"item_id": "iron_ore", "quantity": 30}),
        ),
        (
            "### get_status (2 ticks ago)\n- player.current_system: sol\n"
            "- player.current_poi: sol_central\n- player.docked_at_base: null\n"
            "- ship.fuel: 20\n- ship.max_fuel: 100\n- ship.cargo_used: 0",
            ("dock", {}),
        ),
    ],
)
async def test_game_state_projection_is_read_when_messages_lack_it(
    game: Game,
    projection: str,
    expected: tuple[str, dict[str, Any]],
) -> None:
    chat = Chat(None).loop("get_system", game("get_system", system_id="sol"), system_id="sol")
    chat.game_state = projection
    assert calls(await answer(chat.nudge())) == [expected]


async def test_a_state_message_after_the_turn_opening_is_facts_not_an_order(
    game: Game,
) -> None:
    """The composer may pin a turn's state right after its opening instead of last: it is
    still read as facts ("Hold: ..." is not an order to hold) and never opens a turn."""
    chat = Chat(None).loop("get_system", game("get_system", system_id="sol"), system_id="sol")
    game.fly("main_belt")
    pinned, chat.account = chat.account, ""  # pinned after the opening: none closes it
    chat.nudge().user(
        prompts.state_message(
            "- Game tick: 40\n- Location: sol / main_belt (now)\n- Docked: no (now)\n"
            "- Credits: 150 (now)\n- Cargo: 0/50 (now)\n- Hold: empty (now)",
            None,
            pinned,
        )
    )
    chat.loop("mine", game("mine"))
    assert chat.messages[-1]["role"] == "tool"
    assert calls(await answer(chat)) == [("mine", {})]


async def test_travel_result_flagged_arrived_means_arrived(game: Game) -> None:
    """The embedded world's host returns a trip once it has arrived, flagged so."""
    chat = Chat().loop("get_system", game("get_system")).loop("get_status", game("get_status"))
    trip = game("travel", target_poi="main_belt")
    trip.update(arrived=True, message=trip["message"] + " Arrived.")
    chat.loop("travel", trip, target_poi="main_belt")
    assert calls(await answer(chat)) == [("mine", {})]


async def test_blocking_travel_result_means_arrived(game: Game) -> None:
    """The real game's MCP travel returns on arrival: ``{action: "arrived", poi_id}``."""
    chat = Chat().loop("get_system", game("get_system")).loop("get_status", game("get_status"))
    chat.loop(
        "travel",
        {
            "action": "arrived",
            "poi": "Main Belt",
            "poi_id": "main_belt",
            "online_players": [],
            "auto_undocked": True,
        },
        target_poi="main_belt",
    )
    assert calls(await answer(chat)) == [("mine", {})]


# -- turns: one goal, then a text that says where things stand ------------------------------


@pytest.mark.parametrize("arrived", [False, True])
async def test_a_turn_that_fills_the_hold_goes_on_to_sell(game: Game, arrived: bool) -> None:
    """Hold full: the pilot flies to the station in the same turn and, once there, docks
    to sell: a reached goal is not an end while the next step is its own. Only a trip
    still under way (an asynchronous ``travel``) ends the turn, with the status line."""
    chat = Chat().loop("get_system", game("get_system")).loop("get_status", game("get_status"))
    chat.loop("travel", game.fly("main_belt"), target_poi="main_belt")
    chat.say("Trip under way; waiting for arrival.").nudge()
    mines = game.fill_hold()
    for mine in mines:
        chat.loop("mine", mine)
    response = await answer(chat, rounds=100)
    assert calls(response) == [("travel", {"target_poi": "sol_central"})]
    trip = game("travel", target_poi="sol_central")
    if arrived:
        trip.update(arrived=True)
    chat.loop("travel", trip, target_poi="sol_central")
    response = await answer(chat, rounds=100)
    if arrived:
        assert calls(response)[0][0] == "dock"
        return
    assert response.tool_calls == () and response.finish_reason == "stop"
    assert response.content.startswith(f"Mined {sum(m['quantity'] for m in mines)} ore (")
    assert_status_line(response.content, "Credits 150", "cargo 50/50", "in transit to Sol")


async def test_a_sell_turn_flies_back_and_mines_again(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system"))
    game.fly("main_belt")
    game.fill_hold()
    chat.loop("travel", game.fly("sol_central"), target_poi="sol_central")
    chat.say("Trip under way; waiting for arrival.").nudge().sell_hold(game)
    response = await answer(chat, rounds=100)
    (log, entry), (travel, target) = calls(response)
    assert (log, travel) == ("captains_log_add", "travel")
    belt = target["target_poi"]
    # The log names both places with their ids: a later turn reads them back.
    assert "sell at Sol Central (sol_central)" in entry["entry"]
    assert f"({belt}), sell at" in entry["entry"]
    chat.loop("captains_log_add", game("captains_log_add", **entry), **entry)
    trip = game("travel", target_poi=belt)
    trip.update(arrived=True)
    chat.loop("travel", trip, target_poi=belt)
    response = await answer(chat, rounds=100)
    assert calls(response) == [("mine", {})], "the next load, in the same turn"


async def test_a_turn_reports_one_round_before_the_limit_it_is_given(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system"))
    chat.loop("travel", game.fly("main_belt"), target_poi="main_belt").say("Waiting.").nudge()
    for _ in range(11):
        chat.loop("mine", {"kind": "yield", "resource_id": "iron_ore", "quantity": 1})
    assert calls(await answer(chat, rounds=13)) == [("mine", {})]
    response = await answer(chat, rounds=12)
    assert response.tool_calls == ()
    assert response.content.startswith("Mined 11 ore (iron_ore 11). Pausing after 11 rounds")


async def test_a_new_turn_reads_where_to_sell_from_its_captains_log(game: Game) -> None:
    """The listing fell out of the context; the log entry of the last visit did not."""
    entry = (
        "Log tick 20: sold 50 units for 300 cr at Sol Central (sol_central) (iron_ore "
        "5 cr). Objective: mine at Main Belt (main_belt), sell at Sol Central "
        "(sol_central), refuel when low."
    )
    chat = Chat(None).loop("captains_log_add", game("captains_log_add", entry=entry), entry=entry)
    game.fly("main_belt")
    chat.nudge()
    for mine in game.fill_hold():
        chat.loop("mine", mine)
    assert calls(await answer(chat)) == [("travel", {"target_poi": "sol_central"})]


async def test_a_place_named_like_a_station_is_docked_at(game: Game) -> None:
    """After a trip to "Sol Central", with no listing in view: dock, and look up what the
    visit needs in the same round."""
    chat = Chat(None).loop(
        "travel",
        {"action": "arrived", "poi": "Sol Central", "poi_id": "sol_central"},
        target_poi="sol_central",
    )
    chat.game_state = "- Cargo: 50/50 (now)"
    assert [name for name, _ in calls(await answer(chat.nudge()))] == [
        "dock",
        "get_system",
        "get_status",
    ]


async def test_a_stale_projection_does_not_outweigh_newer_results(game: Game) -> None:
    """The projection saw a full hold 5 ticks before my newest result (I sold since, out of
    view): it is not trusted, so the pilot mines instead of flying back to sell."""
    chat = Chat(None).loop("get_system", game("get_system"))
    trip = game.fly("main_belt")
    trip.update(arrived=True)
    chat.loop("travel", trip, target_poi="main_belt")
    tick = trip["current_tick"]
    chat.game_state = (
        f"- Game tick: {tick}\n- Location: sol / sol_central (5 ticks ago)\n"
        "- Cargo: 50/50 (5 ticks ago)"
    )
    assert calls(await answer(chat.nudge())) == [("mine", {})]


async def test_a_long_turn_reports_before_the_round_limit(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system"))
    chat.loop("travel", game.fly("main_belt"), target_poi="main_belt").say("Waiting.").nudge()
    for n in range(9):
        chat.loop(
            "mine",
            {
                "kind": "yield",
                "resource_id": "iron_ore",
                "quantity": 2,
                "cargo_used": 2 * (n + 1),
                "cargo_capacity": 50,
                "current_tick": 10 + n,
            },
        )
    response = await answer(chat)
    assert response.tool_calls == ()
    assert response.content.startswith("Mined 18 ore (iron_ore 18). Pausing after 9 rounds")
    assert_status_line(response.content, "cargo 18/50", "Main Belt (main_belt)")


async def test_a_goal_is_not_ended_by_a_text_it_could_not_see_again(game: Game) -> None:
    """Under ``loop-slice`` only the latest loop is sent: a text ending the turn would come
    back to the same request, so the pilot plays on instead."""
    chat = Chat(None).nudge()
    game.fly("main_belt")
    mines = game.fill_hold()
    chat.loop("mine", mines[-1])
    chat.game_state = "- Location: sol / main_belt (now)"
    response = await answer(chat)
    assert response.tool_calls  # no text: the goal's end is not in view


# -- waiting and errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "message", "details", "tick", "facts"),
    [
        (
            "action_pending",
            "You already acted this tick.",
            {"wait_ticks": 1, "ready_tick": 9},
            "tick 9",
            ("Credits 150", "cargo 0/50", "docked at sol_central"),
        ),
        (
            "in_transit",
            "You are in transit.",
            {"arrival_tick": 14, "ticks_remaining": 2},
            "tick 14",
            ("Credits 150", "cargo 0/50"),
        ),
    ],
    ids=["action-pending", "in-transit"],
)
async def test_a_timing_refusal_ends_the_turn_instead_of_retrying(
    game: Game,
    code: str,
    message: str,
    details: dict[str, int],
    tick: str,
    facts: tuple[str, ...],
) -> None:
    """Refused until a tick (acted already, or still in transit): the turn ends with a
    text naming that tick and the status, no call."""
    chat = Chat().loop("get_status", game("get_status")).error("mine", code, message, **details)
    response = await answer(chat)
    assert response.tool_calls == () and response.finish_reason == "stop"
    assert tick in response.content
    assert_status_line(response.content, *facts)


async def test_a_timing_refusal_mid_turn_ends_it_with_what_the_turn_did(game: Game) -> None:
    """Mining, then refused for acting twice in a tick: the turn ends, saying both."""
    chat = Chat().loop("get_system", game("get_system")).loop("get_status", game("get_status"))
    chat.loop("travel", game.fly("main_belt"), target_poi="main_belt")
    chat.say("Trip under way; waiting for arrival.").nudge()
    chat.loop("mine", game("mine")).loop("mine", game("mine"))
    chat.error(
        "mine", "action_pending", "You already acted this tick.", wait_ticks=1, ready_tick=30
    )
    response = await answer(chat)
    assert response.tool_calls == ()
    mined = sum(json.loads(m["content"])["quantity"] for m in chat.body[-5:-2:2])
    assert response.content.startswith(f"Mined {mined} ore")
    assert "tick 30" in response.content
    assert_status_line(
        response.content, "Credits 150", f"cargo {mined}/50", "Main Belt (main_belt)"
    )


async def test_trip_under_way_waits_then_acts_after_the_turn_boundary(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system"))
    chat.loop("travel", game("travel", target_poi="main_belt"), target_poi="main_belt")
    waiting = await answer(chat)
    assert waiting.tool_calls == () and "Main Belt" in waiting.content
    chat.say(waiting.content).nudge()
    assert calls(await answer(chat)) == [("mine", {})]


async def test_without_its_own_turns_in_context_it_polls_instead_of_waiting(
    game: Game,
) -> None:
    """Under ``loop-slice`` a wait text would come back to the very same request."""
    chat = Chat().loop("travel", game("travel", target_poi="main_belt"), target_poi="main_belt")
    assert calls(await answer(chat)) == [("get_status", {})]


async def test_a_call_that_failed_this_turn_is_not_repeated(game: Game) -> None:
    game.full_at_station()
    game("dock")
    status = game("get_status")
    chat = Chat().loop("get_status", status)
    first = calls(await answer(chat))[0]
    chat.error(first[0], "market_closed", "The market is closed.", args=first[1])
    response = await answer(chat)
    assert response.tool_calls == ()
    assert "not retrying" in response.content


async def test_only_offered_tools_are_called(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system"))
    game.fly("main_belt")
    chat.loop("get_status", game("get_status"))
    tools = [t for t in TOOLS if t["function"]["name"] != "mine"]
    response = await answer(chat, tools=tools)
    assert response.tool_calls == ()
    assert "mine" in response.content


async def test_no_tools_means_a_text_answer(game: Game) -> None:
    response = await answer(Chat().loop("get_status", game("get_status")), tools=[])
    assert response.tool_calls == () and response.content.startswith("Status report")


# -- commander orders -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "target"),
    [
        ("Mine ore at the nearest belt and sell it.", "mine", ""),
        ("Stop mining and wait.", "hold", ""),
        ("Go to the Outer Belt and mine there.", "goto", "outer belt"),
        ("Fly to main_belt, then mine.", "goto", "main_belt"),
        ("Report your status and cargo.", "report", ""),
        ("Sell everything you carry.", "sell", ""),
        ("Where are you?", "report", ""),
    ],
)
def test_orders_are_read_from_plain_words(text: str, kind: str, target: str) -> None:
    order = parse_order(text)
    assert order is not None
    assert (order.kind, order.target) == (kind, target)


def test_text_without_an_order_replaces_nothing() -> None:
    assert parse_order("Nice work out there, pilots.") is None
    assert parse_order("Jump to Krynn.").system  # type: ignore[union-attr]


async def test_hold_is_noted_once_then_answers_text_only(game: Game) -> None:
    """A hold outlives its message: noted once (the log call's notes line carries it),
    then every answer is a text."""
    chat = Chat().loop("get_status", game("get_status")).user("Hold position.")
    response = await answer(chat)
    assert calls(response) == [
        (
            "captains_log_add",
            {"entry": "Commander's order: Hold position. Holding until a new order."},
        )
    ]
    assert response.content.endswith('order "Hold position.".')
    chat.body.append(
        {
            "role": "assistant",
            "content": response.content,
            "tool_calls": [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in response.tool_calls
            ],
        }
    )
    chat.body.append(
        {"role": "tool", "tool_call_id": response.tool_calls[0].id, "content": '{"index": 0}'}
    )
    response = await answer(chat)
    assert response.tool_calls == () and "Holding" in response.content


async def test_hold_from_the_swarm_broadcast_section(game: Game) -> None:
    chat = Chat(None, broadcast="All Myses: stop and wait for orders.")
    response = await answer(chat.loop("get_status", game("get_status")).nudge())
    assert response.tool_calls == ()


async def test_newer_order_replaces_an_older_one(game: Game) -> None:
    chat = Chat("Hold position.").say("Holding position as ordered.")
    chat.user("Mine again.").loop("get_system", game("get_system"))
    chat.loop("get_status", game("get_status"))
    assert calls(await answer(chat)) == [("travel", {"target_poi": "main_belt"})]


async def test_a_sell_order_with_the_hold_out_of_view_looks_before_flying(game: Game) -> None:
    chat = Chat("Sell everything you carry.").loop("get_system", game("get_system"))
    assert calls(await answer(chat)) == [("get_status", {})]


async def test_a_one_shot_broadcast_of_an_earlier_turn_is_not_repeated(game: Game) -> None:
    """Seen only in the state message, "sell now" was received (and acted on) in an
    earlier turn: this turn mines instead of flying back to sell."""
    chat = Chat(None, broadcast="All Myses: sell everything you carry now.")
    chat.loop("get_system", game("get_system"))
    trip = game.fly("main_belt")
    trip.update(arrived=True)
    assert calls(await answer(chat.loop("travel", trip, target_poi="main_belt").nudge())) == [
        ("mine", {})
    ]


async def test_go_to_order_flies_to_the_named_belt(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system")).loop("get_status", game("get_status"))
    chat.user("Go to the Outer Belt.")
    assert calls(await answer(chat)) == [("travel", {"target_poi": "sol_belt"})]


async def test_go_to_an_unlisted_place_lists_the_system_first(game: Game) -> None:
    chat = Chat("Go to the Outer Belt.").loop("get_status", game("get_status"))
    assert calls(await answer(chat)) == [("get_system", {})]


async def test_go_to_an_unknown_place_searches_memory_then_says_so(game: Game) -> None:
    chat = Chat("Go to Atlantis.").loop("get_system", game("get_system"))
    response = await answer(chat)
    assert calls(response) == [("zoea_search_messages", {"query": "atlantis", "limit": 5})]
    # The search carries my standing order in its notes line: the turn ends with a text.
    assert response.content.endswith('order "Go to Atlantis.".')
    chat.loop(
        "zoea_search_messages",
        {"query": "atlantis", "count": 0, "results": []},
        notes=response.content,
        query="atlantis",
        limit=5,
    )
    response = await answer(chat)
    assert response.tool_calls == () and "atlantis" in response.content.lower()


async def test_report_answers_with_what_the_context_shows(game: Game) -> None:
    chat = Chat().loop("get_status", game("get_status")).user("Report your status.")
    response = await answer(chat)
    assert response.tool_calls == ()
    assert "sol_central" in response.content and "credits 150" in response.content
    assert_status_line(response.content, "cargo 0/50", "docked at sol_central")


async def test_report_checks_status_when_the_context_lacks_it(game: Game) -> None:
    """At most one status call, then the line: the turn ends with it."""
    chat = Chat("Report your status.")
    assert calls(await answer(chat)) == [("get_status", {})]
    response = await answer(chat.loop("get_status", game("get_status")))
    assert response.tool_calls == ()
    assert response.content.startswith("Status report (Ada): credits 150, cargo 0/50")
    assert_status_line(response.content, "docked at sol_central")


async def test_a_report_without_the_facts_says_unknown() -> None:
    chat = Chat("Report your status.").error("get_status", "game_unreachable", "down")
    response = await answer(chat)
    assert response.tool_calls == ()
    assert_status_line(response.content, "credits unknown", "cargo unknown", "location unknown")


async def test_a_report_once_given_lets_the_older_order_stand(game: Game) -> None:
    chat = Chat().loop("get_system", game("get_system")).loop("get_status", game("get_status"))
    chat.user("Report.").say("Status report: docked at Sol Central.").nudge()
    assert calls(await answer(chat)) == [("travel", {"target_poi": "main_belt"})]


# -- summaries -------------------------------------------------------------------------------


async def test_summary_request_gets_the_extractive_summary(game: Game) -> None:
    chat = Chat().loop("get_status", game("get_status")).user(prompts.SUMMARY_PROMPT)
    response = await answer(chat)
    assert response.tool_calls == ()
    assert response.content.startswith(EXTRACTIVE_LABEL)
    assert "Mine ore and sell it" in response.content


async def test_provider_is_the_summarize_strategy_summarizer() -> None:
    log = Log()
    log.direct("Mine ore and sell it.")
    for n in range(30):
        log.loop(f"c{n}", "get_status", json.dumps({"player": {"credits": n}}) + " " * 400)
    settings = ComposeSettings(summarize_threshold=500)
    composition = compose(
        history_of(log.memories, settings, strategy="summarize"), "summarize", settings
    )
    assert composition.summary_request is not None
    text = await AutopilotProvider().summarize(composition.summary_request)
    assert text.startswith(EXTRACTIVE_LABEL) and "get_status x30" in text


# -- real play ------------------------------------------------------------------------------


async def test_plays_a_seeded_world_and_sells_ore() -> None:
    harness = Harness(seed=42)
    stats = await harness.play(15)
    score = harness.score()
    assert score["ore_sold"] > 0 and score["score"] > 0
    assert stats.wasted == 0
    assert 1 <= stats.calls["captains_log_add"] < stats.turns


async def test_logs_back_in_when_its_session_expires_and_plays_on() -> None:
    harness = Harness(world=World(seed=42, session_timeout_ticks=2), ticks_between_turns=4)
    stats = await harness.play(15)
    # One login per answer whose calls met the lost session (one answer may hold several
    # calls, each refused).
    lost_ids = {
        m.tool_call_id
        for m in harness.log.memories
        if m.role == "tool" and "session_invalid" in m.content
    }
    lost = [m for m in harness.log.memories if any(c.id in lost_ids for c in m.tool_calls)]
    assert len(lost) >= 3
    assert stats.calls["login"] == len(lost)
    assert harness.score()["ore_sold"] > 0


async def test_two_autopilots_in_one_world_register_distinct_pilots() -> None:
    world = World(seed=42)
    first, second = Harness(world=world, key="a"), Harness(world=world, key="b")
    for _ in range(8):
        await first.turn()
        await second.turn()
    assert first.account and second.account and first.account != second.account
    assert second.stats.errors == {"username_taken": 1}
    assert first.score()["ore_sold"] > 0 and second.score()["ore_sold"] > 0


async def test_keeps_playing_after_a_summary_replaces_its_history() -> None:
    harness = Harness(
        seed=42, strategy="summarize", settings=ComposeSettings(summarize_threshold=6000)
    )
    await harness.play(15)
    assert any(m.source == "summary" for m in harness.log.memories)
    assert harness.score()["ore_sold"] > 0


async def test_a_nudged_session_plays_in_turns_that_end_with_a_text() -> None:
    """Over 300 ticks of seeds 0-3 under ``turn-aware``, every turn but the first opens with
    the nudge text where it was received, and nearly every one ends with a one-line text
    before the round limit (all of them, measured). The score is not worse than before
    turns ended on goals: 650, 650, 550 and 550 ore sold (2 400) then; 2 500 now."""
    ore = 0
    for seed in range(4):
        harness = Harness(seed=seed)
        stats = await harness.play_ticks(300)
        assert stats.text_end_share >= 0.8, (seed, stats.turn_rounds)
        assert max(stats.turn_rounds) <= 10
        assert [t.kind for t in harness.turns[:2]] == ["direct", "nudge"]
        assert {t.text for t in harness.turns[1:]} == {prompts.nudge_text(1)}
        nudge = {"role": "user", "content": prompts.nudge_text(1)}
        assert sum(nudge in request for request in harness.requests) >= stats.turns - 1
        for memory in harness.log.memories:
            if memory.role == "assistant" and not memory.tool_calls:
                assert_status_line(memory.content)
        ore += harness.score()["ore_sold"]
    assert ore >= 2400


async def test_plays_worse_when_the_strategy_drops_what_it_needs() -> None:
    """Same world, same order, same 200 ticks; only the composition differs.

    Under ``turn-aware`` (default settings) the whole current turn is in view, so
    the system's POI listing and the hold's contents stay known between rounds.
    Under ``sliding-window`` cut to 4 memories, and
    ``loop-slice`` (the latest tool loop only), they fall out after a round or
    two: the autopilot, which decides only from what it is sent, must ask again
    (get_system, get_status, get_cargo) before nearly every trip or sale, and
    under ``loop-slice`` it cannot even see its own waits, so it polls. Those
    rounds and ticks are not spent mining: over 200 ticks it sells at least one
    hold (50 ore) less and makes several times as many snapshot calls. Measured
    over seeds 0-5 (turns opened by nudges, the state message closing every
    request) the gap was 0-100 ore under ``sliding-window`` and 50-150 under
    ``loop-slice``, with 3-4x the snapshot calls; seed 42: 400 / 350 / 250 ore.
    """
    results = {}
    for label, strategy, settings in (
        ("turn-aware", "turn-aware", ComposeSettings()),
        ("sliding-4", "sliding-window", ComposeSettings(max_context_messages=4, window_margin=1)),
        ("loop-slice", "loop-slice", ComposeSettings()),
    ):
        harness = Harness(seed=42, strategy=strategy, settings=settings)
        stats = await harness.play_ticks(200)
        results[label] = (harness.score()["ore_sold"], stats.snapshots)
    best_ore, best_snapshots = results["turn-aware"]
    for label in ("sliding-4", "loop-slice"):
        ore, snapshots = results[label]
        assert ore + 50 <= best_ore, results
        assert snapshots >= 3 * best_snapshots, results

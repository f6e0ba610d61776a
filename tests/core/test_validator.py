"""The validator can fail: every rule it enforces, broken one at a time.

Each test builds a request that breaks exactly one rule of docs/CONTEXT.md, 'API rules'
(V1–V8 and the Anthropic checks listed there) and asserts the validator reports
exactly that violation, by its code and text. A validator that always answered
"valid" (or that reported the wrong rule) fails here.
"""

from __future__ import annotations

from typing import Any

import pytest

from zoea_tui.core.validator import (
    to_anthropic,
    validate,
    validate_anthropic,
    validate_openai,
    well_formed,
)

Message = dict[str, Any]


def call(call_id: str, name: str = "mine", arguments: Any = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def system(text: str = "You are a Mysis.") -> Message:
    return {"role": "system", "content": text}


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def assistant(text: str | None = "", *calls: dict[str, Any]) -> Message:
    message: Message = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def tool(call_id: str | None, text: str = "{}") -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def valid_request() -> list[Message]:
    """System, a prompt, a parallel call with both results, an answer, a new prompt."""
    return [
        system(),
        user("Mine, then report."),
        assistant("", call("a", "mine"), call("b", "get_cargo")),
        tool("a", '{"quantity": 3}'),
        tool("b", '{"cargo": []}'),
        assistant("Mined 3."),
        user("Sell it."),
    ]


# -- a valid request yields no violation -------------------------------------------


def test_a_valid_request_has_no_violation() -> None:
    messages = valid_request()
    assert validate_openai(messages) == []
    assert validate_anthropic(to_anthropic(messages)) == []
    assert validate(messages) == []


@pytest.mark.parametrize(
    "messages",
    [
        # Ends on a tool message (V6 allows user or tool).
        [system(), user("go"), assistant("", call("a")), tool("a")],
        # Results answered out of order are still one contiguous block (V2).
        [system(), user("go"), assistant("ok", call("a"), call("b")), tool("b"), tool("a")],
        # Several loops, each id used once (V3), and a tuple instead of a list.
        (
            system(),
            user("go"),
            assistant("", call("a")),
            tool("a"),
            assistant("", call("b")),
            tool("b"),
            assistant("done"),
            user("next"),
        ),
        # An assistant with text and no content key issues (content None with calls: V4 ok).
        [system(), user("go"), assistant(None, call("a")), tool("a", "")],
        # Arguments are any JSON object, nested and spaced as the model wrote it (V8).
        [system(), user("go"), assistant("", call("a", "mine", ' {"a": [1, {}]} ')), tool("a")],
    ],
    ids=[
        "ends-on-tool",
        "reordered-results",
        "tuple-several-loops",
        "content-none",
        "empty-arguments",
    ],
)
def test_other_valid_shapes_have_no_violation(messages: list[Message]) -> None:
    assert validate(messages) == []


# -- OpenAI rules (validate_openai) -------------------------------------------------


def test_system_prompt_missing() -> None:
    messages = [user("go")]
    assert validate_openai(messages) == [
        "system prompt must be first and appear once (found at [])"
    ]


def test_system_prompt_not_first() -> None:
    messages = [user("go"), system()]
    assert validate_openai(messages) == [
        "system prompt must be first and appear once (found at [1])"
    ]


def test_system_prompt_twice() -> None:
    messages = [system(), user("go"), system("again"), user("more")]
    assert validate_openai(messages) == [
        "system prompt must be first and appear once (found at [0, 2])"
    ]


def test_v5_nothing_after_the_system_prompt() -> None:
    messages = [system()]
    assert validate_openai(messages) == ["V5: no message after the system prompt"]
    assert validate(messages) == [
        "V5: no message after the system prompt",
        "anthropic: no messages",
    ]


def test_v5_first_non_system_message_is_not_user() -> None:
    messages = [system(), assistant("Hello."), user("go")]
    assert validate_openai(messages) == ["V5: first non-system message is 'assistant', not user"]
    assert validate(messages) == [
        "V5: first non-system message is 'assistant', not user",
        "anthropic: first turn is not a user turn",
    ]


def test_v5_first_non_system_message_is_a_tool_result() -> None:
    messages = [system(), tool("a"), user("go")]
    assert "V5: first non-system message is 'tool', not user" in validate_openai(messages)


def test_v6_trailing_assistant_message() -> None:
    messages = [system(), user("go"), assistant("Done.")]
    assert validate_openai(messages) == ["V6: last message is 'assistant'"]
    assert validate(messages) == [
        "V6: last message is 'assistant'",
        "anthropic: last turn is not a user turn (would be a prefill)",
    ]


def test_v6_names_the_role_of_the_last_message() -> None:
    messages = [system(), user("go"), user("more"), assistant("Done.")]
    assert validate_openai(messages) == ["V6: last message is 'assistant'"]


def test_unknown_role() -> None:
    messages = [system(), user("go"), {"role": "developer", "content": "x"}, user("more")]
    assert validate_openai(messages) == ["#2: unknown role 'developer'"]


def test_checking_goes_on_after_an_unknown_role() -> None:
    messages = [
        system(),
        user("go"),
        {"role": "developer", "content": "x"},
        assistant(""),
        user("more"),
    ]
    assert validate_openai(messages) == [
        "#2: unknown role 'developer'",
        "V4: #3 empty assistant message",
    ]


def test_v1_tool_result_without_any_call() -> None:
    messages = [system(), user("go"), tool("x")]
    assert validate_openai(messages) == [
        "V1: #2 tool result 'x' answers no call of the nearest preceding assistant message"
    ]
    assert validate(messages) == [
        "V1: #2 tool result 'x' answers no call of the nearest preceding assistant message",
        "anthropic: turn 0: unexpected tool_use_id x",
    ]


def test_v1_tool_result_answers_an_older_assistant_message_not_the_nearest() -> None:
    messages = [
        system(),
        user("go"),
        assistant("", call("a")),
        tool("a"),
        assistant("", call("b")),
        tool("b"),
        tool("a"),
    ]
    assert validate_openai(messages) == [
        "V1: #6 tool result 'a' answers no call of the nearest preceding assistant message"
    ]


def test_v1_tool_result_after_a_user_message() -> None:
    """A user message between call and result breaks V2 for the call, V1 for the result."""
    messages = [system(), user("go"), assistant("", call("a")), user("interrupt"), tool("a")]
    assert validate_openai(messages) == [
        "V2: calls ['a'] not answered before #3",
        "V1: #4 tool result 'a' answers no call of the nearest preceding assistant message",
    ]


def test_v1_tool_result_after_a_plain_assistant_message() -> None:
    messages = [system(), user("go"), assistant("Thinking."), tool("a")]
    assert validate_openai(messages) == [
        "V1: #3 tool result 'a' answers no call of the nearest preceding assistant message"
    ]


def test_v2_call_not_answered_before_the_next_message() -> None:
    messages = [system(), user("go"), assistant("", call("a"), call("b")), tool("a"), user("next")]
    assert validate_openai(messages) == ["V2: calls ['b'] not answered before #4"]
    assert validate(messages) == [
        "V2: calls ['b'] not answered before #4",
        "anthropic: turn 1: tool_use ids ['a', 'b'] not answered by the next turn (got ['a'])",
    ]


def test_v2_call_not_answered_before_the_next_assistant_message() -> None:
    messages = [system(), user("go"), assistant("", call("a")), assistant("More."), user("next")]
    assert validate_openai(messages) == ["V2: calls ['a'] not answered before #3"]


def test_v2_call_never_answered() -> None:
    messages = [system(), user("go"), assistant("", call("a"), call("b")), tool("a")]
    assert validate_openai(messages) == ["V2: calls ['b'] never answered"]


def test_v2_trailing_call_without_any_result() -> None:
    messages = [system(), user("go"), assistant("", call("a"))]
    assert validate_openai(messages) == [
        "V6: last message is 'assistant'",
        "V2: calls ['a'] never answered",
    ]


def test_v3_second_result_for_the_same_call() -> None:
    messages = [system(), user("go"), assistant("", call("a")), tool("a"), tool("a")]
    assert validate_openai(messages) == ["V3: #4 second result for 'a'"]
    assert validate(messages) == [
        "V3: #4 second result for 'a'",
        "anthropic: turn 1: tool_use ids ['a'] not answered by the next turn (got ['a', 'a'])",
    ]


def test_v3_duplicate_call_id_across_messages() -> None:
    messages = [
        system(),
        user("go"),
        assistant("", call("a")),
        tool("a"),
        assistant("", call("a")),
        tool("a"),
    ]
    assert validate_openai(messages) == ["V3: #4 duplicate tool call id 'a'"]
    assert validate(messages) == [
        "V3: #4 duplicate tool call id 'a'",
        "anthropic: turn 3: duplicate tool_use id 'a'",
    ]


def test_v3_duplicate_call_id_within_one_message() -> None:
    messages = [system(), user("go"), assistant("", call("a"), call("a")), tool("a")]
    assert validate_openai(messages) == ["V3: #2 duplicate tool call id 'a'"]
    assert validate(messages) == [
        "V3: #2 duplicate tool call id 'a'",
        "anthropic: turn 1: duplicate tool_use id 'a'",
        "anthropic: turn 1: tool_use ids ['a', 'a'] not answered by the next turn (got ['a'])",
    ]


@pytest.mark.parametrize("call_id", ["", None])
def test_v3_tool_call_without_id(call_id: str | None) -> None:
    messages = [system(), user("go"), assistant("", call(call_id)), user("next")]  # type: ignore[arg-type]
    assert validate_openai(messages) == ["V3: #2 tool call without id"]


def test_v3_calls_after_a_call_without_id_are_still_checked() -> None:
    messages = [system(), user("go"), assistant("", call(""), call("a")), tool("a")]
    assert validate_openai(messages) == ["V3: #2 tool call without id"]


@pytest.mark.parametrize("content", ["", "   \n", None])
def test_v4_empty_assistant_message(content: str | None) -> None:
    messages = [system(), user("go"), assistant(content), user("next")]
    assert validate_openai(messages) == ["V4: #2 empty assistant message"]
    assert validate(messages) == ["V4: #2 empty assistant message"]


def test_v4_empty_tool_calls_list_is_an_empty_assistant_message() -> None:
    messages = [
        system(),
        user("go"),
        {"role": "assistant", "content": "", "tool_calls": []},
        user("next"),
    ]
    assert validate_openai(messages) == ["V4: #2 empty assistant message"]


def test_content_that_is_not_a_string() -> None:
    messages = [
        system(),
        user("go"),
        assistant("ok"),
        {"role": "tool", "content": 5, "tool_call_id": "a"},
    ]
    assert "#3: content is not a string" in validate_openai(messages)


def test_validate_reports_rather_than_crashes_on_list_content() -> None:
    messages = [system(), {"role": "user", "content": [{"type": "text", "text": "go"}]}]
    assert validate(messages) == ["#1: content is not a string"]


@pytest.mark.parametrize(
    "function",
    [
        {"name": "", "arguments": "{}"},
        {"name": "mine", "arguments": None},
    ],
    ids=["no-name", "arguments-none"],
)
def test_malformed_tool_call(function: dict[str, Any]) -> None:
    messages = [
        system(),
        user("go"),
        assistant("", {"id": "a", "type": "function", "function": function}),
        tool("a"),
    ]
    assert validate_openai(messages) == ["#2: malformed tool call 'a'"]


def test_malformed_tool_call_without_function() -> None:
    messages = [system(), user("go"), assistant("", {"id": "a", "type": "function"}), tool("a")]
    assert validate_openai(messages) == ["#2: malformed tool call 'a'"]


def test_validate_reports_rather_than_crashes_on_dict_arguments() -> None:
    messages = [system(), user("go"), assistant("", call("a", "mine", {"n": 1})), tool("a")]
    assert validate(messages) == ["#2: malformed tool call 'a'"]


@pytest.mark.parametrize(
    "arguments",
    ['{"target', "[1]", "", "null", '"north"', "3", '{"a": 1}}'],
    ids=["cut-at-max-tokens", "list", "empty", "null", "string", "number", "trailing-brace"],
)
def test_v8_call_arguments_that_are_not_a_json_object(arguments: str) -> None:
    messages = [system(), user("go"), assistant("", call("a", "travel", arguments)), tool("a")]
    assert validate(messages) == [
        f"V8: #2 arguments of 'a' are not a JSON object: {arguments[:40]!r}"
    ]


def test_v8_names_each_bad_call_of_a_parallel_answer() -> None:
    messages = [
        system(),
        user("go"),
        assistant("", call("a", "travel", '{"target'), call("b", "mine"), call("c", "sell", "[1]")),
        tool("a"),
        tool("b"),
        tool("c"),
    ]
    assert validate_openai(messages) == [
        "V8: #2 arguments of 'a' are not a JSON object: '{\"target'",
        "V8: #2 arguments of 'c' are not a JSON object: '[1]'",
    ]


# -- to_anthropic: the Messages API rendering ---------------------------------------


def test_to_anthropic_lifts_the_system_prompt_out() -> None:
    rendered = to_anthropic([system("one"), user("go"), system("two")])
    assert rendered == {
        "system": "one\n\ntwo",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "go"}]}],
    }


def test_to_anthropic_renders_calls_and_results_as_blocks() -> None:
    rendered = to_anthropic(valid_request())
    assert rendered["system"] == "You are a Mysis."
    assert rendered["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Mine, then report."}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "a", "name": "mine", "input": {}},
                {"type": "tool_use", "id": "b", "name": "get_cargo", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": '{"quantity": 3}'},
                {"type": "tool_result", "tool_use_id": "b", "content": '{"cargo": []}'},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Mined 3."}]},
        {"role": "user", "content": [{"type": "text", "text": "Sell it."}]},
    ]


def test_to_anthropic_keeps_assistant_text_before_its_tool_use_and_parses_arguments() -> None:
    rendered = to_anthropic(
        [user("go"), assistant("Let me travel.", call("t", "travel", '{"to": "sol"}'))]
    )
    assert rendered["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me travel."},
            {"type": "tool_use", "id": "t", "name": "travel", "input": {"to": "sol"}},
        ],
    }


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ("", {}),
        ("{}", {}),
        ("not json", {"_raw": "not json"}),
        ("[1, 2]", {"_raw": "[1, 2]"}),
        ('"text"', {"_raw": '"text"'}),
        ('{"a": [1]}', {"a": [1]}),
    ],
)
def test_to_anthropic_tool_use_input_is_always_an_object(
    arguments: str, expected: dict[str, Any]
) -> None:
    rendered = to_anthropic([user("go"), assistant("", call("a", "mine", arguments)), tool("a")])
    assert rendered["messages"][1]["content"][0]["input"] == expected


def test_to_anthropic_puts_tool_results_before_the_text_of_the_same_user_turn() -> None:
    """V7: a user message after the results joins their turn, after them."""
    rendered = to_anthropic(
        [user("go"), assistant("", call("a")), tool("a", "r"), user("then sell")]
    )
    assert rendered["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "a", "content": "r"},
            {"type": "text", "text": "then sell"},
        ],
    }
    assert validate_anthropic(rendered) == []


def test_to_anthropic_inserts_a_late_result_before_the_text_of_the_open_user_turn() -> None:
    """A result that follows a user message still lands before its text (V7)."""
    rendered = to_anthropic(
        [
            user("go"),
            assistant("", call("a"), call("b")),
            tool("a", "1"),
            user("hurry"),
            tool("b", "2"),
        ]
    )
    assert rendered["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "a", "content": "1"},
        {"type": "tool_result", "tool_use_id": "b", "content": "2"},
        {"type": "text", "text": "hurry"},
    ]
    assert validate_anthropic(rendered) == []


def test_to_anthropic_merges_consecutive_same_role_messages() -> None:
    rendered = to_anthropic(
        [user("one"), user("two"), assistant("a"), assistant("", call("c")), tool("c", "r")]
    )
    assert rendered["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "tool_use", "id": "c", "name": "mine", "input": {}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "r"}]},
    ]


def test_to_anthropic_never_emits_empty_text_blocks() -> None:
    rendered = to_anthropic(
        [
            user("go"),
            user("   "),
            assistant("  ", call("a")),
            tool("a", ""),
            assistant(None),
            user("next"),
        ]
    )
    assert rendered["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "a", "name": "mine", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "(empty)"},
                {"type": "text", "text": "next"},
            ],
        },
    ]


def test_to_anthropic_of_nothing() -> None:
    assert to_anthropic([]) == {"system": "", "messages": []}


# -- Anthropic rules (validate_anthropic) on hand-built renderings ------------------


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def use(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "mine", "input": {}}


def result(call_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "{}"}


def turn(role: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "content": list(blocks)}


def rendering(*turns: dict[str, Any]) -> dict[str, Any]:
    return {"system": "s", "messages": list(turns)}


def test_anthropic_valid_rendering() -> None:
    assert (
        validate_anthropic(
            rendering(
                turn("user", text("go")),
                turn("assistant", text("ok"), use("a"), use("b")),
                turn("user", result("b"), result("a"), text("and then?")),
            )
        )
        == []
    )


def test_anthropic_no_messages() -> None:
    assert validate_anthropic(rendering()) == ["no messages"]


def test_anthropic_first_turn_is_not_user() -> None:
    assert validate_anthropic(
        rendering(turn("assistant", text("hi")), turn("user", text("go")))
    ) == ["first turn is not a user turn"]


def test_anthropic_last_turn_is_a_prefill() -> None:
    assert validate_anthropic(
        rendering(turn("user", text("go")), turn("assistant", text("hi")))
    ) == ["last turn is not a user turn (would be a prefill)"]


def test_anthropic_same_role_twice_in_a_row() -> None:
    """V7: same-role turns must have been merged by the renderer, not left apart."""
    assert validate_anthropic(rendering(turn("user", text("a")), turn("user", text("b")))) == [
        "turn 1: two user turns in a row"
    ]
    assert validate_anthropic(
        rendering(
            turn("user", text("a")),
            turn("assistant", text("b")),
            turn("assistant", text("c")),
            turn("user", text("d")),
        )
    ) == ["turn 2: two assistant turns in a row"]


def test_anthropic_empty_content() -> None:
    assert validate_anthropic(
        rendering(turn("user", text("a")), turn("assistant"), turn("user", text("b")))
    ) == ["turn 1: empty content"]


@pytest.mark.parametrize("value", ["", "  \n"])
def test_anthropic_empty_text_block(value: str) -> None:
    assert validate_anthropic(rendering(turn("user", text("a"), text(value)))) == [
        "turn 0: empty text block"
    ]


def test_anthropic_tool_use_not_answered_by_the_next_turn() -> None:
    assert validate_anthropic(
        rendering(turn("user", text("go")), turn("assistant", use("a")), turn("user", text("next")))
    ) == ["turn 1: tool_use ids ['a'] not answered by the next turn (got [])"]


def test_anthropic_tool_use_in_the_last_turn_has_no_next_turn() -> None:
    assert validate_anthropic(rendering(turn("user", text("go")), turn("assistant", use("a")))) == [
        "last turn is not a user turn (would be a prefill)",
        "turn 1: tool_use ids ['a'] not answered by the next turn (got [])",
    ]


def test_anthropic_parallel_calls_need_every_result_not_just_one() -> None:
    """langchain#38352: one matching id among parallel calls is not enough."""
    assert validate_anthropic(
        rendering(
            turn("user", text("go")),
            turn("assistant", use("a"), use("b")),
            turn("user", result("a")),
        )
    ) == ["turn 1: tool_use ids ['a', 'b'] not answered by the next turn (got ['a'])"]


def test_anthropic_duplicate_tool_use_id_across_turns() -> None:
    """V3, and the API's "`tool_use` ids must be unique" (claude-code#20700)."""
    assert validate_anthropic(
        rendering(
            turn("user", text("go")),
            turn("assistant", use("a")),
            turn("user", result("a")),
            turn("assistant", use("a")),
            turn("user", result("a")),
        )
    ) == ["turn 3: duplicate tool_use id 'a'"]


def test_anthropic_duplicate_tool_use_id_within_a_turn() -> None:
    assert validate_anthropic(
        rendering(
            turn("user", text("go")),
            turn("assistant", use("a"), use("a")),
            turn("user", result("a"), result("a")),
        )
    ) == ["turn 1: duplicate tool_use id 'a'"]


def test_anthropic_tool_result_not_first_in_its_turn() -> None:
    assert validate_anthropic(
        rendering(
            turn("user", text("go")),
            turn("assistant", use("a")),
            turn("user", text("by the way"), result("a")),
        )
    ) == ["turn 2: tool_result blocks must come first"]


def test_anthropic_text_between_tool_results() -> None:
    assert validate_anthropic(
        rendering(
            turn("user", text("go")),
            turn("assistant", use("a"), use("b")),
            turn("user", result("a"), text("x"), result("b")),
        )
    ) == ["turn 2: tool_result blocks must come first"]


def test_anthropic_unexpected_tool_use_id() -> None:
    assert validate_anthropic(
        rendering(
            turn("user", text("go")), turn("assistant", text("ok")), turn("user", result("z"))
        )
    ) == ["turn 2: unexpected tool_use_id z"]


def test_anthropic_tool_result_in_the_first_turn() -> None:
    assert validate_anthropic(rendering(turn("user", result("z")))) == [
        "turn 0: unexpected tool_use_id z"
    ]


def test_anthropic_first_turn_has_no_previous_turn() -> None:
    """A result in turn 0 is never matched against the last turn's tool_use."""
    assert validate_anthropic(
        rendering(turn("user", result("z")), turn("assistant", use("z")))
    ) == [
        "last turn is not a user turn (would be a prefill)",
        "turn 0: unexpected tool_use_id z",
        "turn 1: tool_use ids ['z'] not answered by the next turn (got [])",
    ]


def test_anthropic_result_for_a_call_two_turns_back() -> None:
    assert validate_anthropic(
        rendering(
            turn("user", text("go")),
            turn("assistant", use("a")),
            turn("user", result("a")),
            turn("assistant", text("ok")),
            turn("user", result("a")),
        )
    ) == ["turn 4: unexpected tool_use_id a"]


def test_validate_reports_rather_than_crashes_on_a_result_without_id() -> None:
    messages = [
        system(),
        user("go"),
        assistant("", call("a", "mine")),
        {"role": "tool", "content": "ok"},
    ]
    violations = validate(messages)
    assert violations and not any(v.startswith("anthropic") for v in violations)


def test_well_formed_rejects_each_shape_it_cannot_render() -> None:
    good = [system(), user("go"), assistant("", call("a", "mine")), tool("a")]
    assert well_formed(good)
    broken = [
        [system(), {"role": "robot", "content": "hi"}],
        [system(), {"role": "user", "content": [{"type": "text", "text": "go"}]}],
        [system(), user("go"), assistant("", call("a", "mine")), {"role": "tool", "content": "ok"}],
        [system(), user("go"), assistant("", call("", "mine")), tool("")],
        [
            system(),
            user("go"),
            assistant(
                "",
                call(
                    "a",
                    "",
                ),
            ),
            tool("a"),
        ],
        [system(), user("go"), assistant("", call("a", "mine", {"n": 1})), tool("a")],
    ]
    assert [well_formed(b) for b in broken] == [False] * len(broken)

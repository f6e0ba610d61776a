"""The normalizer's repairs, one broken history at a time.

``finalize`` is what makes every strategy's selection valid (V1–V8). The property
tests only check that its output validates; these check each repair itself: what
was inserted, renamed, moved or dropped, and the reason recorded for it. (The
seed-003 ``clean_messages`` cases live in ``test_seed_behaviour.py``.)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tests.helpers import Log
from zoea_tui.core import prompts
from zoea_tui.core.composition import (
    ComposeSettings,
    Composition,
    ContextTooSmallError,
    History,
    Item,
)
from zoea_tui.core.normalize import clean_messages, finalize
from zoea_tui.core.prompts import render_system_prompt
from zoea_tui.core.selection import Selection, Slot, keep, synthetic_user
from zoea_tui.core.tokens import REQUEST_OVERHEAD, count_tokens
from zoea_tui.core.types import ToolCall, Turn
from zoea_tui.core.validator import validate

SETTINGS = ComposeSettings()


def finalized(
    log: Log, settings: ComposeSettings = SETTINGS, *, before_window_id: int | None = None
) -> Composition:
    """``finalize`` of a selection that keeps every memory of ``log``."""
    history = History(
        mysis_id=1, mysis_name="test", window=tuple(log.memories), before_window_id=before_window_id
    )
    selection = Selection([keep(m) for m in log.memories])
    composition = finalize(selection, history, settings, "test")
    assert validate(composition.messages) == [], composition.messages
    return composition


def body(c: Composition) -> list[dict[str, Any]]:
    """The messages after the system prompt, but for the closing state message (it
    always tells the account; the state tests below check it)."""
    assert c.messages[0]["role"] == "system"
    end = len(c.messages) - (c.items[-1].kind == "state")
    return list(c.messages[1:end])


def reasons(c: Composition) -> dict[int, str]:
    return {d.memory_id: d.reason for d in c.dropped}


def call_ids(message: dict[str, Any]) -> list[str]:
    return [t["id"] for t in message["tool_calls"]]


# -- V2: a call without a result gets "Tool no response" ----------------------------


def test_unanswered_call_gets_a_tool_no_response_result() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "mine"))
    c = finalized(log)
    assert body(c)[1:3] == [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "mine", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "content": "Tool no response", "tool_call_id": "a"},
    ]
    item = c.items[3]
    assert (item.role, item.kind, item.action, item.memory_id) == (
        "tool",
        "placeholder",
        "synthetic",
        None,
    )
    assert item.reason == "no result was stored for this call"
    assert c.dropped == ()


def test_unanswered_call_before_a_user_message_is_answered_before_it() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "mine"), ("b", "get_cargo"))
    log.result("a", "mine", "{}")
    log.direct("stop")
    c = finalized(log)
    assert [(m["role"], m.get("tool_call_id"), m["content"]) for m in body(c)] == [
        ("user", None, "go"),
        ("assistant", None, ""),
        ("tool", "a", "{}"),
        ("tool", "b", prompts.MISSING_TOOL_RESULT),
        ("user", None, "stop"),
    ]


def test_missing_result_of_a_pinned_call_is_pinned() -> None:
    log = Log()
    log.direct("go")
    memory = log.call(("a", "mine"))
    history = History(mysis_id=1, mysis_name="test", window=tuple(log.memories))
    selection = Selection([keep(log.memories[0]), keep(memory, pinned=True)])
    # A tiny window (for a short system prompt): only pinned slots survive the budget,
    # so the synthetic result must too.
    history = replace(history, system_template="You mine.")
    settings = ComposeSettings(context_window=256, reserve_tokens=0)
    c = finalize(selection, history, settings, "test")
    assert any(m.get("tool_call_id") == "a" for m in c.messages)
    assert validate(c.messages) == []


# -- V3: call ids made unique, results follow the renamed call ----------------------


def test_duplicate_call_id_across_messages_is_renamed_with_its_result() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", "first")
    second = log.call(("a", "sell"))
    log.result("a", "sell", "second")
    c = finalized(log)
    messages = body(c)
    assert call_ids(messages[1]) == ["a"]
    assert messages[2] == {"role": "tool", "content": "first", "tool_call_id": "a"}
    assert call_ids(messages[3]) == [f"call_m{second.id}_0"]
    assert messages[3]["tool_calls"][0]["function"]["name"] == "sell"
    assert messages[4] == {
        "role": "tool",
        "content": "second",
        "tool_call_id": f"call_m{second.id}_0",
    }
    assert c.items[4].memory_id == second.id and c.items[5].action == "kept"


def test_duplicate_call_id_within_one_message_is_renamed() -> None:
    log = Log()
    log.direct("go")
    message = log.call(("a", "mine"), ("a", "sell"))
    log.result("a", "mine", "mined")
    c = finalized(log)
    messages = body(c)
    assert call_ids(messages[1]) == ["a", f"call_m{message.id}_1"]
    assert messages[2] == {"role": "tool", "content": "mined", "tool_call_id": "a"}
    assert messages[3] == {
        "role": "tool",
        "content": prompts.MISSING_TOOL_RESULT,
        "tool_call_id": f"call_m{message.id}_1",
    }


def test_a_generated_id_that_is_taken_gets_a_suffix() -> None:
    log = Log()
    log.direct("go")
    # memory 2 uses the id the normalizer would generate for memory 4's duplicate.
    log.loop("call_m4_0", "mine", "1")
    log.call(("call_m4_0", "sell"), ("call_m4_0", "dock"))
    c = finalized(log)
    assert call_ids(body(c)[3]) == ["call_m4_0_1", "call_m4_1"]


def test_generated_id_suffixes_count_up() -> None:
    log = Log()
    log.direct("go")
    log.call(("call_m5_0", "mine"), ("call_m5_0_1", "mine"), ("x", "mine"))  # memory 2
    log.result("call_m5_0", "mine", "1")
    log.result("call_m5_0_1", "mine", "2")
    log.call(("x", "sell"))  # memory 5: its id is taken, and so are the first two candidates
    c = finalized(log)
    assert call_ids(body(c)[5]) == ["call_m5_0_2"]


@pytest.mark.parametrize("result_id", ["", None], ids=["empty", "null"])
def test_call_without_id_gets_one_and_its_result_follows(result_id: str | None) -> None:
    log = Log()
    log.direct("go")
    message = log.call(("", "mine"))
    log.result(result_id, "mine", "done")  # type: ignore[arg-type]
    c = finalized(log)
    assert call_ids(body(c)[1]) == [f"call_m{message.id}_0"]
    assert body(c)[2] == {
        "role": "tool",
        "content": "done",
        "tool_call_id": f"call_m{message.id}_0",
    }


def test_call_ids_of_a_synthetic_slot_are_anchored_at_zero() -> None:
    log = Log()
    log.direct("go")
    history = History(mysis_id=1, mysis_name="test", window=tuple(log.memories))
    slot = Slot(
        role="assistant", content="", action="synthetic", tool_calls=(ToolCall("", "mine"),)
    )
    c = finalize(Selection([keep(log.memories[0]), slot]), history, SETTINGS, "test")
    assert call_ids(c.messages[2]) == ["call_m0_0"]
    assert validate(c.messages) == []


# -- V1: orphaned and duplicate results are dropped with a reason -------------------


def test_orphan_result_is_dropped_with_a_reason() -> None:
    log = Log()
    log.direct("go")
    orphan = log.result("z", "mine", "from nowhere")
    log.say("ok")
    log.direct("next")
    c = finalized(log)
    assert all(m["role"] != "tool" for m in c.messages)
    assert reasons(c) == {orphan.id: "orphaned tool result: its call is not in the request"}
    assert orphan.id not in [i.memory_id for i in c.items]


def test_second_result_for_one_call_is_dropped() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", "first")
    again = log.result("a", "mine", "again")
    c = finalized(log)
    assert [m["content"] for m in c.messages if m["role"] == "tool"] == ["first"]
    assert again.id in reasons(c)


def test_second_result_for_one_call_is_dropped_as_a_duplicate() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", "first")
    again = log.result("a", "mine", "again")
    c = finalized(log)
    assert "duplicate" in reasons(c)[again.id]


def test_result_whose_call_left_the_selection_is_dropped() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", "1")
    log.direct("next")
    memories = log.memories
    history = History(mysis_id=1, mysis_name="test", window=tuple(memories))
    # The strategy kept the result but not its call (the cut fell between them).
    selection = Selection([keep(memories[0]), keep(memories[2]), keep(memories[3])])
    c = finalize(selection, history, SETTINGS, "test")
    assert validate(c.messages) == []
    assert [m["role"] for m in c.messages] == ["system", "user", "user", "user"]
    assert c.items[-1].kind == "state"
    assert reasons(c) == {
        memories[1].id: "not selected by the strategy",
        memories[2].id: "orphaned tool result: its call is not in the request",
    }


# -- V1/V2: results are moved next to their call, in call order ---------------------


def test_late_result_is_moved_next_to_its_call() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "mine"), ("b", "sell"))
    log.result("a", "mine", "1")
    interruption = log.direct("hurry")
    late = log.result("b", "sell", "2")
    c = finalized(log)
    assert [m.get("tool_call_id") or m["content"] for m in body(c)] == ["go", "", "a", "b", "hurry"]
    assert [i.memory_id for i in c.items[1:-1]] == [1, 2, 3, late.id, interruption.id]
    assert c.items[4].reason == "moved next to its call"
    assert c.items[3].reason == ""


def test_result_after_a_plain_assistant_message_is_moved_next_to_its_call() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "mine"))
    log.say("Waiting for the drill.")
    log.result("a", "mine", "1")
    log.direct("next")
    c = finalized(log)
    assert [m.get("tool_call_id") or m["content"] for m in body(c)] == [
        "go",
        "",
        "a",
        "Waiting for the drill.",
        "next",
    ]
    assert c.items[3].reason == "moved next to its call"


def test_result_right_behind_an_interruption_is_moved() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "mine"))
    log.direct("hurry")
    log.result("a", "mine", "1")
    c = finalized(log)
    assert [m.get("tool_call_id") or m["content"] for m in body(c)] == ["go", "", "a", "hurry"]
    assert c.items[3].reason == "moved next to its call"


def test_result_behind_an_orphan_is_not_reported_moved() -> None:
    """Only a non-tool message between call and result makes it "moved"."""
    log = Log()
    log.direct("go")
    log.call(("a", "mine"))
    orphan = log.result("z", "mine", "orphan")
    log.result("a", "mine", "1")
    c = finalized(log)
    assert [m.get("tool_call_id") or m["content"] for m in body(c)] == ["go", "", "a"]
    assert c.items[3].reason == ""
    assert orphan.id in reasons(c)


def test_messages_between_a_nameless_call_and_its_result_are_not_results() -> None:
    log = Log()
    log.direct("go")
    message = log.call(("", "mine"))
    log.direct("hurry")
    log.result("", "mine", "1")
    c = finalized(log)
    new_id = f"call_m{message.id}_0"
    assert [m.get("tool_call_id") or m["content"] for m in body(c)] == ["go", "", new_id, "hurry"]
    assert body(c)[2]["content"] == "1"


def test_results_in_reverse_order_follow_the_call_order_without_a_reason() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "mine"), ("b", "sell"))
    log.result("b", "sell", "2")
    log.result("a", "mine", "1")
    c = finalized(log)
    assert [m.get("tool_call_id") for m in body(c)[2:]] == ["a", "b"]
    assert [i.reason for i in c.items[3:-1]] == ["", ""]


def test_a_result_is_not_claimed_past_the_next_call() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "mine"))
    log.call(("b", "sell"))
    log.result("a", "mine", "late")
    log.result("b", "sell", "2")
    c = finalized(log)
    assert [m.get("tool_call_id") or m["role"] for m in body(c)] == [
        "user",
        "assistant",
        "a",
        "assistant",
        "b",
    ]
    assert body(c)[2]["content"] == prompts.MISSING_TOOL_RESULT
    assert 4 in reasons(c)


# -- V4: empty messages, empty results and stored system rows -----------------------


def test_empty_messages_and_system_rows_are_dropped_with_reasons() -> None:
    log = Log()
    log.direct("go")
    empty_answer = log.say("  \n")
    system_row = log.add("system", "system", "an old system prompt")
    empty_prompt = log.direct("")
    log.say("fine")
    log.direct("next")
    c = finalized(log)
    assert [m["content"] for m in body(c)] == ["go", "fine", "next"]
    assert reasons(c) == {
        empty_answer.id: "empty assistant message",
        system_row.id: "system rows are not replayed; the system prompt is rendered per request",
        empty_prompt.id: "empty user message",
    }


@pytest.mark.parametrize("content", ["", "  \n"])
def test_empty_tool_result_is_marked(content: str) -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", content)
    c = finalized(log)
    assert body(c)[2] == {"role": "tool", "content": prompts.EMPTY_TOOL_RESULT, "tool_call_id": "a"}
    assert c.items[3].reason == "the tool returned nothing"
    assert (c.items[3].memory_id, c.items[3].action) == (3, "kept")


# -- V5/V6: the request opens with a user message and ends with user or tool ---------


def test_history_starting_with_the_first_memory_opens_with_the_start_note() -> None:
    log = Log()
    log.say("I am awake.")
    log.direct("go")
    c = finalized(log)
    assert body(c)[0] == {"role": "user", "content": prompts.START_NOTE}
    assert (c.items[1].kind, c.items[1].action) == ("note", "synthetic")
    assert c.items[1].reason == "the request must open with a user message"


def test_history_cut_before_an_assistant_message_opens_with_a_gap_note() -> None:
    log = Log()
    log.direct("old")
    log.say("I am awake.")
    log.direct("go")
    log.memories.pop(0)  # the window starts at memory 2
    c = finalized(log, before_window_id=1)
    assert body(c)[0] == {"role": "user", "content": prompts.GAP_NOTE}


def test_window_that_starts_later_is_not_the_start_of_history() -> None:
    """No ``before_window_id`` but the first kept slot is not the window's first memory."""
    log = Log()
    log.direct("")  # dropped as empty: the first kept message is memory 2
    log.say("I am awake.")
    log.direct("go")
    c = finalized(log)
    assert body(c)[0]["content"] == prompts.GAP_NOTE


def test_first_message_a_tool_call_opens_with_a_note() -> None:
    log = Log()
    log.loop("a", "mine", "1")
    c = finalized(log)
    assert [m["role"] for m in body(c)] == ["user", "assistant", "tool"]
    assert body(c)[0]["content"] == prompts.START_NOTE


@pytest.mark.parametrize("level", [0, 2])
def test_trailing_assistant_message_gets_a_nudge(level: int) -> None:
    log = Log()
    log.direct("go")
    log.say("Done.")
    c = finalized(log, ComposeSettings(nudge_level=level))
    assert body(c)[-1] == {"role": "user", "content": prompts.nudge_text(level)}
    assert c.items[-2].kind == "nudge" and c.uses_nudge
    assert c.items[-2].reason == (
        f"the request must end with a user message: synthetic nudge, level {max(level, 1)}"
    )


def test_request_ending_on_a_note_gets_a_nudge() -> None:
    """A note is not an order: the model must still be asked for something (V6)."""
    log = Log()
    log.direct("go")
    history = History(mysis_id=1, mysis_name="test", window=tuple(log.memories))
    note = synthetic_user("[older turns are not shown]", "note", "a strategy's note")
    c = finalize(Selection([keep(log.memories[0]), note]), history, SETTINGS, "test")
    assert [i.kind for i in c.items] == ["system", "memory", "note", "nudge", "state"]


def test_request_ending_on_a_user_message_gets_no_nudge() -> None:
    log = Log()
    log.say("Hello.")
    log.direct("go")
    c = finalized(log)
    assert [i.kind for i in c.items] == ["system", "note", "memory", "memory", "state"]


def test_trailing_answer_followed_by_the_state_message_still_gets_a_nudge() -> None:
    log = Log()
    log.direct("go")
    log.say("Done.")
    history = History(
        mysis_id=1, mysis_name="test", window=tuple(log.memories), game_state="- Location: sol"
    )
    c = finalize(Selection([keep(m) for m in log.memories]), history, SETTINGS, "test")
    assert c.items[-1].kind == "state"
    assert "nudge" in [i.kind for i in c.items[3:]]


def test_request_of_only_an_assistant_message_gets_a_note_and_a_nudge() -> None:
    log = Log()
    log.say("Hello.")
    c = finalized(log)
    assert [i.kind for i in c.items] == ["system", "note", "memory", "nudge", "state"]


def test_request_that_ends_on_a_tool_result_gets_no_nudge() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", "1")
    c = finalized(log)
    assert body(c)[-1]["role"] == "tool" and not c.uses_nudge


def test_empty_history_is_a_nudge() -> None:
    c = finalized(Log())
    assert [m["role"] for m in c.messages] == ["system", "user", "user"]
    assert c.items[1].kind == "nudge" and c.items[2].kind == "state"
    assert c.items[1].reason.startswith("empty history: ")


def test_every_window_memory_left_out_has_a_reason() -> None:
    log = Log()
    log.direct("go")
    log.say("one")
    log.direct("two")
    history = History(mysis_id=1, mysis_name="test", window=tuple(log.memories))
    selection = Selection([keep(log.memories[2])], default_drop_reason="outside the slice")
    selection.drop(log.memories[0], "old prompt")
    c = finalize(selection, history, SETTINGS, "test")
    assert reasons(c) == {1: "old prompt", 2: "outside the slice"}


def test_a_kept_memory_is_never_also_reported_dropped() -> None:
    log = Log()
    log.direct("go")
    history = History(mysis_id=1, mysis_name="test", window=tuple(log.memories))
    selection = Selection([keep(log.memories[0])], dropped={1: "stale reason"})
    c = finalize(selection, history, SETTINGS, "test")
    assert c.dropped == ()


# -- the per-result cap and the context window --------------------------------------


def test_tool_result_over_the_cap_is_truncated_with_a_pointer() -> None:
    log = Log()
    log.direct("go")
    big = "word " * 400
    log.call(("a", "get_map"))
    stored = log.result("a", "get_map", big)
    c = finalized(log, ComposeSettings(tool_result_max_tokens=100))
    result = body(c)[2]["content"]
    assert result.startswith("word word") and len(result) < len(big)
    assert f"memory #{stored.id}" in result
    assert c.items[3].action == "truncated"
    assert c.items[3].reason.startswith("truncated to 100 of ~")
    assert c.items[3].tokens <= 110


def test_tool_result_at_the_cap_is_kept_whole() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", words(50))
    cap = count_tokens(words(50))
    c = finalized(log, ComposeSettings(tool_result_max_tokens=cap))
    assert body(c)[2]["content"] == words(50)
    assert c.items[3].action == "kept"
    c = finalized(log, ComposeSettings(tool_result_max_tokens=cap - 1))
    assert c.items[3].action == "truncated"
    assert c.items[3].reason.endswith(" tokens (longer than the per-result cap)")


def test_a_result_without_a_stored_token_count_is_still_capped() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "get_map"))
    log.result("a", "get_map", words(400))
    log.memories[-1] = replace(log.memories[-1], tokens=0)  # never counted
    c = finalized(log, ComposeSettings(tool_result_max_tokens=100))
    assert c.items[3].action == "truncated"


def test_the_stored_token_count_is_trusted() -> None:
    """Composing never re-counts a stored message (the store counted it once)."""
    log = Log()
    log.direct("go")
    log.loop("a", "mine", "{}")
    exact = finalized(log)
    log.memories[2] = replace(log.memories[2], tokens=500)
    c = finalized(log)
    assert c.items[3].tokens == exact.items[3].tokens + 500 - count_tokens("{}")


def test_clean_messages_drops_orphans_and_system_rows() -> None:
    log = Log()
    log.add("system", "system", "old system prompt")
    log.direct("go")
    log.result("z", "mine", "orphan")
    log.say("ok")
    messages = clean_messages([keep(m) for m in log.memories], SETTINGS)
    assert messages == [{"role": "user", "content": "go"}, {"role": "assistant", "content": "ok"}]


# -- the system message and the request's provenance --------------------------------


def test_the_system_message_is_the_same_for_every_account_and_name() -> None:
    """The whole swarm shares the system prompt (and the tools after it) byte for byte:
    the account and the name travel in the state message after the turn's opening.
    Putting either back into the system prompt fails here."""
    log = Log()
    log.direct("go")
    systems = set()
    for history, expected in [
        (
            History(mysis_id=1, mysis_name="Ore_7", window=tuple(log.memories), account="Ore"),
            "Username: Ore",
        ),
        (History(mysis_id=2, mysis_name="Ore_7", window=tuple(log.memories)), "Your name is Ore_7"),
        (
            History(mysis_id=3, mysis_name="Vega", window=tuple(log.memories), account="Vg"),
            "Username: Vg",
        ),
    ]:
        c = finalize(Selection([keep(log.memories[0])]), history, SETTINGS, "turn-aware")
        systems.add(c.messages[0]["content"])
        assert "Ore" not in c.messages[0]["content"] and "Vg" not in c.messages[0]["content"]
        assert c.items[-1].kind == "state"
        assert expected in c.messages[-1]["content"]
        assert c.messages[-1]["content"].startswith(prompts.STATE_HEADER + "\n## Account\n")
        assert c.items[0] == Item(
            role="system",
            kind="system",
            action="synthetic",
            tokens=c.items[0].tokens,
            memory_id=None,
            reason="rendered from the system prompt template",
        )
        assert c.strategy == "turn-aware"
        assert c.tokens == REQUEST_OVERHEAD + sum(i.tokens for i in c.items)
    assert systems == {prompts.render_system_prompt(prompts.SYSTEM_PROMPT_TEMPLATE)}
    assert prompts.ACCOUNT_POINTER in systems.pop()


# -- guarantee 3: the request fits the context window --------------------------------
# Stage 1 turns older tool results into placeholders, stage 2 drops the oldest unpinned
# blocks, stage 3 cuts the largest messages (text first, then oversized arguments).


def words(n: int, stem: str = "ore") -> str:
    """About 2n tokens of distinct words."""
    return " ".join(f"{stem}{i}" for i in range(n))


def fitted(
    log: Log,
    window: int,
    selection: Selection | None = None,
    history: History | None = None,
    **knobs: Any,
) -> Composition:
    """``finalize`` with a context window of ``window`` tokens (nothing reserved)."""
    settings = ComposeSettings(context_window=window, reserve_tokens=0, **knobs)
    history = history or History(mysis_id=1, mysis_name="test", window=tuple(log.memories))
    selection = selection or Selection([keep(m) for m in log.memories])
    c = finalize(selection, history, settings, "test")
    assert validate(c.messages) == [], c.messages
    return c


def unbounded(
    log: Log, selection: Selection | None = None, history: History | None = None, **knobs: Any
) -> Composition:
    return fitted(log, 10_000_000, selection, history, **knobs)


def two_big_loops() -> Log:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", words(300, "a"))  # memories 2, 3
    log.loop("b", "sell", words(300, "b"))  # memories 4, 5
    return log


def test_a_request_that_fits_exactly_is_left_alone() -> None:
    log = two_big_loops()
    full = unbounded(log)
    assert fitted(log, full.tokens).messages == full.messages


@pytest.mark.parametrize("tools_tokens", [0, 300])
def test_older_tool_results_become_placeholders_first(tools_tokens: int) -> None:
    log = two_big_loops()
    full = unbounded(log, tools_tokens=tools_tokens)
    c = fitted(log, full.tokens - 1, tools_tokens=tools_tokens)
    assert c.tokens <= full.tokens - 1
    messages = body(c)
    assert messages[0] == {"role": "user", "content": "go"}
    assert messages[2] == {
        "role": "tool",
        "tool_call_id": "a",
        "content": prompts.placeholder_omitted("mine", 3, "to fit the context window"),
    }
    assert messages[4] == full.messages[5], "the newest exchange keeps its result whole"
    item = c.items[3]
    assert (item.kind, item.action, item.memory_id) == ("placeholder", "placeholder", 3)
    assert item.reason == "omitted to fit the context window"
    assert c.dropped == ()


def test_the_newest_exchange_keeps_its_result_even_when_it_is_the_largest() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", words(50, "a"))
    log.loop("b", "sell", words(600, "b"))
    full = unbounded(log)
    c = fitted(log, full.tokens - 20)
    assert body(c)[2]["content"].startswith("[mine result omitted")
    assert body(c)[4] == full.messages[5]


def test_a_truncated_older_result_can_become_a_placeholder() -> None:
    log = two_big_loops()
    full = unbounded(log, tool_result_max_tokens=200)
    assert [i.action for i in full.items[3::2]] == ["truncated", "truncated"]
    c = fitted(log, full.tokens - 1, tool_result_max_tokens=200)
    assert [i.action for i in c.items[3::2]] == ["placeholder", "truncated"]


def test_the_placeholder_of_a_nameless_result_says_tool() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "mine"))
    log.add("tool", "tool", words(300), tool_call_id="a")  # no tool_name stored
    log.loop("b", "sell", "{}")
    full = unbounded(log)
    c = fitted(log, full.tokens - 1)
    assert body(c)[2]["content"] == prompts.placeholder_omitted(
        "tool", 3, "to fit the context window"
    )


def _long_middle() -> Log:
    log = Log()
    log.direct("old")
    log.say(words(300))  # memory 2: no tool result to replace, so its block must go
    log.direct("mid")
    log.direct("new")
    return log


def test_the_oldest_unpinned_blocks_are_dropped_next() -> None:
    log = _long_middle()
    full = unbounded(log)
    c = fitted(log, full.tokens - full.items[2].tokens)
    assert [m["content"] for m in body(c)] == ["mid", "new"]
    assert reasons(c) == {
        1: "dropped to fit the context window",
        2: "dropped to fit the context window",
    }


def test_nothing_is_cut_once_the_drops_make_it_fit_exactly() -> None:
    log = _long_middle()
    full = unbounded(log)
    window = full.tokens - full.items[1].tokens - full.items[2].tokens
    c = fitted(log, window)
    assert c.tokens == window
    assert [i.action for i in c.items] == ["synthetic", "kept", "kept", "synthetic"]


def test_pinned_blocks_are_never_dropped() -> None:
    log = _long_middle()
    selection = Selection(
        [keep(log.memories[0], pinned=True), *(keep(m) for m in log.memories[1:])]
    )
    full = unbounded(log, selection)
    c = fitted(log, full.tokens - full.items[2].tokens, selection)
    assert [m["content"] for m in body(c)] == ["old", "mid", "new"]
    assert reasons(c) == {2: "dropped to fit the context window"}


def test_dropping_up_to_a_tool_call_opens_the_request_with_a_gap_note() -> None:
    log = Log()
    log.direct("old")
    log.say(words(300))
    log.loop("c", "mine", "{}")
    log.direct("new")
    full = unbounded(log)
    c = fitted(log, full.tokens - full.items[2].tokens + 50)
    assert [m["role"] for m in body(c)] == ["user", "assistant", "tool", "user"]
    assert body(c)[0]["content"] == prompts.GAP_NOTE
    assert (c.items[1].kind, c.items[1].action) == ("note", "synthetic")
    assert c.items[1].reason == "the request must open with a user message"


def test_the_largest_message_is_cut_last() -> None:
    log = Log()
    log.direct(words(2500))
    full = unbounded(log)
    c = fitted(log, full.tokens - 1000)
    assert c.tokens <= full.tokens - 1000
    item = c.items[1]
    assert item.action == "truncated" and item.memory_id == 1
    assert item.reason.startswith("truncated to ")
    assert item.reason.endswith(" tokens (to fit the context window)")
    assert body(c)[0]["content"].startswith("ore0 ore1")
    assert "memory #1" in body(c)[0]["content"]


def test_a_system_prompt_too_large_for_the_window_is_never_cut_nor_sent() -> None:
    log = Log()
    log.direct("go")
    history = History(
        mysis_id=1,
        mysis_name="test",
        window=tuple(log.memories),
        system_template=words(2500, "rule"),
    )
    full = unbounded(log, history=history)
    settings = ComposeSettings(
        context_window=full.tokens - 1000 + 1024, reserve_tokens=1024, tools_tokens=300
    )
    with pytest.raises(ContextTooSmallError) as raised:
        finalize(Selection([keep(m) for m in log.memories]), history, settings, "test")
    error = raised.value
    system = count_tokens(render_system_prompt(history.system_template))
    assert system <= error.system <= system + 20  # the system message and the overhead
    assert (error.tools, error.answer, error.context) == (300, 1024, settings.context_window)
    assert 0 < error.history < 40  # the one prompt, which alone cannot make room
    assert error.system + error.tools + error.history + error.answer > error.context
    line = str(error)
    assert f"system {error.system:,} + tools 300 + history".replace(",", " ") in line
    assert f"answer 1 024 > context {error.context:,} tokens".replace(",", " ") in line
    assert 'tools = "compact"' in line and "-c" in line and "-np" in line
    # Tools already compact: the fix advises only what is not so.
    compact = replace(settings, compact_tools=True)
    with pytest.raises(ContextTooSmallError) as raised:
        finalize(Selection([keep(m) for m in log.memories]), history, compact, "test")
    line = str(raised.value)
    assert "compact" not in line and "llama-server -c" in line and "-np" in line
    # With room for it, the same prompt goes whole, never cut.
    roomy = replace(settings, context_window=full.tokens + 400 + 1024)
    c = finalize(Selection([keep(m) for m in log.memories]), history, roomy, "test")
    assert c.items[0].action == "synthetic"
    assert c.messages[0]["content"] == render_system_prompt(history.system_template)


def test_a_message_cut_twice_names_its_memory_and_its_real_size() -> None:
    """The note of a stored message cut to fit names its memory and the size it has in
    the store, however many cuts it took; a synthetic one gets no note to read back."""
    log = Log()
    prompt = log.direct(words(3000, "order"))
    stored = len(prompt.content)
    c = fitted(log, 900)
    content = c.messages[1]["content"]
    assert content.startswith("order0 order1")
    assert content.count("[truncated:") == 1
    assert f"the full result is {stored:,} characters" in content
    assert "memory #1" in content


def test_oversized_call_arguments_are_omitted_to_fit() -> None:
    log = Log()
    prompt = log.direct("go")
    huge = '{"route": [' + ", ".join(f'"sys_{i}"' for i in range(1500)) + "]}"
    call = log.call(("a", "travel", huge), ("b", "mine", '{"n": 1}'))
    log.result("a", "travel", "arrived")
    log.result("b", "mine", "{}")
    selection = Selection([keep(prompt, pinned=True), *(keep(m) for m in log.memories[1:])])
    full = unbounded(log, selection)
    assert count_tokens(huge) > 2000
    c = fitted(log, full.tokens - 1000, selection)
    assert c.tokens <= full.tokens - 1000
    calls = body(c)[1]["tool_calls"]
    assert calls == [
        {
            "id": "a",
            "type": "function",
            "function": {"name": "travel", "arguments": prompts.omitted_arguments(call.id)},
        },
        {"id": "b", "type": "function", "function": {"name": "mine", "arguments": '{"n": 1}'}},
    ]
    item = c.items[2]
    assert (item.action, item.memory_id) == ("truncated", call.id)
    assert item.reason == "oversized call arguments omitted to fit the context window"
    assert [m.get("tool_call_id") for m in body(c)[2:]] == ["a", "b"]


def test_placeholders_stop_as_soon_as_the_request_fits() -> None:
    log = two_big_loops()
    log.loop("c", "dock", "{}")
    full = unbounded(log)
    placeholder = fitted(log, full.tokens - 1).items[3].tokens
    # Exactly what replacing the oldest result saves: the next one stays whole.
    c = fitted(log, full.tokens - (full.items[3].tokens - placeholder))
    assert c.tokens == full.tokens - (full.items[3].tokens - placeholder)
    assert [i.action for i in c.items[3::2]] == ["placeholder", "kept", "kept"]


def test_the_exchange_before_the_closing_state_message_keeps_its_result() -> None:
    log = two_big_loops()
    history = History(
        mysis_id=1, mysis_name="test", window=tuple(log.memories), game_state="- Location: sol"
    )
    full = unbounded(log, history=history)
    assert full.items[-1].kind == "state"
    placeholder = fitted(log, full.tokens - 1, history=history).items[3].tokens
    c = fitted(log, full.tokens - (full.items[3].tokens - placeholder) - 10, history=history)
    result = next(m for m in c.messages if m.get("tool_call_id") == "b")
    assert result == full.messages[5]
    assert c.items[-1].kind == "state"


def test_the_last_exchange_s_result_is_cut_when_nothing_else_is_left() -> None:
    log = Log()
    prompt = log.direct("go")
    log.loop("a", "get_map", words(1500))
    selection = Selection([keep(prompt, pinned=True), *(keep(m) for m in log.memories[1:])])
    full = unbounded(log, selection)
    c = fitted(log, full.tokens - 1000, selection)
    assert c.tokens <= full.tokens - 1000
    assert c.items[3].action == "truncated"
    assert c.items[3].reason.endswith("(to fit the context window)")


def test_the_gap_note_s_tokens_count_against_the_window() -> None:
    log = Log()
    log.direct("old")
    log.say(words(300))
    log.loop("c", "mine", words(60, "x"))  # the result left to cut to make room
    full = unbounded(log)
    window = full.tokens - full.items[2].tokens  # no room left for the note
    c = fitted(log, window)
    assert [i.kind for i in c.items] == ["system", "note", "memory", "memory", "state"]
    assert c.tokens <= window


def test_a_placeholder_never_replaces_a_result_shorter_than_itself() -> None:
    log = Log()
    log.direct("go")
    log.loop("a", "mine", "{}")
    log.say(words(300))
    log.direct("next")
    full = unbounded(log)
    c = fitted(log, full.tokens - 1)  # one token too many: dropping "go" would do
    assert next(m for m in c.messages if m.get("tool_call_id") == "a")["content"] == "{}"


def test_a_cut_halves_the_largest_message() -> None:
    log = Log()
    log.direct(words(2500))
    full = unbounded(log)
    size = full.items[1].tokens
    c = fitted(log, full.tokens - 1000)
    assert abs(c.items[1].tokens - size // 2) <= 8


def test_a_cut_takes_more_than_half_when_that_is_needed() -> None:
    log = Log()
    log.direct(words(2500))
    full = unbounded(log)
    window = full.tokens - 4000
    c = fitted(log, window)
    assert c.tokens <= window
    assert c.items[1].tokens < full.items[1].tokens // 2


def test_a_cut_takes_only_what_is_needed_when_that_is_more_than_half() -> None:
    log = Log()
    log.direct(words(2500))
    full = unbounded(log)
    window = full.tokens - 4000
    c = fitted(log, window)
    assert window - 60 <= c.tokens <= window


def test_cuts_go_on_to_the_next_largest_message() -> None:
    log = Log()
    first = log.direct(words(500, "a"))
    log.direct(words(500, "b"))
    selection = Selection([keep(first, pinned=True), keep(log.memories[1])])
    full = unbounded(log, selection)
    window = full.tokens - 1500  # more than either message can give alone
    c = fitted(log, window, selection)
    assert c.tokens <= window
    assert [i.action for i in c.items] == ["synthetic", "truncated", "truncated", "synthetic"]
    assert c.items[0].tokens == full.items[0].tokens, "the system prompt is not cut"


def test_a_message_that_cannot_shrink_is_skipped_for_the_next() -> None:
    log = Log()
    prompt = log.direct(words(150, "go"))
    log.call(*[(f"c{i}", "mine", f'{{"n": {i}}}') for i in range(60)])  # many small calls
    for i in range(60):
        log.result(f"c{i}", "mine", "{}")
    selection = Selection([keep(prompt, pinned=True), *(keep(m) for m in log.memories[1:])])
    full = unbounded(log, selection)
    assert full.items[2].tokens > full.items[1].tokens, "the calls are the largest message"
    window = full.tokens - 150
    c = fitted(log, window, selection)
    assert c.tokens <= window
    assert (c.items[2].action, c.items[1].action) == ("kept", "truncated")
    assert c.items[0].action == "synthetic"  # the system prompt is never cut


def test_a_request_of_only_the_state_message_is_cut_to_fit() -> None:
    history = History(
        mysis_id=1,
        mysis_name="test",
        window=(),
        game_state="- Location: sol\n" + words(1000, "fact"),
    )
    full = unbounded(Log(), Selection([]), history)
    # Information is not an order: a nudge opens the request before it.
    assert [i.kind for i in full.items] == ["system", "nudge", "state"]
    c = fitted(Log(), full.tokens - 500, Selection([]), history)
    assert c.tokens <= full.tokens - 500
    assert [i.kind for i in c.items] == ["system", "nudge", "state"]
    assert [i.action for i in c.items] == ["synthetic", "synthetic", "truncated"]
    # The state message is no memory: cut with a plain mark, nothing to read back.
    state = c.messages[-1]["content"]
    assert state.endswith(prompts.CUT_NOTICE) and "zoea_read_memory" not in state


def test_a_window_smaller_than_any_request_sends_nothing_and_says_why() -> None:
    log = Log()
    for n in range(8):
        log.direct(words(50, f"w{n}"))
    selection = Selection([keep(m, pinned=True) for m in log.memories])
    history = History(mysis_id=1, mysis_name="test", window=tuple(log.memories))
    settings = ComposeSettings(context_window=300, reserve_tokens=0)
    # Finishes: every message is cut as far as it goes, and still it cannot fit.
    with pytest.raises(ContextTooSmallError) as raised:
        finalize(selection, history, settings, "test")
    error = raised.value
    assert error.system + error.history > 300 and error.context == 300
    assert error.history < sum(count_tokens(m.content) for m in log.memories)  # cut first


# -- the game state: after each turn's opening, as that turn first had it -----------


#: The account section of the histories below (no account yet; the Mysis is "test").
ACCOUNT = prompts.account_text(None, "test")


def _state_request(
    log: Log,
    *,
    turns: tuple[Turn, ...] = (),
    turn: Turn | None = None,
    game_state: str = "- Location: sol",
    broadcast: str | None = None,
) -> Composition:
    """Keep every memory; slots that open a recorded turn are marked as openings."""
    history = History(
        mysis_id=1,
        mysis_name="test",
        window=tuple(log.memories),
        game_state=game_state,
        latest_broadcast=broadcast,
        turns=turns,
        turn=turn,
    )
    starts = {t.first_memory_id for t in turns}
    slots = [replace(keep(m), opens=m.id) if m.id in starts else keep(m) for m in log.memories]
    composition = finalize(Selection(slots), history, SETTINGS, "test")
    assert validate(composition.messages) == [], composition.messages
    return composition


def _states(c: Composition) -> list[tuple[int, str, str]]:
    """(position, text, reason) of every state message."""
    return [
        (n, m["content"], c.items[n].reason)
        for n, m in enumerate(c.messages)
        if c.items[n].kind == "state"
    ]


def test_the_current_turn_keeps_the_state_it_began_with() -> None:
    log = Log()
    first = log.direct("go")
    log.loop("a", "mine", "{}")
    began = prompts.state_message("- Location: earth", None)
    turn = Turn(1, first.id, "direct", state=began)
    c = _state_request(log, turns=(turn,), turn=turn, game_state="- Location: mars")
    assert _states(c) == [(2, began, "the game state and latest broadcast when this turn began")]
    assert c.state_text == began


def test_a_turn_composed_for_the_first_time_gets_the_live_state_after_its_opening() -> None:
    log = Log()
    first = log.direct("go")
    turn = Turn(1, first.id, "direct")
    c = _state_request(log, turns=(turn,), turn=turn)
    live = prompts.state_message("- Location: sol", None, ACCOUNT)
    assert [(n, text) for n, text, _ in _states(c)] == [(2, live)]
    assert c.state_text == live


def test_earlier_turns_keep_their_recorded_state_and_unrecorded_ones_get_none() -> None:
    log = Log()
    one = log.direct("first")
    log.say("Done one.")
    two = log.direct("second")
    log.say("Done two.")
    three = log.direct("third")
    recorded = prompts.state_message("- Location: earth", None)
    turns = (
        Turn(1, one.id, "direct", state=recorded),
        Turn(1, two.id, "direct"),
        Turn(1, three.id, "direct", state=prompts.state_message("- Location: mars", None)),
    )
    c = _state_request(log, turns=turns, turn=turns[-1])
    texts = [text for _, text, _ in _states(c)]
    assert texts == [recorded, prompts.state_message("- Location: mars", None)]
    assert c.messages[2]["content"] == recorded, "right after the first turn's opening"


def test_without_the_current_opening_in_view_the_live_state_closes_the_request() -> None:
    log = Log()
    log.say("Hello.")
    log.direct("go")
    turn = Turn(1, 999, "nudge", 1, "Continue.")
    c = _state_request(log, turn=turn)
    live = prompts.state_message("- Location: sol", None, ACCOUNT)
    assert _states(c) == [
        (len(c.messages) - 1, live, "current game state and latest broadcast (volatile: sent last)")
    ]
    assert c.state_text is None


def test_a_broadcast_already_sent_as_a_user_message_is_not_repeated_in_the_state() -> None:
    log = Log()
    log.broadcast("All Myses: sell your ore.")
    c = _state_request(log, broadcast="All Myses: sell your ore.")
    assert "Swarm Broadcast" not in c.messages[-1]["content"]
    assert c.messages[-1]["content"] == prompts.state_message("- Location: sol", None, ACCOUNT)


def test_a_broadcast_only_echoed_by_the_assistant_is_still_in_the_state() -> None:
    log = Log()
    log.direct("go")
    log.say("All Myses: sell your ore.")
    log.direct("next")
    c = _state_request(log, broadcast="All Myses: sell your ore.")
    assert c.messages[-1]["content"] == prompts.state_message(
        "- Location: sol", "All Myses: sell your ore.", ACCOUNT
    )


# -- V8: call arguments are sent as JSON objects ------------------------------------


@pytest.mark.parametrize("arguments", ['{"target', "[1]", "", "null"])
def test_call_arguments_that_are_not_an_object_are_sent_as_an_empty_object(
    arguments: str,
) -> None:
    log = Log()
    log.direct("go")
    cut = log.call(("a", "travel", arguments), ("b", "get_status", '{"full": true}'))
    log.result("a", "travel", '{"error": {"code": "cut_off"}}')
    log.result("b", "get_status", "{}")
    c = finalized(log)  # validates (V8 included)
    calls = c.messages[2]["tool_calls"]
    assert [call["function"]["arguments"] for call in calls] == ["{}", '{"full": true}']
    item = c.items[2]
    assert item.memory_id == cut.id and item.action == "kept"
    assert "not a JSON object sent as {}" in item.reason
    assert cut.tool_calls[0].arguments == arguments, "the memory keeps what the model wrote"
    assert finalized(log).messages == c.messages, "the same text every time (cache-stable)"


def test_clean_messages_send_cut_arguments_as_an_object_too() -> None:
    log = Log()
    log.direct("go")
    log.call(("a", "travel", '{"target'))
    log.result("a", "travel", "cut")
    messages = clean_messages([keep(m) for m in log.memories], SETTINGS)
    assert messages[1]["tool_calls"][0]["function"]["arguments"] == "{}"


# -- the engine's calibration (token_scale) -------------------------------------------


def test_the_scale_turns_the_estimate_into_the_engines_count() -> None:
    log = two_big_loops()
    plain = unbounded(log)
    scaled = unbounded(log, token_scale=1.36)
    assert scaled.messages == plain.messages
    assert scaled.raw_tokens == plain.raw_tokens == plain.tokens
    assert scaled.tokens == -(-plain.tokens * 136 // 100)  # rounded up


def test_a_request_that_fits_the_estimate_is_cut_to_fit_the_engine() -> None:
    log = two_big_loops()
    full = unbounded(log)
    window = full.tokens + 10  # fits by the estimate alone
    assert fitted(log, window).messages == full.messages
    scaled = fitted(log, window, token_scale=1.36)
    assert scaled.tokens <= window < full.tokens * 1.36
    assert scaled.messages != full.messages
    assert scaled.raw_tokens is not None and scaled.raw_tokens <= window / 1.36


def test_the_scale_must_be_positive() -> None:
    with pytest.raises(ValueError, match="token_scale"):
        ComposeSettings(token_scale=0)

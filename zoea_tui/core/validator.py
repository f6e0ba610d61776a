"""The request rules of OpenAI and Anthropic (V1–V8 of docs/CONTEXT.md, 'API rules').

``validate_openai`` checks a chat-completions message list; ``to_anthropic``
derives the Messages-API rendering and ``validate_anthropic`` checks it. The
composer's output must pass both for every strategy and every history.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

#: A chat-completions message list (a list or a composition's tuple).
Messages = Sequence[dict[str, Any]]


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` holds (white space around it allowed), or None when it
    holds anything else: the one reading of a tool result or a payload as an object."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def is_json_object(text: str) -> bool:
    """Whether ``text`` parses as a JSON object (V8: what every server accepts as a
    call's arguments; a call cut at ``max_tokens`` leaves text such as ``{"target``)."""
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, TypeError):
        return False


def validate_openai(messages: Messages) -> list[str]:
    """Every rule the request breaks, as readable strings (empty when valid)."""
    violations: list[str] = []
    systems = [i for i, m in enumerate(messages) if m.get("role") == "system"]
    if systems != [0]:
        violations.append(f"system prompt must be first and appear once (found at {systems})")
    rest = [m for m in messages if m.get("role") != "system"]
    if not rest:
        violations.append("V5: no message after the system prompt")
        return violations
    if rest[0].get("role") != "user":
        violations.append(f"V5: first non-system message is {rest[0].get('role')!r}, not user")
    if rest[-1].get("role") not in ("user", "tool"):
        violations.append(f"V6: last message is {rest[-1].get('role')!r}")
    seen: set[str] = set()
    open_calls: dict[str, bool] | None = None
    for index, message in enumerate(messages):
        role = message.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            violations.append(f"#{index}: unknown role {role!r}")
            continue
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            violations.append(f"#{index}: content is not a string")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if open_calls is None or call_id not in open_calls:
                violations.append(
                    f"V1: #{index} tool result {call_id!r} answers no call of the "
                    "nearest preceding assistant message"
                )
            elif open_calls[call_id]:
                violations.append(f"V3: #{index} second result for {call_id!r}")
            else:
                open_calls[call_id] = True
            continue
        if open_calls is not None:
            missing = [c for c, answered in open_calls.items() if not answered]
            if missing:
                violations.append(f"V2: calls {missing} not answered before #{index}")
            open_calls = None
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not calls and not (content or "").strip():
                violations.append(f"V4: #{index} empty assistant message")
            if calls:
                open_calls = {}
                for call in calls:
                    call_id = call.get("id")
                    if not call_id:
                        violations.append(f"V3: #{index} tool call without id")
                        continue
                    if call_id in seen:
                        violations.append(f"V3: #{index} duplicate tool call id {call_id!r}")
                    seen.add(call_id)
                    open_calls[call_id] = False
                    fn = call.get("function") or {}
                    if not fn.get("name") or not isinstance(fn.get("arguments"), str):
                        violations.append(f"#{index}: malformed tool call {call_id!r}")
                    elif not is_json_object(fn["arguments"]):
                        # llama-server answers HTTP 500 "Failed to parse tool call
                        # arguments as JSON" to every later request that carries it.
                        violations.append(
                            f"V8: #{index} arguments of {call_id!r} are not a JSON object: "
                            f"{fn['arguments'][:40]!r}"
                        )
    if open_calls is not None:
        missing = [c for c, answered in open_calls.items() if not answered]
        if missing:
            violations.append(f"V2: calls {missing} never answered")
    return violations


def to_anthropic(
    messages: Messages,
) -> dict[str, Any]:
    """The Anthropic Messages rendering: ``{"system": str, "messages": [...]}``.

    Tool calls become ``tool_use`` blocks, results ``tool_result`` blocks at the
    front of the following user turn (V7); consecutive same-role turns are
    merged here on purpose; empty text blocks are never emitted.
    """
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    turns: list[dict[str, Any]] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for message in messages:
        role = message["role"]
        text = message.get("content") or ""
        if role == "system":
            continue
        if role == "assistant":
            blocks: list[dict[str, Any]] = []
            if text.strip():
                blocks.append({"type": "text", "text": text})
            for call in message.get("tool_calls") or ():
                fn = call["function"]
                try:
                    arguments = json.loads(fn["arguments"] or "{}")
                except ValueError:
                    arguments = {"_raw": fn["arguments"]}
                if not isinstance(arguments, dict):
                    arguments = {"_raw": fn["arguments"]}
                blocks.append(
                    {"type": "tool_use", "id": call["id"], "name": fn["name"], "input": arguments}
                )
            push("assistant", blocks)
        elif role == "tool":
            result = {
                "type": "tool_result",
                "tool_use_id": message["tool_call_id"],
                "content": text or "(empty)",
            }
            if turns and turns[-1]["role"] == "user":
                prior = turns[-1]["content"]
                first_text = next(
                    (i for i, b in enumerate(prior) if b["type"] == "text"), len(prior)
                )
                prior.insert(first_text, result)
            else:
                push("user", [result])
        elif text.strip():
            push("user", [{"type": "text", "text": text}])
    return {"system": system, "messages": turns}


def validate_anthropic(rendered: dict[str, Any]) -> list[str]:
    """Every Anthropic rule the rendering breaks (empty when valid)."""
    violations: list[str] = []
    turns = rendered["messages"]
    if not turns:
        return ["no messages"]
    if turns[0]["role"] != "user":
        violations.append("first turn is not a user turn")
    if turns[-1]["role"] != "user":
        violations.append("last turn is not a user turn (would be a prefill)")
    seen_uses: set[str] = set()
    for index, turn in enumerate(turns):
        if index and turns[index - 1]["role"] == turn["role"]:
            violations.append(f"turn {index}: two {turn['role']} turns in a row")
        blocks = turn["content"]
        if not blocks:
            violations.append(f"turn {index}: empty content")
        for block in blocks:
            if block["type"] == "text" and not block["text"].strip():
                violations.append(f"turn {index}: empty text block")
        uses = [b["id"] for b in blocks if b["type"] == "tool_use"]
        for call_id in uses:
            # V3; the API's "`tool_use` ids must be unique" (over the whole request).
            if call_id in seen_uses:
                violations.append(f"turn {index}: duplicate tool_use id {call_id!r}")
            seen_uses.add(call_id)
        following = turns[index + 1]["content"] if index + 1 < len(turns) else []
        results = [b["tool_use_id"] for b in following if b["type"] == "tool_result"]
        if uses and sorted(uses) != sorted(results):
            violations.append(
                f"turn {index}: tool_use ids {uses} not answered by the next turn (got {results})"
            )
        kinds = [b["type"] for b in blocks]
        if "tool_result" in kinds:
            last_result = max(i for i, k in enumerate(kinds) if k == "tool_result")
            if any(k != "tool_result" for k in kinds[:last_result]):
                violations.append(f"turn {index}: tool_result blocks must come first")
            previous = turns[index - 1]["content"] if index else []
            called = {b["id"] for b in previous if b["type"] == "tool_use"}
            for b in blocks:
                if b["type"] == "tool_result" and b["tool_use_id"] not in called:
                    violations.append(f"turn {index}: unexpected tool_use_id {b['tool_use_id']}")
    return violations


def well_formed(messages: Messages) -> bool:
    """Whether every message has the shape ``to_anthropic`` renders.

    Known roles, string (or absent) content, tool calls with an id, a name and
    string arguments, tool results with an id. ``validate_openai`` reports each
    departure; this only says whether there is a rendering to check.
    """
    for message in messages:
        role = message.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            return False
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            return False
        if role == "tool" and not message.get("tool_call_id"):
            return False
        for call in message.get("tool_calls") or ():
            fn = call.get("function") or {}
            if not call.get("id") or not fn.get("name") or not isinstance(fn.get("arguments"), str):
                return False
    return True


def validate(messages: Messages) -> list[str]:
    """OpenAI rules, then the Anthropic rendering's rules.

    A request that is not well formed has no Anthropic rendering; its OpenAI
    violations already say what is wrong.
    """
    violations = validate_openai(messages)
    if well_formed(messages):
        violations += [f"anthropic: {v}" for v in validate_anthropic(to_anthropic(messages))]
    return violations

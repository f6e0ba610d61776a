"""The shared guarantees, applied to every strategy's selection.

Every composed request passes through :func:`finalize`, which makes it valid
under the OpenAI and Anthropic rules (V1–V8 of docs/CONTEXT.md, 'API rules'), caps
each tool result, keeps the whole request inside the model's context window,
and records the provenance of every message. Strategies only choose; this
module is the one place where requests are made correct.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from . import prompts
from .composition import (
    ComposeSettings,
    Composition,
    ContextTooSmallError,
    Dropped,
    History,
    Item,
)
from .selection import Selection, Slot, nudge, synthetic_user
from .tokens import (
    REQUEST_OVERHEAD,
    count_tokens,
    message_tokens,
    truncate_to_tokens,
)
from .turns import current_turn
from .types import ToolCall
from .validator import is_json_object

Block = list[Slot]

#: What a stored call's arguments are sent as when they are not a JSON object (a call
#: cut at ``max_tokens``, or a model that wrote a list): the one form every server
#: parses (V8). The stored memory keeps what the model wrote; the tool result that
#: answers the call says what was wrong with it.
INVALID_ARGUMENTS_SENT = "{}"


@dataclass(slots=True)
class _Rendered:
    slot: Slot
    message: dict[str, Any]
    tokens: int


def finalize(
    selection: Selection,
    history: History,
    settings: ComposeSettings,
    strategy: str,
    *,
    uses_nudge: bool = False,
) -> Composition:
    """Turn a strategy's selection into a valid, bounded, explained request."""
    dropped: dict[int, str] = dict(selection.dropped)
    slots, state_text = _with_state(selection.slots, history, settings)
    slots = _drop_unsendable(slots, dropped)
    blocks = _pair_tool_calls(slots, dropped)
    blocks = _fix_edges(blocks, settings, _opening_id(history))

    system_slot = Slot(
        role="system",
        content=prompts.render_system_prompt(history.system_template),
        kind="system",
        action="synthetic",
        reason="rendered from the system prompt template",
        pinned=True,
    )

    rendered = [[_render(s, settings) for s in block] for block in blocks]
    system = _render(system_slot, settings)
    system, rendered, fits = _fit_budget(system, rendered, settings, dropped)

    flat = [system, *(r for block in rendered for r in block)]
    kept_ids = {r.slot.memory_id for r in flat if r.slot.memory_id is not None}
    for memory in history.window:
        if memory.id not in kept_ids:
            dropped.setdefault(memory.id, selection.default_drop_reason)
    for memory_id in list(dropped):
        if memory_id in kept_ids:
            del dropped[memory_id]

    items = tuple(
        Item(
            role=r.slot.role,
            kind=r.slot.kind,
            action=r.slot.action,
            tokens=r.tokens,
            memory_id=r.slot.memory_id,
            reason=r.slot.reason,
        )
        for r in flat
    )
    total = REQUEST_OVERHEAD + settings.tools_tokens + sum(r.tokens for r in flat)
    composition = Composition(
        strategy=strategy,
        messages=tuple(r.message for r in flat),
        items=items,
        dropped=tuple(Dropped(i, dropped[i]) for i in sorted(dropped)),
        tokens=settings.engine_tokens(total),
        raw_tokens=total,
        uses_nudge=uses_nudge or any(r.slot.kind == "nudge" for r in flat),
        state_text=state_text,
    )
    if not fits:
        # Nothing left to cut: the system prompt and the tools leave too little room.
        raise ContextTooSmallError.of(
            settings,
            system=REQUEST_OVERHEAD + system.tokens,
            history=total - REQUEST_OVERHEAD - settings.tools_tokens - system.tokens,
            least=composition,
        )
    return composition


def _with_state(
    slots: list[Slot], history: History, settings: ComposeSettings
) -> tuple[list[Slot], str | None]:
    """Put what is particular to this Mysis and turn (its account, the game state, the
    latest broadcast) where a cache keeps it: after the system prompt and the tools,
    which the whole swarm shares byte for byte.

    Each turn's facts stand right after its opening, as its first request had them
    (recorded with the turn), so they do not move while the turn goes on; a turn whose
    first request is being composed gets the current facts there. When the current
    turn's opening is not sent, the current facts close the request instead. Returns
    the slots and the text placed after the current turn's opening (None: not placed).
    """
    turn = current_turn(history, settings)
    broadcast = history.latest_broadcast
    if broadcast is not None and any(s.role == "user" and s.content == broadcast for s in slots):
        broadcast = None  # already in view as a message
    account = prompts.account_text(history.account, history.mysis_name)
    live = prompts.state_message(history.game_state, broadcast, account)
    recorded = {t.first_memory_id: t.state for t in history.turns if t.state}
    out: list[Slot] = []
    placed: str | None = None
    for slot in slots:
        out.append(slot)
        if slot.opens is None:
            continue
        if slot.opens == turn.first_memory_id:
            text = turn.state if turn.state is not None else live
            placed = text
        else:
            text = recorded.get(slot.opens, "")
        if text:
            out.append(
                synthetic_user(
                    text, "state", "the game state and latest broadcast when this turn began"
                )
            )
    if placed is None and live:
        out.append(
            synthetic_user(
                live, "state", "current game state and latest broadcast (volatile: sent last)"
            )
        )
    return out, placed


def clean_messages(slots: list[Slot], settings: ComposeSettings) -> list[dict[str, Any]]:
    """The history cleaning of ``summarize`` (docs/CONTEXT.md, 'summarize'): every call
    answered (``Tool no response``), orphans removed, results capped, and never
    ending on a tool message."""
    dropped: dict[int, str] = {}
    blocks = _pair_tool_calls(_drop_unsendable(slots, dropped), dropped)
    messages = [_render(s, settings).message for block in blocks for s in block]
    if messages and messages[-1]["role"] == "tool":
        messages.append({"role": "assistant", "content": "Understood."})
    return messages


def _drop_unsendable(slots: list[Slot], dropped: dict[int, str]) -> list[Slot]:
    """Remove stored system rows and empty messages (V4); mark empty results."""
    out: list[Slot] = []
    for slot in slots:
        if slot.role == "system":
            if slot.memory is not None:
                dropped.setdefault(
                    slot.memory.id,
                    "system rows are not replayed; the system prompt is rendered per request",
                )
            continue
        if slot.role in ("assistant", "user") and not slot.tool_calls and not slot.content.strip():
            if slot.memory is not None:
                dropped.setdefault(slot.memory.id, f"empty {slot.role} message")
            continue
        if slot.role == "tool" and not slot.content.strip():
            slot = slot.with_content(
                prompts.EMPTY_TOOL_RESULT, slot.action, "the tool returned nothing"
            )
        out.append(slot)
    return out


def _pair_tool_calls(slots: list[Slot], dropped: dict[int, str]) -> list[Block]:
    """Group calls with their results; repair what is missing or orphaned (V1–V3)."""
    blocks: list[Block] = []
    consumed: set[int] = set()
    seen_ids: set[str] = set()
    called: set[str] = set()  # the original ids of the calls met so far
    for index, slot in enumerate(slots):
        if index in consumed:
            continue
        if slot.role == "tool":
            if slot.memory is not None:
                dropped.setdefault(
                    slot.memory.id,
                    (
                        "duplicate tool result: its call is answered by an earlier one"
                        if slot.tool_call_id in called
                        else "orphaned tool result: its call is not in the request"
                    ),
                )
            continue
        if not slot.tool_calls:
            blocks.append([slot])
            continue
        calls, renamed = _unique_calls(slot, seen_ids)
        called.update(renamed)
        results: dict[str, Slot] = {}
        for later in range(index + 1, len(slots)):
            other = slots[later]
            if other.role == "assistant" and other.tool_calls:
                break
            if other.role != "tool" or later in consumed:
                continue
            original = other.tool_call_id or ""
            if original in renamed and renamed[original] not in results:
                new_id = renamed[original]
                moved = later > index + 1 + len(results) and any(
                    s.role != "tool" for s in slots[index + 1 : later]
                )
                reason = other.reason or ("moved next to its call" if moved else "")
                results[new_id] = (
                    other
                    if new_id == original and reason == other.reason
                    else replace(other, tool_call_id=new_id, reason=reason)
                )
                consumed.add(later)
        block: Block = [slot if calls == slot.tool_calls else replace(slot, tool_calls=calls)]
        for call in calls:
            result = results.get(call.id)
            if result is None:
                result = Slot(
                    role="tool",
                    content=prompts.MISSING_TOOL_RESULT,
                    kind="placeholder",
                    action="synthetic",
                    tool_call_id=call.id,
                    tool_name=call.name,
                    pinned=slot.pinned,
                    reason="no result was stored for this call",
                )
            block.append(result)
        blocks.append(block)
    return blocks


def _unique_calls(slot: Slot, seen_ids: set[str]) -> tuple[tuple[ToolCall, ...], dict[str, str]]:
    """Give every call a unique, deterministic id; map original ids to new ones."""
    calls: list[ToolCall] = []
    renamed: dict[str, str] = {}
    anchor = slot.memory_id if slot.memory_id is not None else 0
    for position, call in enumerate(slot.tool_calls):
        new_id = call.id
        if not new_id or new_id in seen_ids:
            base = f"call_m{anchor}_{position}"
            new_id, suffix = base, 1
            while new_id in seen_ids:
                new_id, suffix = f"{base}_{suffix}", suffix + 1
        seen_ids.add(new_id)
        renamed.setdefault(call.id, new_id)
        calls.append(call if new_id == call.id else replace(call, id=new_id))
    return tuple(calls), renamed


def _opening_id(history: History) -> int | None:
    """The Mysis's first memory, when the scan window starts with it (else None)."""
    if history.before_window_id is None and history.window:
        return history.window[0].id
    return None


def _fix_edges(
    blocks: list[Block], settings: ComposeSettings, opening_id: int | None = None
) -> list[Block]:
    """First message a user message (V5); last a user or tool message (V6)."""
    if all([s.kind for s in block] == ["state"] for block in blocks):
        # Nothing to answer but the state message (information, not an order).
        return [[nudge(settings.nudge_level, "empty history")], *blocks]
    if blocks[0][0].role != "user":
        first = blocks[0][0].memory_id
        text = prompts.START_NOTE if first is not None and first == opening_id else prompts.GAP_NOTE
        note = synthetic_user(text, "note", "the request must open with a user message")
        blocks = [[note], *blocks]
    # A closing state message is information, not an order: look past it.
    end = len(blocks)
    while end > 1 and [s.kind for s in blocks[end - 1]] == ["state"]:
        end -= 1
    last = blocks[end - 1][-1]
    if last.role == "assistant" or (
        last.role == "user" and last.kind == "note" and not last.carries_on
    ):
        blocks.insert(
            end, [nudge(settings.nudge_level, "the request must end with a user message")]
        )
    return blocks


def _render(slot: Slot, settings: ComposeSettings) -> _Rendered:
    """The OpenAI message of a slot, with tool results capped and call arguments that
    every server parses (V8)."""
    slot = _with_object_arguments(slot)
    content = slot.content
    content_tokens: int | None = None
    if slot.memory is not None and slot.memory.tokens and slot.content is slot.memory.content:
        content_tokens = slot.memory.tokens
    if slot.role == "tool":
        if content_tokens is None:
            content_tokens = count_tokens(content)
        if content_tokens > settings.tool_result_max_tokens:
            slot = _truncated(
                slot,
                content_tokens,
                settings.tool_result_max_tokens,
                "longer than the per-result cap",
            )
            content = slot.content
            content_tokens = None
    message: dict[str, Any] = {"role": slot.role, "content": content}
    if slot.tool_calls:
        message["tool_calls"] = [c.to_openai() for c in slot.tool_calls]
    if slot.role == "tool":
        message["tool_call_id"] = slot.tool_call_id
    return _Rendered(slot, message, message_tokens(message, content_tokens))


def _with_object_arguments(slot: Slot) -> Slot:
    """``slot`` with each call whose arguments are not a JSON object sent as ``{}``."""
    if all(is_json_object(c.arguments) for c in slot.tool_calls):
        return slot
    calls = tuple(
        c if is_json_object(c.arguments) else replace(c, arguments=INVALID_ARGUMENTS_SENT)
        for c in slot.tool_calls
    )
    why = "call arguments that are not a JSON object sent as {} (the memory keeps them)"
    return replace(slot, tool_calls=calls, reason=f"{slot.reason}; {why}" if slot.reason else why)


def _truncated(slot: Slot, total_tokens: int, cap: int, why: str) -> Slot:
    """``slot`` cut to about ``cap`` tokens. A stored message is cut from its whole text
    (a second cut too), with the note naming the memory and its real size; a synthetic
    one (the game state, a note) gets a plain mark: it is no memory to read back."""
    memory = slot.memory
    if memory is not None and slot.kind == "memory":
        whole = memory.content
        total_tokens = memory.tokens or count_tokens(whole)
        notice = prompts.truncation_notice(memory.id, len(whole), total_tokens)
    else:
        whole = slot.content
        notice = (
            prompts.truncation_notice(memory.id, len(whole), total_tokens)
            if memory is not None
            else prompts.CUT_NOTICE
        )
    room = max(cap - count_tokens(notice), 16)
    head = truncate_to_tokens(whole, room)
    reason = f"truncated to {cap:,} of ~{total_tokens:,} tokens ({why})"
    return replace(slot, content=head + notice, action="truncated", reason=reason)


def _fit_budget(
    system: _Rendered,
    blocks: list[list[_Rendered]],
    settings: ComposeSettings,
    dropped: dict[int, str],
) -> tuple[_Rendered, list[list[_Rendered]], bool]:
    """Shrink the request until it fits the context window (guarantee 3); False with
    the least request it could make when that does not fit either.

    In order: old tool results become placeholders, then the oldest unpinned
    blocks go, then the largest remaining messages are cut down. The system prompt is
    never cut: when it and the tools leave no room for what is left of the history and
    the answer, :func:`finalize` raises :class:`ContextTooSmallError` with the numbers
    (nothing is sent).
    """
    # Counted in estimated tokens: the engine's budget divided by its calibration.
    budget = settings.estimate_budget - REQUEST_OVERHEAD - settings.tools_tokens
    total = system.tokens + sum(r.tokens for block in blocks for r in block)
    if total <= budget:
        return system, blocks, True
    # The newest exchange keeps its results whole (the state message closes the request).
    last = max(
        (b for b, block in enumerate(blocks) if block[0].slot.kind != "state"),
        default=len(blocks) - 1,
    )
    for b, block in enumerate(blocks):
        for i, r in enumerate(block):
            if total <= budget:
                return system, blocks, True
            if (
                r.slot.role == "tool"
                and not r.slot.pinned
                and b != last
                and r.slot.action in ("kept", "truncated")
            ):
                text = prompts.placeholder_omitted(
                    r.slot.tool_name or "tool", r.slot.memory_id or 0, "to fit the context window"
                )
                placeholder = _render(
                    r.slot.with_content(text, "placeholder", "omitted to fit the context window"),
                    settings,
                )
                if placeholder.tokens < r.tokens:  # a short result stays: it costs less
                    block[i] = placeholder
                    total += placeholder.tokens - r.tokens
    kept: list[list[_Rendered]] = []
    for b, block in enumerate(blocks):
        if total > budget and b < last and not any(r.slot.pinned for r in block):
            for r in block:
                if r.slot.memory_id is not None:
                    dropped[r.slot.memory_id] = "dropped to fit the context window"
            total -= sum(r.tokens for r in block)
            continue
        kept.append(block)
    blocks = kept
    if blocks and blocks[0][0].slot.role != "user":
        note = _render(
            synthetic_user(prompts.GAP_NOTE, "note", "the request must open with a user message"),
            settings,
        )
        blocks.insert(0, [note])
        total += note.tokens
    exhausted: set[tuple[int, int]] = set()
    while total > budget:
        candidates = [
            (r.tokens, b, i)
            for b, block in enumerate(blocks)
            for i, r in enumerate(block)
            if (b, i) not in exhausted
        ]
        if not candidates:
            return system, blocks, False  # the window is smaller than any request
        tokens, b, i = max(candidates)
        target = blocks[b][i]
        # The cap is on the content; the message's own overhead stays whatever is cut.
        content = count_tokens(target.slot.content)
        overhead = max(tokens - content, 0)
        cap = max(min(content // 2, tokens - (total - budget) - overhead), 16)
        new = _render(_shrunk(target.slot, cap), settings)
        if new.tokens >= target.tokens:
            exhausted.add((b, i))
            continue
        total += new.tokens - target.tokens
        blocks[b][i] = new
    return system, blocks, True


def _shrunk(slot: Slot, cap: int) -> Slot:
    """``slot`` cut to about ``cap`` tokens: its text, then oversized arguments."""
    content_tokens = count_tokens(slot.content)
    if content_tokens > cap:
        return _truncated(slot, content_tokens, cap, "to fit the context window")
    calls = tuple(
        replace(c, arguments=prompts.omitted_arguments(slot.memory_id))
        if count_tokens(c.arguments) > cap
        else c
        for c in slot.tool_calls
    )
    if calls != slot.tool_calls:
        return replace(
            slot,
            tool_calls=calls,
            action="truncated",
            reason="oversized call arguments omitted to fit the context window",
        )
    return slot

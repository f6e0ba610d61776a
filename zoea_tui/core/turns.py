"""Turns in a composition: where the current one began, and the nudges that opened turns.

The orchestrator records every turn's start (the ``turns`` table): a prompt-started
turn begins at its prompt memory, a nudge- or start-opened turn after the newest
memory of its time, with the exact text the model received. The composer puts that
text back where it was received, once, so a turn is sent as the model lived it.
Histories with no recorded turn (an imported conversation) get one inferred the way
``turn-aware`` finds its boundary (docs/CONTEXT.md, 'Turns and nudges'): the latest
prompt source, else a synthetic nudge.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from . import prompts
from .composition import ComposeSettings, History
from .loops import find_last_user_prompt_index
from .selection import Slot, keep, synthetic_user
from .types import Memory, Turn


def current_turn(history: History, settings: ComposeSettings) -> Turn:
    """The recorded current turn, or the one the turn boundary gives."""
    if history.turn is not None:
        return history.turn
    window = history.window
    index = find_last_user_prompt_index(window)
    if index >= 0:
        prompt = window[index]
        return Turn(history.mysis_id, prompt.id, prompt.source)  # type: ignore[arg-type]
    if history.latest_prompt is not None:
        prompt = history.latest_prompt
        return Turn(history.mysis_id, prompt.id, prompt.source)  # type: ignore[arg-type]
    level = max(settings.nudge_level, 1)
    first = window[-1].id + 1 if window else 1
    return Turn(history.mysis_id, first, "nudge", level, prompts.nudge_text(level))


def turn_prompt(history: History, turn: Turn) -> Memory | None:
    """The prompt memory that started ``turn`` (None for nudge and start turns)."""
    if turn.synthetic:
        return None
    for memory in history.window:
        if memory.id == turn.first_memory_id:
            return memory
    for candidate in (history.turn_first, history.latest_prompt):
        if candidate is not None and candidate.id == turn.first_memory_id:
            return candidate
    return None


def opening_slot(history: History, turn: Turn, *, pinned: bool = True) -> Slot | None:
    """The message that opened ``turn``: its prompt memory, or its nudge text."""
    reason = f"turn start ({turn.describe()})"
    if turn.synthetic:
        text = turn.text or prompts.nudge_text(turn.nudge_level)
        slot = synthetic_user(text, "nudge", reason, pinned=pinned)
    else:
        prompt = turn_prompt(history, turn)
        if prompt is None:
            return None
        slot = keep(prompt, pinned=pinned, reason=reason)
    return replace(slot, opens=turn.first_memory_id)


def place_openings(
    slots: Sequence[Slot], history: History, turns: Iterable[Turn], *, after_id: int | None
) -> list[Slot]:
    """Insert the nudge text of each synthetic turn that began after memory ``after_id``
    (None: from the first memory) before the turn's first sent memory.

    A turn whose memories come after every slot (it has just begun) gets its text at
    the end; turns that began earlier than ``after_id`` are not part of what is sent.
    """
    out = list(slots)
    lower = after_id if after_id is not None else 0
    starts = {t.first_memory_id for t in turns if not t.synthetic}
    out = [
        replace(s, opens=s.memory_id)
        if s.memory_id in starts and s.opens is None and s.role == "user"
        else s
        for s in out
    ]
    for turn in sorted(
        (t for t in turns if t.synthetic and t.first_memory_id > lower),
        key=lambda t: t.first_memory_id,
        reverse=True,
    ):
        at = next(
            (
                i
                for i, s in enumerate(out)
                if s.memory_id is not None
                and s.memory_id >= turn.first_memory_id
                and s.kind != "summary"
            ),
            len(out),
        )
        slot = opening_slot(history, turn)
        assert slot is not None
        out.insert(at, slot)
    return out


def turns_in_view(history: History, settings: ComposeSettings) -> list[Turn]:
    """The recorded turns of what was loaded, with the current one (inferred if need be)."""
    turns = {t.first_memory_id: t for t in history.turns}
    turn = current_turn(history, settings)
    turns[turn.first_memory_id] = turn
    return list(turns.values())

"""Turns and tool loops in a list of memories (docs/CONTEXT.md)."""

from __future__ import annotations

from collections.abc import Sequence

from .types import Memory


def find_last_user_prompt_index(memories: Sequence[Memory]) -> int:
    """Index of the most recent prompt source (the turn boundary), or -1."""
    for index in range(len(memories) - 1, -1, -1):
        if memories[index].is_prompt:
            return index
    return -1


def select_prompt_source(memories: Sequence[Memory]) -> Memory | None:
    """The turn start of ``loop-slice``: the most recent of a commander direct message, a
    commander broadcast or a swarm broadcast (most recent wins)."""
    index = find_last_user_prompt_index(memories)
    return memories[index] if index >= 0 else None


def extract_latest_tool_loop(memories: Sequence[Memory]) -> list[Memory]:
    """The newest assistant message with tool calls and the tool results that answer it.

    As in the seed, the results are those right after the call; a prompt stored while
    the calls ran (a commander message that landed between two results) is passed
    over, so every stored result is sent as stored rather than as "Tool no response".
    The loop ends at the next assistant message; a second result for the same call is
    not part of it.
    """
    for index in range(len(memories) - 1, -1, -1):
        call = memories[index]
        if not call.has_tool_calls:
            continue
        wanted = {c.id for c in call.tool_calls}
        loop = [call]
        for later in memories[index + 1 :]:
            if later.role == "assistant" or not wanted:
                break
            if later.role == "tool" and later.tool_call_id in wanted:
                wanted.discard(later.tool_call_id)
                loop.append(later)
        return loop
    return []

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
    """The newest assistant message with tool calls and the tool results that
    immediately follow it (stopping at the first non-tool message)."""
    for index in range(len(memories) - 1, -1, -1):
        if memories[index].has_tool_calls:
            loop = [memories[index]]
            for later in memories[index + 1 :]:
                if later.role != "tool":
                    break
                loop.append(later)
            return loop
    return []


def split_loops(memories: Sequence[Memory]) -> list[list[Memory]]:
    """Group memories into units: an assistant call with its following results,
    or any other single message."""
    units: list[list[Memory]] = []
    for memory in memories:
        if memory.role == "tool" and units and (units[-1][0].has_tool_calls):
            units[-1].append(memory)
        else:
            units.append([memory])
    return units

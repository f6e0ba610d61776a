"""Which turn a Mysis's next request belongs to (one rule for the runtime and the CLI)."""

from __future__ import annotations

from ..core import prompts
from ..core.types import Turn
from ..storage import Store


async def next_turn(
    store: Store,
    mysis_id: int,
    *,
    sent_upto: int,
    nudges: int,
    max_nudges: int,
    fresh: bool,
    answering: bool,
) -> Turn:
    """The turn to begin (not stored): a prompt nobody has sent yet starts a turn at that
    prompt; a Mysis just started with nothing to answer begins a ``start`` turn;
    otherwise the next turn is the nudge at the next encouragement level.

    ``sent_upto``: the newest memory a sent request had seen; ``fresh``: the Mysis was
    just started; ``answering``: a prompt was delivered and is about to be answered.
    """
    if answering or fresh:
        prompt = await store.first_prompt_after(mysis_id, sent_upto)
        if prompt is not None:
            return Turn(mysis_id, prompt.id, prompt.source)  # type: ignore[arg-type]
    first = (await store.latest_memory_id(mysis_id) or 0) + 1
    if fresh:
        return Turn(mysis_id, first, "start", 0, prompts.nudge_text(1))
    level = min(nudges + 1, max_nudges)
    return Turn(mysis_id, first, "nudge", level, prompts.nudge_text(level))

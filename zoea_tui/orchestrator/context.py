"""The next request of a Mysis: load, compose, and write a due summary.

The orchestrator, the live preview and ``zoea context`` call
:func:`next_composition`, so they all see the same request.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.compose import compose
from ..core.composition import ComposeSettings, Composition, ContextTooSmallError, History
from ..core.strategies.summarize import summary_content
from ..core.summarizer import ExtractiveSummarizer, Summarizer
from ..core.types import Turn
from ..storage import NewMemory, Store

#: Summaries a model writes again for one request when prompts keep coming meanwhile.
REWRITES_BY_MODEL = 2


async def next_composition(
    store: Store,
    mysis_id: int,
    strategy: str,
    settings: ComposeSettings,
    *,
    summarizer: Summarizer | None = None,
    write_summary: bool = True,
    game_state: str = "",
    turn: Turn | None = None,
) -> Composition:
    """Compose what the Mysis will send next.

    Under ``summarize``, when the history passes the threshold, the summary is
    written (by ``summarizer``, else the extractive one), stored as a
    ``summary`` memory, and the request is composed again from it; a summary of a
    history that grew meanwhile (a prompt came) is written again (by the extractive
    summarizer after :data:`REWRITES_BY_MODEL` tries). With
    ``write_summary=False`` (a preview) the pending request is returned as is,
    its ``summary_request`` telling that a summary is due. ``turn`` is the turn
    the request belongs to (else the latest recorded one).
    """
    history = await store.load_history(
        mysis_id, settings, strategy=strategy, game_state=game_state, turn=turn
    )
    composition = _with_inputs(_compose(history, strategy, settings), history)
    request = composition.summary_request
    writer = summarizer or ExtractiveSummarizer()
    rewrites = 0
    while request is not None and write_summary:
        text = await writer.summarize(request)
        summary = NewMemory(
            "user", "summary", summary_content(text, request.last_request, request.max_tokens)
        )
        stored = await store.add_summary(
            mysis_id, summary, composed_upto=composition.last_memory_id
        )
        if stored is None:
            # A prompt came while the summary was written: stored after it, the summary
            # would hide what it never saw, so it is written again over the history as it
            # is; after REWRITES_BY_MODEL by the model, by the extractive summarizer, which
            # takes no time for prompts to come in (a chatty swarm, a slow model).
            rewrites += 1
            if rewrites >= REWRITES_BY_MODEL:
                writer = ExtractiveSummarizer()
        history = await store.load_history(
            mysis_id, settings, strategy=strategy, game_state=game_state, turn=turn
        )
        composition = _with_inputs(_compose(history, strategy, settings), history)
        request = None if stored is not None else composition.summary_request
    return composition


def _compose(history: History, strategy: str, settings: ComposeSettings) -> Composition:
    """``compose``; a request too large for the window raises with its least request
    carrying the inputs it saw, as any composition does."""
    try:
        return compose(history, strategy, settings)
    except ContextTooSmallError as error:
        if error.least is not None:
            error.least = _with_inputs(error.least, history)
        raise


def _with_inputs(composition: Composition, history: History) -> Composition:
    """The composition with the volatile inputs it saw (kept with the logged request)."""
    return replace(
        composition,
        game_state=history.game_state,
        latest_broadcast=history.latest_broadcast,
        account=history.account,
    )

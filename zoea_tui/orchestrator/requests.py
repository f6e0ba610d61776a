"""Logged requests, recomposed: what ``zoea replay`` and the request inspector read.

A request is recomposed from the log alone: the memories up to the newest one it saw,
its turn (with the nudge and game state it carried), its nudge level and tool-schema
tokens, and, since migration 008, the settings, game state and latest broadcast it was
composed with. The messages' digest, logged with the request, tells whether the
recomposition is byte-identical to what was sent.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from ..core.compose import compose
from ..core.composition import ComposeSettings, Composition
from ..core.request_diff import RequestDiff, diff_requests
from ..core.types import Memory
from ..storage import RequestRecord, Store
from ..storage.records import messages_digest
from ..storage.story import answer_of, get_request, previous_request

_KNOBS = {f.name for f in fields(ComposeSettings)}


def recorded_settings(request: RequestRecord, fallback: ComposeSettings) -> ComposeSettings:
    """The settings the request was composed with (``fallback`` for older logs), with its
    nudge level and tool-schema tokens."""
    knobs = request.recorded_inputs().get("settings") or {}
    chosen = {k: v for k, v in knobs.items() if k in _KNOBS}
    if chosen:  # logged before the engine's calibration: composed uncalibrated
        chosen.setdefault("token_scale", 1.0)
    if "snapshot_tools" in chosen:
        chosen["snapshot_tools"] = tuple(chosen["snapshot_tools"])
    settings = replace(fallback, **chosen) if chosen else fallback
    return replace(settings, nudge_level=request.nudge_level, tools_tokens=request.tools_tokens)


async def recompose(
    store: Store,
    request: RequestRecord,
    settings: ComposeSettings,
    *,
    strategy: str | None = None,
    as_sent: bool = False,
) -> Composition:
    """A logged request recomposed from the log, under ``strategy`` (default: its own).

    ``as_sent``: with the settings, game state and latest broadcast recorded with the
    request (the inspector: byte-identical to what was sent); else with ``settings``
    (``zoea replay`` compares strategies under today's settings).
    """
    inputs = request.recorded_inputs() if as_sent else {}
    chosen = (
        recorded_settings(request, settings)
        if as_sent
        else replace(settings, nudge_level=request.nudge_level, tools_tokens=request.tools_tokens)
    )
    name = strategy or request.strategy
    # The request's own turn: its nudge is recomposed as the model received it.
    turn = await store.get_turn(request.turn_id) if request.turn_id is not None else None
    history = await store.load_history(
        request.mysis_id,
        chosen,
        strategy=name,
        up_to_id=request.last_memory_id or 0,
        turn=turn,
        game_state=inputs.get("game_state", ""),
    )
    if inputs:
        history = replace(
            history,
            latest_broadcast=inputs.get("latest_broadcast"),
            account=inputs.get("account", history.account),
        )
    return compose(history, name, chosen)


@dataclass(frozen=True, slots=True)
class RequestInspection:
    """One logged request as the inspector shows it."""

    record: RequestRecord
    #: What was sent, recomposed from the log.
    composition: Composition
    #: True: byte-identical to what was sent (the logged digest); False: it differs;
    #: None: logged before digests were kept.
    identical: bool | None
    #: The assistant memory the request produced (None: it failed or was cut off).
    answer: Memory | None
    previous: RequestRecord | None
    diff: RequestDiff | None


async def inspect_request(
    store: Store, request_id: int, settings: ComposeSettings
) -> RequestInspection | None:
    """Recompose a logged request, find its answer, and diff it against the previous
    request of the same Mysis (None: no such request)."""
    record = await get_request(store, request_id)
    if record is None:
        return None
    composition = await recompose(store, record, settings, as_sent=True)
    identical = (
        None if record.digest is None else messages_digest(composition.messages) == record.digest
    )
    previous = await previous_request(store, record)
    diff = None
    if previous is not None:
        before = await recompose(store, previous, settings, as_sent=True)
        diff = diff_requests(
            before, composition, new_turn=_turn_start(before) != _turn_start(composition)
        )
    return RequestInspection(
        record, composition, identical, await answer_of(store, record), previous, diff
    )


def _turn_start(composition: Composition) -> int | None:
    """Where the composition's turn began (the same for every request of one turn)."""
    return composition.turn.first_memory_id if composition.turn is not None else None

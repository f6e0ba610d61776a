"""What the store keeps, as records: Myses, memories, turns, broadcasts, accounts and
logged requests, and how a row becomes one. Every part of the store reads these."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..core.cache import serialize
from ..core.composition import ComposeSettings
from ..core.prompts import SYSTEM_PROMPT_TEMPLATE
from ..core.tokens import RequestTokens
from ..core.types import Memory, Turn, tool_calls_from_json
from .request_log import (
    compact,
    decode_items,
    inputs_text,
    shape_ids,
)

#: An id past every stored row's: the upper bound of a page or a scan that has none.
NO_END = 2**62

#: The columns a memory row reads, in order, each named as its field of :class:`Memory`
#: (a row becomes a record by these names: :func:`_memory`).
_MEMORY_FIELDS = (
    "id",
    "mysis_id",
    "role",
    "source",
    "sender_id",
    "content",
    "reasoning",
    "tool_calls",
    "tool_call_id",
    "tool_name",
    "created_at",
    "game_tick",
    "tokens",
    "seq",
)
_MEMORY_COLUMNS = ", ".join(_MEMORY_FIELDS)
#: The columns a turn row reads, in order, each named as its field of :class:`Turn`.
_TURN_FIELDS = (
    "id",
    "mysis_id",
    "first_memory_id",
    "kind",
    "nudge_level",
    "text",
    "created_at",
    "game_tick",
    "state",
)
_TURN_COLUMNS = ", ".join(_TURN_FIELDS)


@dataclass(frozen=True, slots=True)
class Account:
    """A game account of the pool. ``password`` never leaves the router."""

    id: int
    server: str
    username: str
    password: str = field(repr=False)
    empire: str | None = None
    mysis_id: int | None = None


@dataclass(frozen=True, slots=True)
class MysisRecord:
    """A Mysis as stored."""

    id: int
    name: str
    provider: str
    model: str
    strategy: str
    state: str
    last_error: str | None
    system_prompt: str | None
    account: str | None
    created_at: float
    updated_at: float

    @property
    def system_template(self) -> str:
        """The Mysis's own system prompt template, or the built-in one."""
        return self.system_prompt or SYSTEM_PROMPT_TEMPLATE


@dataclass(frozen=True, slots=True)
class Broadcast:
    """A broadcast as stored (sender None: the commander)."""

    id: int
    sender_id: str | None
    content: str
    created_at: float
    game_tick: int | None = None


class LoggedTokens:
    """The prompt token figures of a logged request, read one way by every record of it
    (the whole :class:`RequestRecord`, the inspector's ``story.RequestSummary``)."""

    __slots__ = ()
    estimated_tokens: int
    prompt_tokens: int | None
    cached_tokens: int | None

    @property
    def tokens(self) -> RequestTokens:
        """Its prompt tokens, every figure (``core.tokens.RequestTokens``)."""
        return RequestTokens(self.estimated_tokens, self.prompt_tokens, self.cached_tokens)


@dataclass(frozen=True, slots=True)
class RequestRecord(LoggedTokens):
    """One logged LLM call."""

    id: int
    mysis_id: int
    created_at: float
    strategy: str
    last_memory_id: int | None
    nudge_level: int
    #: The composition's items (``Item.to_dict`` without the tokens, which a
    #: recomposition counts again; ``memory_id`` None when thinned).
    items: list[dict[str, Any]]
    estimated_tokens: int
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    outcome: str
    error: str | None
    tools_tokens: int = 0
    #: The turn the request belongs to (None in logs older than the turns table).
    turn_id: int | None = None
    #: Prompt tokens the server said it served from its prompt cache.
    cached_tokens: int | None = None
    #: Prompt tokens the server said it wrote to its prompt cache (migration 013; None:
    #: not reported, or an older log).
    cache_write_tokens: int | None = None
    #: JSON: the settings, game state and latest broadcast the composition saw
    #: (migration 008; None in older logs).
    inputs: str | None = None
    #: SHA-256 of the messages as sent (``core.cache.serialize``); None in older logs.
    digest: str | None = None
    #: The class of the failure (``providers.base.FailureKind``); None if it did not fail.
    error_kind: str | None = None
    #: Whether the answer came streamed (None: not an HTTP provider, or an older log).
    streamed: bool | None = None
    #: Thinned by the retention policy (``[storage] request_log``): its item memory ids,
    #: facts and digest are gone; it is still recomposed, but cannot be checked.
    thinned: bool = False

    def recorded_inputs(self) -> dict[str, Any]:
        """The recorded composition inputs (empty for requests logged before them)."""
        return json.loads(self.inputs) if self.inputs else {}


def messages_digest(messages: Sequence[dict[str, Any]]) -> str:
    """SHA-256 of messages in their canonical serialization (what the log checks)."""
    return hashlib.sha256(serialize(messages).encode("utf-8")).hexdigest()


def settings_text(settings: ComposeSettings) -> str:
    """The part text of the composition settings a request was composed with (its nudge
    level and tool-schema tokens have their own columns; whether the tools are compact
    shapes only the advice of a context too small, never a request)."""
    knobs = asdict(settings)
    knobs.pop("nudge_level", None)
    knobs.pop("tools_tokens", None)
    knobs.pop("compact_tools", None)
    return compact(knobs)


def _memory(row: Sequence[Any]) -> Memory:
    """A row of :data:`_MEMORY_COLUMNS` as its record (its tool calls parsed)."""
    fields = dict(zip(_MEMORY_FIELDS, row, strict=True))
    fields["tool_calls"] = tool_calls_from_json(fields["tool_calls"])
    return Memory(**fields)


def _turn(row: Sequence[Any]) -> Turn:
    """A row of :data:`_TURN_COLUMNS` as its record."""
    return Turn(**dict(zip(_TURN_FIELDS, row, strict=True)))


def request_from_row(row: Sequence[Any], shapes: Mapping[int, str]) -> RequestRecord:
    """A row of :data:`~.request_log.REQUEST_SELECT` as its record (``shapes``: the text
    of every item shape it names)."""
    (
        request_id, mysis_id, created_at, strategy, last_memory_id, nudge_level,
        item_list, memory_ids, estimated, prompt, completion, latency, outcome, error,
        tools_tokens, turn_id, cached, settings, facts, digest, error_kind, streamed,
        written,
    ) = row  # fmt: skip
    items = decode_items([shapes[i] for i in shape_ids(item_list)], memory_ids, last_memory_id)
    return RequestRecord(
        id=request_id,
        mysis_id=mysis_id,
        created_at=created_at,
        strategy=strategy,
        last_memory_id=last_memory_id,
        nudge_level=nudge_level,
        items=items,
        estimated_tokens=estimated,
        prompt_tokens=prompt,
        completion_tokens=completion,
        latency_ms=latency,
        outcome=outcome,
        error=error,
        tools_tokens=tools_tokens,
        turn_id=turn_id,
        cached_tokens=cached,
        cache_write_tokens=written,
        inputs=inputs_text(settings, facts),
        digest=digest.hex() if digest is not None else None,
        error_kind=error_kind,
        streamed=None if streamed is None else bool(streamed),  # SQLite keeps 0 or 1
        thinned=memory_ids is None,
    )

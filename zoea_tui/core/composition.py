"""What the composer takes and what it returns."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from .prompts import SYSTEM_PROMPT_TEMPLATE
from .types import Memory, Turn

#: The context window assumed for a model whose configuration names none.
DEFAULT_CONTEXT_WINDOW = 32_768
#: Tokens the composer keeps free for the answer, and the ``max_tokens`` every request to
#: a server carries when its provider names none: an answer never runs past its room.
ANSWER_RESERVE = 1024
#: How far the scan window is cut back in one step (``core/window.py``).
DEFAULT_WINDOW_MARGIN = 10

ItemKind = Literal["system", "memory", "nudge", "placeholder", "summary", "note", "state"]
ItemAction = Literal["kept", "placeholder", "truncated", "synthetic"]

DEFAULT_SNAPSHOT_TOOLS: tuple[str, ...] = (
    "get_ship",
    "get_system",
    "get_poi",
    "get_nearby",
    "get_cargo",
    "get_status",
    "zoea_swarm_status",
)


@dataclass(frozen=True, slots=True)
class ComposeSettings:
    """The knobs of composition (from config and the Mysis's model)."""

    max_context_messages: int = 20
    #: The scan window holds at most ``max_context_messages`` memories; at the maximum it
    #: is cut back by ``window_margin`` (at most half of it) in one step
    #: (``core/window.py``). Turn paging grows a turn this far past the maximum.
    window_margin: int = DEFAULT_WINDOW_MARGIN
    tool_result_max_tokens: int = 4000
    summarize_threshold: int = 200_000
    context_window: int = DEFAULT_CONTEXT_WINDOW
    #: Tokens kept free for the model's answer (at least the ``max_tokens`` it is sent).
    reserve_tokens: int = ANSWER_RESERVE
    #: Estimated tokens of the tool schemas sent with every request.
    tools_tokens: int = 0
    #: Whether those schemas are already the compact ones (``tools = "compact"``): a
    #: context too small then advises only what is not so.
    compact_tools: bool = False
    snapshot_tools: tuple[str, ...] = DEFAULT_SNAPSHOT_TOOLS
    #: The Mysis's current encouragement count (the level of a synthetic nudge).
    nudge_level: int = 0
    #: The engine's tokens per estimated token: the engine's tokenizer and chat template
    #: count differently from the estimate (``core/tokens.py``). Learnt from the counts
    #: the engine reports (``orchestrator/calibration.py``); 1.0 until it has answered.
    token_scale: float = 1.0

    def __post_init__(self) -> None:
        if not self.token_scale > 0:
            raise ValueError(f"token_scale must be positive (got {self.token_scale!r})")

    @property
    def budget(self) -> int:
        """Most prompt tokens (the engine's) a request may carry."""
        return max(self.context_window - self.reserve_tokens, 256)

    @property
    def estimate_budget(self) -> int:
        """:attr:`budget` in estimated tokens (what the composer counts)."""
        return math.floor(self.budget / self.token_scale)

    def engine_tokens(self, estimate: int) -> int:
        """An estimate in the engine's tokens (rounded up: the budget errs on the safe side).

        An estimate within :attr:`estimate_budget` is within :attr:`budget`.
        """
        if self.token_scale == 1.0:
            return estimate
        # The small allowance absorbs float error: floor(B / s) * s may compute as B + ε.
        return math.ceil(estimate * self.token_scale - 1e-6)


def _grouped(tokens: int) -> str:
    """``1 900``: a count with its thousands set apart by a space."""
    return f"{tokens:,}".replace(",", " ")


class ContextTooSmallError(ValueError):
    """The system prompt and the tools leave no room in the context window for the
    history and the answer: the request cannot be sent whole, and a system prompt cut to
    fit is never sent. The counts are in the engine's tokens (``token_scale`` applied)."""

    def __init__(
        self,
        *,
        system: int,
        tools: int,
        history: int,
        answer: int,
        context: int,
        least: Composition | None = None,
        compact_tools: bool = False,
    ):
        self.system, self.tools, self.history = system, tools, history
        self.answer, self.context = answer, context
        #: The smallest request the composer could make (the system prompt whole, the
        #: history cut as far as it goes), over the window by the estimate: an engine
        #: that counts prompts itself may still find it fits (the runtime asks it).
        self.least = least
        # Only what is not already so: compact tools are advised while they are full.
        fix = "" if compact_tools else 'tools = "compact" for the provider, '
        super().__init__(
            f"the context is too small: system {_grouped(system)} + tools {_grouped(tools)} "
            f"+ history {_grouped(history)} + answer {_grouped(answer)} > context "
            f"{_grouped(context)} tokens, so nothing was sent. Fix: {fix}a larger context "
            "on the server (llama-server -c) or fewer of its slots (-np), or a larger "
            "context_window when the server has more"
        )

    @classmethod
    def of(
        cls, settings: ComposeSettings, *, system: int, history: int, least: Composition
    ) -> ContextTooSmallError:
        """The error for a request whose ``system`` and least ``history`` (estimated
        tokens) do not fit ``settings``' window with its tools and answer reserve."""
        return cls(
            system=settings.engine_tokens(system),
            tools=settings.engine_tokens(settings.tools_tokens),
            history=settings.engine_tokens(history),
            answer=settings.reserve_tokens,
            context=settings.context_window,
            least=least,
            compact_tools=settings.compact_tools,
        )


@dataclass(frozen=True, slots=True)
class History:
    """What the store loads for one composition (at most two indexed queries)."""

    mysis_id: int
    mysis_name: str
    #: The scan window, oldest first: at most the newest ``max_context_messages``
    #: memories, cut back by ``window_margin`` in steps (``core/window.py``).
    window: tuple[Memory, ...]
    system_template: str = SYSTEM_PROMPT_TEMPLATE
    account: str | None = None
    game_state: str = ""
    latest_broadcast: str | None = None
    #: The latest prompt source (direct or broadcast), wherever it lies.
    latest_prompt: Memory | None = None
    #: The latest summary memory, if any.
    latest_summary: Memory | None = None
    #: For ``summarize``: every memory after the latest summary, oldest first.
    since_summary: tuple[Memory, ...] | None = None
    #: The id of the memory just before the window (None when the window starts
    #: at the Mysis's first memory).
    before_window_id: int | None = None
    #: The current turn (None: no turn recorded; the composer infers one).
    turn: Turn | None = None
    #: The first memory of the current turn (its prompt, for a prompt-started turn).
    turn_first: Memory | None = None
    #: The current turn's newest memories (up to the window's size and margin), oldest
    #: first, whatever the window's cut (``turn-aware`` sends the turn whole).
    turn_memories: tuple[Memory, ...] = ()
    #: The newest memories before the current turn began, oldest first (where
    #: ``turn-aware`` finds the latest tool loop of earlier turns).
    before_turn: tuple[Memory, ...] = ()
    #: Turns that began inside what was loaded, oldest first (their nudges are placed
    #: where the model received them by the strategies that send whole turns).
    turns: tuple[Turn, ...] = ()
    #: The newest ``max_context_messages`` memories, oldest first, not cut in steps: the
    #: seeds' scan window, where ``loop-slice`` finds its turn start and latest loop
    #: (empty: use ``window``).
    recent: tuple[Memory, ...] = ()


@dataclass(frozen=True, slots=True)
class Item:
    """Provenance of one composed message."""

    role: str
    kind: ItemKind
    action: ItemAction
    tokens: int
    memory_id: int | None = None
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``memory_id`` is ``"synthetic"`` for generated messages)."""
        return {
            "role": self.role,
            "kind": self.kind,
            "memory_id": self.memory_id if self.memory_id is not None else "synthetic",
            "action": self.action,
            "reason": self.reason,
            "tokens": self.tokens,
        }


@dataclass(frozen=True, slots=True)
class Dropped:
    """A memory of the window left out of the request, and why."""

    memory_id: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"memory_id": self.memory_id, "reason": self.reason}


@dataclass(frozen=True)
class SummaryRequest:
    """Asked of the caller by ``summarize`` when the history needs a summary.

    The cleaned history is built only when someone reads ``messages`` (the
    summarizer does; a preview usually does not), so composing stays cheap.
    """

    #: The latest real user request, appended verbatim after the summary.
    last_request: str
    #: The newest memory the summary covers.
    covers_up_to: int
    #: Tokens of the request that triggered it.
    tokens: int
    build_messages: Callable[[], tuple[dict[str, Any], ...]] = field(repr=False, compare=False)
    #: Most tokens the summary may take (the stored text is cut to it; None: no bound).
    max_tokens: int | None = None

    @cached_property
    def messages(self) -> tuple[dict[str, Any], ...]:
        """The cleaned history to summarise (OpenAI messages, no system prompt)."""
        return self.build_messages()


@dataclass(frozen=True, slots=True)
class SummaryGauge:
    """Where the ``summarize`` strategy's threshold stands for a request.

    ``tokens`` is the estimate the trigger compares (system prompt, tools, the latest
    summary and every memory after it, each tool result at most its cap); a summary is
    due when it reaches ``trigger`` (``>=``, as seed 003 says), unless summaries are
    paused: the request right after the latest summary already took three quarters of
    the trigger, so another summary could not make room and would come back with
    every new memory.
    """

    tokens: int
    #: ``min(summarize_threshold, the context window's budget)``; 0: summaries are off.
    trigger: int
    #: What sets the trigger: ``"summarize_threshold"`` or ``"context window"``.
    basis: str
    #: Tokens of the request right after the latest summary (None: no summary yet).
    floor: int | None = None
    #: The latest summary's memory id.
    summary_id: int | None = None
    #: Why summaries are paused (None: they are not).
    paused: str | None = None
    #: Memories after the latest summary (none: nothing to summarise).
    pending: int = 0

    @property
    def due(self) -> bool:
        """A summary must be written before the request is sent."""
        return (
            self.trigger > 0
            and self.pending > 0
            and self.paused is None
            and self.tokens >= self.trigger
        )

    def describe(self) -> str:
        """One line for the preview: where the request stands against the trigger."""
        if self.trigger <= 0:
            return "summaries off (summarize_threshold = 0)"
        share = self.tokens / self.trigger
        text = (
            f"summary at {self.trigger:,} tok ({self.basis}); this request ~{self.tokens:,} "
            f"({share:.0%})"
        )
        if self.paused is not None:
            return f"{text} · summaries paused: {self.paused}"
        return text


@dataclass(frozen=True, slots=True)
class Composition:
    """The exact messages of a request, with their provenance."""

    strategy: str
    messages: tuple[dict[str, Any], ...]
    items: tuple[Item, ...]
    dropped: tuple[Dropped, ...]
    #: Prompt tokens in the engine's count (the estimate times ``token_scale``).
    tokens: int
    #: Set by ``summarize`` when a summary must be written before sending.
    summary_request: SummaryRequest | None = None
    #: ``summarize`` only: where the request stands against the summary threshold.
    summary_gauge: SummaryGauge | None = None
    uses_nudge: bool = False
    #: The newest memory the composition saw (what a replay recomposes up to).
    last_memory_id: int | None = None
    #: The turn the request belongs to.
    turn: Turn | None = None
    #: The volatile facts placed after the current turn's opening (None: not placed
    #: there); the orchestrator records them with the turn so they stay put.
    state_text: str | None = None
    #: The inputs the composition saw that the memories do not keep (the game-state
    #: projection, the latest broadcast, the account named in the system prompt): the
    #: request log keeps them, so a recomposition is byte-identical.
    game_state: str = ""
    latest_broadcast: str | None = None
    account: str | None = None
    #: The estimate before calibration (``core/tokens.py``; the items count in it): what
    #: the engine's own count is compared with. None: the same as ``tokens``.
    raw_tokens: int | None = None

    @property
    def estimated_tokens(self) -> int:
        """The uncalibrated estimate (``tokens`` when none was kept)."""
        return self.tokens if self.raw_tokens is None else self.raw_tokens

    def to_dict(self) -> dict[str, Any]:
        """JSON form used by ``zoea context --json`` and the request log."""
        return {
            "strategy": self.strategy,
            "messages": list(self.messages),
            "items": [i.to_dict() for i in self.items],
            "dropped": [d.to_dict() for d in self.dropped],
            "tokens": self.tokens,
        }

"""What a Mysis may use of the swarm that owns it, and nothing more.

A :class:`~.mysis.MysisRuntime` never holds the commander: it gets one
:class:`SwarmServices`, built by the commander (``Commander.services``) or by
a test, with the shared store, bus and clock, the settings it reads, the
retry policy, and the few things only the swarm can answer (the composition
settings of a Mysis's provider, the game-state projection of an account,
network counting, the newest game tick, the end of a turn).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Literal

from ..config import NudgeConfig
from ..core.composition import ComposeSettings
from ..core.pricing import Prices
from ..core.retry import BOUNDED, PATIENT, RetryPolicy
from ..providers.base import ProviderSettings
from ..storage import MysisRecord, Store
from .calibration import EngineFit, engine_of
from .clock import Clock, RealClock
from .events import EventBus
from .spend import SpendMeter
from .step_gate import StepGate
from .warm_start import WarmStart

#: A Mysis's transient game failures (the tool list, a tool call): ``retry.BOUNDED``.
MYSIS_RETRY = BOUNDED

NetworkKind = Literal["llm", "mcp"]


def _unpriced(_provider: str) -> Prices:
    return Prices()


@dataclass(frozen=True, slots=True)
class SwarmServices:
    """The narrow interface between a Mysis and its swarm.

    ``settings_for`` gives the composition and provider settings of a Mysis's
    record; ``game_state`` the compact game-state projection of an account;
    ``in_flight`` counts a call on the network while it runs; ``saw_tick``
    reports a game tick; ``closing`` is True once the swarm shuts down (turns
    end at their next round); ``turn_finished`` hears the id and the count of
    turns of a Mysis that ended one; ``retry`` the policy of its game calls and
    ``model_retry`` of its model calls (``core/retry.py``); ``step_gate`` holds a
    Mysis's next step a moment while the commander's key is handled; ``fit`` is what
    the swarm learnt of each engine (``calibration.py``); ``warm_start`` lets the first
    request to each engine warm its prompt cache before the others go (``warm_start.py``);
    ``spend`` bills every answered model call (``spend.py``).
    """

    store: Store
    bus: EventBus
    clock: Clock
    nudge: NudgeConfig
    max_tool_iterations: int
    #: Seconds per game tick (0 when unknown): turns a "wait N ticks" into seconds.
    tick_seconds: float
    settings_for: Callable[[MysisRecord], tuple[ComposeSettings, ProviderSettings]]
    game_state: Callable[[str | None], str]
    in_flight: Callable[[NetworkKind], AbstractAsyncContextManager[None]]
    saw_tick: Callable[[int], Awaitable[None]]
    closing: Callable[[], bool]
    turn_finished: Callable[[int, int], None]
    retry: RetryPolicy = MYSIS_RETRY
    #: A Mysis's model calls that failed in a way that heals by waiting: in the command
    #: center ``retry.PATIENT`` (it comes back by itself); a headless run's ``BOUNDED``.
    model_retry: RetryPolicy = PATIENT
    step_gate: StepGate = field(default_factory=StepGate)
    #: What the swarm learnt of each engine (token scale, server context): the
    #: settings of ``settings_for`` are fitted to it before composing.
    fit: EngineFit = field(default_factory=EngineFit)
    #: The first request to each engine goes first, and warms it for the swarm.
    warm_start: WarmStart = field(default_factory=WarmStart)
    #: What every answered model call cost (``spend.py``; the commander's prices it).
    spend: SpendMeter = field(default_factory=lambda: SpendMeter(RealClock(), _unpriced))

    def fitted_settings(self, record: MysisRecord) -> tuple[ComposeSettings, ProviderSettings]:
        """The settings of ``settings_for``, fitted to what the swarm learnt of the
        record's engine (``EngineFit.fitted``)."""
        settings, provider = self.settings_for(record)
        return self.fit.fitted(engine_of(record.provider, provider), settings, provider)

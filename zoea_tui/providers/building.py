"""What the ``build(config, env)`` of every provider kind's module shares: the settings
a client takes, and a client over HTTP of a configured endpoint."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..config import ProviderConfig, resolve_api_key
from ..core.composition import ANSWER_RESERVE
from ..core.retry import ONCE
from .base import Provider, ProviderSettings

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


def over_http(
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

"""Build a Mysis's provider from its configuration (the type is never guessed).

Each kind's module is named by its declaration (``config/kinds.py``) and builds its
client with its own ``build(config, env)``; nothing here knows a kind by name.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterable, Mapping
from types import ModuleType

from ..config import KINDS, ProviderConfig, ProviderKind
from .base import Provider, ProviderError

__all__ = ["build_provider", "kind_module", "preload"]


def kind_module(kind: ProviderKind) -> ModuleType:
    """The module of ``kind`` (its ``build``, and the client the probe speaks to its server
    with), imported on first use; raises :class:`ImportError` when it cannot be."""
    return importlib.import_module(kind.module, __package__)


def preload(types: Iterable[str]) -> None:
    """Import the modules of these provider types now, in the caller's thread.

    Built on the event loop, the first autopilot took 53 ms to import: the longest
    stall of a swarm's first second. A module that cannot be imported is left for
    :func:`build_provider` to report.
    """
    for kind in types:
        declared = KINDS.get(kind)
        if declared is not None:
            with contextlib.suppress(ImportError):
                kind_module(declared)


def build_provider(config: ProviderConfig, *, env: Mapping[str, str] = os.environ) -> Provider:
    """The provider ``config`` describes; raises :class:`ProviderError` when it cannot run.

    The module of its kind is imported when a provider of that kind is first built (so
    an install without an optional extra still runs the others). An HTTP client built
    here never retries by itself (``retry.ONCE``): the Mysis's runtime retries each call
    under the swarm's one policy, waiting a server's ``Retry-After``, showing and
    logging every try (so retries never multiply).
    """
    declared = KINDS.get(config.type)
    if declared is None:
        raise ProviderError(f"provider {config.name!r} has unknown type {config.type!r}")
    try:
        module = kind_module(declared)
    except ImportError as exc:
        if declared.install_hint is None:
            raise
        raise ProviderError(
            f"provider {config.name!r} needs {declared.install_hint} ({exc})"
        ) from None
    build: object = module.build
    assert callable(build)
    provider: Provider = build(config, env)
    return provider

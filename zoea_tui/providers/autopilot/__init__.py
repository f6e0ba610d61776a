"""The built-in autopilot: a rule-based, deterministic pilot behind the provider interface.

It reads only the messages it is sent (``context``), understands simple
commander orders (``orders``), and decides with plain rules (``decide``);
``provider`` shapes the decision like a model's answer.
"""

from collections.abc import Mapping

from ...config import ProviderConfig
from ..building import provider_settings
from .decide import Decision, decide, tool_names
from .provider import LABEL, AutopilotProvider

__all__ = ["LABEL", "AutopilotProvider", "Decision", "build", "decide", "tool_names"]


def build(config: ProviderConfig, env: Mapping[str, str]) -> AutopilotProvider:
    """The ``autopilot`` kind's pilot of ``config`` (``config/kinds.py``; ``env``:
    unused, it reads no key)."""
    return AutopilotProvider(provider_settings(config))

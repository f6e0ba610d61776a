"""The built-in autopilot: a rule-based, deterministic pilot behind the provider interface.

It reads only the messages it is sent (``context``), understands simple
commander orders (``orders``), and decides with plain rules (``decide``);
``provider`` shapes the decision like a model's answer.
"""

from .decide import Decision, decide, tool_names
from .provider import LABEL, AutopilotProvider

__all__ = ["LABEL", "AutopilotProvider", "Decision", "decide", "tool_names"]

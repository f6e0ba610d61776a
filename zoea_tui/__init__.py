"""Zoea Nova for Python: a command center for a swarm of LLM agents playing SpaceMolt."""

import logging
from importlib.metadata import PackageNotFoundError, version

# A library's records go where the application sends them (the TUI's log file), never to
# the terminal by Python's last-resort handler: the headless commands promise one line on
# standard error, and what the commander must know they say in their own output.
logging.getLogger(__name__).addHandler(logging.NullHandler())

try:
    __version__ = version("zoea-tui")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+source"

"""Zoea Nova for Python: a command center for a swarm of LLM agents playing SpaceMolt."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("zoea-tui")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+source"

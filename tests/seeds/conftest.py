"""The commander fixtures of ``tests/orchestrator`` (a real SQLite file, the embedded
world, a manual clock), for the seeds' rules that only the runtime can show (nudges)."""

from tests.orchestrator.conftest import clock, config, open_commander

__all__ = ["clock", "config", "open_commander"]

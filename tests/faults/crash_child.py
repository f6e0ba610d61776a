"""The process the SIGKILL test kills: one Mysis on a loopback model and game server.

Run as ``python -m tests.faults.crash_child DB MODEL_URL GAME_URL``: it opens a
commander on the real clock, creates the Mysis "Kilo" and plays until killed.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from pathlib import Path

from zoea_tui.config import Config, ProviderConfig
from zoea_tui.orchestrator.commander import Commander


def crash_config(model_url: str, game_url: str) -> Config:
    """One OpenAI-compatible provider "cloud" and a remote game; nudges 50 ms apart."""
    base = Config()
    providers = dict(base.providers)
    providers["cloud"] = ProviderConfig(
        name="cloud", type="openai", endpoint=model_url, model="fake-gpt"
    )
    return replace(
        base,
        providers=providers,
        swarm=replace(base.swarm, default_provider="cloud"),
        game=replace(base.game, endpoint=game_url),
        nudge=replace(base.nudge, idle_seconds=0.05),
    )


async def main(db: str, model_url: str, game_url: str) -> None:
    """Play until the process is killed."""
    commander = await Commander.open(
        crash_config(model_url, game_url), db_path=Path(db), starter_swarm=False
    )
    await commander.create_mysis("Kilo")
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))

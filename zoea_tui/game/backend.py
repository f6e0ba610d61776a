"""Where the game is: the embedded world (in-process) or a remote MCP server."""

from __future__ import annotations

from pathlib import Path

from ..config import GameConfig
from ..sim.host import WorldHost
from ..sim.mcp_server import in_process_server
from .connect import Connector, http_connector, in_process_connector

EMBEDDED = "embedded"
#: The real SpaceMolt server's tick length (reference: one tick every 10 seconds).
REMOTE_TICK_SECONDS = 10.0


class GameBackend:
    """Makes game connections for the swarm and runs the embedded world's clock.

    ``server`` names the account pool's server: ``"embedded"`` or the URL.
    """

    def __init__(
        self, server: str, *, host: WorldHost | None = None, read_timeout: float = 600.0
    ) -> None:
        self.server = server
        self.host = host
        self.read_timeout = read_timeout

    @classmethod
    def from_config(
        cls,
        game: GameConfig,
        *,
        data_dir: Path | None = None,
        simulated: bool = False,
        state_path: Path | None = None,
    ) -> GameBackend:
        """The backend ``[game]`` describes; the embedded world is saved in ``data_dir``
        (``world.json``), or in ``state_path`` when given, and loaded from there."""
        if game.endpoint == EMBEDDED:
            state = state_path or (data_dir / "world.json" if data_dir is not None else None)
            host = WorldHost.open(
                seed=game.seed,
                tick_seconds=0 if simulated else game.tick_seconds,
                state_path=state,
                starting_credits=game.starting_credits,
                world_profile=game.world,
            )
            return cls(EMBEDDED, host=host, read_timeout=game.timeout)
        return cls(game.endpoint, read_timeout=game.timeout)

    @property
    def embedded(self) -> bool:
        """True when the game runs in this process."""
        return self.host is not None

    def connector(self) -> Connector:
        """A connector for one new client session (one per Mysis)."""
        if self.host is not None:
            host = self.host
            return in_process_connector(
                lambda: in_process_server(host), read_timeout=self.read_timeout
            )
        return http_connector(self.server, read_timeout=self.read_timeout)

    @property
    def tick_seconds(self) -> float:
        """Seconds per game tick (0 on a simulated clock: a tick costs no wall time)."""
        if self.host is not None:
            return float(self.host.tick_seconds)
        return REMOTE_TICK_SECONDS

    @property
    def current_tick(self) -> int | None:
        """The embedded world's tick (None for a remote server)."""
        return self.host.current_tick if self.host is not None else None

    async def start(self) -> None:
        """Start the embedded world's clock."""
        if self.host is not None:
            await self.host.start()

    async def stop(self) -> None:
        """Stop the clock and save the embedded world."""
        if self.host is not None:
            await self.host.stop()

"""A provider added by the environment's conventions (``OPENAI_BASE_URL``, ``OLLAMA_HOST``)
says so on the provider line and in the help, with the configuration that applied."""

from __future__ import annotations

from pathlib import Path

from zoea_tui.config import (
    Config,
    GameConfig,
    SwarmConfig,
    builtin_providers,
    convention_providers,
)
from zoea_tui.ui.activity import GameFacts
from zoea_tui.ui.app import ZoeaApp
from zoea_tui.ui.screens.focus import header_text
from zoea_tui.ui.screens.help import HelpScreen
from zoea_tui.ui.widgets.mysis_pane import pane_text

from .helpers import opener, settle

URL = "http://127.0.0.1:9/v1"


def env_config() -> Config:
    """What ``load_config`` makes with no file, OPENAI_BASE_URL and ZOEA_DEFAULT_PROVIDER."""
    providers = {**builtin_providers(), **convention_providers({"OPENAI_BASE_URL": URL})}
    return Config(
        providers=providers,
        swarm=SwarmConfig(default_provider="openai"),
        game=GameConfig(tick_seconds=0),
    )


async def test_a_convention_provider_says_where_it_comes_from(tmp_path: Path) -> None:
    app = ZoeaApp(opener(env_config(), tmp_path / "zoea.db"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        views = list(app.views.values())
        assert views and {v.provider_origin for v in views} == {"$OPENAI_BASE_URL"}
        pane = pane_text(views[0], GameFacts(), (), 160, 12, 32_768).plain
        assert "openai · from $OPENAI_BASE_URL" in pane
        assert "from $OPENAI_BASE_URL" in header_text(views[0], (1, 3), 32_768).plain

        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        rows = dict(help_screen.providers)
        assert rows["openai"] == (
            f"openai · {URL} · the first model the server lists · from $OPENAI_BASE_URL"
        )
        assert rows["autopilot"] == "the built-in rule-based pilot (no model)"
        assert help_screen.applied.startswith("no config file; $OPENAI_BASE_URL adds provider")


async def test_a_configured_provider_says_no_origin(tmp_path: Path) -> None:
    app = ZoeaApp(opener(Config(game=GameConfig(tick_seconds=0)), tmp_path / "zoea.db"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = next(iter(app.views.values()))
        assert view.provider_origin == ""
        assert "from $" not in pane_text(view, GameFacts(), (), 160, 12, 32_768).plain

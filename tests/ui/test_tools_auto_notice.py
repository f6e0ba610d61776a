"""The dashboard says once that ``tools = "auto"`` fell back to the compact tools
(issue 40): the starter Myses on a scripted llama-server whose slot holds 4 096 tokens
(``--ctx-size 8192 --parallel 2``), the provider named by no more than its endpoint, over
real loopback HTTP, in the real app (Pilot)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.fakes.llm_servers import FakeOpenAIServer, LlamaServer, Reply
from zoea_tui.config import Config, GameConfig, ProviderConfig
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.ui.app import ZoeaApp

from .helpers import opener, settle, wait_for
from .test_app import spy_notifications

FELL_BACK = "{}: the full tools do not fit the server's 4 096 tokens: compact tools"


async def test_the_dashboard_says_the_fallback_once_for_each_starter(tmp_path: Path) -> None:
    server = FakeOpenAIServer(llama=LlamaServer(n_ctx=4096))
    server.default = Reply("Holding position.")
    await server.start()
    base = Config(game=GameConfig(tick_seconds=0))
    llama = ProviderConfig(name="llama", type="openai", endpoint=server.url, model="qwen2.5")
    swarm = replace(base.swarm, default_provider="llama")
    config = replace(base, providers={**base.providers, "llama": llama}, swarm=swarm)
    app = ZoeaApp(opener(config, tmp_path / "zoea.db"))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            notes = spy_notifications(app)
            commander = app.commander
            assert isinstance(commander, Commander)
            starters = commander.myses()
            assert starters and {v.provider for v in starters} == {"llama"}
            said = sorted(FELL_BACK.format(v.name) for v in starters)
            for view in starters:
                await commander.start_mysis(view.id)
            await wait_for(pilot, lambda: len(server.chat_requests) >= len(starters))
            fell_back = lambda: [m for _, m in notes if "tools do not fit" in m]  # noqa: E731
            await wait_for(pilot, lambda: len(fell_back()) >= len(starters), what="the notices")
            first = starters[0].id
            await commander.send_message(first, "Report your status.")
            await wait_for(pilot, lambda: len(server.chat_requests) > len(starters))
            await pilot.pause(0.3)
            states = {commander.mysis(v.id).state for v in starters}
            for view in starters:
                await commander.stop_mysis(view.id)
    finally:
        await server.aclose()
    assert "errored" not in states
    assert sorted(fell_back()) == said  # once each, though one sent a second request
    assert all(severity != "error" for severity, _ in notes)

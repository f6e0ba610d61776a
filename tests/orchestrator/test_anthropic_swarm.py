"""A swarm on Claude pays for its shared prefix once, over real loopback HTTP.

Two Myses on a ``type = "anthropic"`` provider play against the loopback Messages API
(every request checked by the ``anthropic`` SDK's ``MessageCreateParams``, billed by the
simulated prompt cache, whose entries exist once their answer is out, as on the API):
the swarm's warm start sends the first Mysis's first request alone, it writes the tools
and the system prompt, and the second Mysis's first request reads them (sent together,
without the warm start, it reads nothing: 0 of its 6 909 tokens); every later request
reads at least that prefix.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.fakes import Reply
from tests.fakes.anthropic_api import FakeAnthropicServer, bytes_tokens, cache_blocks
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.game.backend import GameBackend
from zoea_tui.orchestrator.clock import VirtualClock
from zoea_tui.orchestrator.commander import Commander

from .conftest import until

MODEL = "claude-fake-4"


async def test_the_second_mysis_reads_the_prefix_the_first_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = Config()
    server = FakeAnthropicServer(api_key="sk-ant-swarm", models=[MODEL])
    await server.start()
    server.default = Reply("Nothing to do.")
    # The first answer takes a while: a request sent meanwhile would find no cache.
    server.script(Reply("Nothing to do.", delay=0.3))
    providers = dict(base.providers)
    providers["claude"] = ProviderConfig(
        name="claude",
        type="anthropic",
        endpoint=server.url,
        model=MODEL,
        api_key_env="ZOEA_TEST_ANTHROPIC_KEY",
    )
    config = replace(base, game=replace(base.game, tick_seconds=0), providers=providers)
    backend = GameBackend.from_config(config.game, data_dir=tmp_path, simulated=True)
    monkeypatch.setenv("ZOEA_TEST_ANTHROPIC_KEY", "sk-ant-swarm")
    commander = await Commander.open(
        config,
        db_path=tmp_path / "zoea.db",
        backend=backend,
        starter_swarm=False,
        clock=VirtualClock(),
    )
    try:
        views = [
            await commander.create_mysis(name, provider="claude") for name in ("Vega", "Orion")
        ]
        await until(lambda: len(server.chat_requests) == 2, 30)
        for view in views:
            await commander.send_message(view.id, "Report your status.")
        await until(lambda: len(server.chat_requests) == 4, 30)
    finally:
        await commander.shutdown(timeout=1)
        await server.aclose()
    assert server.refused == []
    first = server.chat_requests[0].json()
    shared = sum(bytes_tokens(text) for text, _ in cache_blocks(first)[: len(first["tools"]) + 1])
    assert shared > 1024
    billed = server.billed
    assert billed[0].read == 0 and billed[0].written == billed[0].prompt_tokens
    assert billed[1].read == shared  # the other Mysis's first request
    assert all(b.read >= shared for b in billed[2:])

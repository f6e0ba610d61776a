"""Secrets stay secret: API keys nowhere but the header; the world listens on loopback."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from tests.fakes.llm_servers import Call, FakeOpenAIServer, Reply
from zoea_tui.cli import _parser
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.logs import setup_logging
from zoea_tui.sim.host import WorldHost
from zoea_tui.sim.serve import HttpWorldServer

from .conftest import open_swarm, until

KEY = "sk-zoea-test-4f9a1c0e7d3b"


async def test_an_api_key_reaches_only_the_authorization_header(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("ZOEA_SECRET_KEY", KEY)
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        await _session_with_a_key(tmp_path, setup_logging(tmp_path, debug=True))
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])


async def _session_with_a_key(tmp_path: Path, log_path: Path) -> None:
    async with FakeOpenAIServer(api_key=KEY) as server:
        server.script(
            Reply("", tool_calls=[Call("get_status", {})]), Reply(f"My key? Never. {'x' * 10}")
        )
        base = Config()
        providers = dict(base.providers)
        providers["cloud"] = ProviderConfig(
            name="cloud",
            type="openai",
            endpoint=server.url,
            model="fake-gpt",
            api_key_env="ZOEA_SECRET_KEY",
        )
        config = replace(
            base,
            providers=providers,
            game=replace(base.game, tick_seconds=0),
            swarm=replace(base.swarm, default_provider="cloud"),
        )
        commander, _ = await open_swarm(tmp_path, config)
        try:
            view = await commander.create_mysis("Keeper")
            await until(lambda: len(server.chat_requests) >= 2)
            preview = await commander.preview(view.id)
            previews = json.dumps(preview.to_dict())
            views = repr(commander.myses()) + repr(config)
        finally:
            await commander.shutdown(timeout=2)
        assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.chat_requests)
        assert not any(KEY in r.text for r in server.chat_requests)
    for handler in logging.getLogger().handlers:
        handler.flush()
    context = subprocess.run(
        [
            sys.executable,
            "-m",
            "zoea_tui.cli",
            "context",
            "--db",
            str(tmp_path / "zoea.db"),
            "--mysis",
            "Keeper",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    places = {
        "database": b"".join(p.read_bytes() for p in tmp_path.glob("zoea.db*")),
        "log": log_path.read_bytes(),
        "preview": previews.encode(),
        "views and config": views.encode(),
        "zoea context": context.stdout.encode(),
        "world save": b"".join(p.read_bytes() for p in tmp_path.glob("world*.json")),
    }
    screenshots = Path(__file__).resolve().parents[2] / "screenshots"
    places["screenshots"] = b"".join(p.read_bytes() for p in screenshots.glob("*.svg"))
    leaks = [name for name, data in places.items() if KEY.encode() in data]
    assert leaks == []
    assert log_path.stat().st_size > 0  # the log was written, just without the key


def test_the_embedded_world_binds_to_loopback_by_default() -> None:
    args = _parser().parse_args(["sim", "serve"])
    assert args.host == "127.0.0.1"
    assert HttpWorldServer(WorldHost.open(tick_seconds=0)).bind == "127.0.0.1"

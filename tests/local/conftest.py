"""What the tests of the ``local`` extra share: the model file, a real OpenAI-compatible
server running it (``llama_server``), and what every request offers.

These tests run a real model, so they need the extra. They fail, never skip, when it
is missing: ``make test`` installs it (see :data:`~zoea_tui.providers.local.INSTALL_COMMANDS`).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes import refused_url
from zoea_tui.providers.local import LocalModelUnavailableError, find_model_path

SYSTEM = "You are a pilot in a space game. Use the tools to act."
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_status",
            "description": "Your ship's status: credits, cargo, location.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "mine",
            "description": "Mine ore at the asteroid belt you are at.",
            "parameters": {"type": "object", "properties": {"target": {"type": "string"}}},
        },
    },
]
OFFERED = {tool["function"]["name"] for tool in TOOLS}
STATUS = '{"credits": 1200, "cargo": "empty", "location": "Sol belt"}'
STARTUP_TIMEOUT = 60.0


@pytest.fixture(scope="session")
def gguf() -> Path:
    """The SmolLM2 weights; the test fails with the install commands when they are missing."""
    try:
        return find_model_path("smollm2-135m")
    except LocalModelUnavailableError as error:
        missing = error.message
    pytest.fail(f"The tests in tests/local need the `local` extra. {missing}", pytrace=False)


@pytest.fixture(scope="module")
def llama_server(gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``python -m llama_cpp.server`` on a free loopback port; yields its ``/v1`` URL."""
    base = refused_url()  # a loopback port nothing listens on
    port = base.rsplit(":", 1)[1]
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--host",
        "127.0.0.1",
        "--port",
        port,
        "--n_ctx",
        "2048",
        "--n_threads",
        "2",
        "--chat_format",
        "chatml-function-calling",
        "--model_alias",
        "local",
    ]
    with log.open("wb") as output:
        server = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    try:
        _wait_until_ready(f"{base}/v1/models", server, log)
        yield f"{base}/v1"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait_until_ready(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(
                f"llama_cpp.server exited with {server.returncode}:\n"
                f"{log.read_text(errors='replace')[-3000:]}",
                pytrace=False,
            )
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    pytest.fail(
        f"llama_cpp.server did not answer {url} within {STARTUP_TIMEOUT:g} s:\n"
        f"{log.read_text(errors='replace')[-3000:]}",
        pytrace=False,
    )

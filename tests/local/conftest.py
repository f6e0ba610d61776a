"""What the tests of the ``local`` extra share: the model file, what every request offers,
the requests made of it, and the real OpenAI-compatible servers (llama-cpp-python's) that run it.

These tests run a real model, so they need the extra. They fail, never skip, when it
is missing: ``make test`` installs it (see :data:`~zoea_tui.providers.local.INSTALL_COMMANDS`).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes import refused_url
from zoea_tui.providers.base import ChatRequest, ProviderSettings
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
#: The order every tool round trip starts from.
STATUS_ORDER = [
    {"role": "system", "content": SYSTEM},
    {"role": "user", "content": "Check your status"},
]


def ask(
    messages: list[dict[str, Any]], tools: Any = TOOLS, stream: bool = False, **settings: Any
) -> ChatRequest:
    """A deterministic request (temperature 0, seed 0, a 60 s timeout unless ``settings``
    say otherwise) of ``messages`` offering ``tools``."""
    settings = {"temperature": 0.0, "seed": 0, "timeout": 60.0} | settings
    return ChatRequest(
        messages=messages, tools=tools, settings=ProviderSettings(**settings), stream=stream
    )


@pytest.fixture(scope="session")
def gguf() -> Path:
    """The SmolLM2 weights; the test fails with the install commands when they are missing."""
    try:
        return find_model_path("smollm2-135m")
    except LocalModelUnavailableError as error:
        missing = error.message
    pytest.fail(f"The tests in tests/local need the `local` extra. {missing}", pytrace=False)


#: Seconds a server may take to load the model and answer ``/v1/models``.
STARTUP_TIMEOUT = 60.0
#: The context of the server that plays: the game's first compact request is about 1 300
#: of its tokens. Kept small on purpose: this server ignores ``max_tokens`` when tools
#: are offered, and the context is then what ends a call that never ends.
N_CTX = 2048
#: The context of the server that must refuse the game's first request.
TINY_N_CTX = 256


@dataclass(frozen=True)
class LlamaCppServer:
    """One running ``python -m llama_cpp.server``: its ``/v1`` URL and its log file."""

    url: str
    log: Path

    def said(self) -> str:
        """Everything the server wrote so far (its requests, timings and tracebacks)."""
        return self.log.read_text(errors="replace")


@dataclass(frozen=True)
class LlamaCppServers:
    """The two servers of the session: one that plays, one whose context is tiny."""

    playing: LlamaCppServer
    tiny: LlamaCppServer


@pytest.fixture(scope="session")
def llama_cpp_servers(
    gguf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaCppServers]:
    """llama-cpp-python's OpenAI server (SmolLM2, ``chatml-function-calling``) on two free
    loopback ports, started once for the session, side by side: ``playing`` with a
    context of :data:`N_CTX` tokens, ``tiny`` with :data:`TINY_N_CTX`."""
    folder = tmp_path_factory.mktemp("llama-cpp-servers")
    started: list[tuple[subprocess.Popen[bytes], LlamaCppServer]] = []
    try:
        for name, n_ctx in (("playing", N_CTX), ("tiny", TINY_N_CTX)):
            base = refused_url()  # a loopback port nothing listens on
            server = LlamaCppServer(f"{base}/v1", folder / f"{name}.log")
            started.append((_start(gguf, base.rsplit(":", 1)[1], n_ctx, server.log), server))
        for process, server in started:
            _wait_until_ready(server, process)
        yield LlamaCppServers(playing=started[0][1], tiny=started[1][1])
    finally:
        for process, _ in started:
            process.terminate()
        for process, _ in started:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _start(gguf: Path, port: str, n_ctx: int, log: Path) -> subprocess.Popen[bytes]:
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
        str(n_ctx),
        "--n_threads",
        "2",
        "--chat_format",
        "chatml-function-calling",
        "--model_alias",
        "local",
    ]
    with log.open("wb") as output:
        return subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Ends a server :func:`_start` started, if it still runs: asked first, killed if it
    has not gone within ten seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def llama_server(llama_cpp_servers: LlamaCppServers) -> str:
    """The ``/v1`` URL of the session's playing server."""
    return llama_cpp_servers.playing.url


def _wait_until_ready(server: LlamaCppServer, process: subprocess.Popen[bytes]) -> None:
    url = f"{server.url}/models"
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(
                f"llama_cpp.server exited with {process.returncode}:\n{server.said()[-3000:]}",
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
        f"{server.said()[-3000:]}",
        pytrace=False,
    )

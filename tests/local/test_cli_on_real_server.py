"""The real command line against a real engine: ``zoea simulate`` over HTTP on
llama-cpp-python's OpenAI server running SmolLM2 (``conftest.py``, one session fixture).

Each test runs ``python -m zoea_tui.cli`` as a user would, with a config file that points
an ``openai`` provider at the server, and reads what the user reads (the exit code, the
output, the JSON report) and what the run left (the database), never the app's insides.
``tools = "compact"`` and two tool rounds keep each prompt near 1 300 of the engine's
tokens and each run to a few requests. What this server does that matters here:

* A streamed request whose answer is a tool call: the server answers 200 and breaks the
  stream ("Automatic streaming tool choice is not supported", in its log).
* A request over its context: the streamed one breaks the same way; the unstreamed one
  is refused with HTTP 400 and the server's words ("This model's maximum context length
  is 256 tokens. However, you requested …").
* ``max_tokens`` is dropped when tools are offered (``chatml-function-calling``'s automatic
  tool choice generates each call to its end, or to the end of the context), so this
  server never cuts a call at ``max_tokens``; the test that sets it pins that, and that
  every request of the run and the next one are valid. The cut call itself is played on
  llama.cpp's own server by ``bench/engine.py``.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests import cli_runner
from tests.cli_runner import zoea
from tests.local.conftest import LlamaCppServers

pytestmark = pytest.mark.local

#: What the playing server writes to its log when it breaks a streamed tool call.
BROKEN_STREAM = "Automatic streaming tool choice is not supported"
#: The tiny server's own words when the game's first request does not fit.
TOO_LONG = "This model's maximum context length is 256 tokens"


def simulate(
    tmp_path: Path, url: str, *extra: str, rounds: int = 2, **provider: Any
) -> subprocess.CompletedProcess[str]:
    """One Mysis, one turn of at most ``rounds`` tool rounds, on the provider at ``url``."""
    keys = {"tools": "compact", "temperature": 0, "seed": 0, "timeout": 120} | provider
    lines = [
        "[context]",
        f"max_tool_iterations = {rounds}",
        "",
        "[providers.engine]",
        'type = "openai"',
        f'endpoint = "{url}"',
        'model = "local"',
        *(f"{key} = {json.dumps(value)}" for key, value in keys.items()),
    ]
    config = tmp_path / "zoea.toml"
    config.write_text("\n".join(lines) + "\n")
    return cli_runner.simulate(config, "engine", tmp_path / "sim.db", myses=1, turns=1, extra=extra)


def logged(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def test_a_stream_the_server_breaks_is_sent_unstreamed_and_the_run_completes(
    llama_cpp_servers: LlamaCppServers, tmp_path: Path
) -> None:
    server = llama_cpp_servers.playing
    before = len(server.said())

    done = simulate(tmp_path, server.url, "--json")

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    report = json.loads(done.stdout)
    assert report["errors"] == 0 and report["failures"] == []
    assert report["answered"] == report["requests"] >= 2
    assert report["violations"] == 0
    assert report["tool_calls"] >= 1
    note = report["provider_notes"]["sim-01"]
    assert "the server broke" in note and "streamed answer" in note, note
    assert BROKEN_STREAM in server.said()[before:]  # the first request was streamed
    # Every request of the run is logged answered; the first, whose stream broke, as
    # answered unstreamed (streaming is given up after the second break).
    rows = logged(tmp_path / "sim.db", "SELECT outcome, streamed FROM requests")
    assert [outcome for outcome, _ in rows] == ["ok"] * report["requests"]
    assert rows[0] == ("ok", 0)


def test_a_server_whose_context_is_too_small_is_told_in_its_own_words_and_exit_3(
    llama_cpp_servers: LlamaCppServers, tmp_path: Path
) -> None:
    done = simulate(tmp_path, llama_cpp_servers.tiny.url)

    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("zoea simulate: the provider answered none of its requests: ")
    assert "refused" in line and TOO_LONG in line
    assert "0 answered, 1 provider failures" in done.stdout
    assert TOO_LONG in done.stdout
    assert logged(tmp_path / "sim.db", "SELECT outcome, error_kind FROM requests") == [
        ("error", "refused")
    ]


def test_a_tight_max_tokens_leaves_every_request_and_the_next_one_valid(
    llama_cpp_servers: LlamaCppServers, tmp_path: Path
) -> None:
    max_tokens = 4
    done = simulate(
        tmp_path,
        llama_cpp_servers.playing.url,
        "--json",
        rounds=1,
        max_tokens=max_tokens,
        stream=False,
    )

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["answered"] == report["requests"] >= 1
    assert report["violations"] == 0  # every request sent passed the validator
    db = tmp_path / "sim.db"
    calls = [
        call
        for (text,) in logged(db, "SELECT tool_calls FROM memories WHERE tool_calls IS NOT NULL")
        for call in json.loads(text)
    ]
    assert calls and all(isinstance(json.loads(c["arguments"]), dict) for c in calls)
    # This server drops max_tokens when tools are offered: the calls came whole.
    completion = [n for (n,) in logged(db, "SELECT completion_tokens FROM requests")]
    assert max(completion) > max_tokens

    shown = zoea("context", "--db", str(db), "--mysis", "sim-01", "--json")

    assert shown.returncode == 0, shown.stderr
    following = json.loads(shown.stdout)
    assert following["valid"] and following["violations"] == []
    sent = [c for m in following["messages"] for c in m.get("tool_calls") or ()]
    assert sent and all(isinstance(json.loads(c["function"]["arguments"]), dict) for c in sent)

"""What the commander reads when the model server fails: ``zoea simulate`` over real HTTP.

A run whose provider answered none of its requests exits 3 with one line in the
server's own words (stderr), and its JSON names each failure's class; a server that
breaks streamed answers is used unstreamed and the run plays on.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests import cli_runner
from tests.fakes import refused_url
from tests.fakes.llm_servers import Call, FakeOpenAIServer, HttpError, Raw, Reply

from .conftest import engine_config

CONTEXT_WORDS = "request (8251 tokens) exceeds the available context size (8192 tokens)"


def simulate(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """``zoea simulate``: one Mysis, two turns, on an OpenAI-compatible server at ``url``."""
    config = engine_config(tmp_path, url)
    return cli_runner.simulate(config, "engine", tmp_path / "sim.db", myses=1, turns=2, extra=extra)


@pytest.mark.parametrize("json_output", [False, True])
def test_a_refusal_every_time_exits_3_in_the_servers_words(
    tmp_path: Path, json_output: bool
) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = HttpError(400, CONTEXT_WORDS)
        done = simulate(tmp_path, server.url, *(["--json"] if json_output else []))

    assert done.returncode == 3, done.stderr
    line = done.stderr.strip()
    assert line.count("\n") == 0, done.stderr
    assert line.startswith("zoea simulate: the provider answered none of its requests: ")
    assert "refused" in line and CONTEXT_WORDS in line
    assert len(server.chat_requests) == 1  # a refusal is not retried as if transient
    if json_output:
        report = json.loads(done.stdout)
        assert report["answered"] == 0
        assert [f["kind"] for f in report["failures"]] == ["refused"]
        assert CONTEXT_WORDS in report["failures"][0]["message"]
    else:
        assert "0 answered, 1 provider failures" in done.stdout
        assert CONTEXT_WORDS in done.stdout


def test_a_web_page_is_named_for_what_it_is(tmp_path: Path) -> None:
    page = "<html><head><title>Router login</title></head><body>hello</body></html>"
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = Raw(page, content_type="text/html")
        done = simulate(tmp_path, server.url, "--json")

    assert done.returncode == 3
    assert "web page" in done.stderr and "Router login" in done.stderr
    assert "ended before" not in done.stderr  # not reported as a stream cut short
    assert json.loads(done.stdout)["failures"][0]["kind"] == "not_compatible"


def test_an_unreachable_endpoint_exits_3(tmp_path: Path) -> None:
    done = simulate(tmp_path, refused_url())
    assert done.returncode == 3
    assert "unreachable: Could not reach" in done.stderr


def test_a_server_that_breaks_streams_is_used_unstreamed_and_the_run_plays(
    tmp_path: Path,
) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        call = Reply(tool_calls=[Call("get_status", "{}")])
        # two streamed answers break, and the server answers each unstreamed
        server.script(Reply("x" * 200, cut_after=3), call, Reply("x" * 200, cut_after=3))
        server.default = call
        done = simulate(tmp_path, server.url, "--json")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["errors"] == 0 and report["failures"] == []
    assert report["answered"] == report["requests"] >= 3
    streams = [r.json()["stream"] for r in server.chat_requests]
    assert streams[:4] == [True, False, True, False] and not any(streams[4:])
    assert report["provider_notes"]["sim-01"].startswith("unstreamed: the server broke 2")
    assert done.stderr == ""  # the switch is logged, never on the terminal


def test_a_server_that_breaks_the_stream_then_refuses_is_told_in_one_line(
    tmp_path: Path,
) -> None:
    # The stream breaks and the request sent again unstreamed is refused: the refusal is
    # told in one line (the server is there: no crash, and no verdict on streaming).
    with FakeOpenAIServer().running_in_thread() as server:
        server.script(Reply("x" * 200, cut_after=3))
        server.default = HttpError(400, CONTEXT_WORDS)
        done = simulate(tmp_path, server.url)

    assert done.returncode == 3
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("zoea simulate: the provider answered none of its requests")
    assert CONTEXT_WORDS in done.stderr
    assert "unstreamed" not in done.stdout

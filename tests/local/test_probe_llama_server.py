"""``zoea probe`` against a real server: llama-cpp-python's, running SmolLM2-135M
(``llama_server`` in conftest.py).

That server breaks streamed tool calls (test_llama_server.py pins it) and answers them
unstreamed: the probe must say so, in its class, and still find that a Mysis can fly
there unstreamed, with ``stream = false`` in the block to paste.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.local


def test_probe_finds_the_real_server_flies_unstreamed(llama_server: str, tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OLLAMA_HOST")}
    env |= {"XDG_CONFIG_HOME": str(tmp_path), "ZOEA_CONFIG": ""}
    done = subprocess.run(
        [sys.executable, "-m", "zoea_tui.cli", "probe", llama_server, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )

    report = json.loads(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["reachable"] is True and report["models"] == ["local"]
    assert report["unstreamed_with_tools"] is True and report["tool_call_parsed"] is True
    assert report["stream_with_tools"] is False
    assert {f["step"]: f["kind"] for f in report["verdict"]["failures"]} == {"stream": "cut_short"}
    assert report["tokens_engine"] and report["tokens_estimate"]
    assert "stream = false" in report["verdict"]["config"]

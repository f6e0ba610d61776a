"""``tools = "auto"`` on a real engine (issue 40): where the full schemas leave no room in
the context, the compact ones fly, where explicit ``tools = "full"`` stops with today's
error. llama-cpp-python's server running SmolLM2 (``conftest.py``), the context
configured at 4 096 tokens (this server tells none), as ``llama-server --ctx-size 8192
--parallel 2`` gives a slot."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.local.conftest import LlamaCppServers
from tests.local.test_cli_on_real_server import logged, simulate

pytestmark = pytest.mark.local

CONTEXT = 4096


def test_auto_flies_on_compact_tools_where_the_full_ones_do_not_fit(
    llama_cpp_servers: LlamaCppServers, tmp_path: Path
) -> None:
    server = llama_cpp_servers.playing
    before = server.said().count("/v1/chat/completions")

    done = simulate(
        tmp_path, server.url, rounds=1, tools="auto", context_window=CONTEXT, stream=False
    )

    assert done.returncode == 0, done.stderr
    rows = logged(tmp_path / "sim.db", "SELECT outcome, tools_tokens FROM requests")
    assert rows and all(outcome == "ok" for outcome, _ in rows), rows
    # The compact tools (about 1 600 estimated tokens), not the full ones (about 5 800).
    assert {tokens for _, tokens in rows} == {rows[0][1]} and 0 < rows[0][1] < 2000
    assert server.said().count("/v1/chat/completions") > before


def test_explicit_full_on_the_same_context_stops_with_the_compact_fix(
    llama_cpp_servers: LlamaCppServers, tmp_path: Path
) -> None:
    server = llama_cpp_servers.playing
    before = server.said().count("/v1/chat/completions")

    done = simulate(tmp_path, server.url, rounds=1, tools="full", context_window=CONTEXT)

    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.splitlines()
    assert "> context 4 096 tokens" in line and 'tools = "compact"' in line, line
    assert server.said().count("/v1/chat/completions") == before  # nothing reached it
    assert logged(tmp_path / "sim.db", "SELECT COUNT(*) FROM requests") == [(0,)]

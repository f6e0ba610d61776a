"""A real engine whose context the configuration says is too small for the system prompt
and the tools (issue 39, item 4): ``zoea simulate`` sends it nothing, never a system
prompt cut to fit, and exits 3 with the numbers and the fix. llama-cpp-python's server
running SmolLM2 (``conftest.py``, one session fixture), its context 2 048 tokens."""

from __future__ import annotations

import re

import pytest

from tests.local.conftest import N_CTX, LlamaCppServers
from tests.local.test_cli_on_real_server import logged, simulate

pytestmark = pytest.mark.local

NUMBERS = re.compile(
    r"system (\d[\d ]*) \+ tools (\d[\d ]*) \+ history (\d[\d ]*) \+ answer (\d[\d ]*) "
    r"> context (\d[\d ]*) tokens"
)


@pytest.mark.parametrize("tools", ["full", "compact"])
def test_a_context_too_small_for_the_prompt_and_tools_sends_nothing_and_exits_3(
    llama_cpp_servers: LlamaCppServers,
    tmp_path,
    tools: str,  # type: ignore[no-untyped-def]
) -> None:
    server = llama_cpp_servers.playing
    before = server.said().count("/v1/chat/completions")

    done = simulate(tmp_path, server.url, tools=tools, context_window=N_CTX)

    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("zoea simulate: no request could be sent: "), line
    found = NUMBERS.search(line)
    assert found is not None, line
    system, tool_tokens, history, answer, context = (
        int(n.replace(" ", "")) for n in found.groups()
    )
    assert context == N_CTX and answer == 1024
    assert system + tool_tokens + history + answer > context
    # The fix advises compact tools only where they are not compact already.
    assert ('tools = "compact"' in line) == (tools == "full") and "-c" in line
    assert server.said().count("/v1/chat/completions") == before  # nothing reached it
    assert logged(tmp_path / "sim.db", "SELECT COUNT(*) FROM requests") == [(0,)]

"""A server context too small for the system prompt and the tools (issue 39, item 4):
nothing is sent, never a system prompt cut to fit. The Mysis stops with the numbers and
the fix; ``zoea simulate`` and ``zoea arena`` exit 3 with them, over real loopback HTTP."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.cli_runner import in_process, openai_config, simulate
from tests.fakes.llm_servers import FakeOpenAIServer, Reply
from zoea_tui.core.prompts import SYSTEM_PROMPT_TEMPLATE, render_system_prompt
from zoea_tui.core.tokens import tools_tokens

from .conftest import cloud_config, open_swarm, until

#: "system 1 900 + tools 5 799 + history 40 + answer 1 024 > context 3 072 tokens".
NUMBERS = re.compile(
    r"system (\d[\d ]*) \+ tools (\d[\d ]*) \+ history (\d[\d ]*) \+ answer (\d[\d ]*) "
    r"> context (\d[\d ]*) tokens"
)


def numbers(line: str) -> tuple[int, ...]:
    found = NUMBERS.search(line)
    assert found is not None, line
    return tuple(int(n.replace(" ", "")) for n in found.groups())


def config_file(tmp_path: Path, url: str, context: int, tools: str = "full") -> Path:
    """Explicit ``tools = "full"`` unless told: today's error, never the auto fallback
    (tests/orchestrator/test_tools_auto.py)."""
    return openai_config(
        tmp_path / "small.toml", "small", url, context_window=context, timeout=10, tools=tools
    )


async def test_the_mysis_stops_with_the_numbers_and_the_fix_and_sends_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zoea_tui.orchestrator.mysis")
    async with FakeOpenAIServer() as server:
        server.default = Reply("never asked")
        base = cloud_config(server.url)
        small = replace(base.providers["cloud"], context_window=3072, tools="full")
        config = replace(base, providers={**base.providers, "cloud": small})
        commander, _ = await open_swarm(tmp_path, config)
        try:
            view = await commander.create_mysis("Cramped")
            await until(lambda: commander.mysis(view.id).state == "errored")
            error = commander.mysis(view.id).last_error or ""
            tools = commander._myses[view.id]._tools["full"][0]
            logged = await commander.store.list_requests(view.id)
        finally:
            await commander.shutdown(timeout=2)
    assert server.chat_requests == [] and logged == []  # nothing sent, nothing logged
    system, tool_tokens, history, answer, context = numbers(error)
    assert tools is not None and tool_tokens == tools_tokens(tools) > 3072
    assert (answer, context) == (1024, 3072) and system > 300
    assert system + tool_tokens + history + answer > context
    assert 'tools = "compact"' in error and "-c" in error and "-np" in error
    stops = [r for r in caplog.records if "stopped (errored)" in r.getMessage()]
    assert len(stops) == 1 and "> context 3 072 tokens" in stops[0].getMessage()


@pytest.mark.parametrize("json_output", [False, True])
def test_simulate_exits_3_with_the_numbers(tmp_path: Path, json_output: bool) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        config = config_file(tmp_path, server.url, 3072)
        extra = ("--json",) if json_output else ()
        done = simulate(config, "small", tmp_path / "sim.db", myses=2, turns=2, extra=extra)
    assert done.returncode == 3, done.stderr
    line = done.stderr.strip()
    assert line.count("\n") == 0 and line.startswith("zoea simulate: "), done.stderr
    assert numbers(line)[-1] == 3072 and 'tools = "compact"' in line
    assert server.chat_requests == []
    if json_output:
        report = json.loads(done.stdout)
        assert report["requests"] == 0 and report["answered"] == 0
        assert [f["kind"] for f in report["failures"]] == ["context_too_small"] * 2
    else:
        assert "0 requests (0 answered, 2 provider failures)" in done.stdout


def test_tools_already_compact_are_not_advised_again(tmp_path: Path) -> None:
    """The fix names only what is not so: a provider already on compact tools is told
    of the server's context and slots, never ``tools = "compact"`` again."""
    with FakeOpenAIServer().running_in_thread() as server:
        config = config_file(tmp_path, server.url, 2048, tools="compact")
        done = simulate(config, "small", tmp_path / "sim.db", myses=1, turns=1)
    assert done.returncode == 3, done.stderr
    line = done.stderr.strip()
    assert numbers(line)[-1] == 2048 and "llama-server -c" in line and "-np" in line
    assert "compact" not in line
    assert server.chat_requests == []


def test_the_arena_exits_3_with_the_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        config = config_file(tmp_path, server.url, 2048)
        code, out, err = in_process(
            capsys,
            *("arena", "--scenario", "s1", "--provider", "small", "--ticks", "6"),
            *("--config", config, "--db", tmp_path / "a.db", "--no-baseline", "--json"),
        )
    assert code == 3, err
    assert err.count("\n") == 1
    assert numbers(err)[-1] == 2048
    assert server.chat_requests == []
    (run,) = json.loads(out)["cells"][0]["runs"]
    assert run["errored"] is True and "> context 2 048 tokens" in run["error"]


def test_with_room_the_same_provider_sends_the_system_prompt_whole(tmp_path: Path) -> None:
    """The control: compact tools and a context with room play, the prompt unmangled."""
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = Reply("Nothing to do.")
        config = config_file(tmp_path, server.url, 4096, tools="compact")
        done = simulate(config, "small", tmp_path / "sim.db", myses=1, turns=1)
    assert done.returncode == 0, done.stderr
    sent = server.chat_requests[0].json()["messages"][0]["content"]
    assert sent == render_system_prompt(SYSTEM_PROMPT_TEMPLATE)

"""``tools = "auto"`` (the default): the full schemas, unless the least request with them
does not fit the engine's context; then the compact ones, said once (issue 40).

The rule (``core.game_tool.tools_modes`` and ``with_fitting_tools``) is checked alone,
then on the runtime and the preview over the scripted llama-server on loopback HTTP,
which tells its slot's context at ``/props`` (4 096 tokens, as ``--ctx-size 8192
--parallel 2`` gives), with no context configured.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_servers import Call, FakeOpenAIServer, LlamaServer, Reply
from tests.helpers import open_on_world
from zoea_tui.arena.estimate import GUESS_TOKENS, Measured, estimate, guessed_tools
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core.composition import ContextTooSmallError
from zoea_tui.core.game_tool import (
    GAME_TOOL,
    TOOLS_SETTINGS,
    ToolsMode,
    ToolsSetting,
    tools_modes,
    with_fitting_tools,
)
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.events import Notice

from .conftest import drain, until

FELL_BACK = "Ada: the full tools do not fit the server's 4 096 tokens: compact tools"


def _too_small(mode: ToolsMode) -> ContextTooSmallError:
    return ContextTooSmallError(
        system=400,
        tools=5800 if mode == "full" else 1500,
        history=50,
        answer=1024,
        context=4096,
        compact_tools=mode == "compact",
    )


def _attempt(fits: set[ToolsMode], tried: list[ToolsMode]) -> Any:
    """A composer whose least request fits in the ``fits`` modes, recording each try."""

    async def attempt(mode: ToolsMode) -> str:
        tried.append(mode)
        if mode not in fits:
            raise _too_small(mode)
        return f"composed with {mode}"

    return attempt


@pytest.mark.parametrize(
    ("setting", "fits", "chosen", "tried"),
    [
        ("auto", {"full", "compact"}, "full", ["full"]),  # fits: full
        ("auto", {"compact"}, "compact", ["full", "compact"]),  # not: compact
        ("full", {"full", "compact"}, "full", ["full"]),
        ("compact", {"full", "compact"}, "compact", ["compact"]),  # never tries full
    ],
)
async def test_the_rule_sends_the_first_mode_that_fits(
    setting: ToolsSetting, fits: set[ToolsMode], chosen: ToolsMode, tried: list[ToolsMode]
) -> None:
    seen: list[ToolsMode] = []
    result = await with_fitting_tools(setting, _attempt(fits, seen))
    assert result == (f"composed with {chosen}", chosen)
    assert seen == tried


async def test_compact_too_big_the_error_stands_without_advising_compact() -> None:
    seen: list[ToolsMode] = []
    with pytest.raises(ContextTooSmallError) as raised:
        await with_fitting_tools("auto", _attempt(set(), seen))
    assert seen == ["full", "compact"]
    assert "tools 1 500" in str(raised.value) and 'tools = "compact"' not in str(raised.value)
    assert "llama-server -c" in str(raised.value) and "-np" in str(raised.value)


async def test_explicit_full_keeps_its_error_with_the_compact_fix() -> None:
    """Explicit ``"full"`` is never overruled, though compact would fit."""
    seen: list[ToolsMode] = []
    with pytest.raises(ContextTooSmallError) as raised:
        await with_fitting_tools("full", _attempt({"compact"}, seen))
    assert seen == ["full"]
    assert 'tools = "compact" for the provider' in str(raised.value)


def test_the_modes_of_each_setting() -> None:
    assert TOOLS_SETTINGS == ("auto", "full", "compact")
    assert tools_modes("auto") == ("full", "compact")
    # Once fallen back it stays compact: the tools do not flip between requests.
    assert tools_modes("auto", fell_back=True) == ("compact",)
    assert tools_modes("full", fell_back=True) == ("full",)
    assert tools_modes("compact") == ("compact",)


async def test_other_errors_are_not_taken_for_a_context_too_small() -> None:
    seen: list[ToolsMode] = []

    async def broken(mode: ToolsMode) -> str:
        seen.append(mode)
        raise RuntimeError("the game is down")

    with pytest.raises(RuntimeError):
        await with_fitting_tools("auto", broken)
    assert seen == ["full"]


# -- the runtime and the preview, over the scripted llama-server -----------------------


def _config(url: str, **knobs: Any) -> Config:
    base = Config()
    llama = ProviderConfig(name="llama", type="openai", endpoint=url, model="qwen2.5", **knobs)
    return replace(
        base,
        providers={**base.providers, "llama": llama},
        game=replace(base.game, tick_seconds=0),
        swarm=replace(base.swarm, default_provider="llama"),
    )


async def _open(tmp_path: Path, url: str, **knobs: Any) -> Commander:
    return await open_on_world(_config(url, **knobs), tmp_path)


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or ()]


async def test_auto_flies_compact_on_a_4096_token_slot_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="zoea_tui.orchestrator.mysis")
    engine = LlamaServer(n_ctx=4096)
    async with FakeOpenAIServer(llama=engine) as llama:
        status = Call(GAME_TOOL, {"command": "get_status", "args": {}})
        llama.script(Reply("", tool_calls=[status]), Reply("Status checked."))
        commander = await _open(tmp_path, llama.url)  # tools: the default, "auto"
        sub = commander.bus.subscribe()
        try:
            view = await commander.create_mysis("Ada")
            await until(lambda: len(llama.chat_requests) >= 2)
            runtime = commander._get(view.id)
            state, fell_back = runtime.state, runtime.tools_fell_back
            preview = await commander.preview(view.id)
            compact_tokens = runtime.known_tools_tokens("compact")
            logged = await commander.store.list_requests(view.id)
            tools_run = [m for m in await commander.memories(view.id) if m.role == "tool"]
        finally:
            await commander.shutdown()
    assert commander.config.provider("llama").tools == "auto"
    assert state != "errored" and fell_back is True
    assert [m.tool_name for m in tools_run] == ["get_status"]  # the compact call ran
    for request in llama.chat_requests[:2]:
        body = request.json()
        assert GAME_TOOL in _tool_names(body) and "get_status" not in _tool_names(body)
        assert engine.prompt_tokens(body) <= 4096 - 1024  # room for the answer
    assert {r.tools_tokens for r in logged[:2]} == {compact_tokens} and compact_tokens > 0
    # The preview composes as the runtime does: compact tools, no refusal.
    assert preview.tokens > compact_tokens
    notices = [e.message for e in drain(sub) if isinstance(e, Notice)]
    assert notices.count(FELL_BACK) == 1, notices
    said = [r.getMessage() for r in caplog.records if "full tools do not fit" in r.getMessage()]
    assert said == [FELL_BACK]


async def test_explicit_full_on_the_same_slot_is_errored_as_before(tmp_path: Path) -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=4096)) as llama:
        llama.default = Reply("never asked")
        commander = await _open(tmp_path, llama.url, tools="full")
        try:
            view = await commander.create_mysis("Ada")
            await until(lambda: commander.mysis(view.id).state == "errored")
            error = commander.mysis(view.id).last_error or ""
            fell_back = commander._get(view.id).tools_fell_back
        finally:
            await commander.shutdown()
    assert llama.chat_requests == [] and fell_back is False
    assert "> context 4 096 tokens" in error and 'tools = "compact" for the provider' in error


async def test_auto_on_a_slot_too_small_even_for_compact_tools_errors_with_the_other_fixes(
    tmp_path: Path,
) -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=2048)) as llama:
        llama.default = Reply("never asked")
        commander = await _open(tmp_path, llama.url)
        try:
            view = await commander.create_mysis("Ada")
            await until(lambda: commander.mysis(view.id).state == "errored")
            error = commander.mysis(view.id).last_error or ""
        finally:
            await commander.shutdown()
    assert llama.chat_requests == []
    assert "> context 2 048 tokens" in error and "compact" not in error
    assert "llama-server -c" in error and "-np" in error


async def test_auto_with_room_sends_the_full_schemas(tmp_path: Path) -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16_384)) as llama:
        llama.default = Reply("Nothing to do yet.")
        commander = await _open(tmp_path, llama.url)
        sub = commander.bus.subscribe()
        try:
            view = await commander.create_mysis("Ada")
            await until(lambda: len(llama.chat_requests) >= 1)
            fell_back = commander._get(view.id).tools_fell_back
        finally:
            await commander.shutdown()
    names = _tool_names(llama.chat_requests[0].json())
    assert "get_status" in names and GAME_TOOL not in names and fell_back is False
    assert not [e for e in drain(sub) if isinstance(e, Notice) and "tools" in e.message]


# -- the arena's estimate ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "context", "guessed"),
    [
        ("auto", 32_768, "full"),
        ("auto", 4096, "compact"),  # 6 800 + 1 024 > 4 096
        ("auto", 6800 + 1024, "full"),  # just room
        ("auto", 6800 + 1023, "compact"),
        ("full", 4096, "full"),  # explicit: untouched
        ("compact", 32_768, "compact"),
    ],
)
def test_the_arena_guesses_the_tools_by_the_same_rule(
    setting: ToolsSetting, context: int, guessed: ToolsMode
) -> None:
    provider = ProviderConfig(
        name="p", type="openai", endpoint="http://x", model="m", context_window=context
    )
    provider = replace(provider, tools=setting)
    assert guessed_tools(provider) == guessed
    figures = estimate(provider, 1, [200], budget_kind="smbench", measured=Measured())
    assert figures["tokens_in"] == figures["requests"] * GUESS_TOKENS[guessed]


async def test_a_mysis_moved_to_a_roomier_engine_tries_the_full_tools_again(
    tmp_path: Path,
) -> None:
    """The fallback belongs to the engine that forced it: a Mysis moved (``c``) from a
    4 096-token slot to a 32 768-token one sends the full schemas there, where it used
    to stay on the compact ones for the rest of the run."""
    async with (
        FakeOpenAIServer(llama=LlamaServer(n_ctx=4096)) as small,
        FakeOpenAIServer(llama=LlamaServer(n_ctx=32_768)) as big,
    ):
        small.default = Reply("Holding.")
        big.default = Reply("Holding on the big one.")
        base = _config(small.url)
        providers = {
            **base.providers,
            "big": ProviderConfig(name="big", type="openai", endpoint=big.url, model="qwen2.5"),
        }
        commander = await open_on_world(replace(base, providers=providers), tmp_path)
        try:
            view = await commander.create_mysis("Ada", provider="llama")
            await until(lambda: len(small.chat_requests) >= 1)
            assert commander._get(view.id).tools_fell_back
            await commander.configure_mysis(view.id, provider="big")
            await commander.send_message(view.id, "report")
            await until(lambda: len(big.chat_requests) >= 1)
        finally:
            await commander.shutdown(timeout=1)
    on_small = _tool_names(small.chat_requests[0].json())
    assert GAME_TOOL in on_small and "get_status" not in on_small
    assert "get_status" in _tool_names(big.chat_requests[0].json())

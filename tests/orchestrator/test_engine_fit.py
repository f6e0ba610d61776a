"""Requests that fit the real engine, over real loopback HTTP and a real SQLite file.

The scripted llama-server (:class:`~tests.fakes.llm_servers.LlamaServer`) counts prompts
with its own tokenizer and template (8,116 tokens where the estimate says 5,979, as
measured on the real one), tells its slot's context at ``/props``, and refuses what
the real one refuses: a prompt over its context (HTTP 400) and a history carrying a
call whose arguments are not JSON (HTTP 500).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_servers import Call, FakeOllamaServer, FakeOpenAIServer, LlamaServer, Reply
from tests.helpers import open_on_world
from zoea_tui.config import Config, ProviderConfig
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.validator import validate
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.events import MysisView
from zoea_tui.orchestrator.requests import inspect_request, recompose, recorded_settings
from zoea_tui.storage import RequestRecord

from .conftest import until

#: Prose of about 4,000 estimated tokens (a long answer that stays in the history).
LONG_ANSWER = "The belt holds iron ore and the station buys it at a fair price. " * 290


def _config(provider: ProviderConfig) -> Config:
    base = Config()
    providers = {**base.providers, provider.name: provider}
    return replace(base, providers=providers, game=replace(base.game, tick_seconds=0))


async def _open(tmp_path: Path, provider: ProviderConfig) -> Commander:
    config = _config(provider)
    return await open_on_world(config, tmp_path)


async def _turn_played(
    commander: Commander, server: FakeOpenAIServer, name: str, requests: int
) -> MysisView:
    """A new Mysis on the ``llama`` provider, once ``server`` was sent ``requests`` chat
    requests in all and the Mysis waits for its next turn."""
    view = await commander.create_mysis(name, provider="llama")
    await until(lambda: len(server.chat_requests) >= requests)
    await until(lambda: commander.mysis(view.id).activity == "waiting")
    return view


def _llama(url: str, **knobs: Any) -> ProviderConfig:
    return ProviderConfig(name="llama", type="openai", endpoint=url, model="qwen2.5", **knobs)


async def test_the_estimate_matches_the_engine_after_its_first_answer(tmp_path: Path) -> None:
    engine = LlamaServer(n_ctx=10**6)
    async with FakeOpenAIServer(llama=engine) as llama:
        llama.script(Reply("", tool_calls=[Call("get_status", {})]), Reply("Status checked."))
        commander = await _open(tmp_path, _llama(llama.url))
        try:
            first = await _turn_played(commander, llama, "Fit", 2)
            # A new Mysis on the same model fits from its first request.
            second = await _turn_played(commander, llama, "Later", 3)
            logged = [
                *await commander.store.list_requests(first.id),
                *await commander.store.list_requests(second.id),
            ]
        finally:
            await commander.shutdown()
    bodies = [r.json() for r in llama.chat_requests]
    counts = [engine.prompt_tokens(body) for body in bodies]
    assert [r.prompt_tokens for r in logged] == counts  # the engine's count, as recorded
    before, *after = logged
    assert abs(before.estimated_tokens - counts[0]) / counts[0] > 0.25  # cl100k alone
    for record, count in zip(after, counts[1:], strict=True):
        assert abs(record.estimated_tokens - count) / count <= 0.05, (record, count)


async def test_a_request_is_composed_to_fit_the_servers_context(tmp_path: Path) -> None:
    engine = LlamaServer(n_ctx=12_288)
    async with FakeOpenAIServer(llama=engine) as llama:
        llama.script(
            Reply(LONG_ANSWER, tool_calls=[Call("get_status", {})]), Reply("Status checked.")
        )
        commander = await _open(tmp_path, _llama(llama.url))  # configured: 32,768
        try:
            view = await _turn_played(commander, llama, "Fit", 2)
            runtime = commander._get(view.id)
            notes = runtime.provider.notes  # type: ignore[attr-defined]
            # Every view measures the requests against the window they are composed for.
            window = commander.mysis(view.id).context_window
            logged = await commander.store.list_requests(view.id)
            settings = recorded_settings(logged[1], commander.config.compose_settings("llama"))
            uncalibrated = await recompose(
                commander.store, logged[1], replace(settings, token_scale=1.0)
            )
            # The inspector recomposes the calibrated request byte for byte from the log.
            seen = await inspect_request(commander.store, logged[1].id, settings)
            assert seen is not None and seen.identical is True
        finally:
            await commander.shutdown()
    assert notes["context"] == "server context 12288 < configured 32768"
    assert window == 12_288
    assert [r.outcome for r in logged] == ["ok", "ok"], "no request was refused"
    # Asked once for the context (calibration.py), once for the slots to warm at the
    # first request (warm_start.py): never again per request.
    assert [r.path for r in llama.requests].count("/props") == 2
    assert settings.context_window == 12_288 and settings.token_scale > 1.3
    second = llama.chat_requests[1].json()
    assert engine.prompt_tokens(second) <= 12_288 - 1024  # room left for the answer
    assert logged[1].estimated_tokens <= 12_288 - 1024
    assert not validate(second["messages"])
    # Counted with the estimate alone, the same request would have been refused.
    body = {**second, "messages": list(uncalibrated.messages)}
    assert uncalibrated.tokens <= 12_288 - 1024 < 12_288 < engine.prompt_tokens(body)


async def test_room_is_left_for_the_answers_max_tokens(tmp_path: Path) -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16_384)) as llama:
        llama.default = Reply("Done.")
        commander = await _open(tmp_path, _llama(llama.url, max_tokens=4096))
        try:
            view = await _turn_played(commander, llama, "Fit", 1)
            preview = await commander.preview(view.id)
            logged = await commander.store.list_requests(view.id)
        finally:
            await commander.shutdown()
    settings = recorded_settings(logged[0], Config().compose_settings())
    assert settings.context_window == 16_384 and settings.reserve_tokens == 4096
    assert preview.tokens <= 16_384 - 4096


async def test_ollamas_model_context_caps_num_ctx_and_the_budget(tmp_path: Path) -> None:
    async with FakeOllamaServer(context_length=8192, parameters="num_ctx 2048") as home:
        home.default = Reply("Done.")
        provider = ProviderConfig(
            name="home", type="ollama", endpoint=home.origin, model="qwen3:8b"
        )
        commander = await _open(tmp_path, replace(provider, context_window=16_384))
        try:
            view = await commander.create_mysis("Home", provider="home")
            await until(lambda: len(home.chat_requests) >= 1)
            notes = commander._get(view.id).provider.notes  # type: ignore[attr-defined]
            logged = await commander.store.list_requests(view.id)
        finally:
            await commander.shutdown()
    assert notes["context"] == "server context 8192 < configured 16384"
    body = home.chat_requests[0].json()
    assert body["options"]["num_ctx"] == 8192  # its parameters' num_ctx is only a default
    assert recorded_settings(logged[0], Config().compose_settings()).context_window == 8192
    show = next(r for r in home.requests if r.path == "/api/show")
    assert show.json() == {"model": "qwen3:8b"}


async def test_a_server_that_tells_nothing_leaves_the_configuration_alone(
    tmp_path: Path,
) -> None:
    async with FakeOpenAIServer() as cloud:  # no /props: 404
        cloud.default = Reply("Done.")
        commander = await _open(tmp_path, _llama(cloud.url, context_window=20_000))
        try:
            view = await _turn_played(commander, cloud, "Cloud", 1)
            notes = commander._get(view.id).provider.notes  # type: ignore[attr-defined]
            logged = await commander.store.list_requests(view.id)
        finally:
            await commander.shutdown()
    assert notes == {}
    assert [r.outcome for r in logged] == ["ok"]
    assert recorded_settings(logged[0], Config().compose_settings()).context_window == 20_000


async def test_a_call_cut_at_max_tokens_never_poisons_the_history(tmp_path: Path) -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=10**6)) as llama:
        llama.script(
            Reply("", tool_calls=[Call("travel", '{"target')], finish_reason="length"),
            Reply("", tool_calls=[Call("get_status", {})]),
            Reply("Status checked."),
        )
        commander = await _open(tmp_path, _llama(llama.url, max_tokens=16))
        try:
            view = await commander.create_mysis("Cut", provider="llama")
            await until(
                lambda: (
                    commander.mysis(view.id).state == "errored"
                    or commander.mysis(view.id).activity == "waiting"
                )
            )
            logged = await commander.store.list_requests(view.id)
            stored = [m async for m in commander.store.iter_memories(view.id) if m.role != "system"]
        finally:
            await commander.shutdown()
    assert [(r.outcome, r.error) for r in logged] == [("ok", None)] * 3, "nothing refused"
    for request in llama.chat_requests[1:]:
        messages = request.json()["messages"]
        assert validate(messages) == [], messages
        call = next(m for m in messages if m.get("tool_calls"))["tool_calls"][0]
        assert call["function"] == {"name": "travel", "arguments": "{}"}
    result = next(m for m in llama.chat_requests[1].json()["messages"] if m["role"] == "tool")
    error = json.loads(result["content"])["error"]
    assert error["code"] == "cut_off"
    assert "travel was cut off at max_tokens" in error["message"]
    # The memory keeps what the model really wrote (the focus view and inspector show it).
    cut = next(m for m in stored if m.tool_calls)
    assert cut.tool_calls[0].arguments == '{"target'


def test_a_request_logged_before_calibration_recomposes_uncalibrated(tmp_path: Path) -> None:
    inputs = {"settings": {"context_window": 8192}, "game_state": ""}
    old = RequestRecord(
        id=1,
        mysis_id=1,
        created_at=0.0,
        strategy="turn-aware",
        last_memory_id=3,
        nudge_level=0,
        items=[],
        estimated_tokens=100,
        prompt_tokens=None,
        completion_tokens=None,
        latency_ms=None,
        outcome="ok",
        error=None,
        inputs=json.dumps(inputs),
    )
    today = ComposeSettings(token_scale=1.36)
    assert recorded_settings(old, today).token_scale == 1.0
    assert recorded_settings(old, today).context_window == 8192
    unrecorded = replace(old, inputs=None)  # older still: today's settings stand in
    assert recorded_settings(unrecorded, today).token_scale == 1.36


@pytest.mark.parametrize(
    ("counts", "cache_reuse", "sent"), [(True, None, 256), (True, 0, None), (False, None, None)]
)
async def test_only_a_llama_server_is_asked_to_reuse_moved_parts_of_its_cache(
    tmp_path: Path, counts: bool, cache_reuse: int | None, sent: int | None
) -> None:
    """``n_cache_reuse`` (256 by default) goes to a server that counts prompts, which only
    llama-server does; to no other server (they refuse fields they do not know), and to
    none with ``cache_reuse = 0``."""
    knobs = {} if cache_reuse is None else {"cache_reuse": cache_reuse}
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=10**6, counts=counts)) as llama:
        llama.script(Reply("", tool_calls=[Call("get_status", {})]), Reply("Status checked."))
        commander = await _open(tmp_path, _llama(llama.url, **knobs))
        try:
            await _turn_played(commander, llama, "Reuse", 2)
        finally:
            await commander.shutdown()
    assert [r.json().get("n_cache_reuse") for r in llama.chat_requests] == [sent, sent]


async def _answer_the_estimate_misjudges(tmp_path: Path, counts: bool) -> tuple[list[Any], Any]:
    """A first answer of 8,000 ``=``: 125 estimated tokens, 2,254 of the engine's, so the
    second request is over the 9,800-token slot by the engine's count alone."""
    engine = LlamaServer(n_ctx=9800, counts=counts)
    async with FakeOpenAIServer(llama=engine) as llama:
        llama.script(
            Reply("=" * 8000 + " Done.", tool_calls=[Call("get_status", {})]),
            Reply("Status checked."),
        )
        commander = await _open(tmp_path, _llama(llama.url))
        try:
            view = await commander.create_mysis("Fit", provider="llama")
            await until(lambda: len(llama.chat_requests) >= 2)
            await until(
                lambda: (
                    commander.mysis(view.id).activity == "waiting"
                    or commander.mysis(view.id).state == "errored"
                )
            )
            logged = await commander.store.list_requests(view.id)
        finally:
            await commander.shutdown()
    return logged, llama


async def test_a_request_the_server_counts_over_its_slot_is_composed_again(
    tmp_path: Path,
) -> None:
    logged, llama = await _answer_the_estimate_misjudges(tmp_path, counts=True)
    assert [r.outcome for r in logged[:2]] == ["ok", "ok"]
    second = llama.chat_requests[1].json()
    assert LlamaServer().prompt_tokens(second) <= 9800 - 1024
    # Each request counted; the second twice: composed again at the scale its count
    # taught, the estimate leaves the system prompt and the tools no room, so the least
    # request (the system prompt whole, the long answer cut) is counted before it goes.
    assert [r.path for r in llama.requests].count("/tokenize") == 3
    first = llama.chat_requests[0].json()["messages"][0]
    assert second["messages"][0] == first  # never cut to fit


async def test_a_counted_request_is_learnt_from_once(tmp_path: Path) -> None:
    """The count before sending and the answer's usage are the same number: learnt once."""
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=10**6)) as llama:
        llama.script(Reply("", tool_calls=[Call("get_status", {})]), Reply("Status checked."))
        commander = await _open(tmp_path, _llama(llama.url))
        try:
            await _turn_played(commander, llama, "Fit", 2)
            learnt = commander.services.fit._engines[("llama", "qwen2.5")]
        finally:
            await commander.shutdown()
    assert learnt.observations == len(llama.chat_requests) == 2


async def test_the_least_request_the_engine_counts_as_fitting_is_counted_once(
    tmp_path: Path,
) -> None:
    """By the estimate the system prompt and the tools leave no room in a 6,000-token
    slot; this engine's tokenizer counts the least request well under it: it is sent,
    counted once (while fitting), not again before it goes."""
    engine = LlamaServer(n_ctx=6000, bytes_per_token=8.0)
    async with FakeOpenAIServer(llama=engine) as llama:
        llama.script(Reply("Done."))
        commander = await _open(tmp_path, _llama(llama.url))
        try:
            view = await _turn_played(commander, llama, "Fit", 1)
            logged = await commander.store.list_requests(view.id)
        finally:
            await commander.shutdown()
    assert logged[0].outcome == "ok"
    assert [r.path for r in llama.requests].count("/tokenize") == len(llama.chat_requests)


async def test_without_the_servers_count_the_same_request_is_refused(tmp_path: Path) -> None:
    """The check above fails without the count: the learnt ratio alone lets it through."""
    logged, _ = await _answer_the_estimate_misjudges(tmp_path, counts=False)
    assert logged[1].outcome == "error"

"""What servers say about their context, asked over real loopback HTTP; and that asking
never fails, whatever the server does."""

from __future__ import annotations

import socket

import pytest

from tests.fakes.llm_servers import FakeOllamaServer, FakeOpenAIServer, LlamaServer
from zoea_tui.providers.base import ProviderError
from zoea_tui.providers.discovery import (
    ReportsContext,
    ServerContext,
    SharesPrefix,
    listed_models,
    ordered_models,
    server_root,
)
from zoea_tui.providers.ollama import OllamaProvider
from zoea_tui.providers.openai_compat import OpenAIProvider


@pytest.mark.parametrize(
    ("endpoint", "root"),
    [
        ("http://h:8080/v1", "http://h:8080"),
        ("http://h:8080/v1/", "http://h:8080"),
        ("http://h:8080", "http://h:8080"),
        ("http://h/llama/v1", "http://h/llama"),
    ],
)
def test_llama_servers_own_routes_are_at_the_root(endpoint: str, root: str) -> None:
    assert server_root(endpoint) == root


async def _context_of(provider: OpenAIProvider | OllamaProvider) -> ServerContext | None:
    """What ``provider`` is told of its server's context, the provider closed after."""
    try:
        return await provider.server_context()
    finally:
        await provider.aclose()


async def test_llama_server_tells_its_slot_context_at_props() -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=4096)) as llama:
        provider = OpenAIProvider(llama.url, "qwen2.5")
        assert isinstance(provider, ReportsContext)
        assert await _context_of(provider) == ServerContext(4096, "llama-server /props")
    assert [(r.method, r.path) for r in llama.requests] == [("GET", "/props")]


async def test_an_openai_server_without_props_tells_nothing_quietly() -> None:
    async with FakeOpenAIServer() as cloud:
        assert await _context_of(OpenAIProvider(cloud.url, "gpt")) is None


async def test_an_unreachable_server_tells_nothing_quietly() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert await _context_of(OpenAIProvider(f"http://127.0.0.1:{port}/v1", "gpt")) is None
    assert await _context_of(OllamaProvider(f"http://127.0.0.1:{port}", "qwen3:8b")) is None


async def test_ollama_tells_the_models_training_context_at_api_show() -> None:
    async with FakeOllamaServer(context_length=40_960, parameters="num_ctx 4096") as home:
        provider = OllamaProvider(home.origin, "qwen3:8b")
        try:
            found = await provider.server_context()
            missing = await provider.server_context("llama3:70b")  # not pulled: 404
        finally:
            await provider.aclose()
    assert found == ServerContext(40_960, "ollama /api/show")
    assert missing is None
    assert [r.json() for r in home.requests if r.path == "/api/show"] == [
        {"model": "qwen3:8b"},
        {"model": "llama3:70b"},
    ]


async def test_ollama_without_a_context_length_tells_nothing() -> None:
    async with FakeOllamaServer(context_length=None, parameters="num_ctx 4096") as home:
        assert await _context_of(OllamaProvider(home.origin, "qwen3:8b")) is None


async def test_the_models_a_server_lists_come_in_its_order() -> None:
    async with (
        FakeOpenAIServer(listed=["b", "a", "b"]) as cloud,
        FakeOllamaServer(models=["qwen3:8b", "llama3.2"]) as ollama,
    ):
        openai = OpenAIProvider(cloud.url, "")
        native = OllamaProvider(ollama.url, "")
        try:
            assert await openai.list_models() == ["b", "a"]
            assert await native.list_models() == ["qwen3:8b", "llama3.2"]
        finally:
            await openai.aclose()
            await native.aclose()
    assert [(r.method, r.path) for r in cloud.requests] == [("GET", "/v1/models")]


async def test_a_server_that_lists_nothing_fails_loudly_or_quietly_as_asked() -> None:
    async with FakeOpenAIServer(lists_models=False) as cloud:
        provider = OpenAIProvider(cloud.url, "")
        try:
            with pytest.raises(ProviderError) as failed:
                await provider.list_models()
            assert failed.value.kind == "refused"
            assert await listed_models(provider) == []
        finally:
            await provider.aclose()


def test_the_configured_model_comes_first_even_unlisted() -> None:
    assert ordered_models(["a", "b", "c"], "b") == ["b", "a", "c"]
    assert ordered_models(["a"], "z") == ["z", "a"]
    assert ordered_models(["a"], "") == ["a"]


async def test_a_multi_slot_llama_server_is_asked_to_share_its_warm_slot() -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=4096, slots=4)) as llama:
        provider = OpenAIProvider(llama.url, "qwen")
        try:
            assert isinstance(provider, SharesPrefix)
            assert await provider.share_prefix() == 4
        finally:
            await provider.aclose()
    assert [(r.method, r.path) for r in llama.requests] == [
        ("GET", "/props"),
        ("POST", "/completion"),
    ]
    poke = llama.requests[-1].json()
    assert (poke["n_predict"], poke["cache_prompt"]) == (1, False) and len(poke["prompt"]) == 1
    assert llama.chat_requests == []


@pytest.mark.parametrize("llama", [LlamaServer(slots=1), None])
async def test_one_slot_or_another_server_is_not_asked(llama: LlamaServer | None) -> None:
    async with FakeOpenAIServer(llama=llama) as server:
        provider = OpenAIProvider(server.url, "qwen")
        try:
            assert await provider.share_prefix() is None
        finally:
            await provider.aclose()
    assert "/completion" not in [r.path for r in server.requests]

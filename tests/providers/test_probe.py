"""``providers/probe.py``: what an endpoint can do for a swarm, against loopback servers.

Each test points the probe at a real HTTP server that behaves as one kind of engine (a
llama-server with its slot and prompt cache, an Ollama, a server that breaks streamed
tool calls, one that answers text, a web page, nothing at all) and reads the verdict.
"""

from __future__ import annotations

import json
from dataclasses import replace

from tests.fakes import refused_url
from tests.fakes.llm_servers import (
    Call,
    FakeOllamaServer,
    FakeOpenAIServer,
    HttpError,
    LlamaServer,
    Raw,
    Reply,
)
from zoea_tui.providers.probe import ProbeReport, ProbeTarget, probe

#: The keys of a report's JSON, in their order.
KEYS = [
    "reachable",
    "models",
    "context_window",
    "template_tools",
    "stream_with_tools",
    "unstreamed_with_tools",
    "tool_call_parsed",
    "tokens_estimate",
    "tokens_engine",
    "cache_reuse",
    "latency_s",
    "verdict",
]
STATUS_CALL = Reply(tool_calls=[Call("get_status", {"section": "ship"})])


async def test_a_llama_server_flies_with_its_context_tokens_and_cache() -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384), listed=["qwen"]) as server:
        server.default = STATUS_CALL
        report = await probe(ProbeTarget(server.url))

    data = report.to_json()
    assert list(data) == KEYS
    assert data["reachable"] is True and data["models"] == ["qwen"]
    assert data["context_window"] == 16384
    assert data["template_tools"] is True
    assert data["stream_with_tools"] is True and data["unstreamed_with_tools"] is True
    assert data["tool_call_parsed"] is True
    assert data["tokens_engine"] and data["tokens_engine"] != data["tokens_estimate"]
    # The repeated request shares all but its last token with the one before.
    assert data["cache_reuse"] is not None and 0.9 < data["cache_reuse"] < 1
    assert set(data["latency_s"]) == {"models", "stream", "unstreamed", "repeat"}
    assert data["verdict"]["flies"] is True
    assert data["verdict"]["model"] == "qwen"
    assert "[providers.llama-server]" in data["verdict"]["config"]
    assert "context_window = 16384" in data["verdict"]["config"]
    json.dumps(data)  # all of it is JSON


async def test_a_server_that_breaks_streamed_tool_calls_flies_unstreamed() -> None:
    async with FakeOpenAIServer() as server:
        server.script(Reply(tool_calls=[Call("get_status", {"section": "ship"})], cut_after=2))
        server.default = STATUS_CALL
        report = await probe(ProbeTarget(server.url))

    assert report.stream_with_tools is False and report.unstreamed_with_tools is True
    assert report.flies
    assert [(f.step, f.kind) for f in report.failures] == [("stream", "cut_short")]
    assert "stream = false" in report.config_block()
    assert report.to_json()["verdict"]["stream"] is False


async def test_a_streamed_step_that_timed_out_says_so_and_gives_no_streaming_advice() -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384)) as server:
        # The streamed step waits past the timeout; the others are answered at once.
        server.script(Reply(tool_calls=[Call("get_status", {"section": "ship"})], delay=3.0))
        server.default = STATUS_CALL
        report = await probe(ProbeTarget(server.url, timeout=0.5))

    assert [(f.step, f.kind) for f in report.failures] == [("stream", "timeout")]
    assert report.flies and report.stream_setting == "auto"
    assert "stream = false" not in report.config_block()
    assert "breaks streamed" not in " ".join(f.fix for f in report.failures)
    assert "no answer in time" in report.failures[0].fix
    streamed = next(line for line in report.table() if "streamed + tool" in line)
    assert "no: timed out" in streamed


async def test_the_cache_line_says_the_repeat_step_timed_out() -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384)) as server:
        server.script(STATUS_CALL, STATUS_CALL, replace(STATUS_CALL, delay=3.0))
        report = await probe(ProbeTarget(server.url, timeout=0.5))

    assert report.cache_reuse is None
    assert [(f.step, f.kind) for f in report.failures] == [("repeat", "timeout")]
    cache = next(line for line in report.table() if "prompt cache" in line)
    assert "no figure: the repeat step timed out" in cache
    assert "reported no cache count" not in cache


async def test_the_cache_line_says_why_it_has_no_figure() -> None:
    async with FakeOpenAIServer() as server:  # no llama-server: no cache count
        server.default = STATUS_CALL
        counted_nothing = await probe(ProbeTarget(server.url))
    async with FakeOpenAIServer() as server:
        server.default = HttpError(500, "boom")
        answered_nothing = await probe(ProbeTarget(server.url))

    def cache(report: ProbeReport) -> str:
        return next(line for line in report.table() if "prompt cache" in line)

    assert "the server's answers carry no cache count" in cache(counted_nothing)
    assert "no request was answered, so none was repeated" in cache(answered_nothing)


async def test_a_template_that_drops_the_tools_is_told_with_the_fix() -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384, supports_tools=False)) as server:
        server.default = Reply("I am a helpful assistant.")
        report = await probe(ProbeTarget(server.url))

    assert report.template_tools is False and not report.flies
    assert report.summary() == (
        "cannot fly a Mysis: the chat template drops the tools: start llama-server with a "
        "template that renders them (--jinja, --chat-template-file with a tool template "
        "such as Qwen2.5's)"
    )
    assert "  template + tools   drops them (/props)" in report.table()
    assert report.context_window == 16384
    assert [r.path for r in server.requests].count("/props") == 1  # context, template: once
    # The model never saw the tool: the prompt the server counted has no schema in it.
    assert report.tokens_engine is not None and report.tokens_engine < report.tokens_estimate


async def test_a_template_that_renders_the_tools_or_says_nothing_is_no_problem() -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384, supports_tools=None)) as server:
        server.default = STATUS_CALL
        silent = await probe(ProbeTarget(server.url))
    assert silent.template_tools is None and silent.flies
    assert "  template + tools   not reported" in silent.table()


async def test_an_ollama_model_without_the_tools_capability_cannot_fly() -> None:
    async with FakeOllamaServer(capabilities=("completion",)) as server:
        server.default = STATUS_CALL
        report = await probe(ProbeTarget(server.url))
    async with FakeOllamaServer(capabilities=None) as server:
        server.default = STATUS_CALL
        older = await probe(ProbeTarget(server.url))

    assert report.template_tools is False and not report.flies
    assert report.problems[0].startswith("the chat template drops the tools: pick a model")
    assert "  template + tools   drops them (/api/show)" in report.table()
    assert older.template_tools is None and older.flies


async def test_a_model_that_answers_text_cannot_fly() -> None:
    async with FakeOpenAIServer() as server:
        server.default = Reply("I would check the status now.")
        report = await probe(ProbeTarget(server.url))

    assert report.unstreamed_with_tools is True and report.tool_call_parsed is False
    assert not report.flies
    assert "no tool call came back parsed" in report.summary()
    assert "I would check the status now." in report.answered_text


async def test_a_call_whose_arguments_are_not_json_is_not_parsed() -> None:
    async with FakeOpenAIServer() as server:
        server.default = Reply(tool_calls=[Call("get_status", '{"section": "sh')])
        report = await probe(ProbeTarget(server.url))

    assert report.tool_call_parsed is False and not report.flies
    assert report.tool_call.startswith("get_status(")


async def test_nothing_listening_is_unreachable_and_cannot_fly() -> None:
    report = await probe(ProbeTarget(refused_url() + "/v1", timeout=5))

    assert report.reachable is False and not report.flies
    assert [(f.step, f.kind) for f in report.failures] == [("models", "unreachable")]
    assert "start the server" in report.failures[0].fix
    assert report.stream_with_tools is None and report.unstreamed_with_tools is None


async def test_a_web_page_is_not_compatible() -> None:
    page = "<!doctype html><html><head><title>Router login</title></head></html>"
    async with FakeOpenAIServer(lists_models=False) as server:
        server.default = Raw(page, content_type="text/html")
        report = await probe(ProbeTarget(server.url, type="openai"))

    assert not report.flies
    assert {f.kind for f in report.failures} == {"not_compatible"}
    assert "Router login" in report.failures[0].message


async def test_a_refusal_carries_the_servers_words_and_what_to_change() -> None:
    async with FakeOpenAIServer() as server:
        server.default = HttpError(400, "tools param requires --jinja flag")
        report = await probe(ProbeTarget(server.url))

    assert not report.flies
    assert {(f.kind, f.said) for f in report.failures} == {
        ("refused", "tools param requires --jinja flag")
    }
    assert "--jinja" in report.failures[0].fix


async def test_a_wrong_key_is_refused_with_the_key_to_set() -> None:
    async with FakeOpenAIServer(api_key="right") as server:
        report = await probe(ProbeTarget(server.url, api_key="wrong"))

    assert report.reachable is True and not report.flies
    assert report.failures and all(f.kind == "refused" for f in report.failures)
    assert "key" in report.failures[-1].fix


async def test_a_small_context_cannot_fly() -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=2048)) as server:
        server.default = STATUS_CALL
        report = await probe(ProbeTarget(server.url))

    assert report.tool_call_parsed and not report.flies
    assert "2048 tokens" in report.summary()


async def test_a_context_under_16k_proposes_compact_tools() -> None:
    async with FakeOpenAIServer(llama=LlamaServer(n_ctx=8192)) as server:
        server.default = STATUS_CALL
        report = await probe(ProbeTarget(server.url))

    assert report.flies and report.tools_setting == "compact"
    assert 'tools = "compact"' in report.config_block()


async def test_an_ollama_url_is_found_by_its_tags_and_probed_natively() -> None:
    async with FakeOllamaServer(models=["qwen3:8b", "llama3.2"], context_length=40960) as server:
        server.default = STATUS_CALL
        report = await probe(ProbeTarget(server.url))

    assert report.type == "ollama" and report.endpoint == server.url
    assert report.models == ["qwen3:8b", "llama3.2"] and report.model == "qwen3:8b"
    assert report.context_window == 40960
    assert report.flies and report.cache_reuse is None  # Ollama reports no cache count
    assert report.template_tools is True
    cache = next(line for line in report.table() if "prompt cache" in line)
    assert "no figure: Ollama reports no cache count" in cache
    assert {r.path for r in server.chat_requests} == {"/api/chat"}
    assert [r.path for r in server.requests].count("/api/show") == 1  # context, tools: once
    assert 'type = "ollama"' in report.config_block()
    assert report.env_line() == f"OLLAMA_HOST={server.url[7:]} ZOEA_DEFAULT_PROVIDER=ollama zoea"


async def test_an_ollama_without_models_cannot_fly() -> None:
    async with FakeOllamaServer(models=[]) as server:
        report = await probe(ProbeTarget(server.url))

    assert report.reachable and not report.flies
    assert "no model pulled" in report.summary()


async def test_a_root_url_is_probed_at_v1_where_its_models_are() -> None:
    async with FakeOpenAIServer() as server:
        server.default = STATUS_CALL
        report = await probe(ProbeTarget(server.origin))

    assert report.type == "openai" and report.endpoint == server.origin + "/v1"
    assert report.flies


async def test_usage_cached_tokens_count_as_the_cache() -> None:
    async with FakeOpenAIServer() as server:
        server.default = Reply(
            tool_calls=[Call("get_status", {"section": "ship"})],
            usage=(200, 5),
            usage_extra={"prompt_tokens_details": {"cached_tokens": 150}},
        )
        report = await probe(ProbeTarget(server.url))

    assert report.cache_reuse == 0.75 and report.tokens_engine == 200

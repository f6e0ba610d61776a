"""Model faults, one by one: each ends in recovery or a clear error, and nothing is lost.

| fault                         | expected outcome                                       |
|-------------------------------|--------------------------------------------------------|
| timeout once                  | the client retries; the Mysis plays on                 |
| 500 once / 503 once           | the client retries; plays on                           |
| 429 with Retry-After          | waits as told, then plays on                           |
| stream cut mid-way            | retried; plays on                                      |
| malformed JSON                | the orchestrator retries; plays on                     |
| invalid JSON tool arguments   | a tool error goes back to the model; plays on          |
| tool call without id          | a stable id is made; plays on                          |
| empty message / reasoning only| stored, not productive: nudged; plays on               |
| 500 every time                | errored with the server's words after the retries      |
| 401                           | errored at once: "API key" in the error                |
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.llm_servers import Call, FakeOpenAIServer, HttpError, Malformed, Reply

from .conftest import Watch, cloud_config, nothing_lost, open_swarm, until

OK = Reply("", tool_calls=[Call("get_status", {})])
DONE = Reply("All good.")

RECOVERABLE = {
    "timeout once": [Reply("late", delay=3.0)],
    "500 once": [HttpError(500, "internal hiccup")],
    "503 once": [HttpError(503, "overloaded")],
    "429 with Retry-After": [HttpError(429, "slow down", retry_after="1")],
    "stream cut mid-way": [Reply("a long answer " * 20, cut_after=2)],
    "malformed JSON": [Malformed()],
    "invalid JSON tool arguments": [Reply("", tool_calls=[Call("travel", '{"target_poi": ')])],
    "tool call without id": [Reply("", tool_calls=[Call("get_cargo", {}, without_id=True)])],
    "empty message": [Reply("")],
    "reasoning only": [Reply("", reasoning="I am thinking about ore prices.")],
}


@pytest.mark.parametrize("fault", list(RECOVERABLE))
async def test_the_mysis_recovers(fault: str, tmp_path: Path) -> None:
    async with FakeOpenAIServer() as server:
        server.script(*RECOVERABLE[fault], OK, DONE)
        server.default = DONE
        commander, sub = await open_swarm(tmp_path, cloud_config(server.url, timeout=1.0))
        watch = Watch()
        try:
            view = await commander.create_mysis("Tough")
            await until(lambda: len(server.chat_requests) >= 4)
            watch.feed(sub)
            assert commander.mysis(view.id).state == "running", commander.mysis(view.id)
            await nothing_lost(commander, watch, tmp_path / "zoea.db")
            tool_results = [m for m in await commander.memories(view.id) if m.role == "tool"]
            if fault == "invalid JSON tool arguments":
                first = json.loads(tool_results[0].content)
                assert first["error"]["code"] == "invalid_json"
            if fault == "tool call without id":
                assert tool_results[0].tool_call_id
        finally:
            await commander.shutdown(timeout=2)


@pytest.mark.parametrize(("fault", "words"), [
    (HttpError(500, "the model server is on fire"), "on fire"),
    (HttpError(401, "invalid api key"), "invalid api key"),
    (HttpError(404, "model fake-gpt not found"), "not found"),
    (HttpError(400, "messages: tool_call_id mismatch"), "tool_call_id mismatch"),
])
async def test_the_mysis_stops_with_a_clear_error(fault, words: str, tmp_path: Path) -> None:
    async with FakeOpenAIServer() as server:
        server.default = fault
        commander, sub = await open_swarm(tmp_path, cloud_config(server.url, timeout=1.0))
        watch = Watch()
        try:
            view = await commander.create_mysis("Fragile")
            await until(lambda: commander.mysis(view.id).state == "errored", limit=60)
            watch.feed(sub)
            error = commander.mysis(view.id).last_error
            assert words in error.lower() and "fake-gpt" in error
            await nothing_lost(commander, watch, tmp_path / "zoea.db")
            # Fixed upstream, a relaunch plays again.
            server.default = DONE
            await commander.relaunch_mysis(view.id)
            await until(lambda: commander.mysis(view.id).last_line == "All good.")
        finally:
            await commander.shutdown(timeout=2)


async def test_an_unreachable_endpoint_is_a_clear_error(tmp_path: Path) -> None:
    from tests.fakes import refused_url

    commander, _ = await open_swarm(tmp_path, cloud_config(refused_url(), timeout=1.0))
    try:
        view = await commander.create_mysis("Lonely")
        await until(lambda: commander.mysis(view.id).state == "errored", limit=60)
        assert "fake-gpt" in commander.mysis(view.id).last_error
    finally:
        await commander.shutdown(timeout=2)

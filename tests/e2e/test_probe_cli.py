"""``zoea probe URL|PROVIDER [--json]`` as a user runs it: exit 0 when the endpoint can fly
a Mysis, 3 when it cannot (one line on standard error), 2 for bad arguments."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests import cli_runner
from tests.fakes import refused_url
from tests.fakes.llm_servers import Call, FakeOpenAIServer, LlamaServer, Reply
from tests.providers.test_probe import KEYS

STATUS_CALL = Reply(tool_calls=[Call("get_status", {"section": "ship"})])
CONVENTIONS = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OLLAMA_HOST", "ZOEA_CONFIG")


def zoea(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``zoea ARGS`` in a clean environment: no config file, none of the conventions."""
    clean = {k: v for k, v in os.environ.items() if k not in CONVENTIONS}
    clean |= {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path), **env}
    return cli_runner.zoea(*args, env=clean)


def test_a_llama_server_flies_and_the_table_ends_with_the_block_to_paste(
    tmp_path: Path,
) -> None:
    with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384), listed=["qwen"]).running_in_thread() as s:
        s.default = STATUS_CALL
        done = zoea(tmp_path, "probe", s.url)

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "verdict: flies a Mysis (streamed, tool calls parsed)" in out
    assert "16384 tokens (llama-server /props)" in out
    assert "[providers.llama-server]" in out and f'endpoint = "{s.url}"' in out
    assert "configuration: no config file" in out
    assert f"OPENAI_BASE_URL={s.url} ZOEA_DEFAULT_PROVIDER=openai zoea" in out
    assert done.stderr == ""


def test_json_has_exactly_the_promised_keys(tmp_path: Path) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = STATUS_CALL
        done = zoea(tmp_path, "probe", server.url, "--json")

    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data) == KEYS
    assert data["verdict"]["flies"] is True and data["models"] == ["fake-model"]


@pytest.mark.parametrize("json_output", [False, True])
def test_nothing_listening_exits_3_with_one_line(tmp_path: Path, json_output: bool) -> None:
    url = refused_url() + "/v1"
    done = zoea(tmp_path, "probe", url, *(["--json"] if json_output else []))

    assert done.returncode == 3
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"zoea probe: {url}: cannot fly a Mysis: nothing answers")
    if json_output:
        data = json.loads(done.stdout)
        assert data["reachable"] is False
        assert data["verdict"]["failures"][0]["kind"] == "unreachable"
    else:
        assert "models: nothing answers at" in done.stdout


def test_a_configured_provider_is_probed_with_its_model_and_key(tmp_path: Path) -> None:
    config = tmp_path / "zoea.toml"
    with FakeOpenAIServer(api_key="sk-test", models=["m1", "m2"]).running_in_thread() as server:
        server.default = STATUS_CALL
        config.write_text(
            f'[providers.engine]\ntype = "openai"\nendpoint = "{server.url}"\nmodel = "m2"\n'
            'api_key_env = "ENGINE_KEY"\n'
        )
        done = zoea(tmp_path, "probe", "engine", "--config", str(config), ENGINE_KEY="sk-test")
        bodies = [r.json() for r in server.chat_requests]

    assert done.returncode == 0, done.stdout + done.stderr
    assert {b["model"] for b in bodies} == {"m2"}
    assert "[providers.engine]" in done.stdout and 'api_key_env = "ENGINE_KEY"' in done.stdout
    assert f"configuration: {config}" in done.stdout
    assert "sk-test" not in done.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["probe", "ftp://example.org"], "expected an http(s) URL or a provider's name"),
        (["probe", "nowhere"], "no provider named 'nowhere'"),
        (["probe", "autopilot"], "it has no endpoint to probe"),
        (["probe", "http://127.0.0.1:9/v1", "--timeout", "0"], "expected seconds"),
        (["probe", "http://127.0.0.1:9/v1", "--api-key-env", "UNSET_KEY_X"], "empty or unset"),
        (["probe", "autopilot", "--type", "openai"], "go with a URL"),
        (["probe"], "the following arguments are required"),
    ],
)
def test_bad_arguments_exit_2_in_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    done = zoea(tmp_path, *args)

    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr


def test_probe_says_which_convention_applied(tmp_path: Path) -> None:
    with FakeOpenAIServer(listed=["served"]).running_in_thread() as server:
        server.default = STATUS_CALL
        done = zoea(tmp_path, "probe", "openai", OPENAI_BASE_URL=server.url)
        config = tmp_path / "zoea.toml"
        config.write_text("[swarm]\nmax_myses = 2\n")
        filed = zoea(
            tmp_path, "probe", server.url, "--config", str(config), OPENAI_BASE_URL=server.url
        )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "provider openai (added by $OPENAI_BASE_URL)" in done.stdout
    assert f"no config file; $OPENAI_BASE_URL adds provider openai ({server.url})" in done.stdout
    assert "model tried        served" in done.stdout
    assert filed.returncode == 0
    assert f"configuration: {config} (OPENAI_BASE_URL not read: a config file always wins)" in (
        filed.stdout
    )

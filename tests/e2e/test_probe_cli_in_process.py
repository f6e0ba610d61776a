"""``zoea probe`` run in this process (``main([...])``), line by line.

``tests/e2e/test_probe_cli.py`` starts ``zoea probe`` as a child process, as a user does;
these run the same command through :func:`zoea_tui.cli.main` against the same loopback
servers, so that mutation testing (docs/MUTATION.md), which maps tests to code in its own
process, sees which of them would notice a broken line or exit code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import in_process
from tests.fakes import refused_url
from tests.fakes.llm_servers import (
    Call,
    FakeOllamaServer,
    FakeOpenAIServer,
    HttpError,
    LlamaServer,
    Reply,
)
from zoea_tui.config.kinds import PROBE_PROTOCOLS

STATUS_CALL = Reply(tool_calls=[Call("get_status", {"section": "ship"})])
CONVENTIONS = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OLLAMA_HOST", "ZOEA_CONFIG")


@pytest.fixture(autouse=True)
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No config file and none of the conventions, as on a new machine."""
    for name in CONVENTIONS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path))


def probe(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    return in_process(capsys, "probe", *args)


def test_a_server_that_flies_gets_its_table_its_verdict_and_the_lines_to_paste(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with FakeOpenAIServer(llama=LlamaServer(n_ctx=16384), listed=["qwen"]).running_in_thread() as s:
        s.default = STATUS_CALL
        code, out, err = probe(capsys, s.url)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"zoea probe {s.url} · OpenAI-compatible · a URL given on the command line"
    assert lines[1].startswith("  configuration: no config file")
    verdict = lines.index("verdict: flies a Mysis (streamed, tool calls parsed)")
    assert lines[verdict - 1] == "", "a blank line after the table"
    assert "  context            16384 tokens (llama-server /props)" in lines
    assert "  template + tools   renders them (/props)" in lines
    paste = lines.index("paste into the config file:")
    assert lines[paste - 1] == "" and lines[paste + 1] == "    [providers.llama-server]"
    assert f'    endpoint = "{s.url}"' in lines
    assert "what to change:" not in lines
    assert lines[-2].startswith("or ") and "[providers" not in lines[-2]
    assert (
        lines[-1]
        == f"or, with no config file: OPENAI_BASE_URL={s.url} ZOEA_DEFAULT_PROVIDER=openai zoea"
    )


def test_nothing_listening_is_exit_3_with_its_line_and_nothing_to_paste(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = refused_url() + "/v1"
    code, out, err = probe(capsys, url)
    assert code == 3
    assert err.startswith(f"zoea probe: {url}: cannot fly a Mysis: nothing answers")
    assert err.count("\n") == 1
    lines = out.splitlines()
    assert lines[0] == f"zoea probe {url} · OpenAI-compatible · a URL given on the command line"
    changes = lines.index("what to change:")
    assert lines[changes + 1 :] == [
        f"  - models: nothing answers at {url}: start the server (llama-server --port 8080, "
        "ollama serve) or correct the address"
    ], "the failure alone: no server's words, nothing to paste"


def test_a_server_that_answers_without_a_tool_call_says_what_to_change(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = Reply(content="I would rather chat.")
        code, out, err = probe(capsys, server.url)
    assert code == 3 and err.startswith(f"zoea probe: {server.url}: cannot fly a Mysis")
    lines = out.splitlines()
    changes = lines.index("what to change:")
    assert lines[changes + 1].startswith("  - ")
    assert "once it flies, paste:" in lines and "paste into the config file:" not in lines


def test_json_carries_the_verdict_and_the_configuration_applied(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = STATUS_CALL
        code, out, err = probe(capsys, server.url, "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["verdict"]["flies"] is True
    assert data["verdict"]["applied"].startswith("no config file")
    assert out.startswith('{\n  "reachable": true'), "indented for a reader"


def test_a_configured_provider_is_probed_with_its_model_key_and_origin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "zoea.toml"
    monkeypatch.setenv("ENGINE_KEY", "sk-test")
    with FakeOpenAIServer(api_key="sk-test", models=["m1", "m2"]).running_in_thread() as server:
        server.default = STATUS_CALL
        config.write_text(
            f'[providers.engine]\ntype = "openai"\nendpoint = "{server.url}"\nmodel = "m2"\n'
            'api_key_env = "ENGINE_KEY"\n'
        )
        code, out, err = probe(capsys, "engine", "--config", config, "--timeout", "30")
        bodies = [r.json() for r in server.chat_requests]
    assert (code, err) == (0, "")
    assert {b["model"] for b in bodies} == {"m2"}
    lines = out.splitlines()
    assert lines[0] == f"zoea probe {server.url} · OpenAI-compatible · provider engine (configured)"
    assert lines[1] == f"  configuration: {config}"
    assert "    [providers.engine]" in lines and "sk-test" not in out
    assert not any(line.startswith("or, with no config file") for line in lines)


def test_a_configured_provider_whose_key_variable_is_unset_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 401 to a provider whose ``api_key_env`` holds nothing names that variable."""
    config = tmp_path / "zoea.toml"
    monkeypatch.delenv("ENGINE_KEY", raising=False)
    with FakeOpenAIServer(api_key="sk-test", models=["m1"]).running_in_thread() as server:
        config.write_text(
            f'[providers.engine]\ntype = "openai"\nendpoint = "{server.url}"\nmodel = "m1"\n'
            'api_key_env = "ENGINE_KEY"\n'
        )
        code, out, err = probe(capsys, "engine", "--config", config, "--timeout", "30")
    assert code == 3
    fixes = [line for line in out.splitlines() if line.startswith("  - ")]
    assert fixes[0].startswith(
        "  - stream: the server wants a key and none was sent: api_key_env ENGINE_KEY: "
        "that variable is empty or unset; export it"
    ), out
    assert "OPENAI_API_KEY" not in out and err.count("\n") == 1


def test_a_url_is_probed_with_the_key_its_variable_holds_and_the_model_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", " sk-url ")
    with FakeOpenAIServer(api_key="sk-url", models=["a", "b"]).running_in_thread() as server:
        server.default = STATUS_CALL
        args = (server.url, "--api-key-env", "MY_KEY", "--model", "b", "--type", "openai")
        code, out, err = probe(capsys, *args)
        bodies = [r.json() for r in server.chat_requests]
    assert (code, err) == (0, ""), out
    assert {b["model"] for b in bodies} == {"b"}
    assert "sk-url" not in out


def test_a_provider_added_by_a_convention_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer(listed=["served"]).running_in_thread() as server:
        server.default = STATUS_CALL
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        code, out, _ = probe(capsys, "openai")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith("· provider openai (added by $OPENAI_BASE_URL)")
    assert f"no config file; $OPENAI_BASE_URL adds provider openai ({server.url})" in out
    assert "or, with no config file" not in out, "the provider is named: no line to add it"


URL = "http://127.0.0.1:9/v1"
NOT_A_URL = "expected an http(s) URL or a provider's name, got "
WITH_A_URL = "--type and --api-key-env go with a URL; a provider has its own"
BAD_ARGUMENTS = [
    (
        ["ftp://example.org"],
        NOT_A_URL + "'ftp://example.org' (its scheme is not http:// or https://)",
    ),
    (["http://"], NOT_A_URL + "'http://' (it has no host)"),
    (
        ["http://127.0.0.1:abc/v1"],
        NOT_A_URL + "'http://127.0.0.1:abc/v1' (its port is not a number from 1 to 65535)",
    ),
    (
        ["http://127.0.0.1:99999/v1"],
        NOT_A_URL + "'http://127.0.0.1:99999/v1' (its port is not a number from 1 to 65535)",
    ),
    (["http://my host/v1"], NOT_A_URL + "'http://my host/v1' (it contains whitespace)"),
    (
        ["nowhere"],
        "no provider named 'nowhere' (configured: autopilot, local); or give a server's URL",
    ),
    (["autopilot"], "provider 'autopilot' is of type autopilot: it has no endpoint to probe"),
    ([URL, "--timeout", "0"], "argument --timeout: expected seconds from 0 to 3600, got 0"),
    ([URL, "--timeout", "3601"], "argument --timeout: expected seconds from 0 to 3600, got 3601"),
    ([URL, "--timeout", "soon"], "argument --timeout: expected a number of seconds, got 'soon'"),
    (
        [URL, "--api-key-env", "UNSET_KEY_X"],
        "--api-key-env UNSET_KEY_X: that variable is empty or unset",
    ),
    (["autopilot", "--type", "openai"], WITH_A_URL),
    (["autopilot", "--api-key-env", "X"], WITH_A_URL),
    (
        [URL, "--type", "grpc"],
        "argument --type: invalid choice: 'grpc' (choose from "
        + ", ".join(repr(protocol) for protocol in PROBE_PROTOCOLS)
        + ")",
    ),
    ([], "the following arguments are required: URL|PROVIDER"),
]


# Ids free of "http": mutation testing deselects tests whose id holds it (-k "not http").
@pytest.mark.parametrize(
    ("args", "line"), BAD_ARGUMENTS, ids=[f"bad-{n}" for n in range(len(BAD_ARGUMENTS))]
)
def test_bad_arguments_are_their_exact_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], line: str
) -> None:
    code, out, err = probe(capsys, *args)
    assert (code, out, err) == (2, "", f"zoea probe: {line}\n")


def test_the_edges_of_the_timeout_are_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    for seconds in ("3600", "0.5"):
        code, _, err = probe(capsys, refused_url() + "/v1", "--timeout", seconds)
        assert code == 3 and "--timeout" not in err


def test_a_secure_address_is_a_url_too(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = probe(capsys, "https://127.0.0.1:9/v1", "--timeout", "5")
    assert code == 3 and out.startswith("zoea probe https://127.0.0.1:9/v1 · OpenAI-compatible")


def test_every_problem_after_the_first_is_a_change_to_make(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with FakeOpenAIServer(llama=LlamaServer(n_ctx=2048)).running_in_thread() as server:
        server.default = Reply(content="I would rather chat.")
        code, out, _ = probe(capsys, server.url)
    lines = out.splitlines()
    changes = lines.index("what to change:")
    assert code == 3
    assert lines[changes + 1].startswith("  - the server gives a request 2048 tokens;")


def test_a_refusal_is_shown_with_the_servers_words(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = HttpError(500, "the model exploded")
        code, out, _ = probe(capsys, server.url)
    assert code == 3
    said = [line for line in out.splitlines() if line.startswith("  - ")]
    assert said and all(line.endswith(" (the server said: the model exploded)") for line in said)


def test_an_ollama_server_is_named_so_unless_told_to_speak_openai(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with FakeOllamaServer().running_in_thread() as server:
        server.default = STATUS_CALL
        code, out, _ = probe(capsys, server.url)
        told, as_openai, _ = probe(capsys, server.url, "--type", "openai")
    assert code == 0 and out.startswith(f"zoea probe {server.url} · Ollama · ")
    assert told == 3 and as_openai.startswith(f"zoea probe {server.url} · OpenAI-compatible · ")


def test_a_urls_key_variable_is_in_the_lines_to_paste(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-url")
    with FakeOpenAIServer(api_key="sk-url").running_in_thread() as server:
        server.default = STATUS_CALL
        code, out, _ = probe(capsys, server.url, "--api-key-env", "MY_KEY")
    assert code == 0 and '    api_key_env = "MY_KEY"' in out.splitlines()


def test_the_timeout_given_bounds_each_request(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = Reply(tool_calls=[Call("get_status", {})], delay=3.0)
        code, out, err = probe(capsys, server.url, "--timeout", "0.5")
    assert code == 3 and "cannot fly a Mysis" in err
    lines = out.splitlines()
    assert any(line.startswith("  streamed + tool    no: timed out: ") for line in lines)
    assert "  prompt cache       no figure: no request was answered, so none was repeated" in [
        line.split(" · ")[0] for line in lines
    ]
    assert "stream = false" not in out and "breaks streamed" not in out


def test_a_streamed_step_that_timed_out_leaves_streaming_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with FakeOpenAIServer().running_in_thread() as server:
        server.script(Reply(tool_calls=[Call("get_status", {"section": "ship"})], delay=3.0))
        server.default = STATUS_CALL
        code, out, _ = probe(capsys, server.url, "--timeout", "0.5")
    assert code == 0
    lines = out.splitlines()
    assert "verdict: flies a Mysis (unstreamed, tool calls parsed)" in lines
    assert any(line.startswith("  - stream: no answer in time") for line in lines)
    assert "stream = false" not in out and "breaks streamed" not in out


def test_a_template_that_drops_the_tools_says_how_to_start_the_server(
    capsys: pytest.CaptureFixture[str],
) -> None:
    llama = LlamaServer(n_ctx=16384, supports_tools=False)
    with FakeOpenAIServer(llama=llama).running_in_thread() as server:
        server.default = Reply("Hello! How can I help?")
        code, out, err = probe(capsys, server.url)
    assert code == 3
    assert err == (
        f"zoea probe: {server.url}: cannot fly a Mysis: the chat template drops the tools: "
        "start llama-server with a template that renders them (--jinja, --chat-template-file "
        "with a tool template such as Qwen2.5's)\n"
    )
    lines = out.splitlines()
    assert "  template + tools   drops them (/props)" in lines
    assert "  - no tool call came back parsed" in lines


def test_a_providers_model_can_be_overridden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "zoea.toml"
    with FakeOpenAIServer(models=["m1", "m2"]).running_in_thread() as server:
        server.default = STATUS_CALL
        config.write_text(
            f'[providers.engine]\ntype = "openai"\nendpoint = "{server.url}"\nmodel = "m2"\n'
        )
        code, _, _ = probe(capsys, "engine", "--config", config, "--model", "m1")
        bodies = [r.json() for r in server.chat_requests]
    assert code == 0 and {b["model"] for b in bodies} == {"m1"}


def test_a_url_probed_beside_a_config_file_gets_no_line_to_run_without_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "zoea.toml"
    config.write_text("[swarm]\nmax_myses = 2\n")
    with FakeOpenAIServer().running_in_thread() as server:
        server.default = STATUS_CALL
        code, out, _ = probe(capsys, server.url, "--config", config)
    assert code == 0 and "or, with no config file" not in out

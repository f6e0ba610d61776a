"""The configuration layer: lookup, defaults, checks, environment, keys and paths."""

from __future__ import annotations

import os
import re
import shlex
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from tests.cli_runner import loaded_by
from zoea_tui.config import (
    KINDS,
    PROVIDER_KEYS,
    Config,
    ConfigError,
    ContextConfig,
    GameConfig,
    NudgeConfig,
    PathsConfig,
    ProviderConfig,
    RequestLogRetention,
    StorageConfig,
    SwarmConfig,
    builtin_providers,
    check_credentials,
    conventions_note,
    data_dir,
    db_path,
    load_config,
    parse_request_log,
    resolve_api_key,
)
from zoea_tui.config import paths as config_paths
from zoea_tui.core.strategies import DEFAULT_STRATEGY, STRATEGIES
from zoea_tui.providers.base import ProviderSettings
from zoea_tui.providers.building import provider_settings

#: How a message names the strategies: each quoted, in their order (a new strategy is
#: its module and one row of ``STRATEGIES``; no test lists them again).
_STRATEGY_NAMES = ", ".join(f'"{name}"' for name in STRATEGIES)

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"
POSIX_ONLY = pytest.mark.skipif(os.name != "posix", reason="mode bits are POSIX")

ZEN = """
[providers.zen-nano]
type = "openai"
endpoint = "https://opencode.ai/zen/v1"
model = "gpt-5-nano"
api_key_env = "OPENCODE_ZEN_API_KEY"
"""


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Point the platform folders at empty temporary ones (never the real home)."""
    config_dir, data = tmp_path / "user-config", tmp_path / "user-data"
    monkeypatch.setattr(config_paths, "user_config_dir", lambda: config_dir)
    monkeypatch.setattr(config_paths, "user_data_dir", lambda: data)
    return config_dir, data


def write(folder: Path, text: str, name: str = "config.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def load_text(tmp_path: Path, text: str, env: dict[str, str] | None = None) -> Config:
    return load_config(write(tmp_path, text), env=env or {})


def refused(tmp_path: Path, text: str) -> tuple[Path, pytest.ExceptionInfo[ConfigError]]:
    """A config file of ``text`` in ``tmp_path``, and how loading it was refused."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={})
    return path, caught


# -- defaults and lookup -----------------------------------------------------------------


def test_no_file_anywhere_gives_the_defaults() -> None:
    config = load_config(None, env={})
    assert config == Config()
    assert config.source is None
    assert config.swarm == SwarmConfig(
        max_myses=16, default_provider="autopilot", strategy="turn-aware"
    )
    assert config.context == ContextConfig(20, 10, 4000, 200_000)
    assert config.nudge == NudgeConfig(30.0, 120.0, 3)
    assert config.game.endpoint == "embedded" and config.game.embedded
    assert config.game.tick_seconds == 1.0
    assert set(config.providers) == {"autopilot", "local"}
    assert config.providers["local"].model == "smollm2-135m"
    assert config.swarm.strategy == DEFAULT_STRATEGY and DEFAULT_STRATEGY in STRATEGIES


def test_the_user_config_dir_file_is_read_when_present(user_dirs: tuple[Path, Path]) -> None:
    path = write(user_dirs[0], "[swarm]\nmax_myses = 4\n")
    config = load_config(None, env={})
    assert config.swarm.max_myses == 4
    assert config.source == path


def test_zoea_config_beats_the_user_config_dir(
    tmp_path: Path, user_dirs: tuple[Path, Path]
) -> None:
    write(user_dirs[0], "[swarm]\nmax_myses = 4\n")
    named = write(tmp_path / "elsewhere", "[swarm]\nmax_myses = 5\n")
    config = load_config(None, env={"ZOEA_CONFIG": str(named)})
    assert config.swarm.max_myses == 5
    assert config.source == named


def test_explicit_path_beats_zoea_config(tmp_path: Path) -> None:
    by_env = write(tmp_path / "env", "[swarm]\nmax_myses = 5\n")
    explicit = write(tmp_path / "cli", "[swarm]\nmax_myses = 6\n")
    config = load_config(explicit, env={"ZOEA_CONFIG": str(by_env)})
    assert config.swarm.max_myses == 6
    assert config.source == explicit


def test_empty_zoea_config_counts_as_unset(user_dirs: tuple[Path, Path]) -> None:
    write(user_dirs[0], "[swarm]\nmax_myses = 4\n")
    assert load_config(None, env={"ZOEA_CONFIG": ""}).swarm.max_myses == 4


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError) as caught:
        load_config(missing, env={})
    assert str(caught.value) == f"{missing}: no such config file"


def test_missing_file_named_by_zoea_config_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError) as caught:
        load_config(None, env={"ZOEA_CONFIG": str(missing)})
    assert str(caught.value) == f"{missing}: no such config file (named by $ZOEA_CONFIG)"


def test_a_folder_is_not_a_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, env={})
    assert str(caught.value) == f"{tmp_path}: is not a file; expected a TOML config file"


# -- every kind of mistake: one line, the file, the key, what was expected ----------------

OPENAI_HEAD = '[providers.q]\ntype = "openai"\nendpoint = "http://h/v1"\nmodel = "m"\n'


def bad_endpoint(url: str, why: str) -> tuple[str, str]:
    """A provider whose endpoint is ``url``, and the error that refuses it for ``why``."""
    return (
        OPENAI_HEAD.replace("http://h/v1", url),
        'providers.q.endpoint: expected an http(s) URL such as "http://localhost:11434" '
        f'({why}), got "{url}"',
    )


TYPES = ", ".join(f'"{name}"' for name in KINDS)  # every kind, in their declared order

MISTAKES = [
    (
        "[swarms]\nmax_myses = 3\n",
        'swarms: unknown section (did you mean "swarm"?); '
        "expected one of: swarm, context, nudge, providers, game, paths, storage",
    ),
    ("swarm = 3\n", "swarm: expected a table ([swarm]), got 3"),
    ("max_myses = 3\n[swarm]\n", "max_myses: a key outside its section; it belongs under [swarm]"),
    (
        "[swarm]\nmax_mysis = 3\n",
        'swarm.max_mysis: unknown key (did you mean "max_myses"?); '
        "expected one of: max_myses, default_provider, strategy",
    ),
    (
        "[swarm]\nmax_myses = true\n",
        "swarm.max_myses: expected an integer between 1 and 100, got true",
    ),
    ("[swarm]\nmax_myses = 0\n", "swarm.max_myses: expected an integer between 1 and 100, got 0"),
    (
        "[swarm]\nmax_myses = 101\n",
        "swarm.max_myses: expected an integer between 1 and 100, got 101",
    ),
    (
        "[swarm]\nmax_myses = 16.0\n",
        "swarm.max_myses: expected an integer between 1 and 100, got 16.0",
    ),
    (
        '[swarm]\nmax_myses = "16"\n',
        'swarm.max_myses: expected an integer between 1 and 100, got "16"',
    ),
    (
        '[swarm]\nstrategy = "fastest"\n',
        f'swarm.strategy: expected one of {_STRATEGY_NAMES}, got "fastest"',
    ),
    (
        '[swarm]\ndefault_provider = "gpt"\n',
        "swarm.default_provider: expected one of the defined providers (autopilot, local), "
        'got "gpt"',
    ),
    (
        '[swarm]\ndefault_provider = ""\n',
        'swarm.default_provider: expected a non-empty string, got ""',
    ),
    (
        "[context]\nmax_tool_iterations = 0\n",
        "context.max_tool_iterations: expected an integer of at least 1, got 0",
    ),
    (
        "[context]\nsummarize_threshold = -1\n",
        "context.summarize_threshold: expected an integer of at least 0, got -1",
    ),
    (
        "[context]\nmax_context_messages = false\n",
        "context.max_context_messages: expected an integer of at least 1, got false",
    ),
    (
        "[nudge]\nidle_seconds = 0\n",
        "nudge.idle_seconds: expected a number greater than 0 and at most 1e+09, got 0",
    ),
    (
        '[nudge]\nwait_state_seconds = "2m"\n',
        'nudge.wait_state_seconds: expected a number greater than 0 and at most 1e+09, got "2m"',
    ),
    (
        "[nudge]\nmax_encouragements = 0\n",
        "nudge.max_encouragements: expected an integer of at least 1, got 0",
    ),
    (
        '[providers.zen-nano]\ntype = "openai"\nendpoint = "https://x/v1"\nmodel = "m"\n'
        'temperature = "hot"\n',
        'providers.zen-nano.temperature: expected a number between 0 and 2, got "hot"',
    ),
    (
        OPENAI_HEAD + "temperature = 2.5\n",
        "providers.q.temperature: expected a number between 0 and 2, got 2.5",
    ),
    (
        OPENAI_HEAD + "temperature = -0.1\n",
        "providers.q.temperature: expected a number between 0 and 2, got -0.1",
    ),
    (
        OPENAI_HEAD + "temperature = nan\n",
        "providers.q.temperature: expected a number between 0 and 2, got nan",
    ),
    (
        OPENAI_HEAD + "temperature = true\n",
        "providers.q.temperature: expected a number between 0 and 2, got true",
    ),
    (
        OPENAI_HEAD + "max_tokens = 0\n",
        "providers.q.max_tokens: expected an integer of at least 1, got 0",
    ),
    (
        OPENAI_HEAD + "context_window = 100\n",
        "providers.q.context_window: expected an integer of at least 512, got 100",
    ),
    (
        OPENAI_HEAD + "timeout = 0\n",
        "providers.q.timeout: expected a number greater than 0 and at most 1e+09, got 0",
    ),
    (OPENAI_HEAD + "seed = 1.5\n", "providers.q.seed: expected an integer, got 1.5"),
    (
        OPENAI_HEAD + 'tools = "compat"\n',
        'providers.q.tools: expected one of "auto", "full", "compact", got "compat"',
    ),
    (
        "[providers.autopilot]\ntools = true\n",
        'providers.autopilot.tools: expected one of "auto", "full", "compact", got true',
    ),
    (
        OPENAI_HEAD + "temprature = 0.5\n",
        'providers.q.temprature: unknown key (did you mean "temperature"?); expected one of: '
        "type, endpoint, model, temperature, max_tokens, context_window, timeout, api_key_env, "
        "seed, stream, tools, cache_reuse, cache_control, max_answer_bytes, price_in, "
        "price_cached, price_cache_write, price_out, max_tool_iterations",
    ),
    (
        OPENAI_HEAD + "price_in = 3\nprice_cache_write = 3.75\n",
        "providers.q.price_out: missing beside price_in, price_cache_write: a cost needs the "
        "price of every token (0 for free), never a guess",
    ),
    (
        OPENAI_HEAD + "price_cached = 0.3\nprice_out = 15\n",
        "providers.q.price_in: missing beside price_cached, price_out: a cost needs the "
        "price of every token (0 for free), never a guess",
    ),
    (
        "[providers.autopilot]\nprice_in = 1\n",
        'providers.autopilot.price_in: not used by type "autopilot"; its keys are: '
        "type, context_window, tools, max_tool_iterations",
    ),
    (
        OPENAI_HEAD + "price_in = -1\n",
        "providers.q.price_in: expected a number between 0 and 1e+06, got -1",
    ),
    (
        OPENAI_HEAD + 'stream = "yes"\n',
        'providers.q.stream: expected "auto", true or false, got "yes"',
    ),
    (
        '[providers.q]\nendpoint = "http://localhost:11434"\nmodel = "qwen3:8b"\n',
        "providers.q.type: missing (the provider type is always stated, never guessed from "
        f"the URL); expected one of {TYPES}",
    ),
    ('[providers.q]\ntype = "gpt"\n', f'providers.q.type: expected one of {TYPES}, got "gpt"'),
    (
        '[providers.q]\ntype = "openai"\nmodel = "m"\n',
        'providers.q.endpoint: missing for type "openai"; '
        'expected an http(s) URL such as "http://localhost:11434"',
    ),
    (
        '[providers.q]\ntype = "ollama"\nendpoint = "http://localhost:11434"\n',
        'providers.q.model: missing for type "ollama"; expected the model\'s name, e.g. "qwen3:8b"',
    ),
    (
        '[providers.q]\ntype = "ollama"\nendpoint = "localhost:11434"\nmodel = "m"\n',
        'providers.q.endpoint: expected an http(s) URL such as "http://localhost:11434" '
        '(its scheme is not http:// or https://), got "localhost:11434"',
    ),
    bad_endpoint("http://my host/v1", "it contains whitespace"),
    bad_endpoint("http://127.0.0.1:99999/v1", "its port is not a number from 1 to 65535"),
    bad_endpoint("http://127.0.0.1:abc/v1", "its port is not a number from 1 to 65535"),
    bad_endpoint("ftp://h/v1", "its scheme is not http:// or https://"),
    bad_endpoint("http://:8080/v1", "it has no host"),
    bad_endpoint("http://exa$mple/v1", "'exa$mple' is not a host name or address"),
    (
        '[providers.autopilot]\nendpoint = "http://localhost:11434"\n',
        'providers.autopilot.endpoint: not used by type "autopilot"; its keys are: '
        "type, context_window, tools, max_tool_iterations",
    ),
    (
        '[providers.local]\napi_key_env = "KEY"\n',
        'providers.local.api_key_env: not used by type "local"; its keys are: '
        "type, model, temperature, max_tokens, context_window, timeout, seed, tools, "
        "price_in, price_cached, price_cache_write, price_out, max_tool_iterations",
    ),
    ("[providers]\nq = 5\n", "providers.q: expected a table ([providers.q]), got 5"),
    (
        '[providers."my model"]\ntype = "autopilot"\n',
        'providers."my model": expected a provider name of letters, digits, - and _ '
        "(at most 64, starting with a letter or digit)",
    ),
    (
        '[game]\nendpoint = "spacemolt"\n',
        'game.endpoint: expected "embedded" or an http(s) URL such as '
        '"https://game.spacemolt.com/mcp" (its scheme is not http:// or https://), '
        'got "spacemolt"',
    ),
    (
        '[game]\nendpoint = "http://127.0.0.1:0/mcp"\n',
        'game.endpoint: expected "embedded" or an http(s) URL such as '
        '"https://game.spacemolt.com/mcp" (its port is not a number from 1 to 65535), '
        'got "http://127.0.0.1:0/mcp"',
    ),
    (
        "[context]\nmax_context_messages = 100000000000000000000\n",
        "context.max_context_messages: expected an integer from 1 to 9223372036854775807 "
        "(what SQLite stores), got 100000000000000000000",
    ),
    (
        "[game]\nseed = -99999999999999999999\n",
        "game.seed: expected an integer from -9223372036854775808 to 9223372036854775807 "
        "(what SQLite stores), got -99999999999999999999",
    ),
    (
        "[nudge]\nidle_seconds = 1e300\n",
        "nudge.idle_seconds: expected a number greater than 0 and at most 1e+09, got 1e+300",
    ),
    (
        "[game]\ntick_seconds = 0\n",
        "game.tick_seconds: expected a number greater than 0 and at most 1e+09, got 0",
    ),
    (
        "[game]\nstarting_credits = -5\n",
        "game.starting_credits: expected an integer of at least 0, got -5",
    ),
    ("[game]\nseed = 2024-01-01\n", "game.seed: expected an integer, got a date/time (2024-01-01)"),
    ('[paths]\ndb = ""\n', 'paths.db: expected a non-empty string, got ""'),
    ("[paths]\ndata_dir = [1]\n", "paths.data_dir: expected a non-empty string, got an array"),
    (
        '[storage]\nrequest_log = "7x"\n',
        'storage.request_log: expected "all", a number of days such as "7d", or a number of '
        'requests per Mysis such as 500, got "7x"',
    ),
    (
        "[storage]\nrequest_log = 7.5\n",
        'storage.request_log: expected "all", a number of days such as "7d", or a number of '
        "requests per Mysis such as 500, got 7.5",
    ),
    (
        '[storage]\nrequest_log = "0d"\n',
        'storage.request_log: expected a number of days from 1 to 36500, got "0d"',
    ),
    (
        "[storage]\nrequest_log = 0\n",
        "storage.request_log: expected a number of requests per Mysis from 1 to "
        "9223372036854775807, got 0",
    ),
    (
        "[storage]\nrequest_log = true\n",
        'storage.request_log: expected "all", a number of days such as "7d", or a number of '
        "requests per Mysis such as 500, got true",
    ),
    (
        'request_log = "7d"\n',
        "request_log: a key outside its section; it belongs under [storage]",
    ),
]


@pytest.mark.parametrize(("text", "message"), MISTAKES, ids=[m[1][:40] for m in MISTAKES])
def test_each_mistake_is_one_line_naming_file_key_and_expectation(
    tmp_path: Path, text: str, message: str
) -> None:
    path, caught = refused(tmp_path, text)
    assert str(caught.value) == f"{path}: {message}"
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("value", "policy"),
    [
        ('"all"', RequestLogRetention()),
        ('"ALL"', RequestLogRetention()),
        ('"7d"', RequestLogRetention(days=7)),
        ('"30 days"', RequestLogRetention(days=30)),
        ('"1 day"', RequestLogRetention(days=1)),
        ("500", RequestLogRetention(requests=500)),
        ('"500"', RequestLogRetention(requests=500)),
        ('"500 requests"', RequestLogRetention(requests=500)),
    ],
)
def test_request_log_retention_reads_days_or_requests_per_mysis(
    tmp_path: Path, value: str, policy: RequestLogRetention
) -> None:
    config = load_config(write(tmp_path, f"[storage]\nrequest_log = {value}\n"), env={})
    assert config.storage.request_log == policy
    assert parse_request_log(policy.spec()) == policy  # what vacuum's flag takes


def test_request_log_keeps_everything_by_default() -> None:
    assert Config().storage.request_log.keeps_all
    assert Config().storage.request_log.describe() == "every request"
    with pytest.raises(ValueError, match='expected "all", a number of days'):
        parse_request_log("a week")


def test_error_carries_the_dotted_key_and_the_file(tmp_path: Path) -> None:
    path, caught = refused(tmp_path, OPENAI_HEAD + "temperature = 3\n")
    assert caught.value.key == "providers.q.temperature"
    assert caught.value.source == str(path)


def test_malformed_toml_names_line_and_column(tmp_path: Path) -> None:
    path, caught = refused(tmp_path, "[swarm]\nmax_myses = 16 16\n")
    assert str(caught.value) == (
        f"{path}: invalid TOML at line 2, column 16: "
        "Expected newline or end of document after a statement"
    )


def test_malformed_toml_at_the_end_names_the_last_line(tmp_path: Path) -> None:
    path, caught = refused(tmp_path, '[game]\nendpoint = "embedded')
    assert str(caught.value) == (
        f"{path}: invalid TOML at the end of the file (line 2): Unterminated string"
    )


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"[swarm]\n# caf\xe9\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={})
    assert str(caught.value) == f"{path}: line 2: not UTF-8 text"


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Windows' Notepad starts a UTF-8 file with U+FEFF, which TOML itself refuses; the
    mark is no part of the text. A mark anywhere else still is refused by TOML."""
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbf[context]\nmax_context_messages = 12\n")
    assert load_config(path, env={}).context.max_context_messages == 12
    path.write_bytes(b"[context]\n\xef\xbb\xbfmax_context_messages = 12\n")
    with pytest.raises(ConfigError, match="invalid TOML at line 2, column 1"):
        load_config(path, env={})


def test_an_api_key_in_the_file_is_refused_without_echoing_it(tmp_path: Path) -> None:
    path, caught = refused(tmp_path, OPENAI_HEAD + 'api_key = "sk-secret-123"\n')
    message = str(caught.value)
    assert message.startswith(f"{path}: providers.q.api_key: keys are never read from")
    assert "sk-secret-123" not in message


def test_a_key_pasted_into_api_key_env_is_not_echoed(tmp_path: Path) -> None:
    path, caught = refused(tmp_path, OPENAI_HEAD + 'api_key_env = "sk-live-123"\n')
    assert str(caught.value) == (
        f"{path}: providers.q.api_key_env: expected the name of an environment variable "
        "(letters, digits and _) that holds the key, not the key itself"
    )


# -- providers -----------------------------------------------------------------------------


def test_temperature_zero_is_kept_as_zero(tmp_path: Path) -> None:
    config = load_text(tmp_path, OPENAI_HEAD + "temperature = 0\n")
    provider = config.providers["q"]
    assert provider.temperature == 0.0
    assert isinstance(provider.temperature, float)
    assert provider_settings(provider).temperature == 0.0
    assert provider_settings(provider).temperature is not None


def test_absent_temperature_is_not_sent(tmp_path: Path) -> None:
    config = load_text(tmp_path, OPENAI_HEAD)
    assert config.providers["q"].temperature is None
    assert config.providers["q"].max_tokens is None


def test_provider_type_is_never_guessed_from_an_ollama_url(tmp_path: Path) -> None:
    config = load_text(
        tmp_path,
        '[providers.q]\ntype = "openai"\n'
        'endpoint = "http://localhost:11434/v1/"\nmodel = "qwen3:8b"\n',
    )
    assert config.providers["q"].type == "openai"
    assert config.providers["q"].endpoint == "http://localhost:11434/v1"


def test_builtins_stay_beside_user_providers(tmp_path: Path) -> None:
    config = load_text(tmp_path, ZEN)
    assert set(config.providers) == {"autopilot", "local", "zen-nano"}
    assert config.providers["autopilot"] == builtin_providers()["autopilot"]
    assert config.providers["local"] == builtin_providers()["local"]


def test_a_builtin_can_be_redefined_without_repeating_its_type(tmp_path: Path) -> None:
    config = load_text(tmp_path, "[providers.local]\ncontext_window = 8192\n")
    local = config.providers["local"]
    assert (local.type, local.model, local.context_window) == ("local", "smollm2-135m", 8192)


def test_default_provider_may_name_a_provider_of_the_file(tmp_path: Path) -> None:
    config = load_text(tmp_path, '[swarm]\ndefault_provider = "zen-nano"\n' + ZEN)
    assert config.provider().name == "zen-nano"


def test_provider_settings_carry_every_model_knob(tmp_path: Path) -> None:
    config = load_text(
        tmp_path,
        OPENAI_HEAD + "temperature = 1\nmax_tokens = 256\n"
        'context_window = 8192\ntimeout = 30\nseed = 7\ntools = "compact"\n',
    )
    assert provider_settings(config.providers["q"]) == ProviderSettings(
        model="m",
        temperature=1.0,
        max_tokens=256,
        context_window=8192,
        timeout=30.0,
        seed=7,
        tools="compact",
    )
    assert provider_settings(Config().provider("autopilot")).tools == "auto"


@pytest.mark.parametrize("value", ["auto", "full", "compact"])
def test_tools_takes_auto_and_both_modes(tmp_path: Path, value: str) -> None:
    config = load_text(tmp_path, OPENAI_HEAD + f'tools = "{value}"\n')
    assert config.providers["q"].tools == value
    assert load_text(tmp_path, OPENAI_HEAD).providers["q"].tools == "auto"  # the default


def test_compose_settings_take_context_knobs_and_the_models_window(tmp_path: Path) -> None:
    config = load_text(
        tmp_path,
        "[context]\nmax_context_messages = 30\n"
        "tool_result_max_tokens = 500\nsummarize_threshold = 0\n"
        + OPENAI_HEAD
        + "context_window = 8192\n",
    )
    settings = config.compose_settings("q")
    assert (
        settings.max_context_messages,
        settings.tool_result_max_tokens,
        settings.summarize_threshold,
        settings.context_window,
    ) == (30, 500, 0, 8192)
    assert config.compose_settings().context_window == 32_768  # the autopilot's


def test_asking_for_an_unknown_provider_lists_the_defined_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        Config().provider("gpt")
    assert str(caught.value) == 'unknown provider "gpt"; defined providers: autopilot, local'


# -- environment overrides ----------------------------------------------------------------


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    text = '[swarm]\nmax_myses = 4\nstrategy = "loop-slice"\n' + ZEN
    env = {
        "ZOEA_MAX_MYSES": " 8 ",
        "ZOEA_STRATEGY": "summarize",
        "ZOEA_DEFAULT_PROVIDER": "zen-nano",
        "ZOEA_GAME_ENDPOINT": "https://game.spacemolt.com/mcp",
    }
    config = load_text(tmp_path, text, env)
    assert config.swarm == SwarmConfig(
        max_myses=8, default_provider="zen-nano", strategy="summarize"
    )
    assert config.game.endpoint == "https://game.spacemolt.com/mcp"
    assert not config.game.embedded


def test_environment_overrides_apply_without_a_file() -> None:
    assert load_config(None, env={"ZOEA_MAX_MYSES": "2"}).swarm.max_myses == 2


def test_empty_environment_variables_count_as_unset() -> None:
    env = {
        name: ""
        for name in (
            "ZOEA_MAX_MYSES",
            "ZOEA_STRATEGY",
            "ZOEA_DEFAULT_PROVIDER",
            "ZOEA_GAME_ENDPOINT",
        )
    }
    assert load_config(None, env=env) == Config()


ENV_MISTAKES = [
    (
        "ZOEA_MAX_MYSES",
        "abc",
        "environment variable ZOEA_MAX_MYSES (swarm.max_myses): expected an integer between 1 "
        'and 100, got "abc"',
    ),
    (
        "ZOEA_MAX_MYSES",
        "0",
        "environment variable ZOEA_MAX_MYSES (swarm.max_myses): expected an integer between 1 "
        'and 100, got "0"',
    ),
    (
        "ZOEA_STRATEGY",
        "best",
        "environment variable ZOEA_STRATEGY (swarm.strategy): expected one of "
        f'{_STRATEGY_NAMES}, got "best"',
    ),
    (
        "ZOEA_DEFAULT_PROVIDER",
        "gpt",
        "environment variable ZOEA_DEFAULT_PROVIDER (swarm.default_provider): expected one of "
        'the defined providers (autopilot, local), got "gpt"',
    ),
    (
        "ZOEA_GAME_ENDPOINT",
        "game.spacemolt.com",
        'environment variable ZOEA_GAME_ENDPOINT (game.endpoint): expected "embedded" or an '
        'http(s) URL such as "https://game.spacemolt.com/mcp" (its scheme is not http:// or '
        'https://), got "game.spacemolt.com"',
    ),
    (
        "OLLAMA_HOST",
        "127.0.0.1:99999",
        "environment variable OLLAMA_HOST (providers.ollama.endpoint): expected a host, "
        'host:port or URL such as "127.0.0.1:11434" (its port is not a number from 1 to '
        '65535), got "127.0.0.1:99999"',
    ),
]


@pytest.mark.parametrize(
    ("name", "value", "message"), ENV_MISTAKES, ids=[m[0] + "=" + m[1] for m in ENV_MISTAKES]
)
def test_bad_environment_values_name_the_variable(name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(None, env={name: value})
    assert str(caught.value) == message
    assert caught.value.source == f"${name}"


# -- API keys --------------------------------------------------------------------------------


def zen(tmp_path: Path) -> ProviderConfig:
    return load_text(tmp_path, ZEN).providers["zen-nano"]


def credentials(folder: Path, text: str, mode: int = 0o600) -> Path:
    path = write(folder, text, "credentials.toml")
    os.chmod(path, mode)
    return path


def test_key_comes_from_the_named_environment_variable_first(tmp_path: Path) -> None:
    creds = credentials(tmp_path, '[keys]\nzen-nano = "from-file"\n')
    key = resolve_api_key(
        zen(tmp_path), env={"OPENCODE_ZEN_API_KEY": "from-env"}, credentials_path=creds
    )
    assert key == "from-env"


def test_key_falls_back_to_the_credentials_file_by_provider_name(tmp_path: Path) -> None:
    creds = credentials(tmp_path, '[keys]\nzen-nano = "from-file"\n')
    assert resolve_api_key(zen(tmp_path), env={}, credentials_path=creds) == "from-file"


def test_key_may_be_filed_under_the_variable_name(tmp_path: Path) -> None:
    creds = credentials(tmp_path, '[keys]\nOPENCODE_ZEN_API_KEY = "shared"\n')
    assert resolve_api_key(zen(tmp_path), env={}, credentials_path=creds) == "shared"


def test_credentials_file_defaults_to_the_user_config_dir(
    tmp_path: Path, user_dirs: tuple[Path, Path]
) -> None:
    credentials(user_dirs[0], '[keys]\nzen-nano = "default-file"\n')
    assert resolve_api_key(zen(tmp_path), env={}) == "default-file"


def test_zoea_credentials_names_the_credentials_file(tmp_path: Path) -> None:
    creds = credentials(tmp_path / "secret", '[keys]\nzen-nano = "named"\n')
    assert resolve_api_key(zen(tmp_path), env={"ZOEA_CREDENTIALS": str(creds)}) == "named"


def test_no_key_anywhere_is_none(tmp_path: Path) -> None:
    assert (
        resolve_api_key(zen(tmp_path), env={}, credentials_path=tmp_path / "missing.toml") is None
    )


@POSIX_ONLY
def test_a_credentials_file_readable_by_others_is_refused_with_the_fix(tmp_path: Path) -> None:
    creds = credentials(tmp_path, '[keys]\nzen-nano = "k"\n', mode=0o644)
    with pytest.raises(ConfigError) as caught:
        resolve_api_key(zen(tmp_path), env={}, credentials_path=creds)
    assert str(caught.value) == (
        f"{creds}: permissions 0644 let other users read this file of API keys; "
        f"it must be 0600: run chmod 600 {shlex.quote(str(creds))}"
    )


@POSIX_ONLY
def test_group_readable_credentials_are_refused_too(tmp_path: Path) -> None:
    creds = credentials(tmp_path, '[keys]\nzen-nano = "k"\n', mode=0o640)
    with pytest.raises(ConfigError, match="chmod 600"):
        check_credentials(creds, env={})


@POSIX_ONLY
def test_the_credentials_file_is_not_read_when_the_environment_has_the_key(tmp_path: Path) -> None:
    creds = credentials(tmp_path, '[keys]\nzen-nano = "k"\n', mode=0o644)
    key = resolve_api_key(
        zen(tmp_path), env={"OPENCODE_ZEN_API_KEY": "env"}, credentials_path=creds
    )
    assert key == "env"


def test_builtin_providers_need_no_key(tmp_path: Path) -> None:
    creds = credentials(tmp_path, '[keys]\nautopilot = "k"\n')
    for provider in builtin_providers().values():
        assert resolve_api_key(provider, env={}, credentials_path=creds) is None


def test_a_malformed_credential_is_refused_without_echoing_it(tmp_path: Path) -> None:
    creds = credentials(tmp_path, "[keys]\nzen-nano = 123456789\n")
    with pytest.raises(ConfigError) as caught:
        resolve_api_key(zen(tmp_path), env={}, credentials_path=creds)
    assert str(caught.value) == (f"{creds}: keys.zen-nano: expected the key as a non-empty string")
    assert "123456789" not in str(caught.value)


def test_check_credentials_accepts_a_good_file_and_no_file(tmp_path: Path) -> None:
    creds = credentials(tmp_path, '[keys]\nzen-nano = "k"\n')
    assert check_credentials(creds, env={}) == creds
    assert check_credentials(tmp_path / "none.toml", env={}) is None


def test_repr_of_the_config_never_holds_a_key(tmp_path: Path) -> None:
    secret = "sk-very-secret-value"
    env = {"OPENCODE_ZEN_API_KEY": secret}
    config = load_text(tmp_path, ZEN, env)
    assert resolve_api_key(config.providers["zen-nano"], env=env) == secret
    for text in (repr(config), str(config), repr(config.providers["zen-nano"])):
        assert secret not in text
    assert "OPENCODE_ZEN_API_KEY" in repr(config)  # the variable's name, not its value


# -- data paths -----------------------------------------------------------------------------


def test_data_dir_precedence(tmp_path: Path, user_dirs: tuple[Path, Path]) -> None:
    config = Config(paths=PathsConfig(data_dir=tmp_path / "file"))
    env = {"ZOEA_DATA_DIR": str(tmp_path / "env")}
    assert data_dir(config, tmp_path / "cli", env) == tmp_path / "cli"
    assert data_dir(config, None, env) == tmp_path / "env"
    assert data_dir(config, None, {}) == tmp_path / "file"
    assert data_dir(Config(), None, {}) == user_dirs[1]


def test_db_path_precedence(tmp_path: Path, user_dirs: tuple[Path, Path]) -> None:
    file_paths = PathsConfig(data_dir=tmp_path / "fdir", db=tmp_path / "f.db")
    config = Config(paths=file_paths)
    env = {"ZOEA_DB": str(tmp_path / "e.db"), "ZOEA_DATA_DIR": str(tmp_path / "edir")}
    assert db_path(config, tmp_path / "c.db", tmp_path / "cdir", env) == tmp_path / "c.db"
    assert db_path(config, None, tmp_path / "cdir", env) == tmp_path / "cdir" / "zoea.db"
    assert db_path(config, None, None, env) == tmp_path / "e.db"
    assert (
        db_path(config, None, None, {"ZOEA_DATA_DIR": str(tmp_path / "edir")})
        == tmp_path / "edir" / "zoea.db"
    )
    assert db_path(config, None, None, {}) == tmp_path / "f.db"
    assert (
        db_path(Config(paths=PathsConfig(data_dir=tmp_path / "fdir")), None, None, {})
        == tmp_path / "fdir" / "zoea.db"
    )
    assert db_path(Config(), None, None, {}) == user_dirs[1] / "zoea.db"


def test_relative_paths_in_a_file_are_taken_from_its_folder(tmp_path: Path) -> None:
    path = write(tmp_path / "conf", '[paths]\ndata_dir = "data"\ndb = "/abs/z.db"\n')
    config = load_config(path, env={})
    assert config.paths.data_dir == (tmp_path / "conf" / "data").absolute()
    assert config.paths.db == Path("/abs/z.db")


def test_home_is_expanded_in_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config = load_text(tmp_path, '[paths]\ndata_dir = "~/zd"\n')
    assert config.paths.data_dir == tmp_path / "home" / "zd"
    assert data_dir(Config(), None, {"ZOEA_DATA_DIR": "~/ed"}) == tmp_path / "home" / "ed"


# -- the example file never rots ---------------------------------------------------------------

_OPTIONAL_KEY = re.compile(r"^# (?P<key>\w+) = ")


def _example_keys() -> dict[str, set[str]]:
    """Every key of the example by table, set or shown as an optional ``# key = value``."""
    keys: dict[str, set[str]] = {}
    table = ""
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        header = re.match(r"^\[(?P<name>[^\]]+)\]", line)
        if header:
            table = header["name"]
            continue
        found = re.match(r"^(?P<key>\w+) = ", line) or _OPTIONAL_KEY.match(line)
        if found and table:
            keys.setdefault(table, set()).add(found["key"])
    return keys


def test_the_example_file_loads_and_keeps_the_defaults() -> None:
    config = load_config(EXAMPLE, env={})
    defaults = Config()
    assert config == Config(
        swarm=defaults.swarm,
        context=defaults.context,
        nudge=defaults.nudge,
        game=defaults.game,
        paths=defaults.paths,
        storage=defaults.storage,
        providers=config.providers,
    )
    assert config.providers["autopilot"] == defaults.providers["autopilot"]
    assert config.providers["local"] == defaults.providers["local"]
    assert config.providers["ollama-qwen"].type == "ollama"
    assert config.providers["zen-nano"].api_key_env == "OPENCODE_ZEN_API_KEY"


def test_the_example_file_lists_every_key() -> None:
    keys = _example_keys()
    for section, cls in (
        ("swarm", SwarmConfig),
        ("context", ContextConfig),
        ("nudge", NudgeConfig),
        ("game", GameConfig),
        ("paths", PathsConfig),
        ("storage", StorageConfig),
    ):
        assert keys[section] == {f.name for f in fields(cls)}, section
    provider_keys = set().union(*(v for k, v in keys.items() if k.startswith("providers.")))
    assert provider_keys == set(PROVIDER_KEYS["openai"])
    # ``origin`` is no key: it says a convention of the environment made the provider.
    assert {f.name for f in fields(ProviderConfig)} - {"name", "origin"} == set(
        PROVIDER_KEYS["openai"]
    )


def test_the_optional_keys_of_the_example_are_valid_when_uncommented(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    uncommented = "\n".join(
        line[2:] if _OPTIONAL_KEY.match(line) else line for line in text.splitlines()
    )
    tomllib.loads(uncommented)
    config = load_text(tmp_path, uncommented)
    assert config.providers["zen-nano"].temperature == 0.0
    assert config.game.starting_credits is not None
    assert config.paths.data_dir is not None and config.paths.db is not None


# -- layering --------------------------------------------------------------------------------


def test_config_does_not_import_textual_or_rich() -> None:
    assert loaded_by("import zoea_tui.config", ("textual", "rich")) == []


# -- the conventions of other tools: OPENAI_BASE_URL, OLLAMA_HOST -----------------------------


def no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No config file anywhere: the default one's folder is empty."""
    monkeypatch.setattr("zoea_tui.config.paths.user_config_dir", lambda: tmp_path / "none")


def test_openai_base_url_adds_an_openai_provider_with_its_key_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_file(tmp_path, monkeypatch)
    config = load_config(env={"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1/"})
    provider = config.providers["openai"]
    assert (provider.type, provider.endpoint, provider.model) == (
        "openai",
        "http://127.0.0.1:8080/v1",
        "",
    )
    assert provider.api_key_env == "OPENAI_API_KEY" and provider.origin == "$OPENAI_BASE_URL"
    assert config.swarm.default_provider == "autopilot"  # a real model stays opt-in
    assert "$OPENAI_BASE_URL adds provider openai" in conventions_note(config, {})


@pytest.mark.parametrize(
    ("host", "endpoint"),
    [
        ("127.0.0.1", "http://127.0.0.1:11434"),
        ("0.0.0.0:11500", "http://0.0.0.0:11500"),
        ("http://gpu-box", "http://gpu-box:11434"),
        ("https://ollama.example.org/", "https://ollama.example.org"),
        ("[::1]", "http://[::1]:11434"),
    ],
)
def test_ollama_host_is_read_as_ollama_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host: str, endpoint: str
) -> None:
    no_file(tmp_path, monkeypatch)
    config = load_config(env={"OLLAMA_HOST": host, "ZOEA_DEFAULT_PROVIDER": "ollama"})
    assert config.providers["ollama"].endpoint == endpoint
    assert config.providers["ollama"].origin == "$OLLAMA_HOST"
    assert config.swarm.default_provider == "ollama"


def test_a_config_file_always_wins_over_the_conventions(tmp_path: Path) -> None:
    path = write(tmp_path, "[swarm]\nmax_myses = 4\n")
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OLLAMA_HOST": "127.0.0.1"}
    config = load_config(path, env=env)
    assert set(config.providers) == {"autopilot", "local"}
    note = conventions_note(config, env)
    assert note.startswith(str(path)) and "OPENAI_BASE_URL and OLLAMA_HOST not read" in note


@pytest.mark.parametrize(
    ("name", "value"),
    [("OPENAI_BASE_URL", "localhost:8080"), ("OLLAMA_HOST", "ftp://x"), ("OLLAMA_HOST", "h:x")],
)
def test_a_convention_that_makes_no_url_is_refused_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    no_file(tmp_path, monkeypatch)
    with pytest.raises(ConfigError, match=f"^environment variable {name} "):
        load_config(env={name: value})


def test_without_file_or_conventions_the_note_says_what_would_add_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_file(tmp_path, monkeypatch)
    config = load_config(env={"OPENAI_BASE_URL": ""})
    assert set(config.providers) == {"autopilot", "local"}
    assert "OPENAI_BASE_URL or OLLAMA_HOST would add" in conventions_note(config, {})


def test_a_provider_may_set_its_own_round_limit(tmp_path: Path) -> None:
    """The built-in autopilot plays long turns; a file may change that, or give any
    provider its own limit; unset, a provider takes ``[context] max_tool_iterations``."""
    assert Config().providers["autopilot"].max_tool_iterations == 100
    assert Config().providers["local"].max_tool_iterations is None
    path = tmp_path / "c.toml"
    path.write_text(
        "[context]\nmax_tool_iterations = 7\n[providers.autopilot]\nmax_tool_iterations = 12\n"
        + OPENAI_HEAD
        + "max_tool_iterations = 3\n"
    )
    config = load_config(path, env={})
    assert config.providers["autopilot"].max_tool_iterations == 12
    assert config.providers["q"].max_tool_iterations == 3
    assert config.context.max_tool_iterations == 7


def test_every_kind_that_flies_a_model_takes_its_prices(tmp_path: Path) -> None:
    from zoea_tui.core.pricing import Prices

    path = write(
        tmp_path,
        "[providers.local]\nprice_in = 0\nprice_out = 0\n"
        '[providers.c]\ntype = "openai"\nendpoint = "http://h/v1"\nmodel = "m"\n'
        "price_in = 3\nprice_cached = 0.3\nprice_cache_write = 3.75\nprice_out = 15\n",
    )
    config = load_config(path, env={})
    assert config.providers["local"].prices == Prices(0.0, None, None, 0.0)
    assert config.providers["c"].prices == Prices(3.0, 0.3, 3.75, 15.0)
    assert config.providers["autopilot"].prices == Prices() and not Prices().known

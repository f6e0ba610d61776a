"""``config/edit.py``: a provider added to the config file keeps every comment and line of
it, is checked to load before anything is written, and is written whole or not at all."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from zoea_tui.config import (
    Config,
    ConfigError,
    ProviderConfig,
    builtin_providers,
    convention_providers,
    load_config,
)
from zoea_tui.config.edit import add_provider_text, plan_provider, write_plan

COMMENTED = """\
# top comment
[swarm]
max_myses = 4   # trailing comment

[providers.ollama-qwen]   # mine
type = "ollama"
endpoint = "http://localhost:11434"
model = "qwen3:8b"

# the game
[game]
endpoint = "embedded"
"""
LLAMA = ProviderConfig(
    name="llama",
    type="openai",
    endpoint="http://127.0.0.1:8080/v1",
    model="qwen",
    context_window=8192,
    stream=False,
    tools="compact",
)


def test_a_provider_is_added_and_every_line_of_the_file_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED)
    plan = plan_provider(load_config(path, env={}), LLAMA, path, comment="added from zoea")
    write_plan(plan)

    text = path.read_text()
    assert text.startswith(COMMENTED)  # every byte of it, comments and layout
    assert "# added from zoea" in text
    loaded = load_config(path, env={}).providers["llama"]
    assert (loaded.endpoint, loaded.model, loaded.context_window) == (
        LLAMA.endpoint,
        "qwen",
        8192,
    )
    assert loaded.stream is False and loaded.tools == "compact"
    assert "+[providers.llama]" in plan.diff() and not plan.creates


def test_only_keys_apart_from_their_defaults_are_written() -> None:
    text = add_provider_text(
        "", ProviderConfig(name="p", type="ollama", endpoint="http://h:11434", model="m"), where="x"
    )
    assert text == '[providers.p]\ntype = "ollama"\nendpoint = "http://h:11434"\nmodel = "m"\n'


def test_a_name_taken_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED)
    with pytest.raises(ConfigError, match="exists already"):
        plan_provider(
            load_config(path, env={}),
            ProviderConfig(name="ollama-qwen", type="openai", endpoint="http://h/v1", model="m"),
            path,
        )
    with pytest.raises(ConfigError, match="already defined"):
        add_provider_text(
            COMMENTED, ProviderConfig(name="ollama-qwen", type="autopilot"), where="x"
        )


def test_a_table_that_would_not_load_is_refused_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED)
    hot = ProviderConfig(
        name="hot", type="openai", endpoint="http://h/v1", model="m", temperature=5
    )
    with pytest.raises(ConfigError, match=r"providers\.hot\.temperature: expected a number"):
        plan_provider(load_config(path, env={}), hot, path)
    assert path.read_text() == COMMENTED


def test_a_file_that_is_no_toml_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="invalid TOML"):
        add_provider_text("[swarm\nmax_myses = 4\n", LLAMA, where="bad.toml")


def test_a_file_changed_since_the_diff_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED)
    plan = plan_provider(load_config(path, env={}), LLAMA, path)
    path.write_text(COMMENTED + "# edited meanwhile\n")
    with pytest.raises(ConfigError, match="changed since the diff was shown"):
        write_plan(plan)
    assert path.read_text().endswith("# edited meanwhile\n")


def test_an_existing_file_keeps_its_mode_and_a_new_one_is_private(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(COMMENTED)
    path.chmod(0o640)
    write_plan(plan_provider(load_config(path, env={}), LLAMA, path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640

    new = tmp_path / "fresh" / "config.toml"
    plan = plan_provider(Config(), LLAMA, new)
    assert plan.creates and plan.diff().startswith("--- /dev/null")
    write_plan(plan)
    assert stat.S_IMODE(new.stat().st_mode) == 0o600
    assert load_config(new, env={}).providers["llama"].model == "qwen"


def test_a_new_file_keeps_the_providers_the_conventions_added(tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "OLLAMA_HOST": "127.0.0.1"}
    config = Config(providers={**builtin_providers(), **convention_providers(env)})
    path = tmp_path / "config.toml"
    plan = plan_provider(config, LLAMA, path, convention_models={"openai": "served", "ollama": ""})
    write_plan(plan)

    loaded = load_config(path, env=env)  # the file wins from now on
    assert loaded.providers["openai"].model == "served"
    assert loaded.providers["openai"].api_key_env == "OPENAI_API_KEY"
    assert "ollama" not in loaded.providers
    assert "openai (from the environment) written into it too" in plan.note
    assert "ollama ($OLLAMA_HOST) will not be read any more" in plan.note

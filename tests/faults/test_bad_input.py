"""Bad input: hostile commander text, broken import files, fuzzed payloads, bad configs."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import Log, history_of
from zoea_tui.config import Config
from zoea_tui.core.compose import compose
from zoea_tui.core.composition import ComposeSettings
from zoea_tui.core.strategies import STRATEGIES
from zoea_tui.core.validator import validate
from zoea_tui.storage.interchange import ImportFormatError, parse_conversation

from .conftest import open_swarm, until

HOSTILE = {
    "markup": "[bold red]obey[/] [/b] [link=http://x]click[/link] [@click=app.quit]q[/]",
    "ansi": "\x1b[31mred\x1b[0m \x1b]0;pwned\x07 \x1b[2J\x1b[H cleared?",
    "nul": "before\x00after\x00",
    "rtl and emoji": "مرحبا بالعالم 🚀👩‍🚀 שלום ‮reversed‬ z̴̡a̷l̸g̵o",
    "one megabyte": "ore " * 262_144,
}


def _quiet_config() -> Config:
    base = Config()
    return replace(base, game=replace(base.game, tick_seconds=0))


@pytest.mark.parametrize("kind", list(HOSTILE))
async def test_hostile_commander_text_is_stored_exactly_and_composes_validly(
    kind: str, tmp_path: Path
) -> None:
    text = HOSTILE[kind]
    commander, _ = await open_swarm(tmp_path, _quiet_config())
    try:
        view = await commander.create_mysis("Target")
        await commander.send_message(view.id, text)
        await commander.broadcast(text)
        memories = await commander.memories(view.id)
        stored = [m.content for m in memories if m.role == "user"]
        assert stored[:2] == [text, text]  # nothing altered, nothing lost
        for strategy in STRATEGIES:
            composition = await commander.preview(view.id, strategy)
            assert not validate(composition.messages), strategy
            assert composition.tokens <= ComposeSettings().context_window
        await until(lambda: commander.mysis(view.id).state == "running")
    finally:
        await commander.shutdown(timeout=2)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=80),
            _json_values.map(json.dumps),
            st.fixed_dictionaries(
                {
                    "role": st.sampled_from(["user", "assistant", "tool", "system", "nobody"]),
                    "content": st.one_of(st.text(max_size=40), st.none(), st.integers()),
                }
            ).map(json.dumps),
        ),
        max_size=8,
    )
)
def test_import_fuzz_either_parses_or_names_the_bad_line(lines: list[str]) -> None:
    try:
        conversation = parse_conversation(lines)
    except ImportFormatError as exc:
        assert "line" in str(exc)
        return
    assert all(m.role in ("system", "user", "assistant", "tool") for m in conversation.memories)


@settings(max_examples=300)
@given(
    payload=st.one_of(
        st.text(max_size=3000),
        _json_values.map(json.dumps),
        st.binary(max_size=500).map(lambda b: b.decode("latin-1")),
    ),
    arguments=st.text(max_size=200),
    strategy=st.sampled_from(list(STRATEGIES)),
)
def test_tool_payload_fuzz_always_composes_a_valid_request(
    payload: str, arguments: str, strategy: str
) -> None:
    log = Log()
    log.direct("Mine some ore.")
    log.call(("c1", "get_status", arguments))
    log.result("c1", "get_status", payload)
    log.call(("c2", "mine", "{}"))
    log.result("c2", "mine", payload[::-1])
    settings_ = ComposeSettings(tool_result_max_tokens=200)
    composition = compose(
        history_of(log.memories, settings_, strategy=strategy), strategy, settings_
    )
    assert validate(composition.messages) == []


BAD_CONFIGS = {
    "not toml": ("[swarm\nmax_myses = 3", "invalid TOML"),
    "unknown key": ("[swarm]\nmax_mysses = 3\n", "swarm.max_mysses"),
    "wrong type": ("[context]\nmax_tool_iterations = 'ten'\n", "context.max_tool_iterations"),
    "bool for int": ("[nudge]\nmax_encouragements = true\n", "nudge.max_encouragements"),
    "unknown provider type": ("[providers.x]\ntype = 'magic'\nmodel = 'm'\n", "providers.x.type"),
    "openai without endpoint": ("[providers.x]\ntype = 'openai'\nmodel = 'm'\n", "providers.x"),
    "temperature out of range": (
        "[providers.x]\ntype = 'ollama'\nendpoint = 'http://h'\nmodel = 'm'\ntemperature = 9\n",
        "providers.x.temperature",
    ),
    "unknown strategy": ("[swarm]\nstrategy = 'psychic'\n", "swarm.strategy"),
}


@pytest.mark.parametrize("case", list(BAD_CONFIGS))
def test_bad_configs_are_refused_with_file_key_and_exit_2(case: str, tmp_path: Path) -> None:
    text, key = BAD_CONFIGS[case]
    path = tmp_path / "zoea.toml"
    path.write_text(text)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "zoea_tui.cli",
            "simulate",
            "--config",
            str(path),
            "--myses",
            "1",
            "--turns",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "zoea.toml" in done.stderr and key in done.stderr

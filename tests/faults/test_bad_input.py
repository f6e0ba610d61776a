"""Bad input: hostile commander text, broken import files, fuzzed payloads, bad configs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests.helpers import Log, examples, history_of
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


_texts = st.text(st.characters(blacklist_characters="\x00"), max_size=40)
_names = st.from_regex(r"[a-z][a-z_]{0,14}", fullmatch=True).filter(lambda n: n != "game")


@st.composite
def valid_conversations(draw: st.DrawFn) -> tuple[list[str], str | None, list[tuple]]:
    """A valid import file: its lines, the system prompt and the memories it must give
    (role, source, content, reasoning, calls, tool_call_id, tool_name, sender, tick)."""
    lines: list[dict] = []
    system = draw(st.none() | _texts)
    if system is not None:
        lines.append({"role": "system", "content": system})
    expected: list[tuple] = []
    open_calls: list[tuple[str, str]] = []
    for n in range(draw(st.integers(0, 6))):
        kind = draw(
            st.sampled_from(["user", "assistant", "tool"] if open_calls else ["user", "assistant"])
        )
        tick = draw(st.none() | st.integers(0, 10**6))
        extra = {} if tick is None else {"game_tick": tick}
        if kind == "user":
            content, source = draw(_texts), draw(st.sampled_from(["direct", "broadcast"]))
            sender = draw(st.none() | st.from_regex(r"[0-9]{1,3}", fullmatch=True))
            line = {"role": "user", "content": content, **extra}
            if source != "direct":
                line["source"] = source
            if sender is not None:
                line["sender_id"] = sender
            lines.append(line)
            expected.append(("user", source, content, "", (), None, None, sender, tick))
        elif kind == "assistant":
            calls = [
                (f"call_{n}_{i}", draw(_names), json.dumps(draw(_json_values)))
                for i in range(draw(st.integers(0, 2)))
            ]
            content = draw(_texts if calls else _texts.filter(str.strip))
            reasoning = draw(st.sampled_from(["", "because"]))
            line = {"role": "assistant", "content": content, **extra}
            if reasoning:
                line["reasoning"] = reasoning
            if calls:
                line["tool_calls"] = [
                    {"id": i, "type": "function", "function": {"name": m, "arguments": a}}
                    for i, m, a in calls
                ]
            lines.append(line)
            open_calls += [(i, m) for i, m, _ in calls]
            expected.append(
                ("assistant", "llm", content, reasoning, tuple(calls), None, None, None, tick)
            )
        else:
            call_id, name = open_calls.pop(0)
            content = draw(_texts)
            lines.append({"role": "tool", "tool_call_id": call_id, "content": content, **extra})
            expected.append(("tool", "tool", content, "", (), call_id, name, None, tick))
    return [json.dumps(line) for line in lines], system, expected


def _memory_row(memory: Any) -> tuple:
    calls = tuple((c.id, c.name, c.arguments) for c in memory.tool_calls)
    return (
        memory.role,
        memory.source,
        memory.content,
        memory.reasoning,
        calls,
        memory.tool_call_id,
        memory.tool_name,
        memory.sender_id,
        memory.game_tick,
    )


_any_lines = st.lists(
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


def import_fuzz(
    parse: Callable[[list[str]], Any], *, must_fail: bool = False
) -> Callable[[], None]:
    """The import fuzz for a parser: any lines parse into messages of known roles or are
    refused naming the bad line, and every valid conversation is read back exactly
    (so a parser that refuses everything, or accepts anything, fails it).

    ``must_fail``: for a parser the fuzz must reject. Its 300 examples whatever the
    profile, and the first failing one is reported as found (shrinking it to the smallest
    takes seconds and proves nothing more)."""
    if must_fail:
        phases = tuple(p for p in Phase if p is not Phase.shrink)
        count = 300
    else:
        phases, count = tuple(Phase), examples(300)

    @settings(max_examples=count, report_multiple_bugs=False, phases=phases)
    @given(lines=_any_lines, valid=valid_conversations())
    def fuzz(lines: list[str], valid: tuple[list[str], str | None, list[tuple]]) -> None:
        try:
            conversation = parse(lines)
        except ImportFormatError as exc:
            assert re.match(r"line \d+: ", str(exc)), exc
        else:
            roles = {m.role for m in conversation.memories}
            assert roles <= {"system", "user", "assistant", "tool"}
        valid_lines, system, expected = valid
        try:
            read = parse(valid_lines)
        except ImportFormatError as exc:
            raise AssertionError(f"a valid conversation was refused: {exc}") from None
        assert read.system_prompt == system
        assert [_memory_row(m) for m in read.memories] == expected

    return fuzz


def test_import_fuzz_either_parses_or_names_the_bad_line() -> None:
    import_fuzz(parse_conversation)()


def _refuses_everything(lines: list[str]) -> Any:
    raise ImportFormatError(1, "nothing is ever good enough")


def _accepts_everything(lines: list[str]) -> Any:
    return parse_conversation([])


def _drops_reasoning(lines: list[str]) -> Any:
    parsed = parse_conversation(lines)
    return replace(parsed, memories=[replace(m, reasoning="") for m in parsed.memories])


@pytest.mark.parametrize("parse", [_refuses_everything, _accepts_everything, _drops_reasoning])
def test_the_import_fuzz_fails_a_parser_that_gets_valid_files_wrong(parse) -> None:
    with pytest.raises(AssertionError):
        import_fuzz(parse, must_fail=True)()


@settings(max_examples=examples(300))
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

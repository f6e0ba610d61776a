"""The command line's lines and exit codes, run in this process (``main([...])``).

``tests/e2e/test_cli.py`` starts ``zoea`` as a child process, as a user does; these run
the same commands through :func:`zoea_tui.cli.main`, so that mutation testing
(docs/MUTATION.md), which maps tests to code in its own process, can tell which of
them would notice a broken line or exit code. Each asserts the whole line the user
reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import break_command
from tests.cli_runner import in_process as run
from zoea_tui.cli import main
from zoea_tui.core.redaction import mask_data

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conversation.jsonl"


@pytest.fixture
def imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    db = tmp_path / "z.db"
    assert main(["import", "--db", str(db), "--mysis", "scout", str(EXAMPLE)]) == 0
    capsys.readouterr()
    return db


def test_import_says_how_many_memories_went_into_which_mysis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "import", "--db", tmp_path / "z.db", "--mysis", "scout", EXAMPLE)
    assert (code, out, err) == (0, "", "imported 14 memories into Mysis 'scout'\n")


def test_import_of_a_file_that_cannot_be_read_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.jsonl"
    code, out, err = run(capsys, "import", "--db", tmp_path / "z.db", "--mysis", "x", missing)
    assert code == 2 and out == ""
    assert err == (
        f"zoea import: cannot read {missing}: [Errno 2] No such file or directory: '{missing}'\n"
    )
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    code, _, err = run(capsys, "import", "--db", tmp_path / "z.db", "--mysis", "x", binary)
    assert code == 2 and err.startswith(f"zoea import: cannot read {binary}: 'utf-8' codec")
    assert not (tmp_path / "z.db").exists()


def test_import_of_a_device_is_refused_before_reading_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``/dev/zero`` never ends: read whole, it filled the memory until the kernel killed
    the process."""
    code, out, err = run(capsys, "import", "--db", tmp_path / "z.db", "--mysis", "x", "/dev/zero")
    assert (code, out) == (2, "")
    assert err == "zoea import: cannot read /dev/zero: it is a device, not a conversation file\n"
    assert not (tmp_path / "z.db").exists()


def test_import_of_a_bad_line_names_the_file_and_line_and_imports_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "one"}\nnot json\n')
    code, out, err = run(capsys, "import", "--db", tmp_path / "z.db", "--mysis", "x", bad)
    assert code == 2 and out == ""
    assert err.startswith(f"zoea import: {bad}: line 2: not valid JSON")
    assert err.endswith("; nothing was imported\n") and err.count("\n") == 1
    assert not (tmp_path / "z.db").exists()


def test_export_prints_the_conversation_with_its_secrets_masked(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "export", "--db", imported, "--mysis", "scout")
    assert code == 0 and err == ""
    exported = [json.loads(line) for line in out.splitlines()]
    original = [mask_data(json.loads(line)) for line in EXAMPLE.read_text().splitlines()]
    assert len(exported) == len(original) == 15
    assert exported[0] == original[0] and exported[0]["role"] == "system"
    for mine, theirs in zip(exported, original, strict=True):
        assert {k: mine[k] for k in theirs} == theirs
    assert "s-91" not in out
    assert all(line.startswith("{") for line in out.split("\n")[:-1]) and out.endswith("}\n")


def test_export_masks_a_pooled_password_wherever_it_appears(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    from zoea_tui.storage import NewMemory, Store

    db = tmp_path / "z.db"

    async def fill() -> None:
        async with await Store.open(db) as store:
            mysis = await store.create_mysis("scout")
            await store.add_account("embedded", "Scout", "hunter2-secret", mysis_id=mysis.id)
            await store.add_memory(mysis.id, NewMemory("user", "direct", "pw hunter2-secret ok"))

    asyncio.run(fill())
    code, out, _ = run(capsys, "export", "--db", db, "--mysis", "scout")
    assert code == 0 and "hunter2-secret" not in out
    [line] = [json.loads(x) for x in out.splitlines()]
    assert line["content"].startswith("pw ") and line["content"].endswith(" ok")


@pytest.mark.parametrize("command", ["export", "context"])
def test_an_unknown_mysis_and_a_missing_database_are_one_line_naming_them(
    imported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code, out, err = run(capsys, command, "--db", imported, "--mysis", "nobody")
    assert (code, out) == (2, "")
    assert err == f"zoea {command}: no Mysis named 'nobody' in {imported}\n"
    missing = tmp_path / "none.db"
    code, out, err = run(capsys, command, "--db", missing, "--mysis", "scout")
    assert (code, out, err) == (2, "", f"zoea {command}: database {missing} does not exist\n")
    assert not missing.exists()


def test_context_shows_the_next_request_message_by_message(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "context", "--db", imported, "--mysis", "scout", "--strategy", "sliding-window"
    )
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == (
        "Mysis scout · strategy sliding-window · 16 messages · ~378 tokens estimated · valid"
    )
    assert lines[2] == (
        "── system · system · synthetic (rendered from the system prompt template) · 50 tok"
    )
    assert lines[3].startswith("You are Scout, a careful miner")
    assert "── user · #1 · kept · 13 tok" in lines
    assert "── assistant · #2 · kept · 15 tok" in lines
    assert '   → login({"username": "Scout"})' in lines
    assert sum(line.startswith("── ") for line in lines) == 16
    assert not any(line.startswith("violation") for line in lines)


def test_context_json_is_the_composition_and_its_verdict(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "context", "--db", imported, "--mysis", "scout", "--json")
    assert code == 0 and out.endswith("}\n")
    report = json.loads(out)
    assert report["mysis"] == "scout"
    assert report["strategy"] == "turn-aware", "the Mysis's own strategy unless given"
    assert report["valid"] is True and report["violations"] == []
    assert len(report["messages"]) == len(report["items"]) > 1
    assert out.startswith('{\n  "mysis": "scout"'), "indented for a reader"


def test_replay_and_vacuum_report_in_one_line(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "replay", "--db", imported, "--strategy", "sliding-window")
    # Nothing was sent yet: said so, not "None of the full history".
    assert (code, out, err) == (
        0,
        f"0 requests to replay: any Mysis in {imported} has sent none yet\n",
        "",
    )
    code, out, err = run(
        capsys, "replay", "--db", imported, "--strategy", "sliding-window", "--mysis", "scout"
    )
    assert (code, out, err) == (
        0,
        f"0 requests to replay: Mysis 'scout' in {imported} has sent none yet\n",
        "",
    )
    code, out, err = run(capsys, "vacuum", "--db", imported, "--json")
    report = json.loads(out)
    assert code == 0 and err == "" and report["thinned_requests"] == 0
    assert report["db"] == str(imported) and report["request_log"] == "all"
    code, out, err = run(capsys, "vacuum", "--db", imported, "--request-log", "all")
    assert code == 0 and err == "" and out.count("\n") == 1
    assert out.startswith(f"{imported}: ")
    assert out.endswith(
        "request log kept in full: every request (0 requests thinned now); "
        "memories are never dropped\n"
    )


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["simulate", "--myses", "0"], "zoea simulate: --myses must be between 1 and 100"),
        (["simulate", "--myses", "101"], "zoea simulate: --myses must be between 1 and 100"),
        (
            ["simulate", "--provider", "nope"],
            "zoea simulate: unknown provider 'nope'; configured: autopilot, local",
        ),
        (["sim", "serve", "--tick-seconds", "-1"], "zoea sim: --tick-seconds must be 0 or more"),
        (["sim", "serve", "--port", "-1"], "zoea sim: --port must be between 0 and 65535"),
        (["sim", "serve", "--port", "65536"], "zoea sim: --port must be between 0 and 65535"),
        (["sim", "serve", "--admin-token", ""], "zoea sim: --admin-token must not be empty"),
        (
            ["replay", "--db", "{missing}", "--strategy", "sliding-window"],
            "zoea replay: database {missing} does not exist",
        ),
        (
            ["vacuum", "--db", "{missing}"],
            "zoea vacuum: database {missing} does not exist",
        ),
    ],
)
def test_a_refused_command_is_its_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], line: str
) -> None:
    missing = tmp_path / "none.db"
    code, out, err = run(capsys, *[a.format(missing=missing) for a in args])
    assert (code, out, err) == (2, "", line.format(missing=missing) + "\n")
    assert not missing.exists()


def test_the_edges_of_the_ranges_are_accepted(
    imported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--myses 1``, ``100`` and ``--port 0``, ``65535`` pass the checks: they fail later,
    at the provider or the world, never with the range's line."""
    for myses in ("1", "100"):
        code, _, err = run(capsys, "simulate", "--myses", myses, "--provider", "nope")
        assert code == 2 and "--myses" not in err and "unknown provider" in err
    for port in ("0", "65535"):
        state = tmp_path / "bad-world.json"
        state.write_text("not a world")
        code, _, err = run(capsys, "sim", "serve", "--port", port, "--state", state)
        assert code == 2 and err.startswith(f"zoea sim: cannot load the world from {state}: ")
        assert "--port" not in err


def test_sim_serve_on_a_port_in_use_says_so_and_how_to_choose_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run(capsys, "sim", "serve", "--port", port, "--tick-seconds", "0")
    assert (code, out) == (2, "")
    assert err == (
        f"zoea sim: cannot serve on 127.0.0.1:{port}: the port is in use; "
        "choose another with --port (0 picks a free one)\n"
    )


def test_a_tick_of_0_seconds_is_accepted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "bad-world.json"
    state.write_text("not a world")
    code, _, err = run(capsys, "sim", "serve", "--tick-seconds", "0", "--state", state)
    assert code == 2 and err.startswith(f"zoea sim: cannot load the world from {state}: ")


def test_an_unforeseen_failure_is_its_exact_line_and_debug_logs_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    words = break_command(monkeypatch, "export")
    code, out, err = run(capsys, "export", "--db", "x.db", "--mysis", "a")
    said = f"zoea export: unexpected RuntimeError: {words}"
    assert (code, out, err) == (1, "", f"{said} (run with --debug to log the traceback)\n")
    data = tmp_path / "data"
    code, out, err = run(
        capsys, "--debug", "--data-dir", data, "export", "--db", "x.db", "--mysis", "a"
    )
    log = data / "zoea.log"
    assert (code, out, err) == (1, "", f"{said} (the traceback is in {log})\n")
    text = log.read_text()
    assert "zoea export failed" in text and f"RuntimeError: {words}" in text


def test_context_shows_a_message_whole_up_to_2000_characters_and_says_what_it_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        {"role": "user", "content": "Ore: Ä " + "a" * 1993},  # 2000 characters
        {"role": "assistant", "content": "b" * 2001},
        {"role": "user", "content": "go on"},
    ]
    conversation = tmp_path / "c.jsonl"
    conversation.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n")
    db = tmp_path / "z.db"
    assert run(capsys, "import", "--db", db, "--mysis", "scout", conversation)[0] == 0
    code, out, _ = run(
        capsys, "context", "--db", db, "--mysis", "scout", "--strategy", "sliding-window"
    )
    shown = out.splitlines()
    assert code == 0 and lines[0]["content"] in shown
    assert "b" * 2001 not in out and "b" * 2000 in shown
    assert shown[shown.index("b" * 2000) + 1] == "… (2,001 chars)"
    assert [s for s in shown if s.startswith("… (")] == ["… (2,001 chars)"], "one cut only"
    code, out, _ = run(
        capsys, "context", "--db", db, "--mysis", "scout", "--strategy", "sliding-window", "--json"
    )
    assert code == 0 and "Ore: Ä" in out, "JSON with characters as they are"


def test_context_shows_an_empty_line_for_a_message_of_calls_only(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(
        capsys, "context", "--db", imported, "--mysis", "scout", "--strategy", "sliding-window"
    )
    lines = out.splitlines()
    call = lines.index('   → login({"username": "Scout"})')
    assert lines[call + 1] == ""


def test_replay_of_an_unknown_mysis_names_it(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "replay", "--db", imported, "--strategy", "sliding-window", "--mysis", "nobody"
    )
    assert (code, out, err) == (2, "", f"zoea replay: no Mysis named 'nobody' in {imported}\n")


def test_export_writes_characters_as_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conversation = tmp_path / "c.jsonl"
    conversation.write_text('{"role": "user", "content": "Ore: Ä, ß"}\n', encoding="utf-8")
    db = tmp_path / "z.db"
    assert run(capsys, "import", "--db", db, "--mysis", "scout", conversation)[0] == 0
    code, out, _ = run(capsys, "export", "--db", db, "--mysis", "scout")
    assert code == 0 and '"content": "Ore: Ä, ß"' in out


_ARENA = ["--scenario", "s1", "--provider", "autopilot"]
_NO_CHECKOUT = "/no-such is not an SMBench checkout: it has no scenarios/ folder"


def _arena_strategies() -> str:
    from zoea_tui.arena.runner import ARENA_STRATEGIES

    return ", ".join(ARENA_STRATEGIES)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--provider", "autopilot"],
            "--scenario is required (s1 … s6, or all), or --resume BATCH",
        ),
        (["--scenario", "s1"], "--provider is required (a configured provider, e.g. autopilot)"),
        (
            ["--scenario", "s1", "--provider", "gpt-17"],
            "unknown provider 'gpt-17'; configured: autopilot, local",
        ),
        (
            ["--scenario", "s1", "--provider", "autopilot", "--strategy", "psychic"],
            "unknown strategy 'psychic'; expected one of: {strategies}, all",
        ),
        (
            ["--scenario", "s1", "--provider", "autopilot", "--strategy", "all", "--runs", "0"],
            "--runs must be between 1 and 100",
        ),
        # Each bound: the edge passes (the next check refuses), one beyond is refused.
        ([*_ARENA, "--runs", "101"], "--runs must be between 1 and 100"),
        ([*_ARENA, "--runs", "100", "--jobs", "65"], "--jobs must be between 1 and 64"),
        ([*_ARENA, "--jobs", "64", "--ticks", "10001"], "--ticks must be between 1 and 10000"),
        ([*_ARENA, "--ticks", "10000", "--smbench", "/no-such"], _NO_CHECKOUT),
        ([*_ARENA, "--ticks", "1", "--smbench", "/no-such"], _NO_CHECKOUT),
        (
            [*_ARENA, "--runs", "2", "--seed", str(2**63 - 1)],
            f"--seed plus --runs must stay within {2**63 - 1} (what SQLite stores)",
        ),
        ([*_ARENA, "--runs", "2", "--seed", str(2**63 - 2), "--smbench", "/no-such"], _NO_CHECKOUT),
    ],
    ids=[
        "no-scenario",
        "no-provider",
        "unknown-provider",
        "unknown-strategy",
        "all-is-known",
        "runs-101",
        "runs-100",
        "jobs-64",
        "ticks-10000",
        "ticks-1",
        "seed-beyond",
        "seed-edge",
    ],
)
def test_arena_refusals_are_their_exact_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], line: str
) -> None:
    code, out, err = run(capsys, "arena", *args, "--db", tmp_path / "arena.db")
    expected = "zoea arena: " + line.format(strategies=_arena_strategies()) + "\n"
    assert (code, out, err) == (2, "", expected)


async def _first_request_after(db: Path, request_id: int) -> str | None:
    from zoea_tui.storage import Store
    from zoea_tui.storage.story import get_request

    async with await Store.open(db) as store:
        row = await store.fetch_one("SELECT MIN(id) FROM requests WHERE id > ?", (request_id,))
        assert row is not None and row[0] is not None, "the swarm sent a request"
        record = await get_request(store, row[0])
    assert record is not None
    return record.digest


async def _last_request_id(db: Path) -> int:
    from zoea_tui.storage import Store

    async with await Store.open(db) as store:
        row = await store.fetch_one("SELECT MAX(id) FROM requests")
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize("pending", [None, "Ada here: sell your ore and report."])
def test_context_of_a_played_mysis_is_the_request_the_swarm_sends_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pending: str | None
) -> None:
    """The oracle is the swarm itself: after ``context`` shows the next request of a Mysis
    that played a turn (with, or without, a commander's message waiting), the swarm
    carries that Mysis on, and the first request it sends is byte for byte the one shown."""
    import asyncio

    from zoea_tui.storage import NewMemory, Store
    from zoea_tui.storage.records import messages_digest

    db = tmp_path / "played.db"
    played = ["simulate", "--db", db, "--myses", "1", "--turns", "1", "--json"]
    assert run(capsys, *played)[0] == 0
    if pending is not None:

        async def send() -> None:
            async with await Store.open(db) as store:
                mysis = await store.find_mysis("sim-01")
                assert mysis is not None
                await store.add_memory(mysis.id, NewMemory("user", "direct", pending))

        asyncio.run(send())
    code, out, err = run(capsys, "context", "--db", db, "--mysis", "sim-01", "--json")
    assert (code, err) == (0, "")
    shown = json.loads(out)
    assert shown["valid"]
    starts = [i["reason"] for i in shown["items"] if i["kind"] in ("nudge", "memory")]
    if pending is None:
        assert "turn start (nudge, level 1)" in starts, "a finished turn: the first nudge"
    else:
        assert shown["messages"][-2]["content"] == pending, "the waiting message is answered"
    before = asyncio.run(_last_request_id(db))

    assert run(capsys, *played)[0] == 0  # the swarm carries sim-01 on

    sent = asyncio.run(_first_request_after(db, before))
    assert sent == messages_digest(shown["messages"])


def test_context_says_invalid_and_names_each_violation_the_validator_finds(
    imported: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The composer keeps its requests valid, so no stored history reaches this line; a
    validator that finds two faults stands in for a composer that broke its guarantee."""
    import zoea_tui.cli as cli

    faults = ["message 3: a tool result with no call before it", "message 5: empty content"]
    monkeypatch.setattr(cli, "validate", lambda messages: list(faults))
    args = ("context", "--db", imported, "--mysis", "scout", "--strategy", "sliding-window")
    code, out, _ = run(capsys, *args)
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == (
        "Mysis scout · strategy sliding-window · 16 messages · ~378 tokens estimated · INVALID"
    )
    assert lines[-2:] == [f"violation: {fault}" for fault in faults]
    code, out, _ = run(capsys, *args, "--json")
    report = json.loads(out)
    assert (report["valid"], report["violations"]) == (False, faults)


def test_replay_recomposes_under_the_configuration_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same log replayed under a window of 6 messages, then of 40: the configuration
    given is the one the recomposition follows, after the command or before it."""
    db = tmp_path / "played.db"
    assert run(capsys, "simulate", "--db", db, "--myses", "1", "--turns", "2", "--json")[0] == 0
    reports = {}
    for window in (6, 40):
        config = tmp_path / f"window-{window}.toml"
        config.write_text(f"[context]\nmax_context_messages = {window}\n")
        replay = ("replay", "--db", db, "--strategy", "sliding-window", "--json")
        code, out, err = run(capsys, *replay, "--config", config)
        assert (code, err) == (0, "")
        reports[window] = json.loads(out)
        assert run(capsys, "--config", config, *replay)[1] == out
    small, large = reports[6], reports[40]
    assert small["requests"] == large["requests"] > 10
    assert small["violations"] == large["violations"] == 0
    assert small["prompt_tokens"]["max"] < large["prompt_tokens"]["max"]

"""``zoea arena`` end to end: the autopilot, a scripted model over loopback HTTP, bad flags."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import ZOEA, in_process, openai_config, zoea
from tests.fakes.llm_servers import Call, FakeOpenAIServer, Reply
from zoea_tui.arena.estimate import GUESS_OUT, GUESS_TOKENS
from zoea_tui.storage import Store

RUN_KEYS = {
    "score",
    "pass",
    "metrics",
    "tokens_in",
    "tokens_out",
    "uncached_tokens",
    "requests",
    "invalid_requests",
    "errored",
    "error",
    "answered",
    "level",
}


def test_arena_with_the_autopilot_prints_the_contract_and_stores_it(tmp_path: Path) -> None:
    db, out = tmp_path / "arena.db", tmp_path / "out"
    done = zoea(
        "arena",
        "--scenario",
        "s1",
        "--provider",
        "autopilot",
        "--strategy",
        "turn-aware",
        "--budget",
        "ticks",
        "--ticks",
        "40",
        "--runs",
        "2",
        "--seed",
        "3",
        "--db",
        str(db),
        "--out",
        str(out),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    # The provider is the autopilot: no baseline beside it.
    assert set(report) == {
        *("provider", "budget", "world", "prompt", "runs", "cells", "composite", "partial"),
        *("plan", "estimate", "actual"),
    }
    assert report["budget"] == "ticks" and report["world"] == "smbench"
    assert report["prompt"] == "arena"
    assert report["provider"] == "autopilot" and report["runs"] == 2
    (cell,) = report["cells"]
    assert set(cell) == {
        "scenario",
        "strategy",
        "score_mean",
        "score_std",
        "score_ci95",
        "pass_rate",
        "levels",
        "metrics_mean",
        "outcomes",
        "errored",
        "runs",
    }
    assert sum(cell["levels"].values()) == 2
    assert cell["errored"] == 0
    assert cell["scenario"] == "s1-bootstrap-grind" and cell["strategy"] == "turn-aware"
    assert len(cell["runs"]) == 2
    for run in cell["runs"]:
        assert set(run) == RUN_KEYS
        assert run["metrics"]["ticks"] == 40 and run["metrics"]["tool_calls"] > 10
        assert run["requests"] > 0 and run["tokens_in"] > 0 and run["invalid_requests"] == 0
        assert run["pass"] is True
    assert [r["metrics"]["seed"] for r in cell["runs"]] == [3, 4]
    # s1 alone: a partial mean, never SMBench's composite.
    assert report["composite"] == {}
    assert report["partial"] == {"turn-aware": {"scenarios": ["s1"], "score": cell["score_mean"]}}
    assert json.loads((out / "arena.json").read_text()) == report
    board = (out / "leaderboard.md").read_text()
    assert "| autopilot | turn-aware |" in board

    async def stored() -> None:
        async with await Store.open(db) as store:
            (batch,) = await store.list_arena_batches()
            assert batch.report == report and batch.ticks == 40
            runs = await store.list_arena_runs(scenario="s1-bootstrap-grind")
            assert [r.seed for r in runs] == [3, 4]

    import asyncio

    asyncio.run(stored())


@pytest.mark.parametrize(
    "args, words",
    [
        (["--scenario", "s9", "--provider", "autopilot"], "unknown scenario"),
        (["--scenario", "s1", "--provider", "gpt-17"], "unknown provider"),
        (["--scenario", "s1"], "--provider is required"),
        (
            ["--scenario", "s1", "--provider", "autopilot", "--strategy", "psychic"],
            "unknown strategy",
        ),
        (["--scenario", "s1", "--provider", "autopilot", "--runs", "0"], "--runs"),
        (["--scenario", "s1", "--provider", "autopilot", "--runs", "two"], "invalid int"),
        (["--scenario", "s1", "--provider", "autopilot", "--bogus"], "unrecognized"),
        (["--provider", "autopilot"], "--scenario"),
        (["--scenario", "s1", "--provider", "autopilot", "--budget", "forever"], "invalid choice"),
    ],
)
def test_arena_refuses_bad_flags_with_one_line(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = in_process(capsys, "arena", *args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("zoea arena: ") and words in err


def _script() -> list[Reply]:
    """Registers, mines at the start (an error: the ship is docked), undocks, looks
    around, then answers in text."""
    return [
        Reply("", tool_calls=[Call("register", {"username": "Vega", "empire": "solarian"})]),
        Reply("", tool_calls=[Call("mine", {})]),
        Reply(
            "",
            tool_calls=[Call("undock", {}), Call("zoea_swarm_status", {}), Call("get_system", {})],
        ),
        Reply("Looked around."),
    ]


def test_arena_plays_a_scripted_model_over_loopback_http(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = FakeOpenAIServer()
    server.script(*_script())
    server.default = Reply("Holding here.")
    with server.running_in_thread():
        config = openai_config(tmp_path / "config.toml", "scripted", server.url)
        code, out, err = in_process(
            capsys,
            *("arena", "--scenario", "s2", "--provider", "scripted", "--ticks", "6"),
            *("--config", config, "--db", tmp_path / "a.db", "--json"),
        )
        bodies = [r.json() for r in server.chat_requests]
    assert code == 0, err
    report = json.loads(out)
    (cell,) = report["cells"]
    (run,) = cell["runs"]
    assert report["provider"] == "scripted" and cell["scenario"] == "s2-navigation"
    # The task reached the model as the commander's message.
    assert any(
        "Arena scenario s2" in (m.get("content") or "")
        for m in bodies[0]["messages"]
        if m["role"] == "user"
    )
    assert report["budget"] == "smbench"  # the default
    # One client turn: it ended when the model answered without a tool call.
    assert run["requests"] == len(bodies) == 4 and run["metrics"]["turns"] == 1
    # Only the game's commands are scored; the swarm's zoea_* tool is counted apart.
    assert run["metrics"]["tool_calls"] == 4 and run["metrics"]["tool_errors"] == 1
    assert (run["metrics"]["game_calls"], run["metrics"]["game_errors"]) == (4, 1)
    assert (run["metrics"]["swarm_calls"], run["metrics"]["swarm_errors"]) == (1, 0)
    # The failed mine was never followed by a mine that worked: one unrecovered error.
    assert run["metrics"]["unrecovered_errors"] == 1 and cell["outcomes"]["unrecovered_errors"] == 1
    assert run["metrics"]["cost_usd"] is None  # the provider has no prices
    assert run["tokens_in"] == 12 * run["requests"] and run["tokens_out"] == 7 * run["requests"]
    assert run["invalid_requests"] == 0
    assert run["metrics"]["systems_explored"] == 0  # the home system is not explored
    # s2: 50·(0/10) + 25·(3/4) + 25·(4/20) = 23.75, shown 23.8 (SMBench's 0.1)
    assert run["score"] == 23.8
    # The autopilot's baseline travels with the report.
    baseline = report["baseline"]
    assert baseline["provider"] == "autopilot"
    assert baseline["cells"][0]["scenario"] == "s2-navigation"


def test_a_provider_that_answers_nothing_makes_errored_runs_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fakes.llm_servers import HttpError

    words = "request (9000 tokens) exceeds the available context size (8192 tokens)"
    server = FakeOpenAIServer()
    server.default = HttpError(400, words)
    with server.running_in_thread():
        config = openai_config(tmp_path / "config.toml", "small", server.url)
        code, out, err = in_process(
            capsys,
            *("arena", "--scenario", "s1", "--provider", "small", "--ticks", "6", "--runs", "2"),
            *("--config", config, "--db", tmp_path / "a.db", "--json"),
            *("--out", tmp_path / "results" / "today"),  # its parent made too
        )
    assert code == 3
    assert err.count("\n") == 1
    assert err.startswith("zoea arena: the provider answered none of its requests: ")
    assert "refused" in err and words in err
    report = json.loads(out)
    (cell,) = report["cells"]
    # Scored as SMBench scores a run whose first model call failed: no call, 0.
    assert cell["errored"] == 2 and cell["score_mean"] == 0.0 and "error_free" not in cell
    assert report["partial"] == {"turn-aware": {"scenarios": ["s1"], "score": 0.0}}
    for run in cell["runs"]:
        assert run["errored"] is True and run["pass"] is False
        assert words in run["error"] and run["answered"] == 0
    board = (tmp_path / "results" / "today" / "leaderboard.md").read_text()
    assert "| small | turn-aware | 0.0 (≥20 0%; none 2 (2 errored: all))" in board


def test_an_errored_run_counts_as_smbench_counts_it() -> None:
    from zoea_tui.arena.report import build_report, table
    from zoea_tui.arena.runner import RunResult

    def run(score: float, errored: bool = False) -> RunResult:
        return RunResult(
            "s1",
            "turn-aware",
            0,
            score,
            score >= 20,
            {"level": "pass"},
            errored=errored,
            error="refused: no" if errored else None,
            answered=0 if errored else 3,
        )

    report = build_report("p", 3, [run(40.0), run(0.0, errored=True), run(60.0)])
    (cell,) = report["cells"]
    assert cell["score_mean"] == 33.3 and cell["errored"] == 1
    assert cell["error_free"]["score_mean"] == 50.0
    assert report["partial"] == {"turn-aware": {"scenarios": ["s1"], "score": 33.3}}
    assert "(1 errored; without it 50.0, ≥20 100%)" in table(report)


def test_a_compact_provider_is_scored_by_the_commands_it_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def game(command: str, **args: str) -> Reply:
        return Reply("", tool_calls=[Call("game", {"command": command, "args": args})])

    server = FakeOpenAIServer()
    server.script(
        game("register", username="Vega", empire="solarian"),
        game("forum_create_thread", title="Hello", content="Anyone mining in Sol?"),
        Reply("Posted."),
    )
    server.default = Reply("Holding here.")
    with server.running_in_thread():
        config = openai_config(tmp_path / "config.toml", "scripted", server.url, tools="compact")
        code, out, err = in_process(
            capsys,
            *("arena", "--scenario", "s4", "--provider", "scripted", "--ticks", "6"),
            *("--config", config, "--db", tmp_path / "a.db", "--json", "--no-baseline"),
        )
        tools = [t["function"]["name"] for t in server.chat_requests[0].json()["tools"]]
    assert code == 0, err
    assert "game" in tools and "forum_create_thread" not in tools
    report = json.loads(out)
    assert "baseline" not in report  # --no-baseline
    assert report["composite"] == {} and set(report["composite_s4"]) == {"turn-aware"}
    assert "partial" not in report
    (run,) = report["cells"][0]["runs"]
    assert run["metrics"]["tool_calls"] == 2 and run["metrics"]["tool_errors"] == 0
    assert run["metrics"]["forum_posts"] == 1


def test_a_failing_out_folder_loses_no_run_and_says_where_they_are(tmp_path: Path) -> None:
    """A folder the check before play accepts, where the report cannot be written (a
    folder already holds its file's name)."""
    out = tmp_path / "out"
    (out / "arena.json").mkdir(parents=True)
    db = tmp_path / "arena.db"
    done = zoea(
        *("arena", "--scenario", "s1", "--provider", "autopilot", "--ticks", "8"),
        *("--runs", "2", "--db", str(db), "--out", str(out)),
    )
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        f"zoea arena: cannot write to {out}: Is a directory; every run is stored in {db} "
        "as batch #1 (the arena screen, A, shows it)"
    )

    async def stored() -> None:
        async with await Store.open(db) as store:
            (batch,) = await store.list_arena_batches()
            assert len(await store.list_arena_runs()) == 2
            assert [c["scenario"] for c in batch.report["cells"]] == ["s1-bootstrap-grind"]

    import asyncio

    asyncio.run(stored())


def killed_after_its_first_run(*args: str) -> tuple[str, str]:
    """``zoea arena ARGS`` in its own process, killed (SIGKILL) once its first run has
    ended: the estimate it said before playing, and the first run's line."""
    import signal

    child = subprocess.Popen([*ZOEA, "arena", *args], stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    estimate = child.stderr.readline()  # said before anything is played
    first = child.stderr.readline()  # the first run's line: it has ended
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    return estimate, first


def test_each_run_is_stored_the_moment_it_ends(tmp_path: Path) -> None:
    import asyncio

    db = tmp_path / "arena.db"
    estimate, first = killed_after_its_first_run(
        *("--scenario", "s1", "--provider", "autopilot"),
        *("--ticks", "60", "--runs", "50", "--db", str(db)),
    )
    assert estimate.startswith("zoea arena: autopilot: estimate: 50 run(s)"), estimate
    assert "score" in first, first

    async def stored() -> list[object]:
        async with await Store.open(db) as store:
            return list(await store.list_arena_runs())

    assert len(asyncio.run(stored())) >= 1


def _tool_forever(tmp_path: Path, server: FakeOpenAIServer, *budget: str) -> dict:  # type: ignore[type-arg]
    """A model that checks its status at every request, under ``budget`` flags."""
    server.default = Reply("", tool_calls=[Call("get_status", {})])
    with server.running_in_thread():
        config = openai_config(tmp_path / "config.toml", "busy", server.url)
        done = zoea(
            *("arena", "--scenario", "s2", "--provider", "busy", "--no-baseline", "--json"),
            *("--config", str(config), "--db", str(tmp_path / "a.db"), *budget),
        )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_smbench_budget_is_one_turn_of_at_most_30_requests(tmp_path: Path) -> None:
    server = FakeOpenAIServer()
    report = _tool_forever(tmp_path, server)
    (run,) = report["cells"][0]["runs"]
    assert report["budget"] == "smbench"
    assert run["requests"] == 30 == len(server.chat_requests)
    assert run["metrics"]["max_requests"] == 30 and run["metrics"]["turns"] == 1
    assert run["metrics"]["game_calls"] == 30
    assert run["metrics"]["ticks"] < 200  # the turn ended first, not the ticks


def test_ticks_budget_plays_turn_after_turn_until_the_ticks_are_spent(tmp_path: Path) -> None:
    server = FakeOpenAIServer()
    server.script(Reply("", tool_calls=[Call("get_status", {})]), Reply("Done for now."))
    report = _tool_forever(tmp_path, server, "--budget", "ticks", "--ticks", "45")
    (run,) = report["cells"][0]["runs"]
    assert report["budget"] == "ticks" and run["metrics"]["max_requests"] is None
    # The model ended its first turn after two requests; nudges started more turns.
    assert run["metrics"]["turns"] >= 2 and run["requests"] > 30
    assert run["metrics"]["ticks"] == 45


def test_a_table_and_a_leaderboard_name_their_budget() -> None:
    from zoea_tui.arena.report import build_report, leaderboard, table
    from zoea_tui.arena.runner import RunResult

    result = RunResult("s1", "turn-aware", 0, 30.0, True, {"level": "none"}, answered=1)
    report = build_report("p", 1, [result], budget="smbench")
    assert table(report).startswith("budget: smbench (SMBench's: one client turn of at most 30")
    assert "Budget: smbench (SMBench's: one client turn" in leaderboard([report])
    ticks = build_report("p", 1, [result], budget="ticks")
    assert "whole tick budget" in table(ticks)


def test_the_arena_in_process_stores_each_run_and_writes_out_from_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The child-process test above, through ``main([...])`` so that mutation testing
    sees it (docs/MUTATION.md, fourth run); then a batch that lost a run is carried on
    with ``--resume``, playing only that run."""
    import asyncio

    db, out = tmp_path / "arena.db", tmp_path / "deep" / "out"
    code, printed, err = in_process(
        capsys,
        "arena",
        *("--scenario", "s1", "--provider", "autopilot", "--strategy", "turn-aware"),
        *("--budget", "ticks", "--ticks", "8", "--runs", "2", "--seed", "3"),
        *("--db", str(db), "--out", str(out), "--json"),
    )
    assert code == 0, err
    report = json.loads(printed)
    assert report["plan"]["runs"] == 2 and report["budget"] == "ticks"
    assert (report["plan"]["strategy"], report["plan"]["smbench"]) == ("turn-aware", None)
    assert report["estimate"]["runs"] == 2 and report["actual"]["runs"] == 2
    (cell,) = report["cells"]
    assert (cell["scenario"], cell["strategy"]) == ("s1-bootstrap-grind", "turn-aware")
    assert [r["metrics"]["seed"] for r in cell["runs"]] == [3, 4]
    assert [r["metrics"]["ticks"] for r in cell["runs"]] == [8, 8], "--ticks is played"
    assert json.loads((out / "arena.json").read_text()) == report
    assert "| autopilot | turn-aware |" in (out / "leaderboard.md").read_text()

    async def stored() -> list[tuple[str, str, int]]:
        async with await Store.open(db) as store:
            (batch,) = await store.list_arena_batches()
            assert batch.report == report and batch.ticks == 8
            return [(r.provider, r.scenario, r.seed) for r in await store.list_arena_runs()]

    assert asyncio.run(stored()) == [
        ("autopilot", "s1-bootstrap-grind", 3),
        ("autopilot", "s1-bootstrap-grind", 4),
    ]

    async def lose_a_run() -> None:
        async with await Store.open(db) as store:
            await store.connection.execute("DELETE FROM arena_runs WHERE seed = 3")

    asyncio.run(lose_a_run())
    code, printed, err = in_process(capsys, "arena", "--resume", "1", "--db", str(db), "--json")
    assert code == 0, err
    resumed = json.loads(printed)
    assert resumed["estimate"]["runs"] == 1, "only the missing run is played and estimated"
    # ``actual`` is the whole batch's: both runs, over both invocations.
    assert (resumed["actual"]["runs"], resumed["actual"]["invocations"]) == (2, 2)
    assert resumed["actual"]["seconds"] >= report["actual"]["seconds"]
    # In the order of the plan, though the stored run (seed 4) comes before the new one.
    assert [r["metrics"]["seed"] for r in resumed["cells"][0]["runs"]] == [3, 4]
    kept, again = resumed["cells"][0]["runs"][1], cell["runs"][1]
    assert (kept["score"], kept["requests"]) == (again["score"], again["requests"])
    assert sorted(s for _, _, s in asyncio.run(stored_runs(db))) == [3, 4]


async def stored_runs(db: Path) -> list[tuple[str, str, int]]:
    async with await Store.open(db) as store:
        return [(r.provider, r.scenario, r.seed) for r in await store.list_arena_runs()]


def test_a_new_batch_plays_every_run_though_another_batch_played_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a batch's own stored runs are skipped (``--resume``), never another's."""
    db = tmp_path / "arena.db"
    flags = ("--scenario", "s1", "--provider", "autopilot", "--strategy", "turn-aware")
    for _ in range(2):
        code, printed, err = in_process(
            capsys, "arena", *flags, "--ticks", "8", "--runs", "2", "--db", str(db), "--json"
        )
        assert code == 0, err
        assert json.loads(printed)["actual"]["runs"] == 2
    assert len(asyncio_run_runs(db)) == 4


def asyncio_run_runs(db: Path) -> list[tuple[str, str, int]]:
    import asyncio

    return asyncio.run(stored_runs(db))


def test_the_arena_says_its_estimate_each_run_and_what_it_took_then_learns_from_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without ``--json`` the commander reads, on standard error, the estimate, a line per
    run as it is stored, and the batch's real figures; a second batch is estimated from
    the first one's stored runs (tokens and seconds a request), its jobs dividing the time."""
    import re
    import time

    db = tmp_path / "arena.db"
    flags = ("--scenario", "s1", "--provider", "autopilot", "--strategy", "turn-aware")
    flags += ("--budget", "ticks", "--ticks", "8", "--runs", "2", "--seed", "3", "--db", str(db))
    began = time.perf_counter()
    code, table_out, err = in_process(capsys, "arena", *flags)
    took = time.perf_counter() - began
    assert code == 0, err
    assert "turn-aware" in table_out, "the table on standard output"

    async def first_batch() -> list[Any]:
        async with await Store.open(db) as store:
            return await store.list_arena_runs()

    runs = sorted(asyncio.run(first_batch()), key=lambda r: r.seed)
    lines = err.splitlines()
    assert lines[0] == (  # the autopilot carries the full tools (Config's default)
        "zoea arena: autopilot: estimate: 2 run(s), at most 16 requests, "
        f"~{16 * GUESS_TOKENS['full']:,} tokens in, ~{16 * GUESS_OUT:,} out "
        "[guesses: no earlier arena run of this provider (no speed measured)]"
    )
    line = (
        r"  (\S+) · turn-aware · seed (\d+): score ([\d.]+) \((.) 20, level (\S+)\) in [\d.]+ s"
        r"(?:; ~\d+ s left \(1 run\))?"  # the speed measured so far, for what is left
    )
    progress = [re.fullmatch(line, x) for x in lines[1:3]]
    assert all(progress), lines
    assert [(m[1], int(m[2]), float(m[3]), m[4], m[5]) for m in progress if m] == [
        ("s1", r.seed, round(r.score, 1), "≥" if r.passed else "<", str(r.metrics["level"]))
        for r in runs
    ]
    requests, tokens_in = sum(r.requests for r in runs), sum(r.tokens_in for r in runs)
    actual = re.fullmatch(
        r"zoea arena: autopilot: actual: 2 run\(s\), ([\d,]+) requests, ([\d,]+) tokens in.*, "
        r"(\d+) s",
        lines[3],
    )
    assert actual, lines[3]
    assert int(actual[1].replace(",", "")) == requests > 0
    assert int(actual[2].replace(",", "")) == tokens_in
    assert 0 <= int(actual[3]) <= took + 1, "the batch's own wall time"

    code, printed, err = in_process(capsys, "arena", *flags, "--jobs", "2", "--json")
    assert code == 0, err
    guess = json.loads(printed)["estimate"]
    wall = sum(float(r.metrics["wall_s"]) for r in runs)
    assert guess["basis"] == "2 earlier arena run(s) of autopilot"
    assert (guess["runs"], guess["jobs"], guess["requests_at_most"]) == (2, 2, 16)
    # Learnt from the measured runs: their requests a run and seconds a run, not the bound.
    assert guess["requests"] == requests and guess["tokens_in"] == tokens_in
    assert guess["seconds"] == pytest.approx(wall / 2, abs=0.1)
    low, high = guess["seconds_range"]
    assert low <= guess["seconds"] <= high and guess["sure"] == "rough"


@pytest.mark.parametrize("under", [False, True])
def test_an_out_that_cannot_be_a_folder_is_refused_before_anything_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], under: bool
) -> None:
    """It was found only after the batch had played: "cannot write to FILE: File exists"."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    out = blocker / "deep" if under else blocker
    db = tmp_path / "arena.db"
    code, printed, err = in_process(
        capsys,
        "arena",
        *("--scenario", "s1", "--provider", "autopilot", "--runs", "1", "--ticks", "2"),
        *("--db", str(db), "--out", str(out)),
    )
    said = (
        f"--out {out} cannot be made: {blocker} is a file, not a folder"
        if under
        else f"--out {out} is a file; give a folder (it is made if missing)"
    )
    assert (code, printed, err) == (2, "", f"zoea arena: {said}\n")
    assert blocker.read_text() == "mine\n"
    assert asyncio.run(stored_runs(db)) == []


def test_ctrl_c_keeps_what_ended_and_says_the_exact_resume_command(tmp_path: Path) -> None:
    """Issue 43: a batch stopped with Ctrl-C printed nothing and never its number; after
    ``--resume``, ``actual`` covered only the last invocation."""
    import shlex
    import signal

    db = tmp_path / "arena.db"
    child = subprocess.Popen(
        [
            *(*ZOEA, "arena", "--scenario", "s1"),
            *("--provider", "autopilot", "--budget", "ticks", "--ticks", "60", "--runs", "6"),
            *("--db", str(db)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    child.stderr.readline()  # the estimate
    first = child.stderr.readline()  # the first run has ended and is stored
    assert "score" in first and "left (5 runs)" in first, first
    child.send_signal(signal.SIGINT)
    _out, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("zoea arena: stopped: batch #1 keeps the "), last
    assert f"of its 6 runs that ended; carry it on with: zoea arena --resume 1 --db {db}" in last
    kept = len(asyncio_run_runs(db))
    assert 1 <= kept < 6 and f"keeps the {kept} of" in last
    command = shlex.split(last.split("carry it on with: ", 1)[1])
    assert command[:2] == ["zoea", "arena"]
    done = zoea(*command[1:], "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    # ``actual`` is the whole batch's, across both invocations.
    assert report["actual"]["runs"] == 6 and report["actual"]["invocations"] == 2
    assert report["actual"]["requests"] == sum(
        r["requests"] for c in report["cells"] for r in c["runs"]
    )
    assert len(asyncio_run_runs(db)) == 6


def test_every_run_errored_after_answers_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 43: every run errored after some answers and the arena exited 0."""
    from tests.fakes.llm_servers import HttpError

    server = FakeOpenAIServer()
    server.script(
        Reply("", tool_calls=[Call("get_status", {})]),
        HttpError(400, "bad request: the model refused"),
        Reply("", tool_calls=[Call("get_status", {})]),
        HttpError(400, "bad request: the model refused"),
    )
    server.default = HttpError(400, "bad request: the model refused")
    with server.running_in_thread():
        config = openai_config(tmp_path / "config.toml", "flaky", server.url)
        code, out, err = in_process(
            capsys,
            *("arena", "--scenario", "s6", "--provider", "flaky", "--runs", "2"),
            *("--config", config, "--db", tmp_path / "a.db", "--json"),
        )
    report = json.loads(out)
    (cell,) = report["cells"]
    assert [r["answered"] for r in cell["runs"]] == [1, 1]
    assert cell["errored"] == 2 and "baseline" not in report
    assert code == 3
    assert err.strip().splitlines()[-1].startswith("zoea arena: every run errored: ")
    assert "the model refused" in err

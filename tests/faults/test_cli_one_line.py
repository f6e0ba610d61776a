"""Every command says a mistake in one line and the right exit code; none prints a traceback.

Tried as a careless user would: bad flags on every command, numbers beyond what SQLite
stores, a data folder under a file, ``simulate`` run twice on one database.
"""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest

from tests.cli_runner import HANG, ZOEA, break_command, in_process, zoea
from zoea_tui.cli import main

BIG = str(2**63 - 1)
REPLAY = ["replay", "--db", "x.db", "--strategy", "loop-slice"]
BAD_FLAGS = [
    (["simulate", "--turns", "x"], "zoea simulate: argument --turns: expected a whole number"),
    (["simulate", "--turns", "0"], "zoea simulate: argument --turns: expected a number from 1"),
    (
        ["simulate", "--seed", "123456789012345678901"],
        "zoea simulate: argument --seed: expected a number from 0 to 9223372036854775807",
    ),
    (["simulate", "--bogus"], "zoea simulate: unrecognized arguments: --bogus"),
    (["export", "--db", "x.db"], "zoea export: the following arguments are required: --mysis"),
    (["context", "--db", "x.db", "--mysis", "a", "--strategy", "psychic"], "zoea context: "),
    (["replay", "--db", "x.db"], "zoea replay: the following arguments are required"),
    (["import", "--db", "x.db"], "zoea import: the following arguments are required"),
    (["sim", "serve", "--seed", "-1"], "zoea sim serve: argument --seed"),
    (["sim", "serve", "--admin-token", " "], "zoea sim: --admin-token must not be empty"),
    (["sim"], "zoea sim: the following arguments are required"),
    (["vacuum", "--bogus"], "zoea vacuum: unrecognized arguments: --bogus"),
    (["nonsense"], "zoea: argument command: invalid choice"),
    (
        [
            *["arena", "--scenario", "s1", "--provider", "autopilot", "--runs", "2", "--seed"],
            str(2**63 - 1),
        ],
        "zoea arena: --seed plus --runs must stay within",
    ),
]


@pytest.mark.parametrize(("args", "words"), BAD_FLAGS, ids=[" ".join(a) for a, _ in BAD_FLAGS])
def test_a_bad_flag_is_one_line_and_exit_2(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = in_process(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1, err
    assert err.startswith(words), err


def test_a_data_folder_under_a_file_stops_the_tui_in_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = zoea("--data-dir", blocker / "data")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(blocker / "data") in done.stderr and "--data-dir" in done.stderr


def test_an_unforeseen_failure_is_one_line_and_debug_logs_its_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    words = break_command(monkeypatch, "replay")
    assert main(REPLAY) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"zoea replay: unexpected RuntimeError: {words}" in err
    assert "--debug" in err

    data = tmp_path / "data"
    assert (
        main(
            [
                "--debug",
                "--data-dir",
                str(data),
                *["replay", "--db", "x.db", "--strategy", "loop-slice"],
            ]
        )
        == 1
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(data / "zoea.log") in err
    log = (data / "zoea.log").read_text()
    assert "Traceback" in log and words in log


def test_simulate_twice_on_one_database_carries_the_swarm_on(tmp_path: Path) -> None:
    db = tmp_path / "sim.db"
    # Turns of ten rounds: the autopilot's own turns (100 rounds) mine a belt bare, and a
    # "no_resources" refusal is play, not the lost login this test looks for.
    config = tmp_path / "ten.toml"
    config.write_text("[providers.autopilot]\nmax_tool_iterations = 10\n")
    args = ("simulate", "--myses", "2", "--turns", "3", "--config", config, "--db", db, "--json")
    first = zoea(*args)
    assert first.returncode == 0, first.stderr
    second = zoea(*args)
    assert second.returncode == 0, second.stderr
    report = json.loads(second.stdout)
    assert report["errors"] == 0 and report["tool_errors"] == 0  # the same world: logged in
    assert report["score"]["total"]["score"] > json.loads(first.stdout)["score"]["total"]["score"]


def test_sim_serve_on_a_port_in_use_is_one_line_and_exit_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = zoea("sim", "serve", "--port", str(port))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"zoea sim: cannot serve on 127.0.0.1:{port}: the port is in use; "
        "choose another with --port (0 picks a free one)"
    ]
    assert done.stdout == ""


@pytest.fixture
def played_db(tmp_path: Path) -> Path:
    db = tmp_path / "z.db"
    example = Path(__file__).resolve().parents[2] / "examples" / "conversation.jsonl"
    assert main(["import", "--db", str(db), "--mysis", "scout", str(example)]) == 0
    return db


FULL_DISK = "cannot write to standard output: No space left on device; "
FULL_DISK += "free some space or send the output elsewhere"


@pytest.mark.parametrize(
    "args",
    [
        ["context", "--mysis", "scout"],
        ["context", "--mysis", "scout", "--json"],
        ["export", "--mysis", "scout"],
        ["replay", "--strategy", "sliding-window", "--json"],
    ],
)
def test_output_to_a_full_disk_is_one_line_and_exit_2(played_db: Path, args: list[str]) -> None:
    """``> /dev/full``: every write fails with ENOSPC, as on a full disk."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*ZOEA, *args, "--db", str(played_db)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=HANG,
        )
    assert (done.returncode, done.stderr) == (2, f"zoea {args[0]}: {FULL_DISK}\n")


def test_a_closed_output_is_refused_before_anything_is_done(played_db: Path) -> None:
    """``>&-``: Python starts with no standard output; ``vacuum`` would have rewritten
    the database and then failed to say so."""
    import os

    before = {p.name: p.read_bytes() for p in played_db.parent.iterdir()}
    for args in (
        ["vacuum", "--db", str(played_db)],
        ["export", "--db", str(played_db), "--mysis", "scout"],
    ):
        done = zoea(*args, preexec_fn=lambda: os.close(1))
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (
            f"zoea {args[0]}: cannot write to standard output: it is closed; nothing was done "
            "(run the command with its output open)\n"
        )
    assert {p.name: p.read_bytes() for p in played_db.parent.iterdir()} == before


def test_a_reader_that_goes_away_is_no_error(played_db: Path) -> None:
    """``| head -c 10``: the rest of the output has nowhere to go; exit 0, nothing said."""
    with subprocess.Popen(
        [*ZOEA, "export", "--db", str(played_db), "--mysis", "scout"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as child:
        assert child.stdout is not None and child.stderr is not None
        assert child.stdout.read(10) == b'{"role": "'
        child.stdout.close()
        err = child.stderr.read()
    assert (child.returncode, err) == (0, b"")


BAD_ENDPOINTS = [
    "http://my host/v1",
    "http://127.0.0.1:99999/v1",
    "http://127.0.0.1:abc/v1",
    "ftp://127.0.0.1/v1",
    "http://:8080/v1",
]


# Ids free of "http": mutation testing deselects tests whose id holds it (-k "not http").
@pytest.mark.parametrize(
    "endpoint", BAD_ENDPOINTS, ids=[f"endpoint-{n}" for n in range(len(BAD_ENDPOINTS))]
)
def test_a_bad_endpoint_stops_the_start_in_one_line_naming_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], endpoint: str
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(f'[providers.q]\ntype = "openai"\nendpoint = "{endpoint}"\nmodel = "m"\n')
    args = ["--data-dir", tmp_path / "data", "simulate", "--turns", "1", "--config", config]
    code = main([*map(str, args), "--db", str(tmp_path / "sim.db")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    assert err.startswith(
        f"zoea simulate: {config}: providers.q.endpoint: expected an http(s) URL such as "
    ), err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.toml"], "nothing created"

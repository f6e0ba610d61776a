"""Long commands say how far they are on standard error; standard output never changes.

``zoea_tui/cli_progress.py``: a plain line every ``$ZOEA_PROGRESS_SECONDS`` when standard
error is not a terminal, a bar redrawn in place when it is (a real pseudo-terminal here),
nothing at all with ``0`` (the tests' default, ``tests/conftest.py``).
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import cli_runner
from zoea_tui.cli import main
from zoea_tui.cli_parsing import UsageError
from zoea_tui.cli_progress import (
    ENV_INTERVAL,
    ERASE,
    FAINT,
    NORMAL,
    Progress,
    interval_setting,
)
from zoea_tui.storage import Store
from zoea_tui.storage.interchange import parse_conversation
from zoea_tui.storage.memories import IMPORT_BATCH

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conversation.jsonl"


def zoea(*args: str | Path, interval: str) -> subprocess.CompletedProcess[str]:
    """``zoea ARGS`` in its own process, standard output and error pipes."""
    return cli_runner.zoea(*args, env={**os.environ, ENV_INTERVAL: interval})


def progress_lines(err: str, command: str) -> list[str]:
    """The progress lines of ``command`` in a standard error."""
    return [line for line in err.splitlines() if line.startswith(f"zoea {command}: ")]


#: A plain line: how far, how long, maybe how long still, maybe a note.
LINE = (
    r"zoea {command}: (\d[\d,]*/\d[\d,]* {unit} \(\d+ %\) · )?"
    r"\d+ (s|min \d\d s)(, about .+ left)?( · .+)?"
)


def test_simulate_says_its_turns_on_standard_error_and_its_json_is_unchanged(
    tmp_path: Path,
) -> None:
    flags = ("simulate", "--myses", "1", "--turns", "1", "--seed", "3", "--json")
    shown = zoea(*flags, "--db", tmp_path / "a.db", interval="0.05")
    quiet = zoea(*flags, "--db", tmp_path / "b.db", interval="0")
    assert shown.returncode == quiet.returncode == 0, shown.stderr + quiet.stderr
    lines = progress_lines(shown.stderr, "simulate")
    assert lines, shown.stderr
    for line in lines:
        assert re.fullmatch(LINE.format(command="simulate", unit="turns"), line), line
    assert any(re.search(r" · \d+ requests$", line) for line in lines), lines
    assert quiet.stderr == ""
    # The same run, the same report: only the wall time differs.
    reports = [json.loads(done.stdout) for done in (shown, quiet)]
    for report in reports:
        report.pop("wall_s")
    assert reports[0] == reports[1]
    assert "zoea simulate" not in shown.stdout


def test_replay_and_import_say_their_progress_and_print_what_they_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_INTERVAL, "0.001")
    conversation = tmp_path / "long.jsonl"
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    body = lines[1:] * 200  # 2 800 memories: two batches of the import
    conversation.write_text("\n".join([lines[0], *body]) + "\n", encoding="utf-8")
    db = tmp_path / "z.db"
    assert main(["import", "--db", str(db), "--mysis", "scout", str(conversation)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith(f"imported {len(body)} memories into Mysis 'scout'\n")
    said = progress_lines(err, "import")
    assert said, err
    for line in said:
        assert re.fullmatch(LINE.format(command="import", unit="memories"), line), line

    # replay reads requests: none logged in an imported conversation, said so on stdout.
    assert main(["replay", "--db", str(db), "--strategy", "sliding-window"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("0 requests to replay")
    assert all(
        re.fullmatch(LINE.format(command="replay", unit="requests"), line)
        for line in progress_lines(err, "replay")
    )


def test_arena_says_its_runs_on_standard_error_and_its_json_is_unchanged(tmp_path: Path) -> None:
    flags = ("arena", "--scenario", "s1", "--provider", "autopilot", "--strategy", "turn-aware")
    flags += ("--budget", "ticks", "--ticks", "12", "--runs", "2", "--json")
    shown = zoea(*flags, "--db", tmp_path / "a.db", interval="0.02")
    assert shown.returncode == 0, shown.stderr
    lines = progress_lines(shown.stderr, "arena: autopilot")
    assert lines, shown.stderr
    for line in lines:
        assert re.fullmatch(LINE.format(command="arena: autopilot", unit="runs"), line), line
    run = r"/2 runs .* · s1-[a-z-]+ · turn-aware · seed [01]$"
    assert any(re.search(run, line) for line in lines), lines
    assert json.loads(shown.stdout)["runs"] == 2


def test_a_replay_on_a_terminal_draws_a_bar_there_and_leaves_stdout_alone(
    tmp_path: Path,
) -> None:
    """Standard error a pseudo-terminal, standard output a pipe: the bar is drawn on the
    terminal, the command's line goes to the pipe, alone."""
    db = tmp_path / "s.db"
    made = zoea("simulate", "--myses", "1", "--turns", "1", "--db", db, interval="0")
    assert made.returncode == 0, made.stderr
    leader, follower = pty.openpty()
    command = ("replay", "--db", str(db), "--strategy", "loop-slice")
    proc = subprocess.Popen(
        [*cli_runner.ZOEA, *command],
        stdout=subprocess.PIPE,
        stderr=follower,
        text=True,
        env={**os.environ, ENV_INTERVAL: "5", "TERM": "xterm-256color", "COLUMNS": "120"},
    )
    os.close(follower)
    screen = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the process closed its end
                break
            if not chunk:
                break
            screen += chunk
        elif proc.poll() is not None:
            break
    os.close(leader)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, screen.decode(errors="replace")
    drawn = screen.decode("utf-8", errors="replace")
    assert "zoea replay" in drawn and "requests" in drawn, drawn
    assert "━" in drawn and "\r\x1b[K" in drawn, drawn  # the bar, drawn over itself
    assert re.fullmatch(r"\d+ requests under loop-slice: .*\n", out), out


# -- the helper itself ------------------------------------------------------------------


def test_plain_lines_come_every_interval_and_say_how_far_and_how_long() -> None:
    stream = io.StringIO()
    with Progress("simulate", 8, "turns", stream=stream, interval=0.01) as progress:
        progress.update(2, note="40 requests")
        time.sleep(0.1)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 3
    assert re.fullmatch(
        r"zoea simulate: 2/8 turns \(25 %\) · 0 s, about 0 s left · 40 requests", lines[-1]
    )
    stream = io.StringIO()
    with Progress("import", 0, "memories", stream=stream, interval=0.01) as progress:
        progress.update(0, note="checking 9 lines")  # no total yet: no count, no percent
        time.sleep(0.05)
    assert stream.getvalue().splitlines()[-1] == "zoea import: 0 s · checking 9 lines"


class Terminal(io.StringIO):
    """A standard error that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_line_is_drawn_in_place_and_the_commands_lines_go_above_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "100")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with Progress("replay", 4, "requests", interval=5) as progress:
        progress.update(1, note="sliding-window")
        deadline = time.monotonic() + 60
        while "1/4 requests" not in terminal.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
        print("a line of the command", file=sys.stderr)
    assert sys.stderr is terminal  # given back
    frames = terminal.getvalue().split(ERASE)
    assert frames[0] == "" and frames[-1] == "", frames  # erased at the end: nothing left
    bar = f"zoea replay {'━' * 6}{FAINT}{'━' * 18}{NORMAL} 1/4 requests (25 %) · "
    said = frames.index("a line of the command\n")  # above the line, which comes back
    assert frames[said - 1].startswith(bar) and frames[said + 1].startswith(bar), frames
    assert frames[said + 1].endswith(" · sliding-window")
    shown = [frame.replace(FAINT, "").replace(NORMAL, "") for frame in frames]
    assert all(len(frame) <= 99 for frame in shown)  # never wraps: redrawn over itself
    cut = Progress("replay", 4, "requests").bar_line(20)  # nothing done; cut to the width
    assert cut == "zoea replay " + FAINT + "━" * 8 + NORMAL


def test_a_command_shorter_than_the_interval_and_an_interval_of_0_say_nothing() -> None:
    for interval in (30.0, 0.0):
        stream = io.StringIO()
        with Progress("replay", 3, "requests", stream=stream, interval=interval) as progress:
            progress.update(3)
            time.sleep(0.05)
        assert stream.getvalue() == ""


def test_the_interval_setting_refuses_what_is_not_a_number_of_seconds() -> None:
    assert interval_setting({}) == 5.0
    assert interval_setting({ENV_INTERVAL: " 0.5 "}) == 0.5
    assert interval_setting({ENV_INTERVAL: "0"}) == 0.0
    for bad in ("soon", "-1", "inf", "nan"):
        with pytest.raises(UsageError, match=rf"\$ZOEA_PROGRESS_SECONDS .* got '{bad}'"):
            interval_setting({ENV_INTERVAL: bad})


def test_a_bad_interval_is_the_commands_one_line_and_nothing_is_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_INTERVAL, "soon")
    db = tmp_path / "z.db"
    assert main(["import", "--db", str(db), "--mysis", "scout", str(EXAMPLE)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("zoea import: $ZOEA_PROGRESS_SECONDS must be")
    assert not db.exists()


async def test_an_import_reports_each_batch_and_stores_all_or_nothing(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()[1:]
    memories = parse_conversation(lines * 300).memories  # 4 200: three batches
    seen: list[tuple[int, int]] = []
    async with await Store.open(tmp_path / "z.db") as store:
        _, count = await store.import_conversation(
            "scout", memories, on_progress=lambda done, total: seen.append((done, total))
        )
        assert count == len(memories) == 4200
        total = len(memories)
        assert seen == [(IMPORT_BATCH, total), (2 * IMPORT_BATCH, total), (total, total)]
        mysis = await store.find_mysis("scout")
        assert mysis is not None
        stored = [m async for m in store.iter_memories(mysis.id)]
        assert [m.content for m in stored] == [m.content for m in memories]

"""The flags every command reads, run in this process (``main([...])``).

Written for mutation testing (docs/MUTATION.md, the fourth run): a required flag that
is missing, a strategy that does not exist, a ``--config`` that must be read, ``vacuum``
on the data folder's database, ``simulate`` playing its edge of one turn. Each asserts
the whole line the user reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import in_process as run
from zoea_tui.config.load import ENV_CONFIG
from zoea_tui.config.paths import DB_FILE, ENV_DATA_DIR, ENV_DB, database_bytes, size_text
from zoea_tui.core.strategies import STRATEGIES

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conversation.jsonl"
CHOICES = ", ".join(repr(name) for name in STRATEGIES)


@pytest.fixture(autouse=True)
def _no_user_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's own database, data folder and configuration stay out of sight."""
    for name in (ENV_DB, ENV_DATA_DIR, ENV_CONFIG):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["import", "f.jsonl"], "zoea import: the following arguments are required: --db, --mysis"),
        (
            ["import", "--db", "z.db", "f.jsonl"],
            "zoea import: the following arguments are required: --mysis",
        ),
        (
            ["import", "--mysis", "m", "f.jsonl"],
            "zoea import: the following arguments are required: --db",
        ),
        (["export", "--db", "z.db"], "zoea export: the following arguments are required: --mysis"),
        (["export", "--mysis", "m"], "zoea export: the following arguments are required: --db"),
        (
            ["context", "--db", "z.db"],
            "zoea context: the following arguments are required: --mysis",
        ),
        (["context", "--mysis", "m"], "zoea context: the following arguments are required: --db"),
        (
            ["replay", "--strategy", "summarize"],
            "zoea replay: the following arguments are required: --db",
        ),
        (
            ["replay", "--db", "z.db"],
            "zoea replay: the following arguments are required: --strategy",
        ),
    ],
    ids=lambda value: "_".join(value) if isinstance(value, list) else "",
)
def test_a_missing_required_flag_is_refused_by_its_name(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    line: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, *args) == (2, "", line + "\n")
    assert list(tmp_path.iterdir()) == [], "nothing was made"


@pytest.mark.parametrize(
    "args",
    [
        ["context", "--db", "z.db", "--mysis", "m"],
        ["simulate"],
        ["replay", "--db", "z.db"],
    ],
    ids=lambda value: value[0],
)
def test_a_strategy_that_does_not_exist_is_refused_with_the_choices(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *args, "--strategy", "full-history")
    assert (code, out) == (2, "")
    assert err == (
        f"zoea {args[0]}: argument --strategy: invalid choice: 'full-history' "
        f"(choose from {CHOICES})\n"
    )
    assert list(tmp_path.iterdir()) == []
    for name in STRATEGIES:  # every one of them is a choice
        code, _, err = run(capsys, *args, "--strategy", name, "--config", tmp_path / "none.toml")
        assert "--strategy" not in err and code == 2


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--provider", "autopilot", "--myses", "1", "--turns", "1"],
        ["replay", "--db", "{db}", "--strategy", "summarize"],
        ["vacuum", "--db", "{db}"],
        ["arena", "--provider", "autopilot", "--db", "{db}"],
        ["probe", "http://127.0.0.1:9"],
    ],
    ids=lambda value: value[0],
)
def test_the_configuration_given_is_the_one_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    """``--config`` after the command or before it: a broken file is refused, by name,
    before anything is opened or played (before it, it was once reset by the command's
    own ``--config`` and the machine's configuration read instead)."""
    db = tmp_path / "z.db"
    broken = tmp_path / "broken.toml"
    broken.write_text("swarm = [never closed\n")
    line_start = f"zoea {args[0]}: {broken}: invalid TOML at line 1"
    given = [a.format(db=db) for a in args]
    for argv in ([*given, "--config", broken], ["--config", broken, *given]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, ""), argv
        assert err.startswith(line_start) and err.count("\n") == 1, argv
    assert not db.exists()


def test_vacuum_without_db_takes_the_data_folders_database_and_reports_its_sizes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    database = folder / DB_FILE
    code, _, err = run(capsys, "--data-dir", folder, "vacuum")
    assert (code, err) == (2, f"zoea vacuum: database {database} does not exist\n")
    assert run(capsys, "import", "--db", database, "--mysis", "scout", EXAMPLE)[0] == 0
    before = database_bytes(database)
    code, out, err = run(capsys, "--data-dir", folder, "vacuum", "--request-log", "all")
    after = database_bytes(database)
    assert (code, err) == (0, "")
    reclaimed = max(before - after, 0)
    assert out == (
        f"{database}: {size_text(before)} → {size_text(after)}, reclaimed "
        f"{size_text(reclaimed)} ({reclaimed:,} bytes); request log kept in full: every "
        "request (0 requests thinned now); memories are never dropped\n"
    )
    before = database_bytes(database)
    code, out, err = run(capsys, "--data-dir", folder, "vacuum", "--json")
    report = json.loads(out)
    assert (code, err) == (0, "") and report["db"] == str(database)
    # The size the user had before the store was opened (no WAL, no shared-memory
    # index), and the size once it is closed again.
    assert report["bytes_before"] == before
    assert report["bytes_after"] == database_bytes(database) == database.stat().st_size


def test_simulate_plays_its_edge_of_one_turn_with_a_configured_provider(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "sim.db"
    code, out, err = run(
        capsys, "simulate", "--myses", "1", "--turns", "1", "--provider", "autopilot",
        "--db", db, "--json",
    )  # fmt: skip
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert (report["myses"], report["turns"], report["provider"]) == (1, 1, "autopilot")
    assert report["requests"] > 0 and db.exists()


@pytest.mark.parametrize(
    ("flag", "choices"), [("--budget", ("smbench", "ticks")), ("--world", ("smbench", "classic"))]
)
def test_the_arenas_budget_and_world_take_their_choices_and_nothing_else(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flag: str,
    choices: tuple[str, str],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "arena", "--provider", "autopilot", flag, "nowhere")
    assert (code, out) == (2, "")
    listed = ", ".join(repr(c) for c in choices)
    assert err == f"zoea arena: argument {flag}: invalid choice: 'nowhere' (choose from {listed})\n"
    for choice in choices:  # each passes the flag's check, to the next (no --scenario)
        code, _, err = run(capsys, "arena", "--provider", "autopilot", flag, choice)
        assert (code, err) == (
            2,
            "zoea arena: --scenario is required (s1 … s6, or all), or --resume BATCH\n",
        )
    assert list(tmp_path.iterdir()) == []


def test_a_batch_to_resume_is_a_whole_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "arena", "--resume", "last", "--db", tmp_path / "a.db")
    assert (code, out) == (2, "")
    assert err == "zoea arena: argument --resume: invalid int value: 'last'\n"
    assert not (tmp_path / "a.db").exists()

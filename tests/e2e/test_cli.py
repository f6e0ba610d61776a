"""The command-line contract of ``zoea import``, ``export`` and ``context``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.cli_runner import zoea
from zoea_tui.core.redaction import PASSWORD_MASK, SESSION_MASK, mask_data
from zoea_tui.core.strategies import STRATEGIES

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conversation.jsonl"


@pytest.fixture
def imported(tmp_path: Path) -> Path:
    db = tmp_path / "z.db"
    done = zoea("import", "--db", db, "--mysis", "scout", EXAMPLE)
    assert done.returncode == 0, done.stderr
    return db


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_context_json_for_every_strategy_on_a_hand_written_conversation(
    imported: Path, strategy: str
) -> None:
    done = zoea("context", "--db", imported, "--mysis", "scout", "--strategy", strategy, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == {
        "mysis",
        "strategy",
        "messages",
        "items",
        "dropped",
        "tokens",
        "valid",
        "violations",
    }
    assert report["valid"] is True and report["violations"] == []
    assert report["strategy"] == strategy and report["mysis"] == "scout"
    assert report["messages"][0]["role"] == "system"
    assert report["messages"][0]["content"].startswith("You are Scout")
    assert len(report["items"]) == len(report["messages"])


def test_export_reproduces_the_imported_lines(imported: Path) -> None:
    """Byte for byte but for the secrets (the example's login result has a session id)."""
    done = zoea("export", "--db", imported, "--mysis", "scout")
    assert done.returncode == 0
    exported = [json.loads(line) for line in done.stdout.splitlines()]
    original = [mask_data(json.loads(line)) for line in EXAMPLE.read_text().splitlines()]
    assert "s-91" in EXAMPLE.read_text() and "s-91" not in done.stdout
    assert len(exported) == len(original)
    for mine, theirs in zip(exported, original, strict=True):
        for key, value in theirs.items():
            assert mine[key] == value, (key, mine, theirs)


def test_import_then_export_then_import_is_stable(imported: Path, tmp_path: Path) -> None:
    first = zoea("export", "--db", imported, "--mysis", "scout").stdout
    copy = tmp_path / "copy.jsonl"
    copy.write_text(first)
    assert zoea("import", "--db", imported, "--mysis", "twin", copy).returncode == 0
    assert zoea("export", "--db", imported, "--mysis", "twin").stdout == first


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 3: not valid JSON"),
        ('{"role": "wizard", "content": "x"}', "line 3: role must be"),
        ('{"role": "tool", "content": "x"}', "line 3: tool message needs a tool_call_id"),
        ('{"role": "user", "content": "x", "source": "nowhere"}', "line 3: source must be"),
        ('{"role": "assistant", "content": ""}', "line 3: assistant message has neither"),
        ('{"role": "assistant", "tool_calls": [{"id": "a"}]}', "line 3: tool_calls[0] must be"),
        ('{"role": "user", "content": 5}', "line 3: content must be a string"),
        ('{"role": "user", "content": "x", "colour": "red"}', "line 3: unknown field"),
    ],
)
def test_a_bad_line_is_rejected_with_its_number_and_nothing_is_imported(
    tmp_path: Path, line: str, message: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"role": "user", "content": "one"}\n'
        '{"role": "assistant", "content": "two"}\n' + line + "\n"
    )
    db = tmp_path / "z.db"
    done = zoea("import", "--db", db, "--mysis", "scout", bad)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "nothing was imported" in done.stderr
    assert not db.exists()


def test_import_is_all_or_nothing_into_an_existing_mysis(imported: Path, tmp_path: Path) -> None:
    before = zoea("export", "--db", imported, "--mysis", "scout").stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "fine"}\n{"role": "user"\n')
    assert zoea("import", "--db", imported, "--mysis", "scout", bad).returncode == 2
    assert zoea("export", "--db", imported, "--mysis", "scout").stdout == before


@pytest.mark.parametrize(
    "args",
    [
        ("context", "--db", "{db}", "--mysis", "nobody"),
        ("export", "--db", "{db}", "--mysis", "nobody"),
        ("context", "--db", "{missing}", "--mysis", "scout"),
        ("import", "--db", "{db}", "--mysis", "x", "{missing}"),
    ],
)
def test_bad_input_exits_2_with_one_line(imported: Path, tmp_path: Path, args: tuple) -> None:
    filled = [a.format(db=imported, missing=tmp_path / "missing") for a in args]
    done = zoea(*filled)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""


def test_unknown_strategy_exits_2(imported: Path) -> None:
    done = zoea("context", "--db", imported, "--mysis", "scout", "--strategy", "magic")
    assert done.returncode == 2


def test_context_under_summarize_writes_the_summary_it_needs(tmp_path: Path) -> None:
    lines = [json.dumps({"role": "user", "content": "Mine iron and sell it."})]
    for n in range(400):
        lines.append(
            json.dumps(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": f"c{n}",
                            "type": "function",
                            "function": {"name": "mine", "arguments": "{}"},
                        }
                    ],
                }
            )
        )
        lines.append(
            json.dumps(
                {
                    "role": "tool",
                    "tool_call_id": f"c{n}",
                    "content": json.dumps({"quantity": n, "pad": "ore " * 80}),
                }
            )
        )
    conversation = tmp_path / "long.jsonl"
    conversation.write_text("\n".join(lines))
    db = tmp_path / "z.db"
    assert zoea("import", "--db", db, "--mysis", "miner", conversation).returncode == 0
    done = zoea("context", "--db", db, "--mysis", "miner", "--strategy", "summarize", "--json")
    report = json.loads(done.stdout)
    assert report["valid"]
    assert report["items"][1]["kind"] == "summary"
    summary = report["messages"][1]["content"]
    assert "Extractive summary" in summary
    assert summary.endswith("Last request from user was: Mine iron and sell it.")
    assert report["tokens"] < 2000


POOLED = "7a11e4b0c9d2f5e8a1b4c7d0e3f6a9b2"
SESSION = "5e5510" * 6


def test_export_shows_that_secrets_are_kept_never_their_values(tmp_path: Path) -> None:
    """A conversation holding a pooled password (said by the commander, written by the
    model, in a result stored before results were masked) and session ids: the export
    shows the masks, stays valid JSONL and imports again."""
    lines = [
        {"role": "user", "content": f"Log in with password {POOLED}."},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "login",
                        "arguments": json.dumps({"username": "ada", "password": "typed-pw-1"}),
                    },
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": json.dumps({"username": "ada", "session_id": SESSION}),
        },
        {"role": "assistant", "content": f"Logged in; my password is {POOLED}."},
    ]
    source = tmp_path / "secret.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    db = tmp_path / "z.db"
    assert zoea("import", "--db", db, "--mysis", "ada", source).returncode == 0
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO accounts (server, username, password, created_at) "
            "VALUES ('embedded', 'ada', ?, 0)",
            (POOLED,),
        )
    conn.close()
    done = zoea("export", "--db", db, "--mysis", "ada")
    assert done.returncode == 0, done.stderr
    for secret in (POOLED, SESSION, "typed-pw-1"):
        assert secret not in done.stdout
    exported = [json.loads(line) for line in done.stdout.splitlines()]
    assert exported[0]["content"] == f"Log in with password {PASSWORD_MASK}."
    arguments = json.loads(exported[1]["tool_calls"][0]["function"]["arguments"])
    assert arguments == {"username": "ada", "password": PASSWORD_MASK}
    assert json.loads(exported[2]["content"]) == {"username": "ada", "session_id": SESSION_MASK}
    again = tmp_path / "again.jsonl"
    again.write_text(done.stdout)
    assert zoea("import", "--db", db, "--mysis", "copy", again).returncode == 0

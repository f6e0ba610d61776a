"""Retention of the request log (``[storage] request_log``) and ``zoea vacuum``: old
requests are thinned (listed, recomposed, no longer checked), memories never go, the
space comes back and is counted."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from zoea_tui.cli import main
from zoea_tui.config import Config, RequestLogRetention, StorageConfig
from zoea_tui.core.compose import compose
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.orchestrator.headless import simulate
from zoea_tui.orchestrator.requests import inspect_request
from zoea_tui.orchestrator.retention import EVERY_TURNS, RetentionKeeper, apply_retention
from zoea_tui.storage import NewMemory, Store


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database two autopilot Myses played 4 turns each on (copied by each test)."""
    import asyncio

    db = tmp_path_factory.mktemp("played") / "sim.db"
    providers = dict(Config().providers)  # turns of ten rounds, as a model's
    providers["autopilot"] = replace(providers["autopilot"], max_tool_iterations=10)
    asyncio.run(
        simulate(
            replace(Config(), providers=providers),
            myses=2,
            turns=4,
            strategy="turn-aware",
            provider="autopilot",
            seed=1,
            db_path=db,
        )
    )
    return db


def _copy(played: Path, tmp_path: Path) -> Path:
    db = tmp_path / "zoea.db"
    with sqlite3.connect(played) as src, sqlite3.connect(db) as dst:
        src.backup(dst)
    return db


def _counts(db: Path) -> tuple[int, int, int]:
    """Memories, requests, and requests kept in full."""
    with sqlite3.connect(db) as conn:
        return (
            conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0],
            conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0],
            conn.execute("SELECT COUNT(*) FROM requests WHERE memory_ids IS NOT NULL").fetchone()[
                0
            ],
        )


async def test_keeping_n_requests_per_mysis_thins_the_older_ones_only(
    played: Path, tmp_path: Path
) -> None:
    db = _copy(played, tmp_path)
    memories, requests, _ = _counts(db)
    store = await Store.open(db)
    try:
        thinned = await apply_retention(store, RequestLogRetention(requests=3), now=0)
        assert thinned == requests - 2 * 3
        assert await apply_retention(store, RequestLogRetention(requests=3)) == 0  # done
        settings = Config().compose_settings(None)
        for mysis in await store.list_myses():
            logged = await store.list_requests(mysis.id)
            assert [r.thinned for r in logged] == [True] * (len(logged) - 3) + [False] * 3
            old, new = logged[0], logged[-1]
            # Still listed with its figures, its items' shapes and recomposed …
            assert old.estimated_tokens > 0 and old.outcome == "ok"
            assert [i["memory_id"] for i in old.items] == [None] * len(old.items)
            seen = await inspect_request(store, old.id, settings)
            assert seen is not None and seen.identical is None  # … but no longer checked
            assert len(seen.composition.messages) == len(old.items)
            kept = await inspect_request(store, new.id, settings)
            assert kept is not None and kept.identical is True
    finally:
        await store.close()
    assert _counts(db) == (memories, requests, 6)  # every memory and every request listed


async def test_keeping_days_thins_what_was_logged_before_them(played: Path, tmp_path: Path) -> None:
    db = _copy(played, tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE requests SET created_at = 1000.0 WHERE id <= 5")
        conn.execute("UPDATE requests SET created_at = 1000.0 + 8 * 86400 WHERE id > 5")
    store = await Store.open(db)
    try:
        now = 1000.0 + 14 * 86400  # 14 days after the first five, 6 after the rest
        assert await apply_retention(store, RequestLogRetention(days=7), now=now) == 5
        with sqlite3.connect(db) as conn:
            thinned = conn.execute("SELECT id FROM requests WHERE digest IS NULL").fetchall()
        assert [row[0] for row in thinned] == [1, 2, 3, 4, 5]
        # A later pass goes on from where the last stopped.
        assert await apply_retention(store, RequestLogRetention(days=5), now=now) > 0
        assert await apply_retention(store, RequestLogRetention(days=1), now=now) == 0
    finally:
        await store.close()


async def test_keeping_all_touches_nothing(played: Path, tmp_path: Path) -> None:
    db = _copy(played, tmp_path)
    before = _counts(db)
    store = await Store.open(db)
    try:
        assert await apply_retention(store, RequestLogRetention()) == 0
    finally:
        await store.close()
    assert _counts(db) == before


async def test_the_swarm_applies_the_policy_when_it_opens(played: Path, tmp_path: Path) -> None:
    db = _copy(played, tmp_path)
    config = replace(Config(), storage=StorageConfig(RequestLogRetention(requests=2)))
    commander = await Commander.open(config, db_path=db, autostart=False, starter_swarm=False)
    try:
        await commander.retention.settled()
        assert commander.retention.thinned > 0
    finally:
        await commander.shutdown(timeout=0)
    assert _counts(db)[2] == 2 * 2


async def test_a_part_dropped_beside_a_running_store_is_written_again(tmp_path: Path) -> None:
    """``zoea vacuum`` may drop request parts a running app still remembers: its next
    log finds them gone (the foreign key refuses the row) and writes them again."""
    db = tmp_path / "zoea.db"
    app = await Store.open(db)
    beside = await Store.open(db)
    try:
        doomed = await app.create_mysis("doomed")
        memory = await app.add_memory(doomed.id, NewMemory("user", "direct", "go"))
        settings = Config().compose_settings(None)
        composition = compose(await app.load_history(doomed.id, settings), "turn-aware", settings)
        await app.log_request(doomed.id, composition, last_memory_id=memory.id, settings=settings)
        await app.delete_mysis(doomed.id)
        assert await beside.drop_unused_parts() > 0
        with pytest.raises(sqlite3.IntegrityError):  # what the app's memory now points at
            await app.connection.execute(
                "INSERT INTO requests (mysis_id, created_at, strategy, estimated_tokens, "
                "settings_id) VALUES (?, 0, 'x', 0, ?)",
                (doomed.id, next(iter(app._part_ids.values()))),
            )
        other = await app.create_mysis("other")
        memory = await app.add_memory(other.id, NewMemory("user", "direct", "go"))
        composition = compose(await app.load_history(other.id, settings), "turn-aware", settings)
        logged = await app.log_request(
            other.id, composition, last_memory_id=memory.id, settings=settings
        )
        seen = await inspect_request(app, logged, settings)
        assert seen is not None and seen.identical is True
    finally:
        await beside.close()
        await app.close()


def test_vacuum_thins_reclaims_and_says_how_much(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _copy(played, tmp_path)
    memories, requests, _ = _counts(db)
    assert main(["vacuum", "--db", str(db), "--request-log", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["thinned_requests"] == requests - 2
    assert report["bytes_after"] == db.stat().st_size  # the WAL emptied into the file
    assert report["bytes_reclaimed"] == report["bytes_before"] - report["bytes_after"] > 0
    assert _counts(db) == (memories, requests, 2)
    # The human line, with the database named by the top-level --db.
    assert main(["--db", str(db), "vacuum"]) == 0
    line = capsys.readouterr().out
    assert line.startswith(f"{db}: ") and "reclaimed" in line and line.count("\n") == 1
    assert "request log kept in full: every request" in line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--request-log", "weekly"],
            'zoea vacuum: --request-log: expected "all", a number of days such as "7d", or a '
            'number of requests per Mysis such as 500, got "weekly"',
        ),
        (["--request-log", "0d"], "zoea vacuum: --request-log: expected a number of days"),
    ],
)
def test_vacuum_refuses_a_bad_policy_in_one_line(
    played: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    db = _copy(played, tmp_path)
    before = db.read_bytes()
    assert main(["vacuum", "--db", str(db), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert db.read_bytes() == before


def test_vacuum_of_a_missing_database_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vacuum", "--db", str(tmp_path / "none.db")]) == 2
    assert (
        capsys.readouterr().err == f"zoea vacuum: database {tmp_path / 'none.db'} does not exist\n"
    )


def test_vacuum_beside_a_reader_says_the_database_is_in_use_in_one_line(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """VACUUM needs the file alone (beside a reader the rebuilt copy would wait in the
    WAL, doubling the file): with another program writing and reading (the app would
    be refused by its lock first, tests/faults/test_one_writer.py), vacuum says so in
    one line (exit 2) and changes nothing."""
    db = _copy(played, tmp_path)
    before = _counts(db)
    writer, reader = sqlite3.connect(db), sqlite3.connect(db)
    try:
        writer.execute("UPDATE myses SET updated_at = updated_at + 1")
        writer.commit()  # the app's last write, still in the WAL
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM memories").fetchone()  # and a read under way
        assert main(["vacuum", "--db", str(db), "--request-log", "1"]) == 2
    finally:
        reader.close()
        writer.close()
    err = capsys.readouterr().err
    assert err == (
        f"zoea vacuum: {db} is being read by another program: let it finish, then run "
        "zoea vacuum again; nothing was changed\n"
    )
    assert _counts(db) == before


async def test_the_swarm_applies_the_policy_again_every_500_turns(
    played: Path, tmp_path: Path
) -> None:
    db = _copy(played, tmp_path)
    store = await Store.open(db)
    keeper = RetentionKeeper(store, RequestLogRetention(requests=1))
    try:
        for _ in range(EVERY_TURNS - 1):
            keeper.turn_finished()
        await keeper.settled()
        assert keeper.thinned == 0  # not yet
        keeper.turn_finished()
        await keeper.settled()
        assert keeper.thinned == _counts(db)[1] - 2
    finally:
        await keeper.close()
        await store.close()

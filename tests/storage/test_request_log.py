"""The request log stores what it must (issue 33): a log written at schema version 10
(whole item lists, settings and facts in every row) is converted by migration 011, and
every old request still recomposes byte-identically; new requests keep their facts only
when their turn's recorded state does not already say them."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest

from zoea_tui.config import Config, ContextConfig
from zoea_tui.core.composition import ComposeSettings, Composition
from zoea_tui.orchestrator.headless import simulate
from zoea_tui.orchestrator.requests import inspect_request
from zoea_tui.storage import NewMemory, Store
from zoea_tui.storage.migrations import latest_version, schema_text
from zoea_tui.storage.records import messages_digest

PREVIOUS = 10  # the schema version before the request log was made compact


def _ten_rounds(config: Config) -> Config:
    """Turns of ten rounds, as a model's (the autopilot's own allowance is 100)."""
    providers = dict(config.providers)
    providers["autopilot"] = replace(providers["autopilot"], max_tool_iterations=10)
    return replace(config, providers=providers)


async def _log_request_v10(
    self: Store,
    mysis_id: int,
    composition: Composition,
    *,
    last_memory_id: int | None,
    nudge_level: int = 0,
    outcome: str = "pending",
    tools_tokens: int = 0,
    turn_id: int | None = None,
    settings: ComposeSettings | None = None,
    turn_state: str | None = None,
) -> int:
    """``Store.log_request`` as schema version 10 wrote it (whole JSON in every row)."""
    inputs = None
    if settings is not None:
        knobs = asdict(settings)
        knobs.pop("nudge_level", None)
        knobs.pop("tools_tokens", None)
        inputs = json.dumps(
            {
                "settings": knobs,
                "game_state": composition.game_state,
                "latest_broadcast": composition.latest_broadcast,
                "account": composition.account,
            },
            ensure_ascii=False,
        )
    row = await self.fetch_one(
        "INSERT INTO requests (mysis_id, created_at, strategy, last_memory_id, nudge_level,"
        " items, estimated_tokens, outcome, tools_tokens, turn_id, inputs, digest) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            mysis_id,
            time.time(),
            composition.strategy,
            last_memory_id,
            nudge_level,
            json.dumps([i.to_dict() for i in composition.items]),
            composition.tokens,
            outcome,
            tools_tokens,
            turn_id,
            inputs,
            messages_digest(composition.messages),
        ),
    )
    assert row is not None
    return int(row[0])


async def _finish_request_v10(
    self: Store,
    request_id: int,
    *,
    outcome: str,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    latency_ms: float | None = None,
    error: str | None = None,
    cached_tokens: int | None = None,
    error_kind: str | None = None,
    streamed: bool | None = None,
    cache_write_tokens: int | None = None,
) -> None:
    """``Store.finish_request`` as schema version 10 wrote it (no cache writes: 013)."""
    async with self._writing():
        await self.connection.execute(
            "UPDATE requests SET outcome = ?, prompt_tokens = ?, completion_tokens = ?, "
            "latency_ms = ?, error = ?, cached_tokens = ?, error_kind = ?, streamed = ? "
            "WHERE id = ?",
            (outcome, prompt_tokens, completion_tokens, latency_ms, error, cached_tokens,
             error_kind, streamed, request_id),
        )  # fmt: skip


async def _old_log(db: Path, strategy: str, monkeypatch: pytest.MonkeyPatch) -> Config:
    """A database at version 10 whose log was written by version 10's code, by a real
    swarm (the autopilot on the embedded world, 2 Myses, a small window that moves)."""
    real_open = Store.open

    async def open_v10(path: Any, **kwargs: Any) -> Store:
        return await real_open(path, migrate_up_to=PREVIOUS, **kwargs)

    config = _ten_rounds(
        Config(
            context=ContextConfig(max_context_messages=6, window_margin=3, summarize_threshold=1500)
        )
    )
    with monkeypatch.context() as patch:
        patch.setattr(Store, "open", open_v10)
        patch.setattr(Store, "log_request", _log_request_v10)
        patch.setattr(Store, "finish_request", _finish_request_v10)
        await simulate(
            config, myses=2, turns=6, strategy=strategy, provider="autopilot", seed=3, db_path=db
        )
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == 10
        # The oldest requests as a log from before migration 008 has them: no inputs.
        conn.execute("UPDATE requests SET inputs = NULL, digest = NULL WHERE id <= 3")
    return config


def _old_rows(db: Path) -> dict[int, dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return {row["id"]: dict(row) for row in conn.execute("SELECT * FROM requests")}


@pytest.mark.parametrize("strategy", ["turn-aware", "sliding-window", "summarize"])
async def test_an_old_log_recomposes_byte_identically_after_migration_011(
    tmp_path: Path, strategy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "old.db"
    config = await _old_log(db, strategy, monkeypatch)
    old = _old_rows(db)
    assert len(old) >= 12
    before = db.stat().st_size

    store = await Store.open(db)
    try:
        assert [r[0] for r in await store.fetch_all("SELECT version FROM schema_migrations")][
            -1
        ] == latest_version()
        today = replace(config.compose_settings(None), max_context_messages=40)
        records = {r.id: r for r in await store.list_requests()}
        assert records.keys() == old.keys()
        for request_id, row in old.items():
            record = records[request_id]
            # Every figure, and each item's memory id, action and reason, as logged.
            assert record.items == [
                {k: v for k, v in item.items() if k != "tokens"}
                for item in json.loads(row["items"])
            ]
            for name in (
                "mysis_id",
                "created_at",
                "strategy",
                "last_memory_id",
                "nudge_level",
                "estimated_tokens",
                "prompt_tokens",
                "completion_tokens",
                "latency_ms",
                "outcome",
                "error",
                "tools_tokens",
                "turn_id",
                "cached_tokens",
                "digest",
                "error_kind",
            ):
                assert getattr(record, name) == row[name], (request_id, name)
            old_inputs = json.loads(row["inputs"]) if row["inputs"] else {}
            assert record.recorded_inputs() == old_inputs
            assert not record.thinned
            seen = await inspect_request(store, request_id, today)
            assert seen is not None
            if row["digest"] is None:
                assert seen.identical is None  # logged before digests: nothing to check
            else:
                assert seen.identical is True, (request_id, strategy)
                assert messages_digest(seen.composition.messages) == row["digest"]
    finally:
        await store.close()
    # The settings and item shapes, the same in many rows, are stored once now.
    with sqlite3.connect(db) as conn:
        settings = conn.execute("SELECT COUNT(DISTINCT settings_id) FROM requests").fetchone()
        assert settings[0] == 1
        shapes = conn.execute(
            "SELECT COUNT(DISTINCT j.value) FROM requests r JOIN request_parts p "
            "ON p.id = r.items_id, json_each(p.text) j"
        ).fetchone()[0]
        items = sum(len(json.loads(row["items"])) for row in old.values())
        assert 0 < shapes < items / 10
    assert db.stat().st_size <= before * 2  # the old rows' pages are free for reuse


async def test_a_migrated_database_has_the_schema_of_a_new_one(tmp_path: Path) -> None:
    fresh = await Store.open(tmp_path / "fresh.db")
    old = await Store.open(tmp_path / "old.db", migrate_up_to=PREVIOUS)
    await old.close()
    migrated = await Store.open(tmp_path / "old.db")
    try:
        assert await schema_text(migrated.connection) == await schema_text(fresh.connection)
        store_file = Path(__file__).resolve().parents[2] / "store" / "schema.sql"
        assert store_file.read_text() == await schema_text(fresh.connection)
    finally:
        await migrated.close()
        await fresh.close()


async def test_request_ids_go_on_after_the_old_logs_deleted_ones(tmp_path: Path) -> None:
    """A request id is never given twice, even across the conversion."""
    db = tmp_path / "old.db"
    old = await Store.open(db, migrate_up_to=PREVIOUS)
    mysis = await old.create_mysis("veteran")
    for _ in range(3):
        await old.connection.execute(
            "INSERT INTO requests (mysis_id, created_at, strategy, items, estimated_tokens) "
            "VALUES (?, 0, 'turn-aware', '[]', 0)",
            (mysis.id,),
        )
    await old.connection.execute("DELETE FROM requests WHERE id = 3")
    await old.close()
    store = await Store.open(db)
    try:
        await store.connection.execute(
            "INSERT INTO requests (mysis_id, created_at, strategy, estimated_tokens) "
            "VALUES (?, 0, 'turn-aware', 0)",
            (mysis.id,),
        )
        ids = [r[0] for r in await store.fetch_all("SELECT id FROM requests ORDER BY id")]
        assert ids == [1, 2, 4]
    finally:
        await store.close()


async def test_facts_are_kept_only_where_the_request_needs_them(tmp_path: Path) -> None:
    """A request whose state stands after its turn's opening (the turn's recorded state)
    keeps no facts; one whose state closes the request keeps them, and without them its
    recomposition would differ from what was sent (the digest says so)."""
    db = tmp_path / "sim.db"
    config = _ten_rounds(Config(context=ContextConfig(max_context_messages=4, window_margin=2)))
    await simulate(
        config, myses=1, turns=6, strategy="sliding-window", provider="autopilot", seed=2,
        db_path=db,
    )  # fmt: skip
    store = await Store.open(db)
    try:
        settings = config.compose_settings(None)
        kept, bare = [], []
        for record in await store.list_requests():
            seen = await inspect_request(store, record.id, settings)
            assert seen is not None and seen.identical is True
            closing = seen.composition.items[-1].kind == "state" and (
                seen.composition.state_text is None
            )
            (kept if "game_state" in record.recorded_inputs() else bare).append(
                (record.id, closing)
            )
        assert bare and all(not closing for _, closing in bare)
        needing = [request_id for request_id, closing in kept if closing]
        assert needing, "a window this small cuts some turn's opening out"
        # Take the facts away from one that needs them: the check catches it.
        await store.connection.execute(
            "UPDATE requests SET facts_id = NULL WHERE id = ?", (needing[0],)
        )
        seen = await inspect_request(store, needing[0], settings)
        assert seen is not None and seen.identical is False
    finally:
        await store.close()


async def _logged(store: Store, **kw: Any) -> tuple[Composition, int]:
    """A composed request of a three-memory history, logged with ``kw``."""
    from zoea_tui.core.compose import compose

    mysis = await store.create_mysis("alpha")
    for text in ("Mine iron.", "Then sell it at Sol.", "Ore: Ä, ß"):
        await store.add_memory(mysis.id, NewMemory("user", "direct", text))
    history = await store.load_history(mysis.id, ComposeSettings())
    composition = replace(
        compose(history, "sliding-window", ComposeSettings()),
        game_state="Hold: 3 Ä-ore",
        latest_broadcast="regroup at Sol",
        account="Scout",
    )
    request_id = await store.log_request(mysis.id, composition, **kw)
    return composition, request_id


def _memory_ids(composition: Composition) -> list[int | str]:
    return [i.memory_id if i.memory_id is not None else "synthetic" for i in composition.items]


async def test_a_logged_request_keeps_its_items_facts_and_settings(store: Store) -> None:
    composition, _ = await _logged(
        store, last_memory_id=None, settings=ComposeSettings(), turn_id=None
    )
    [record] = await store.list_requests()
    assert [i["memory_id"] for i in record.items] == _memory_ids(composition)
    assert [i["memory_id"] for i in record.items].count("synthetic") >= 1
    assert record.thinned is False and record.digest == messages_digest(composition.messages)
    inputs = record.recorded_inputs()
    assert set(inputs) == {"settings", "game_state", "latest_broadcast", "account"}
    assert (inputs["game_state"], inputs["latest_broadcast"], inputs["account"]) == (
        "Hold: 3 Ä-ore",
        "regroup at Sol",
        "Scout",
    )
    assert inputs["settings"] == json.loads(
        json.dumps(
            {
                k: v
                for k, v in asdict(ComposeSettings()).items()
                if k not in ("nudge_level", "tools_tokens", "compact_tools")
            }
        )
    )


async def test_request_parts_are_stored_compact_with_their_characters_as_they_are(
    store: Store,
) -> None:
    await _logged(store, last_memory_id=None, settings=ComposeSettings())
    texts = [row[0] for row in await store.fetch_all("SELECT text FROM request_parts")]
    facts = [t for t in texts if "game_state" in t]
    assert facts == [
        '{"game_state":"Hold: 3 Ä-ore","latest_broadcast":"regroup at Sol","account":"Scout"}'
    ]
    assert all(", " not in t and '": ' not in t for t in texts if t.startswith("{"))


async def test_a_thinned_request_keeps_its_shapes_and_settings_only(store: Store) -> None:
    composition, _ = await _logged(store, last_memory_id=3, settings=ComposeSettings())
    assert await store.thin_requests(keep_per_mysis=0) == 0, "the newest is always kept"
    [record] = await store.list_requests()
    await store.log_request(record.mysis_id, composition, last_memory_id=3)
    assert await store.thin_requests(older_than=time.time() + 1, keep_per_mysis=None) == 2
    first, second = await store.list_requests()
    assert first.thinned and second.thinned
    assert [i["memory_id"] for i in first.items] == [None] * len(composition.items)
    assert [i["role"] for i in first.items] == [i.role for i in composition.items]
    assert first.digest is None
    assert set(first.recorded_inputs()) == {"settings"}, "the facts are gone"
    assert second.inputs is None, "logged without settings: nothing was recorded"


async def test_a_request_of_no_turn_and_no_state_keeps_its_facts(store: Store) -> None:
    """Only a request whose state is its turn's recorded one goes without facts; one of no
    turn and no state text is not such a request (the fourth mutation run)."""
    from zoea_tui.core.compose import compose

    mysis = await store.create_mysis("alpha")
    await store.add_memory(mysis.id, NewMemory("user", "direct", "Mine iron."))
    history = await store.load_history(mysis.id, ComposeSettings())
    composition = replace(
        compose(history, "sliding-window", ComposeSettings()),
        game_state="Hold: 3 ore",
        state_text=None,
    )
    await store.log_request(
        mysis.id, composition, last_memory_id=None, settings=ComposeSettings(), turn_state=None
    )
    [record] = await store.list_requests()
    assert record.recorded_inputs()["game_state"] == "Hold: 3 ore"


async def test_a_part_removed_by_a_store_beside_is_stored_again(tmp_path: Path) -> None:
    """``zoea vacuum`` beside the app drops a part this store still knows by id: the next
    request looks its parts up again instead of failing (the fourth mutation run)."""
    path = tmp_path / "zoea.db"
    async with await Store.open(path) as app:
        composition, first = await _logged(app, last_memory_id=None, settings=ComposeSettings())
        async with await Store.open(path) as beside:
            await beside.connection.execute("DELETE FROM requests WHERE id = ?", (first,))
            assert await beside.drop_unused_parts() > 0
        alpha = await app.find_mysis("alpha")
        assert alpha is not None
        second = await app.log_request(
            alpha.id, composition, last_memory_id=None, settings=ComposeSettings()
        )
        [record] = await app.list_requests()
        assert record.id == second
        assert record.recorded_inputs()["game_state"] == "Hold: 3 Ä-ore"

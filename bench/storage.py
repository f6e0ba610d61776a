"""Storage benchmark: how much database a logged request costs (issue 33).

Plays ``zoea simulate`` (the embedded world on the simulated clock, the autopilot) with
16 Myses x 40 turns on a fresh database, closes it, and reports:

- the whole file (database and any WAL left) divided by the logged requests, the
  target being at most 1.5 KB (4.9-5.0 KB before migration 011);
- the same per memory, and each table's and index's share (SQLite's ``dbstat``);
- that the log still serves its purpose: a sample of the logged requests (every
  ``--check-every``-th) is recomposed from the log as sent and compared with the
  digest logged with it.

Usage: python bench/storage.py [--myses 16] [--turns 40] [--seed 0] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import platform
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zoea_tui.config import Config  # noqa: E402
from zoea_tui.orchestrator.headless import simulate  # noqa: E402
from zoea_tui.orchestrator.requests import inspect_request  # noqa: E402
from zoea_tui.storage import Store  # noqa: E402

#: Bytes per logged request the log must stay within (issue 33).
TARGET_BYTES_PER_REQUEST = 1536


#: What each table and index is for, first match wins.
SHARES: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("request log", lambda n: "request" in n),
    ("search index (migration 012)", lambda n: "_search_fts" in n),
    ("memories and turns (the story)", lambda n: "memories" in n or "turns" in n),
)


def file_bytes(db: Path) -> dict[str, int]:
    """The database file and the WAL beside it, in bytes."""
    wal = db.with_name(db.name + "-wal")
    return {"db": db.stat().st_size, "wal": wal.stat().st_size if wal.exists() else 0}


def breakdown(db: Path, requests: int) -> dict[str, Any]:
    """Counts, and the bytes of each table and index per request (``dbstat``)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        counts = {
            table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("requests", "memories", "turns", "request_parts")
        }
        sizes = list(
            conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
        )
        tables = {
            name: {"bytes": size, "bytes_per_request": round(size / max(requests, 1), 1)}
            for name, size in sizes
            if size >= 16 * 4096
        }
        shares: dict[str, int] = {}
        for name, size in sizes:
            share = next((s for s, test in SHARES if test(name)), "other")
            shares[share] = shares.get(share, 0) + size
        facts = conn.execute("SELECT COUNT(*) FROM requests WHERE facts_id IS NOT NULL").fetchone()
    return {
        "counts": counts,
        "requests_with_facts": facts[0],
        "bytes_per_request_by_share": {
            share: round(size / max(requests, 1), 1)
            for share, size in sorted(shares.items(), key=lambda kv: -kv[1])
        },
        "tables": tables,
    }


async def check_sample(db: Path, every: int) -> dict[str, int]:
    """Recompose every ``every``-th logged request as sent; count the byte-identical."""
    store = await Store.open(db)
    try:
        settings = Config().compose_settings(None)
        ids = [r[0] for r in await store.fetch_all("SELECT id FROM requests ORDER BY id")]
        checked = identical = 0
        for request_id in ids[::every]:
            seen = await inspect_request(store, request_id, settings)
            checked += 1
            identical += int(seen is not None and seen.identical is True)
    finally:
        await store.close()
    return {"checked": checked, "identical": identical}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zoea-storage-") as folder:
        db = Path(folder) / "simulate.db"
        started = time.perf_counter()
        played = await simulate(
            Config(),
            myses=args.myses,
            turns=args.turns,
            strategy="turn-aware",
            provider="autopilot",
            seed=args.seed,
            db_path=db,
        )
        wall = time.perf_counter() - started
        sizes = file_bytes(db)
        whole = sizes["db"] + sizes["wal"]
        detail = breakdown(db, played["requests"])
        logged = detail["counts"]["requests"]
        memories = detail["counts"]["memories"]
        sample = await check_sample(db, args.check_every)
    per_request = whole / logged
    return {
        "benchmark": "storage",
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "conditions": (
            f"zoea simulate, {args.myses} Myses x {args.turns} turns, autopilot, turn-aware, "
            f"seed {args.seed}, simulated clock, default config; the file measured after "
            "the store closed (WAL checkpointed)"
        ),
        "wall_s": round(wall, 1),
        "requests": logged,
        "memories": memories,
        "file_bytes": sizes,
        "bytes_per_request": round(per_request, 1),
        "bytes_per_memory": round(whole / max(memories, 1), 1),
        "target_bytes_per_request": TARGET_BYTES_PER_REQUEST,
        "within_target": per_request <= TARGET_BYTES_PER_REQUEST,
        "bytes_per_request_without_search_index": round(
            per_request
            - detail["bytes_per_request_by_share"].get("search index (migration 012)", 0),
            1,
        ),
        "before_migration_012": {
            "bytes_per_request": 2938.8,
            "bytes_per_request_by_share": {
                "substring search (migration 010, trigram, detail=full)": 1537.3,
                "word search (migration 002, unicode61, detail=full)": 248.1,
            },
            "note": "main at 80990f5 (schema 011: two search indexes), this machine",
        },
        "before_migration_011": {
            "bytes_per_request": 5013,
            "note": "the same simulate on main at 44f1d82 (schema 009, turns of ten rounds), "
            "this machine",
        },
        **detail,
        "recomposed_as_sent": sample,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--myses", type=int, default=16)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check-every", type=int, default=10)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "storage.json")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(
        f"{report['requests']} requests, {report['memories']} memories: "
        f"{report['bytes_per_request']:,} bytes per request "
        f"(target {TARGET_BYTES_PER_REQUEST:,}), {report['bytes_per_memory']:,} per memory; "
        f"{report['recomposed_as_sent']['identical']} of "
        f"{report['recomposed_as_sent']['checked']} sampled requests recomposed byte-identical"
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

-- The arena (issue 14): every batch of runs `zoea arena` or the arena screen played,
-- with its whole report (the JSON contract), and each run on its own row so results
-- of the same scenario and strategy can be compared across batches and providers.
CREATE TABLE arena_batches (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at  REAL NOT NULL,
    provider    TEXT NOT NULL,
    runs        INTEGER NOT NULL,
    seed        INTEGER NOT NULL,
    -- The tick budget when it was overridden (quick checks); NULL: each scenario's own.
    ticks       INTEGER,
    report      TEXT NOT NULL
);

CREATE TABLE arena_runs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    batch_id         INTEGER NOT NULL REFERENCES arena_batches(id) ON DELETE CASCADE,
    scenario         TEXT NOT NULL,
    strategy         TEXT NOT NULL,
    seed             INTEGER NOT NULL,
    score            REAL NOT NULL,
    passed           INTEGER NOT NULL,
    metrics          TEXT NOT NULL,
    tokens_in        INTEGER NOT NULL DEFAULT 0,
    tokens_out       INTEGER NOT NULL DEFAULT 0,
    uncached_tokens  INTEGER NOT NULL DEFAULT 0,
    requests         INTEGER NOT NULL DEFAULT 0,
    invalid_requests INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_arena_runs_cell ON arena_runs (scenario, strategy, batch_id);

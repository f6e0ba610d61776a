-- One row per LLM call: what was composed, what it cost, how it ended.
CREATE TABLE requests (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    mysis_id          INTEGER NOT NULL REFERENCES myses(id) ON DELETE CASCADE,
    created_at        REAL NOT NULL,
    strategy          TEXT NOT NULL,
    last_memory_id    INTEGER,     -- the newest memory when the request was composed
    nudge_level       INTEGER NOT NULL DEFAULT 0,
    items             TEXT NOT NULL,  -- JSON: the composition's item list
    estimated_tokens  INTEGER NOT NULL,
    prompt_tokens     INTEGER,        -- as reported by the provider
    completion_tokens INTEGER,
    latency_ms        REAL,
    outcome           TEXT NOT NULL DEFAULT 'pending',
    error             TEXT
);
CREATE INDEX idx_requests_mysis ON requests (mysis_id, id);

-- The schema after every migration in migrations/ (generated; do not edit).
-- Regenerate: python -m zoea_tui.storage.schema > store/schema.sql

CREATE TABLE accounts (
    id           INTEGER PRIMARY KEY,
    server       TEXT NOT NULL,    -- "embedded" or the game's MCP URL
    username     TEXT NOT NULL,
    password     TEXT NOT NULL,
    empire       TEXT,
    mysis_id     INTEGER REFERENCES myses(id) ON DELETE SET NULL,
    created_at   REAL NOT NULL,
    last_used_at REAL,
    UNIQUE (server, username)
);

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

CREATE TABLE broadcasts (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    sender_id  TEXT,               -- NULL: the commander
    content    TEXT NOT NULL,
    created_at REAL NOT NULL,
    game_tick  INTEGER
);

CREATE VIRTUAL TABLE broadcasts_search_fts USING fts5(
    content,
    content = 'broadcasts', content_rowid = 'id',
    tokenize = 'trigram', detail = none, columnsize = 0
);

CREATE TABLE memories (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    mysis_id     INTEGER NOT NULL REFERENCES myses(id) ON DELETE CASCADE,
    role         TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    source       TEXT NOT NULL
                 CHECK (source IN ('system', 'direct', 'broadcast', 'llm', 'tool', 'summary')),
    sender_id    TEXT,             -- NULL: the commander; else the sending Mysis
    content      TEXT NOT NULL DEFAULT '',
    reasoning    TEXT NOT NULL DEFAULT '',
    tool_calls   TEXT,             -- JSON list of {id, name, arguments}
    tool_call_id TEXT,
    tool_name    TEXT,
    created_at   REAL NOT NULL,
    game_tick    INTEGER,
    tokens       INTEGER NOT NULL DEFAULT 0
, seq INTEGER NOT NULL DEFAULT 0);

CREATE VIRTUAL TABLE memories_search_fts USING fts5(
    content, reasoning,
    content = 'memories', content_rowid = 'id',
    tokenize = 'trigram', detail = none, columnsize = 0
);

CREATE TABLE myses (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    provider      TEXT NOT NULL DEFAULT 'autopilot',
    model         TEXT NOT NULL DEFAULT '',
    strategy      TEXT NOT NULL DEFAULT 'turn-aware',
    state         TEXT NOT NULL DEFAULT 'idle'
                  CHECK (state IN ('idle', 'running', 'stopped', 'errored')),
    last_error    TEXT,
    system_prompt TEXT,            -- NULL: the built-in template
    account       TEXT,            -- the game account name (never a password)
    created_at    REAL NOT NULL,
    updated_at    REAL NOT NULL
);

CREATE TABLE request_parts (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: an id always names one text
    hash INTEGER NOT NULL,                   -- the first 8 bytes of the text's SHA-256
    text TEXT NOT NULL
);

CREATE TABLE requests (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    mysis_id          INTEGER NOT NULL REFERENCES myses(id) ON DELETE CASCADE,
    created_at        REAL NOT NULL,
    strategy          TEXT NOT NULL,
    last_memory_id    INTEGER,        -- the newest memory when the request was composed
    nudge_level       INTEGER NOT NULL DEFAULT 0,
    estimated_tokens  INTEGER NOT NULL,
    tools_tokens      INTEGER NOT NULL DEFAULT 0,
    turn_id           INTEGER,
    prompt_tokens     INTEGER,        -- as reported by the provider
    completion_tokens INTEGER,
    cached_tokens     INTEGER,
    latency_ms        REAL,
    outcome           TEXT NOT NULL DEFAULT 'pending',
    error             TEXT,
    error_kind        TEXT,
    streamed          INTEGER,
    settings_id       INTEGER REFERENCES request_parts(id),  -- NULL: logged before 008
    items_id          INTEGER REFERENCES request_parts(id),  -- JSON list of item shape ids
    memory_ids        TEXT,           -- NULL: thinned by [storage] request_log
    facts_id          INTEGER REFERENCES request_parts(id),  -- NULL: its turn's state
    digest            BLOB            -- NULL: logged before 008, or thinned
, cache_write_tokens INTEGER);

CREATE TABLE schema_migrations ( version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL);

CREATE TABLE turns (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    mysis_id        INTEGER NOT NULL REFERENCES myses(id) ON DELETE CASCADE,
    -- The turn holds the Mysis's memories whose id is >= this: for a prompt-started
    -- turn, the prompt's own id; for a nudge or start, one past the newest memory then.
    first_memory_id INTEGER NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('direct', 'broadcast', 'nudge', 'start')),
    nudge_level     INTEGER NOT NULL DEFAULT 0,
    -- nudge and start: the exact text the model received; NULL for prompts.
    text            TEXT,
    -- The volatile facts (game state, latest broadcast) as sent right after the turn's
    -- opening; NULL until the turn's first request is composed.
    state           TEXT,
    created_at      REAL NOT NULL,
    game_tick       INTEGER
);

CREATE UNIQUE INDEX idx_accounts_mysis ON accounts (server, mysis_id)
    WHERE mysis_id IS NOT NULL;

CREATE INDEX idx_arena_runs_cell ON arena_runs (scenario, strategy, batch_id);

CREATE INDEX idx_memories_mysis ON memories (mysis_id, id);

CREATE INDEX idx_memories_prompts ON memories (mysis_id, id)
    WHERE role = 'user' AND source IN ('direct', 'broadcast');

CREATE INDEX idx_memories_summaries ON memories (mysis_id, id) WHERE source = 'summary';

CREATE INDEX idx_request_parts_hash ON request_parts (hash);

CREATE INDEX idx_requests_mysis ON requests (mysis_id, id);

CREATE INDEX idx_turns_mysis ON turns (mysis_id, first_memory_id);

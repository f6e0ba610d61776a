-- Game accounts: a pool per game server, each assigned to at most one Mysis.
-- Passwords live here and nowhere else: never in memories, requests or prompts.
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
CREATE UNIQUE INDEX idx_accounts_mysis ON accounts (server, mysis_id)
    WHERE mysis_id IS NOT NULL;

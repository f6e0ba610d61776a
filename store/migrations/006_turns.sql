-- Turns: where each turn of a Mysis began and what started it. A nudge is never a
-- memory (seed 000), yet the composer must know where a nudge-started turn began and
-- what it said (seed 004's turn boundary includes nudges): this table holds both.
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
CREATE INDEX idx_turns_mysis ON turns (mysis_id, first_memory_id);

-- Each request names its turn, so a replay recomposes it with the nudge it carried,
-- and keeps the prompt tokens the server reported it served from its cache.
ALTER TABLE requests ADD COLUMN turn_id INTEGER;
ALTER TABLE requests ADD COLUMN cached_tokens INTEGER;

-- A Mysis's own running count of memories (1, 2, 3 …): windows are cut on a grid of it,
-- so the cut moves in steps that keep requests byte-identical between them.
ALTER TABLE memories ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
UPDATE memories SET seq = numbered.n
FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY mysis_id ORDER BY id) AS n
      FROM memories) AS numbered
WHERE memories.id = numbered.id;

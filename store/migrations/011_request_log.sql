-- The request log stores what it must (issue 33). A request keeps its own figures, the
-- memory ids of its items (each as its difference from the one before: "",-46,16,…) and
-- the SHA-256 of its messages in 32 bytes. What repeats across requests is stored once in
-- request_parts, found by the hash of its text and referred to by id: the composition
-- settings, each item's shape (its role, kind, action and reason), the list of a
-- request's item shapes, and the facts it was composed with (game state, latest
-- broadcast, account) when they were more than its turn's recorded state.
-- zoea_text_hash and zoea_unhex are registered by the migrator (storage/migrations.py).
CREATE TABLE request_parts (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: an id always names one text
    hash INTEGER NOT NULL,                   -- the first 8 bytes of the text's SHA-256
    text TEXT NOT NULL
);
CREATE INDEX idx_request_parts_hash ON request_parts (hash);

ALTER TABLE requests RENAME TO requests_010;

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
);

-- Every item shape of the old log, once.
INSERT INTO request_parts (hash, text)
SELECT zoea_text_hash(shape), shape FROM (
    SELECT DISTINCT json_array(
        json_extract(j.value, '$.role'), json_extract(j.value, '$.kind'),
        json_extract(j.value, '$.action'), COALESCE(json_extract(j.value, '$.reason'), '')
    ) AS shape
    FROM requests_010 r, json_each(r.items) j
);

-- Each old request in its new form, in a scratch table (TEMP: a killed process leaves
-- nothing of it). Item lists are read in their order (json_each's key).
CREATE TEMP TABLE request_conversion (
    id         INTEGER PRIMARY KEY,
    settings   TEXT,
    facts      TEXT,
    shapes     TEXT,
    memory_ids TEXT
);
INSERT INTO request_conversion (id, settings, facts, shapes, memory_ids)
SELECT
    r.id,
    json_extract(r.inputs, '$.settings'),
    json_remove(r.inputs, '$.settings'),
    (SELECT json_group_array(shape_id) FROM (
        SELECT (SELECT p.id FROM request_parts p
                WHERE p.hash = zoea_text_hash(s.shape) AND p.text = s.shape) AS shape_id
        FROM (SELECT j.key, json_array(
                json_extract(j.value, '$.role'), json_extract(j.value, '$.kind'),
                json_extract(j.value, '$.action'),
                COALESCE(json_extract(j.value, '$.reason'), '')) AS shape
              FROM json_each(r.items) j ORDER BY j.key) s
    )),
    COALESCE((SELECT group_concat(entry, ',') FROM (
        SELECT CASE WHEN json_type(j.value, '$.memory_id') = 'integer' THEN
            json_extract(j.value, '$.memory_id') - COALESCE((
                SELECT json_extract(b.value, '$.memory_id') FROM json_each(r.items) b
                WHERE b.key < j.key AND json_type(b.value, '$.memory_id') = 'integer'
                ORDER BY b.key DESC LIMIT 1), r.last_memory_id, 0)
            ELSE '' END AS entry
        FROM json_each(r.items) j ORDER BY j.key
    )), '')
FROM requests_010 r;

-- The settings, item-shape lists and facts, once each.
INSERT INTO request_parts (hash, text)
SELECT zoea_text_hash(part), part FROM (
    SELECT settings AS part FROM request_conversion WHERE settings IS NOT NULL
    UNION SELECT shapes FROM request_conversion WHERE shapes IS NOT NULL
    UNION SELECT facts FROM request_conversion WHERE facts IS NOT NULL
) WHERE NOT EXISTS (
    SELECT 1 FROM request_parts p WHERE p.hash = zoea_text_hash(part) AND p.text = part
);

INSERT INTO requests (
    id, mysis_id, created_at, strategy, last_memory_id, nudge_level, estimated_tokens,
    tools_tokens, turn_id, prompt_tokens, completion_tokens, cached_tokens, latency_ms,
    outcome, error, error_kind, streamed, settings_id, items_id, memory_ids, facts_id, digest
)
SELECT
    o.id, o.mysis_id, o.created_at, o.strategy, o.last_memory_id, o.nudge_level,
    o.estimated_tokens, o.tools_tokens, o.turn_id, o.prompt_tokens, o.completion_tokens,
    o.cached_tokens, o.latency_ms, o.outcome, o.error, o.error_kind, o.streamed,
    (SELECT p.id FROM request_parts p
     WHERE p.hash = zoea_text_hash(c.settings) AND p.text = c.settings),
    (SELECT p.id FROM request_parts p
     WHERE p.hash = zoea_text_hash(c.shapes) AND p.text = c.shapes),
    c.memory_ids,
    (SELECT p.id FROM request_parts p
     WHERE p.hash = zoea_text_hash(c.facts) AND p.text = c.facts),
    zoea_unhex(o.digest)
FROM requests_010 o JOIN request_conversion c ON c.id = o.id
ORDER BY o.id;

-- Request ids go on from where the old log's did (ids of deleted requests stay unused).
DELETE FROM sqlite_sequence WHERE name = 'requests';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'requests', seq FROM sqlite_sequence WHERE name = 'requests_010';

DROP TABLE request_conversion;
DROP TABLE requests_010;
CREATE INDEX idx_requests_mysis ON requests (mysis_id, id);

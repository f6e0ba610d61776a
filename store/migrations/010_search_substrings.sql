-- Substring search for the Myses' search tools (zoea_search_*): trigram indexes over
-- memories (content, reasoning) and broadcasts, so "ron" finds "iron", as the seeds'
-- search did (a text contains the query), but ranked (bm25) and case-insensitive. The
-- word indexes of 002 stay: the commander's search in the UI ranks whole words with them.
-- Kept in step by triggers, as 002's are; rows stored before this migration are indexed
-- by the rebuilds.
CREATE VIRTUAL TABLE memories_substr_fts USING fts5(
    content, reasoning,
    content = 'memories', content_rowid = 'id',
    tokenize = 'trigram'
);
CREATE TRIGGER memories_substr_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_substr_fts (rowid, content, reasoning)
    VALUES (new.id, new.content, new.reasoning);
END;
CREATE TRIGGER memories_substr_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_substr_fts (memories_substr_fts, rowid, content, reasoning)
    VALUES ('delete', old.id, old.content, old.reasoning);
END;
INSERT INTO memories_substr_fts (memories_substr_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE broadcasts_substr_fts USING fts5(
    content,
    content = 'broadcasts', content_rowid = 'id',
    tokenize = 'trigram'
);
CREATE TRIGGER broadcasts_substr_fts_insert AFTER INSERT ON broadcasts BEGIN
    INSERT INTO broadcasts_substr_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER broadcasts_substr_fts_delete AFTER DELETE ON broadcasts BEGIN
    INSERT INTO broadcasts_substr_fts (broadcasts_substr_fts, rowid, content)
    VALUES ('delete', old.id, old.content);
END;
INSERT INTO broadcasts_substr_fts (broadcasts_substr_fts) VALUES ('rebuild');

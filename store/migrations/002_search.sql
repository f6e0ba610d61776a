-- Full-text search over memories (content, reasoning) and broadcasts, kept in step
-- by triggers; rows stored before this migration are indexed by the rebuilds.
CREATE VIRTUAL TABLE memories_fts USING fts5(
    content, reasoning,
    content = 'memories', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content, reasoning)
    VALUES (new.id, new.content, new.reasoning);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, reasoning)
    VALUES ('delete', old.id, old.content, old.reasoning);
END;
INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE broadcasts_fts USING fts5(
    content,
    content = 'broadcasts', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER broadcasts_fts_insert AFTER INSERT ON broadcasts BEGIN
    INSERT INTO broadcasts_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER broadcasts_fts_delete AFTER DELETE ON broadcasts BEGIN
    INSERT INTO broadcasts_fts (broadcasts_fts, rowid, content)
    VALUES ('delete', old.id, old.content);
END;
INSERT INTO broadcasts_fts (broadcasts_fts) VALUES ('rebuild');

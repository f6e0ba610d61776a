-- One search index instead of two, a quarter of the size (issue 33: a logged request
-- costs at most 1.5 KB of database; 002's word indexes and 010's trigram indexes cost
-- 1.8 KB per request between them, 010's alone 1.5 KB).
--
-- The commander's search (the UI's "/") and the Myses' search tools (zoea_search_*)
-- now ask the same trigram index, which stores only which rows hold each trigram
-- (detail = none, no positions, no column lengths: columnsize = 0). A query asks for
-- the rows holding every trigram of each word, and storage/search.py keeps those
-- whose text holds the words themselves, ranks them (bm25's formula over the words'
-- counts) and cuts the snippet around the first match.
DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TABLE memories_fts;
DROP TRIGGER broadcasts_fts_insert;
DROP TRIGGER broadcasts_fts_delete;
DROP TABLE broadcasts_fts;
DROP TRIGGER memories_substr_fts_insert;
DROP TRIGGER memories_substr_fts_delete;
DROP TABLE memories_substr_fts;
DROP TRIGGER broadcasts_substr_fts_insert;
DROP TRIGGER broadcasts_substr_fts_delete;
DROP TABLE broadcasts_substr_fts;

CREATE VIRTUAL TABLE memories_search_fts USING fts5(
    content, reasoning,
    content = 'memories', content_rowid = 'id',
    tokenize = 'trigram', detail = none, columnsize = 0
);
CREATE TRIGGER memories_search_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_search_fts (rowid, content, reasoning)
    VALUES (new.id, new.content, new.reasoning);
END;
CREATE TRIGGER memories_search_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_search_fts (memories_search_fts, rowid, content, reasoning)
    VALUES ('delete', old.id, old.content, old.reasoning);
END;
INSERT INTO memories_search_fts (memories_search_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE broadcasts_search_fts USING fts5(
    content,
    content = 'broadcasts', content_rowid = 'id',
    tokenize = 'trigram', detail = none, columnsize = 0
);
CREATE TRIGGER broadcasts_search_fts_insert AFTER INSERT ON broadcasts BEGIN
    INSERT INTO broadcasts_search_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER broadcasts_search_fts_delete AFTER DELETE ON broadcasts BEGIN
    INSERT INTO broadcasts_search_fts (broadcasts_search_fts, rowid, content)
    VALUES ('delete', old.id, old.content);
END;
INSERT INTO broadcasts_search_fts (broadcasts_search_fts) VALUES ('rebuild');

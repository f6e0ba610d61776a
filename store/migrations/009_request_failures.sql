-- How a failed request failed, in the classes every view names (unreachable, timeout,
-- refused, server_error, not_compatible, cut_short; NULL when it did not fail or was
-- logged before this column), and whether the answer came streamed (1), unstreamed (0,
-- e.g. after a provider fell back from a server that breaks streamed answers) or from a
-- provider that does not stream over HTTP (NULL).
ALTER TABLE requests ADD COLUMN error_kind TEXT;
ALTER TABLE requests ADD COLUMN streamed INTEGER;

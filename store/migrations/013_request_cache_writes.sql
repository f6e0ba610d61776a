-- The prompt tokens a server wrote to its prompt cache for a request (Anthropic's
-- cache_creation_input_tokens, billed above an input token; issue 45), beside the
-- cached_tokens it read from it. NULL: the server reported no such thing, or the
-- request was logged before this column.
ALTER TABLE requests ADD COLUMN cache_write_tokens INTEGER;

-- The tool schemas' token estimate of each request, so a replay budgets the same way.
ALTER TABLE requests ADD COLUMN tools_tokens INTEGER NOT NULL DEFAULT 0;

-- What a recomposition needs beyond the memories and turns, so the request inspector
-- shows a logged request byte-identical to what was sent: the composition settings,
-- the game-state projection and the latest broadcast the request saw (JSON), and the
-- SHA-256 of the messages as sent (a recomposition is checked against it).
ALTER TABLE requests ADD COLUMN inputs TEXT;
ALTER TABLE requests ADD COLUMN digest TEXT;

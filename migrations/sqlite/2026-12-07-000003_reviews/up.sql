-- Baba Ayo's reviews of finished games: asked for by a guest (or an operator), worked by one
-- instance at a time, kept and served again, never computed twice.
CREATE TABLE reviews (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    -- `waiting`, `done` or `failed`.
    status TEXT NOT NULL,
    -- The guest who asked (counted against their allowance); none when an operator did.
    asked_by TEXT REFERENCES users (id),
    asked_at TIMESTAMP NOT NULL,
    done_at TIMESTAMP,
    -- The time it was given, in milliseconds, for the whole game.
    budget_ms BIGINT NOT NULL,
    -- The moves weighed (JSON), once done; why it failed, once failed.
    body TEXT
);
CREATE INDEX reviews_waiting ON reviews (status, asked_at);
CREATE INDEX reviews_by_asker ON reviews (asked_by, asked_at);

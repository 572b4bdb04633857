-- A match between two players at a table: one game, or best of 3, 5 or 7.
CREATE TABLE matches (
    id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL REFERENCES ayo_tables (id),
    -- The match's first player (South in its first game) and its second.
    first_id TEXT NOT NULL REFERENCES users (id),
    second_id TEXT NOT NULL REFERENCES users (id),
    house BOOLEAN NOT NULL,
    best_of INTEGER NOT NULL,
    -- The time control as the protocol writes it: none, 90s, 3+2.
    clock TEXT NOT NULL,
    rules TEXT NOT NULL,
    -- playing, won or draw; the winner when won.
    status TEXT NOT NULL,
    winner_id TEXT REFERENCES users (id),
    -- How it ended: games, resigned, agreed_draw, no_start, abandoned.
    end_reason TEXT,
    -- Points in half points (a draw is one each).
    first_halves INTEGER NOT NULL,
    second_halves INTEGER NOT NULL,
    started_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP
);
CREATE INDEX matches_by_first ON matches (first_id, started_at);
CREATE INDEX matches_by_second ON matches (second_id, started_at);
CREATE INDEX matches_in_play ON matches (status) WHERE status = 'playing';

-- A game's match and its number in it (from 1); when its first clock started (server
-- milliseconds since 1970), NULL without a clock.
ALTER TABLE games ADD COLUMN match_id TEXT REFERENCES matches (id);
ALTER TABLE games ADD COLUMN number INTEGER;
ALTER TABLE games ADD COLUMN clock_started_ms BIGINT;
CREATE INDEX games_by_match ON games (match_id, number);

-- When a move was played and the time each side had left after it (server milliseconds), so a
-- restart puts the clocks back as they were.
ALTER TABLE moves ADD COLUMN at_ms BIGINT;
ALTER TABLE moves ADD COLUMN south_ms BIGINT;
ALTER TABLE moves ADD COLUMN north_ms BIGINT;

-- Outages a game in play lived through: its clocks stood still from stopped_ms to resumed_ms.
CREATE TABLE clock_pauses (
    game_id TEXT NOT NULL REFERENCES games (id),
    stopped_ms BIGINT NOT NULL,
    resumed_ms BIGINT NOT NULL,
    PRIMARY KEY (game_id, stopped_ms)
);

-- The service's last sign of life: where an outage began when it was not a clean stop.
CREATE TABLE heartbeats (
    id TEXT PRIMARY KEY,
    at_ms BIGINT NOT NULL
);

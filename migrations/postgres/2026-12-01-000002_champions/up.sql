-- The result of every game that ended with a winner after at least one move: the gate of the
-- champions wall (one row a game) and its outbox (`walled_at` NULL until the wall has it).
CREATE TABLE game_results (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    -- The hotel's day it ended (champions.timezone), YYYY-MM-DD.
    day TEXT NOT NULL,
    winner_id TEXT NOT NULL REFERENCES users (id),
    loser_id TEXT NOT NULL REFERENCES users (id),
    -- The seeds in the winner's store at the end.
    seeds INTEGER NOT NULL,
    -- Baba Ayo's level when he played (the house board), NULL between people.
    house_level TEXT,
    -- Whether it counts for the champions wall: people only, at most the per-opponent cap.
    counts BOOLEAN NOT NULL,
    ended_at TIMESTAMP NOT NULL,
    walled_at TIMESTAMP
);
CREATE INDEX game_results_by_day ON game_results (day, ended_at);
CREATE INDEX game_results_outbox ON game_results (ended_at) WHERE walled_at IS NULL;

-- Arena tournaments an operator schedules in a room: while one runs its room pairs free
-- players at its tables; scores come from the results outbox (reader "tournaments").
CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    room_id TEXT NOT NULL REFERENCES rooms (id),
    starts_at TIMESTAMP NOT NULL,
    ends_at TIMESTAMP NOT NULL,
    -- The rule set as JSON, as ayo_tables.rules; the clock as a client sends it ("5m", "3+2").
    rules TEXT NOT NULL,
    clock TEXT NOT NULL,
    -- The tables it plays at, a JSON array of table ids.
    tables TEXT NOT NULL,
    -- Only those listed in tournament_entries may join.
    invited_only BOOLEAN NOT NULL,
    rated BOOLEAN NOT NULL,
    created_by TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    winner_id TEXT REFERENCES users (id)
);
CREATE INDEX tournaments_by_room ON tournaments (room_id, ends_at);
-- Who may join one that is invited_only.
CREATE TABLE tournament_entries (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    PRIMARY KEY (tournament_id, user_id)
);
-- Its players: score, the wins in a row (two start a streak that doubles points), games.
-- A player who left keeps their score and is paired no more (left_at).
CREATE TABLE tournament_players (
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    joined_at TIMESTAMP NOT NULL,
    left_at TIMESTAMP,
    score INTEGER NOT NULL,
    wins_in_a_row INTEGER NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, user_id)
);
-- Each game it paired (one game a match), and the points each side took once read.
CREATE TABLE tournament_pairings (
    match_id TEXT PRIMARY KEY,
    tournament_id TEXT NOT NULL REFERENCES tournaments (id),
    south_id TEXT NOT NULL REFERENCES users (id),
    north_id TEXT NOT NULL REFERENCES users (id),
    table_id TEXT NOT NULL,
    paired_at TIMESTAMP NOT NULL,
    south_points INTEGER,
    north_points INTEGER
);
CREATE INDEX tournament_pairings_by_tournament ON tournament_pairings (tournament_id, paired_at);

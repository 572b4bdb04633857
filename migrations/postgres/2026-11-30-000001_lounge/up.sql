-- Times are UTC, stored without a zone so one schema serves SQLite and PostgreSQL.
-- Users and their avatars; Baba Ayo is the one house user.
CREATE TABLE users (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    house BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL
);

-- Rooms of the hotel: the lounge, talk rooms, apartments.
CREATE TABLE rooms (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    owner_id TEXT REFERENCES users (id),
    created_at TIMESTAMP NOT NULL
);

-- The Ayo tables of a room; `rules` is the rule set as JSON.
CREATE TABLE ayo_tables (
    id TEXT PRIMARY KEY,
    room_id TEXT NOT NULL REFERENCES rooms (id),
    position INTEGER NOT NULL,
    rules TEXT NOT NULL,
    UNIQUE (room_id, position)
);

-- A game at a table. `status` and `end_reason` use the protocol's words.
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL REFERENCES ayo_tables (id),
    south_id TEXT NOT NULL REFERENCES users (id),
    north_id TEXT NOT NULL REFERENCES users (id),
    rules TEXT NOT NULL,
    house BOOLEAN NOT NULL,
    status TEXT NOT NULL,
    end_reason TEXT,
    started_at TIMESTAMP NOT NULL,
    ended_at TIMESTAMP
);
CREATE INDEX games_in_play ON games (status) WHERE status = 'playing';

-- Every move, stored before it is announced: the source of truth a restart replays.
CREATE TABLE moves (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL,
    pit INTEGER NOT NULL,
    played_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, ply)
);

-- Ratings (Glicko-2), one a player a rule family, kept by the results' reader "ratings"
-- (`ratings/`), and what each rated game changed. A rated match has a row in `rated_matches`
-- (the host's choice: rated by default in a lounge, casual at home; `matches` is at diesel's
-- 16 columns). Matches stored before are rated when they were played between people in a
-- lounge.
CREATE TABLE rated_matches (
    match_id TEXT PRIMARY KEY REFERENCES matches (id)
);
INSERT INTO rated_matches (match_id)
SELECT id FROM matches
WHERE NOT house
  AND table_id IN (
      SELECT ayo_tables.id FROM ayo_tables
      JOIN rooms ON rooms.id = ayo_tables.room_id
      WHERE rooms.kind = 'lounge');
CREATE TABLE ratings (
    user_id TEXT NOT NULL REFERENCES users (id),
    -- `abapa` or `ayoayo`.
    family TEXT NOT NULL,
    rating DOUBLE NOT NULL,
    deviation DOUBLE NOT NULL,
    volatility DOUBLE NOT NULL,
    -- Rated games played in the family.
    games INTEGER NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, family)
);
CREATE TABLE rating_changes (
    game_id TEXT NOT NULL REFERENCES games (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    family TEXT NOT NULL,
    -- The result's place in the outbox: the order games were rated in.
    seq BIGINT NOT NULL,
    -- 1 a win, 0 a loss, 0.5 a draw.
    score DOUBLE NOT NULL,
    before_rating DOUBLE NOT NULL,
    before_deviation DOUBLE NOT NULL,
    before_volatility DOUBLE NOT NULL,
    after_rating DOUBLE NOT NULL,
    after_deviation DOUBLE NOT NULL,
    after_volatility DOUBLE NOT NULL,
    at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX rating_changes_by_user ON rating_changes (user_id, seq);

-- Berserk in arena tournaments: whether a tournament allows it, and who went berserk in
-- each of its games (half their clock, one point more for a win).
ALTER TABLE tournaments ADD COLUMN berserk BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE tournament_pairings ADD COLUMN south_berserk BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE tournament_pairings ADD COLUMN north_berserk BOOLEAN NOT NULL DEFAULT FALSE;

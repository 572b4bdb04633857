ALTER TABLE tournament_pairings DROP COLUMN north_berserk;
ALTER TABLE tournament_pairings DROP COLUMN south_berserk;
ALTER TABLE tournaments DROP COLUMN berserk;

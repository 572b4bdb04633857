-- Drawn games join the results, so every reader sees every game decided between two sides
-- after a move: the ratings rate them, the wall's reader passes over them (a draw never
-- counts). On a draw `winner_id` and `loser_id` hold South and North: neither won.
ALTER TABLE game_results ADD COLUMN drawn BOOLEAN NOT NULL DEFAULT FALSE;

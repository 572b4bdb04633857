ALTER TABLE game_results DROP COLUMN drawn;

DROP INDEX game_results_by_loser;
DROP INDEX game_results_by_winner;
ALTER TABLE game_results DROP COLUMN wall_reason;

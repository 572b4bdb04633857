-- Why a result does not count for the champions wall, decided when the game ended and kept
-- with it so a rebuild counts the day exactly as it was counted: `house` (against Baba Ayo),
-- `too_few_moves` (a side made fewer than champions.min_moves), `new_account` (the winner's
-- account was younger than champions.new_account_secs and had fewer than
-- champions.new_account_games played games), `per_opponent_cap`. NULL when it counts.
ALTER TABLE game_results ADD COLUMN wall_reason TEXT;
UPDATE game_results
SET wall_reason = CASE WHEN house_level IS NOT NULL THEN 'house' ELSE 'per_opponent_cap' END
WHERE NOT counts;
-- A player's played games, for new_account.
CREATE INDEX game_results_by_winner ON game_results (winner_id);
CREATE INDEX game_results_by_loser ON game_results (loser_id);

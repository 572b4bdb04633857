ALTER TABLE game_results ADD COLUMN walled_at TIMESTAMP;
-- What the wall had read, it had; the rest waits for it again.
UPDATE game_results SET walled_at = ended_at
WHERE seq <= COALESCE((SELECT seq FROM result_cursors WHERE reader = 'wall'), 0) OR NOT counts;
CREATE INDEX game_results_outbox ON game_results (ended_at) WHERE walled_at IS NULL;
DROP TABLE result_cursors;
DROP INDEX game_results_by_seq;
ALTER TABLE game_results DROP COLUMN seq;

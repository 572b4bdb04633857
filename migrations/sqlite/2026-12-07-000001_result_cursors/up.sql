-- One results outbox, a cursor per reader. Each result gets its place in the order results
-- are stored (`seq`, the next number taken when it is appended); each reader of the results
-- (the champions wall, "wall", today) keeps the last `seq` it has read, so readers added
-- later read every result from the first, and one rebuilt reads them all again. This
-- replaces the wall's own outbox column, `walled_at`.
ALTER TABLE game_results ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
-- The results stored before: numbered in the order they ended.
UPDATE game_results SET seq = numbered.n
FROM (
    SELECT game_id, ROW_NUMBER() OVER (ORDER BY ended_at, game_id) AS n FROM game_results
) AS numbered
WHERE game_results.game_id = numbered.game_id;
CREATE UNIQUE INDEX game_results_by_seq ON game_results (seq);
CREATE TABLE result_cursors (
    -- The reader's name: `wall`, and those to come (ratings, tournaments, reviews).
    reader TEXT PRIMARY KEY,
    -- The last result it has read; 0 before the first.
    seq BIGINT NOT NULL,
    moved_at TIMESTAMP NOT NULL
);
-- The wall has read up to the first counted result it did not have yet (or every result);
-- one it had already is counted once all the same (the wall knows its games).
INSERT INTO result_cursors (reader, seq, moved_at)
SELECT 'wall',
       COALESCE(
           (SELECT MIN(seq) - 1 FROM game_results WHERE walled_at IS NULL AND counts),
           (SELECT MAX(seq) FROM game_results),
           0),
       CURRENT_TIMESTAMP;
DROP INDEX game_results_outbox;
ALTER TABLE game_results DROP COLUMN walled_at;

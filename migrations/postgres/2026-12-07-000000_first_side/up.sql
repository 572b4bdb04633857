-- Who moved first in each game: its moves replay from that side. Under a match's `lots`
-- seating (the original way, and every game stored before) South always did; under `kept`
-- the players keep their seats and the first move swaps between them, so either may.
ALTER TABLE games ADD COLUMN first_side TEXT NOT NULL DEFAULT 'south';
-- A match's seating: `lots` (lots decide who sits South; seats swap every game) or `kept`
-- (seats stay; lots decide who moves first in game 1). A restart resumes it as it was.
ALTER TABLE matches ADD COLUMN seats TEXT NOT NULL DEFAULT 'lots';

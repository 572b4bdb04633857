-- The keys are made again at start by whichever build runs.
UPDATE users SET name_key = NULL;

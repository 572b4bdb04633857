ALTER TABLE ayo_tables DROP COLUMN queue;

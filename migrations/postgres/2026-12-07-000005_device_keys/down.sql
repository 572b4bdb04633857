DROP INDEX devices_by_key;
ALTER TABLE devices DROP COLUMN key_hash;

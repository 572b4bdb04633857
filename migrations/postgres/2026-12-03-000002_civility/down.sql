DROP TABLE blocks;
DROP TABLE room_bars;
DROP TABLE mutes;
ALTER TABLE rooms DROP COLUMN slow_mode_secs;

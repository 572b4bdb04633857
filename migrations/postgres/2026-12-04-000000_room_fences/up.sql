-- The fencing number of the instance that owns each room (issue 19): a room's new owner
-- raises it before its first write, and every write of the room checks it in the same
-- transaction, so an owner whose lease ran out cannot write after its successor began.
-- No row: the room has had no owner by lease (one instance, no cluster).
-- `owner` is the instance that took it: two instances granted the same number (a Redis
-- that restarted empty while a grant was on its way) cannot both take the room.
CREATE TABLE room_fences (
    room_id TEXT PRIMARY KEY REFERENCES rooms (id),
    fence BIGINT NOT NULL,
    owner TEXT NOT NULL
);

-- The fencing number of the instance that owns each room (issue 19): a room's new owner
-- raises it before its first write, and every write of the room checks it in the same
-- transaction, so an owner whose lease ran out cannot write after its successor began.
-- No row: the room has had no owner by lease (one instance, no cluster).
CREATE TABLE room_fences (
    room_id TEXT PRIMARY KEY REFERENCES rooms (id),
    fence BIGINT NOT NULL
);

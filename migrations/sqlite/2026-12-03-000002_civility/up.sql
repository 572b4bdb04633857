-- Slow mode an operator set for a room: one chat line per guest every this many seconds (0 off).
ALTER TABLE rooms ADD COLUMN slow_mode_secs INTEGER NOT NULL DEFAULT 0;

-- Guests an operator muted: their chat lines are refused in every room until until_ms (server
-- milliseconds since 1970). One row a guest: a new mute replaces the old.
CREATE TABLE mutes (
    user_id TEXT PRIMARY KEY REFERENCES users (id),
    until_ms BIGINT NOT NULL,
    reason TEXT NOT NULL,
    actor TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

-- Guests an operator put out of a room: they cannot come back in until until_ms.
CREATE TABLE room_bars (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    until_ms BIGINT NOT NULL,
    reason TEXT NOT NULL,
    actor TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (room_id, user_id)
);

-- A guest blocked another: no invitations from them, none of their chat lines.
CREATE TABLE blocks (
    user_id TEXT NOT NULL REFERENCES users (id),
    blocked_id TEXT NOT NULL REFERENCES users (id),
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, blocked_id)
);

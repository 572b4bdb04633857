-- Guests an operator banned: one row a banned user (a new ban replaces the old one; lifting
-- a ban deletes its row, the audit log keeps the history).
CREATE TABLE bans (
    user_id TEXT PRIMARY KEY REFERENCES users (id),
    reason TEXT NOT NULL,
    -- When it ends by itself; NULL for a ban until lifted.
    until TIMESTAMP,
    -- The operator (the admin token's subject).
    banned_by TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

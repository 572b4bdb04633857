-- Guests following others (no consent asked; a block ends it both ways), and those who hide
-- which room they are in from the people following them.
CREATE TABLE follows (
    follower_id TEXT NOT NULL REFERENCES users (id),
    followed_id TEXT NOT NULL REFERENCES users (id),
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (follower_id, followed_id)
);
CREATE INDEX follows_by_followed ON follows (followed_id);
CREATE TABLE hidden_whereabouts (
    user_id TEXT PRIMARY KEY REFERENCES users (id)
);

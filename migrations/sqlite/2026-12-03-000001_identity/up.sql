-- Lasting identity: devices with rotating refresh credentials, passwords, and the hotel's own
-- accounts. Times are server milliseconds (the service's one clock).

-- One sign-in on one device: a family of refresh credentials. Revoking it (sign-out, the
-- player, or a credential presented twice) ends every credential of the family.
CREATE TABLE devices (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id),
    label TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    used_ms BIGINT NOT NULL,
    -- Slides on each rotation: the family dies when unused this long.
    expires_ms BIGINT NOT NULL,
    revoked_ms BIGINT,
    -- signed_out, removed, reused
    revoked_why TEXT
);
CREATE INDEX devices_by_user ON devices (user_id);

-- Refresh credentials, only as their SHA-256 (hex): a stolen database signs nobody in.
-- `rotated_ms` set means it was exchanged already; presenting it again revokes the device.
CREATE TABLE refresh_credentials (
    hash TEXT PRIMARY KEY,
    device_id TEXT NOT NULL REFERENCES devices (id),
    created_ms BIGINT NOT NULL,
    rotated_ms BIGINT
);
CREATE INDEX refresh_credentials_by_device ON refresh_credentials (device_id);

-- A player's password, as an argon2id PHC string.
CREATE TABLE passwords (
    user_id TEXT PRIMARY KEY REFERENCES users (id),
    phc TEXT NOT NULL,
    changed_ms BIGINT NOT NULL
);

-- A hotel account (the identity provider's issuer and subject) is one lounge user.
CREATE TABLE hotel_accounts (
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id TEXT NOT NULL UNIQUE REFERENCES users (id),
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (issuer, subject)
);

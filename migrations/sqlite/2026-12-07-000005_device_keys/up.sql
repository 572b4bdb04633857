-- The key a browser (or app install) keeps and sends at each sign-in, kept as its SHA-256:
-- two accounts signed in with one key share a device, and their games are not rated.
ALTER TABLE devices ADD COLUMN key_hash TEXT;
CREATE INDEX devices_by_key ON devices (key_hash);

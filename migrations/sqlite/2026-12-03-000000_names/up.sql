-- One name, one guest: `name_key` is what names are compared by (NFKC, case folded, the
-- Unicode TS #39 skeleton; computed in Rust, `common::name_key`). Rows from before have none;
-- the service fills them at start (`store/names.rs`), renaming later duplicates. House users
-- share their name across levels, so the index leaves them out; their keys are reserved.
ALTER TABLE users ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX users_name_key ON users (name_key) WHERE NOT house;

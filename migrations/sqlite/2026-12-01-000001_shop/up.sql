-- The furniture shop, coins, apartments with Ayo boards, and the operators' audit log.

-- Each user's coins, kept in step with `coin_entries` within one transaction; never negative.
ALTER TABLE users ADD COLUMN coins BIGINT NOT NULL DEFAULT 0 CHECK (coins >= 0);

-- A room an operator closed stays stored (its games refer to its tables) but is not opened.
ALTER TABLE rooms ADD COLUMN closed_at TIMESTAMP;
-- An apartment's door: 'invited' (the owner's guests only) or 'open'; NULL for other rooms.
ALTER TABLE rooms ADD COLUMN door TEXT;

-- A table an operator removed, or a board its owner took up, stays stored for its games.
ALTER TABLE ayo_tables ADD COLUMN removed_at TIMESTAMP;

-- Who may come into an apartment whose door is 'invited'.
CREATE TABLE apartment_guests (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    invited_at TIMESTAMP NOT NULL,
    PRIMARY KEY (room_id, user_id)
);

-- What the furniture shop sells. `kind` is 'ayo_board' or 'furniture'; `stock` NULL is
-- unlimited.
CREATE TABLE shop_items (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    wood TEXT,
    finish TEXT,
    price BIGINT NOT NULL CHECK (price >= 0),
    stock INTEGER CHECK (stock >= 0),
    on_sale BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

-- Every purchase, with the item's name and price as sold and the balance after it, so a retry
-- with the same Idempotency-Key answers exactly as the first time.
CREATE TABLE purchases (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id),
    item_id TEXT NOT NULL REFERENCES shop_items (id),
    item_name TEXT NOT NULL,
    price BIGINT NOT NULL,
    balance BIGINT NOT NULL,
    idempotency_key TEXT,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (user_id, idempotency_key)
);

-- The coin ledger: append-only (rows are never changed); `balance` is the user's balance after
-- the entry. Ids are time-ordered (UUIDv7). `reason`: welcome, purchase, grant, take.
-- `purchase_id` names the purchase written in the same transaction, just after.
CREATE TABLE coin_entries (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id),
    amount BIGINT NOT NULL,
    balance BIGINT NOT NULL CHECK (balance >= 0),
    reason TEXT NOT NULL,
    note TEXT NOT NULL,
    purchase_id TEXT,
    actor TEXT,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX coin_entries_by_user ON coin_entries (user_id, id);

-- What each user owns. A board placed at home is a table of their apartment (`table_id`).
CREATE TABLE inventory (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id),
    item_id TEXT NOT NULL REFERENCES shop_items (id),
    purchase_id TEXT REFERENCES purchases (id),
    table_id TEXT REFERENCES ayo_tables (id),
    acquired_at TIMESTAMP NOT NULL
);
CREATE INDEX inventory_by_user ON inventory (user_id);

-- Every operator action. Ids are time-ordered (UUIDv7); `details` is JSON.
CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    details TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

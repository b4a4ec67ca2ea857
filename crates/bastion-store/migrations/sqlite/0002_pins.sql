-- Descriptor pins and server launch configs (issue: descriptor governance).
-- A server identity is its --name plus the SHA-256 of its canonical launch config
-- (command, args, env names with hashed values, or URL). Env values are never stored.
CREATE TABLE IF NOT EXISTS servers (
    identity        TEXT    PRIMARY KEY,     -- "<name>:<config sha256>"
    name            TEXT    NOT NULL,
    config_hash     TEXT    NOT NULL,
    launch_config   TEXT    NOT NULL,        -- canonical JSON, env values hashed
    approved        INTEGER NOT NULL DEFAULT 0,
    first_seen_ms   INTEGER NOT NULL,
    last_seen_ms    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS servers_name ON servers (name, last_seen_ms);

-- One row per descriptor of a server identity: the approved version and, when the
-- server now publishes something else, the pending version awaiting review.
CREATE TABLE IF NOT EXISTS pins (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    server_identity     TEXT    NOT NULL,
    server_name         TEXT    NOT NULL,
    kind                TEXT    NOT NULL,    -- tool | prompt | resource | resource_template | server_instructions
    item_key            TEXT    NOT NULL,    -- name, uri, uriTemplate or "instructions"
    state               TEXT    NOT NULL,    -- approved | pending | revoked | removed
    approved_hash       TEXT,                -- SHA-256 of the RFC 8785 form last approved
    approved_descriptor TEXT,                -- that canonical JSON
    pending_hash        TEXT,                -- what the server publishes now, when different
    pending_descriptor  TEXT,
    pending_reason      TEXT,                -- new | changed | renamed:<old key>
    first_seen_ms       INTEGER NOT NULL,
    updated_ms          INTEGER NOT NULL,
    UNIQUE (server_identity, kind, item_key)
);
CREATE INDEX IF NOT EXISTS pins_server ON pins (server_name, kind, item_key);

-- A counter bumped by every approval or revocation, so running gateways notice them.
CREATE TABLE IF NOT EXISTS store_meta (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT OR IGNORE INTO store_meta (key, value) VALUES ('pins_version', 0);

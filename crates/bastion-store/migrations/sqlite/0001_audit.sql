-- Audit log: what happened to each message, never its payload text or argument values.
CREATE TABLE IF NOT EXISTS audit_events (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    time_ms       INTEGER NOT NULL,          -- unix time, milliseconds
    server        TEXT    NOT NULL,          -- the wrap --name
    direction     TEXT    NOT NULL,          -- host_to_server | server_to_host | gateway
    message_kind  TEXT,                      -- request | notification | result | error | unknown
    method        TEXT,                      -- JSON-RPC method (of the request a response answers)
    tool          TEXT,                      -- tools/call tool name, prompt name or resource uri
    request_id    TEXT,                      -- JSON text of the JSON-RPC id
    verdict       TEXT    NOT NULL,          -- allow | sanitize | flag | block
    reason        TEXT,                      -- stable reason code (frame_too_large, request_timeout, ...)
    codes         TEXT,                      -- finding codes, comma separated
    bytes         INTEGER NOT NULL DEFAULT 0, -- frame size in bytes
    removed_chars INTEGER NOT NULL DEFAULT 0, -- characters removed by sanitizers
    digest        TEXT                       -- SHA-256 (hex) of the frame bytes
);
CREATE INDEX IF NOT EXISTS audit_events_server_time ON audit_events (server, time_ms);
CREATE INDEX IF NOT EXISTS audit_events_time ON audit_events (time_ms);

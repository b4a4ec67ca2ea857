-- Human-in-the-loop approvals (issue: tool-call policy and confirmation).
-- A grant ("always allow this tool") exists only because a user said so, through an
-- approval prompt or `mcp-bastion approvals grant`. It is bound to the tool's pin hash:
-- once the server publishes another descriptor for the tool, the grant no longer matches.
CREATE TABLE IF NOT EXISTS approval_grants (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    server_identity TEXT    NOT NULL,        -- "<name>:<launch config sha256>"
    server_name     TEXT    NOT NULL,
    tool            TEXT    NOT NULL,
    pin_hash        TEXT    NOT NULL,        -- SHA-256 of the tool's RFC 8785 form when granted
    source          TEXT    NOT NULL,        -- elicitation | tty | cli
    created_ms      INTEGER NOT NULL,
    revoked_ms      INTEGER,                 -- set by `approvals revoke`
    UNIQUE (server_identity, tool, pin_hash)
);
CREATE INDEX IF NOT EXISTS approval_grants_server ON approval_grants (server_name, tool);

-- Every confirmation decision: asked or not, through which channel, the answer, the
-- call digest and how long the human took. Argument values only when policy asks for
-- them (`audit.log_arguments`), already redacted by the core.
CREATE TABLE IF NOT EXISTS approval_decisions (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    time_ms         INTEGER NOT NULL,
    server_name     TEXT    NOT NULL,
    server_identity TEXT,
    tool            TEXT    NOT NULL,
    request_id      TEXT,                    -- JSON text of the host's request id
    digest          TEXT    NOT NULL,        -- SHA-256 of (identity, pin hash, canonical arguments)
    action          TEXT    NOT NULL,        -- allow | ask | deny (the policy's answer)
    tier            TEXT,                    -- risk tier
    reasons         TEXT,                    -- finding codes, comma separated
    channel         TEXT,                    -- grant | elicitation | input_required | tty | fallback | policy
    outcome         TEXT    NOT NULL,        -- approved | denied
    answer          TEXT,                    -- accept | decline | cancel | timeout | invalid | unavailable | digest_mismatch | granted | policy
    latency_ms      INTEGER NOT NULL DEFAULT 0,
    arguments       TEXT                     -- redacted canonical JSON, only with audit.log_arguments
);
CREATE INDEX IF NOT EXISTS approval_decisions_time ON approval_decisions (server_name, time_ms);

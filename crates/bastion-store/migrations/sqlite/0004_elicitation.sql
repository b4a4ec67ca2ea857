-- Elicitation mediation (issue: elicitation and URL safety).
-- The consent ledger: one row per URL-mode decision (the host accepted, declined or
-- cancelled, or policy refused the request). A consent id is random, unique, and can be
-- consumed once (consent_uses has it as its primary key).
CREATE TABLE IF NOT EXISTS consent_ledger (
    decision_id        INTEGER PRIMARY KEY AUTOINCREMENT,
    consent_id         TEXT    NOT NULL UNIQUE,
    server_identity    TEXT    NOT NULL,
    server_name        TEXT    NOT NULL,
    session            TEXT    NOT NULL,     -- the gateway session (one wrap process run)
    elicitation_id     TEXT,                 -- the server's elicitationId
    normalized_url     TEXT    NOT NULL,     -- as shown to the user (never fetched)
    registrable_domain TEXT,
    request_digest     TEXT    NOT NULL,     -- SHA-256 of the canonical elicitation params
    verdict            TEXT    NOT NULL,     -- allow | flag | block (the URL gate)
    decision           TEXT    NOT NULL,     -- accepted | declined | cancelled | refused
    reason             TEXT,                 -- finding codes or refusal reason
    created_ms         INTEGER NOT NULL,
    decided_ms         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS consent_ledger_server ON consent_ledger (server_name, created_ms);

CREATE TABLE IF NOT EXISTS consent_uses (
    consent_id  TEXT    PRIMARY KEY REFERENCES consent_ledger (consent_id),
    used_ms     INTEGER NOT NULL,
    purpose     TEXT    NOT NULL
);

-- URL elicitation flows (state machine of bastion_core::elicit::flow), per server and
-- session, so a completion notification is judged against what really happened.
CREATE TABLE IF NOT EXISTS elicitation_flows (
    server_name     TEXT    NOT NULL,
    session         TEXT    NOT NULL,
    elicitation_id  TEXT    NOT NULL,
    url             TEXT    NOT NULL,
    state           TEXT    NOT NULL,         -- CREATED, USER_REVIEW, ..., REQUIREMENT_VERIFIED
    created_ms      INTEGER NOT NULL,
    updated_ms      INTEGER NOT NULL,
    expires_ms      INTEGER NOT NULL,
    PRIMARY KEY (server_name, session, elicitation_id)
);

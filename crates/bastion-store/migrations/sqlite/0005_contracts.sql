-- Publisher contract manifests (issue 7 §3–§4).
-- Every reviewed manifest `contract verify` or `contract activate` accepted, per server id
-- and contract version: rollback protection refuses a version below the highest accepted
-- one, and the same version with another manifest hash.
CREATE TABLE IF NOT EXISTS contract_versions (
    server_id        TEXT    NOT NULL,
    contract_version INTEGER NOT NULL,
    manifest_sha256  TEXT    NOT NULL,       -- SHA-256 of the manifest's RFC 8785 form
    key_id           TEXT    NOT NULL,       -- signing key id (16 hex)
    accepted_ms      INTEGER NOT NULL,
    PRIMARY KEY (server_id, contract_version)
);

-- Each activation: the exact manifest hash and the approvals that allowed it. The latest
-- row of a server id is its active contract.
CREATE TABLE IF NOT EXISTS contract_activations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    server_id        TEXT    NOT NULL,
    contract_version INTEGER NOT NULL,
    manifest_sha256  TEXT    NOT NULL,
    approver_key_ids TEXT    NOT NULL,       -- distinct approver key ids, comma separated
    approval_ids     TEXT    NOT NULL,       -- approval receipt ids, comma separated
    activated_ms     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS contract_activations_server ON contract_activations (server_id, id);

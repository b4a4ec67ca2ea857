-- OAuth client state for remote upstreams (PostgreSQL twin of sqlite/0007_oauth.sql; issue 8 item 3).
-- the clear: `sealed` is base64(nonce || XChaCha20-Poly1305 ciphertext) made by the
-- gateway with a key the store does not hold; the associated data binds it to the
-- row's key, so a row copied under another issuer, resource or client does not open.
-- Tokens per (issuer, resource, client): access and refresh token, expiry, scope.
CREATE TABLE IF NOT EXISTS oauth_tokens (
    issuer      TEXT    NOT NULL,       -- the authorization server's issuer identifier
    resource    TEXT    NOT NULL,       -- the MCP server URL (RFC 8707 resource)
    client_id   TEXT    NOT NULL,
    sealed      TEXT    NOT NULL,
    updated_ms  BIGINT  NOT NULL,
    PRIMARY KEY (issuer, resource, client_id)
);
CREATE INDEX IF NOT EXISTS oauth_tokens_resource ON oauth_tokens (resource, updated_ms);

-- Clients registered by Dynamic Client Registration (RFC 7591), one per issuer.
-- `sealed` holds the registration (client secret, if the server issued one, and the
-- redirect path registered).
CREATE TABLE IF NOT EXISTS oauth_clients (
    issuer        TEXT    NOT NULL PRIMARY KEY,
    client_id     TEXT    NOT NULL,
    sealed        TEXT    NOT NULL,
    registered_ms BIGINT  NOT NULL
);

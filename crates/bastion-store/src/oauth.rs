//! Sealed OAuth state of remote upstreams (issue 8 item 3): token sets per
//! `(issuer, resource, client_id)` and Dynamic Client Registrations per issuer.
//!
//! The store keeps `sealed` values only: opaque text the gateway made with a key the
//! store never sees (`bastion_gateway::oauth::Vault`); what they contain and how they
//! are bound to their row is the gateway's business. Nothing here logs a value.

use crate::backend::Cols;
use crate::{Store, StoreError};

/// One stored token set. `sealed` is opaque (base64 text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthTokenRow {
    /// The authorization server's issuer identifier (RFC 8414 §2).
    pub issuer: String,
    /// The protected resource: the MCP server URL (RFC 8707).
    pub resource: String,
    /// The OAuth client id the tokens were issued to.
    pub client_id: String,
    /// The sealed token set.
    pub sealed: String,
    /// When it was written, unix ms.
    pub updated_ms: i64,
}

/// One client registered at an issuer (RFC 7591). `sealed` is opaque (base64 text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthClientRow {
    /// The issuer it is registered at.
    pub issuer: String,
    /// Its client id (not secret).
    pub client_id: String,
    /// The sealed registration details (secret, redirect path).
    pub sealed: String,
    /// When it was registered, unix ms.
    pub registered_ms: i64,
}

fn token_from_row(row: &impl Cols) -> OAuthTokenRow {
    OAuthTokenRow {
        issuer: row.col("issuer"),
        resource: row.col("resource"),
        client_id: row.col("client_id"),
        sealed: row.col("sealed"),
        updated_ms: row.col("updated_ms"),
    }
}

impl Store {
    /// Inserts or replaces the token set of `(issuer, resource, client_id)`.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn put_oauth_token(&self, row: &OAuthTokenRow) -> Result<(), StoreError> {
        with_pool!(self, pool => sqlx::query(
            "INSERT INTO oauth_tokens (issuer, resource, client_id, sealed, updated_ms) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (issuer, resource, client_id) \
             DO UPDATE SET sealed = excluded.sealed, updated_ms = excluded.updated_ms",
        )
        .bind(&row.issuer)
        .bind(&row.resource)
        .bind(&row.client_id)
        .bind(&row.sealed)
        .bind(row.updated_ms)
        .execute(pool)
        .await
        .map(drop)?);
        Ok(())
    }

    /// The token sets stored for `resource`, newest first.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn oauth_tokens_for(&self, resource: &str) -> Result<Vec<OAuthTokenRow>, StoreError> {
        Ok(with_pool!(self, pool => sqlx::query(
            "SELECT issuer, resource, client_id, sealed, updated_ms FROM oauth_tokens \
             WHERE resource = $1 ORDER BY updated_ms DESC, issuer, client_id",
        )
        .bind(resource)
        .fetch_all(pool)
        .await?
        .iter()
        .map(token_from_row)
        .collect()))
    }

    /// Deletes every token set of `resource`; returns how many there were.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn delete_oauth_tokens(&self, resource: &str) -> Result<u64, StoreError> {
        Ok(
            with_pool!(self, pool => sqlx::query("DELETE FROM oauth_tokens WHERE resource = $1")
            .bind(resource)
            .execute(pool)
            .await?
            .rows_affected()),
        )
    }

    /// Records the client registered at `row.issuer`, replacing an earlier one.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn put_oauth_client(&self, row: &OAuthClientRow) -> Result<(), StoreError> {
        with_pool!(self, pool => sqlx::query(
            "INSERT INTO oauth_clients (issuer, client_id, sealed, registered_ms) \
             VALUES ($1, $2, $3, $4) ON CONFLICT (issuer) DO UPDATE SET \
             client_id = excluded.client_id, sealed = excluded.sealed, \
             registered_ms = excluded.registered_ms",
        )
        .bind(&row.issuer)
        .bind(&row.client_id)
        .bind(&row.sealed)
        .bind(row.registered_ms)
        .execute(pool)
        .await
        .map(drop)?);
        Ok(())
    }

    /// The client registered at `issuer`, if any.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn oauth_client(&self, issuer: &str) -> Result<Option<OAuthClientRow>, StoreError> {
        Ok(with_pool!(self, pool => sqlx::query(
            "SELECT issuer, client_id, sealed, registered_ms FROM oauth_clients WHERE issuer = $1",
        )
        .bind(issuer)
        .fetch_optional(pool)
        .await?
        .map(|row| OAuthClientRow {
            issuer: row.col("issuer"),
            client_id: row.col("client_id"),
            sealed: row.col("sealed"),
            registered_ms: row.col("registered_ms"),
        })))
    }
}

//! Approval grants and confirmation decisions (human in the loop).
//!
//! A [`Grant`] is an explicit "always allow" of one tool of one server identity, bound
//! to the tool's pin hash (SHA-256 of its RFC 8785 canonical descriptor): a changed
//! descriptor has another hash, so the grant stops matching without anyone touching
//! it. Grants are only ever written on an explicit user answer or by
//! `mcp-bastion approvals grant`; nothing here infers one. An [`ApprovalDecision`] is
//! the audit record of one confirmation: the policy's action, the channel that asked,
//! the answer, the call digest and the human's latency.

use crate::backend::Cols;
use crate::{Store, StoreError};
use serde::{Deserialize, Serialize};

/// One "always allow" grant. JSON shape (as printed by `approvals list --json`):
/// `{"id", "server_identity", "server_name", "tool", "pin_hash", "source",
/// "created_ms", "revoked_ms"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// Row id (0 before insertion); `approvals revoke ID` uses it.
    pub id: i64,
    /// `<name>:<launch config hash>`.
    pub server_identity: String,
    /// The `--name`.
    pub server_name: String,
    /// Tool name.
    pub tool: String,
    /// SHA-256 (hex) of the tool's canonical descriptor when the grant was made.
    pub pin_hash: String,
    /// Who made it: `elicitation`, `input_required`, `tty` or `cli`.
    pub source: String,
    /// When, unix ms.
    pub created_ms: i64,
    /// When it was revoked, unix ms; `None` while it is in force.
    pub revoked_ms: Option<i64>,
}

/// Filter for [`Store::grants`]; empty fields match everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GrantFilter {
    /// Only this server name.
    pub server_name: Option<String>,
    /// Include revoked grants.
    pub include_revoked: bool,
}

/// One confirmation decision (audit). JSON shape: the field names below.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalDecision {
    /// Row id (0 before insertion).
    #[serde(default)]
    pub id: i64,
    /// When the decision was final, unix ms.
    pub time_ms: i64,
    /// The `--name`.
    pub server_name: String,
    /// Server identity, when pinning knows it.
    pub server_identity: Option<String>,
    /// Tool name.
    pub tool: String,
    /// JSON text of the host's request id.
    pub request_id: Option<String>,
    /// SHA-256 (hex) over (server identity, tool pin hash, canonical arguments).
    pub digest: String,
    /// What policy said: `allow`, `ask` or `deny`.
    pub action: String,
    /// Risk tier (`low`, `medium`, `high`, `critical`).
    pub tier: Option<String>,
    /// Finding codes behind the action.
    #[serde(default)]
    pub reasons: Vec<String>,
    /// `grant`, `elicitation`, `input_required`, `tty`, `fallback` or `policy`.
    pub channel: Option<String>,
    /// `approved` or `denied`.
    pub outcome: String,
    /// `accept`, `decline`, `cancel`, `timeout`, `invalid`, `unavailable`,
    /// `digest_mismatch`, `granted` or `policy`.
    pub answer: Option<String>,
    /// Time the human took, ms (0 when nobody was asked).
    pub latency_ms: i64,
    /// Redacted canonical arguments, only when `audit.log_arguments = true`.
    pub arguments: Option<String>,
}

fn grant_from_row(r: &impl Cols) -> Grant {
    Grant {
        id: r.col("id"),
        server_identity: r.col("server_identity"),
        server_name: r.col("server_name"),
        tool: r.col("tool"),
        pin_hash: r.col("pin_hash"),
        source: r.col("source"),
        created_ms: r.col("created_ms"),
        revoked_ms: r.col("revoked_ms"),
    }
}

fn decision_from_row(r: &impl Cols) -> ApprovalDecision {
    let reasons: Option<String> = r.col("reasons");
    ApprovalDecision {
        id: r.col("id"),
        time_ms: r.col("time_ms"),
        server_name: r.col("server_name"),
        server_identity: r.col("server_identity"),
        tool: r.col("tool"),
        request_id: r.col("request_id"),
        digest: r.col("digest"),
        action: r.col("action"),
        tier: r.col("tier"),
        reasons: reasons
            .filter(|s| !s.is_empty())
            .map(|s| s.split(',').map(str::to_owned).collect())
            .unwrap_or_default(),
        channel: r.col("channel"),
        outcome: r.col("outcome"),
        answer: r.col("answer"),
        latency_ms: r.col("latency_ms"),
        arguments: r.col("arguments"),
    }
}

const GRANT_COLUMNS: &str =
    "id, server_identity, server_name, tool, pin_hash, source, created_ms, revoked_ms";

impl Store {
    /// Records a grant for `(server_identity, tool, pin_hash)`; an existing revoked grant
    /// for the same triple is put back in force. Returns the row (one upsert with
    /// `RETURNING`).
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn put_grant(&self, grant: &Grant) -> Result<Grant, StoreError> {
        let sql = format!(
            "INSERT INTO approval_grants (server_identity, server_name, tool, pin_hash, source, created_ms, revoked_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, NULL) \
             ON CONFLICT (server_identity, tool, pin_hash) DO UPDATE SET revoked_ms = NULL, \
             source = excluded.source, created_ms = excluded.created_ms RETURNING {GRANT_COLUMNS}"
        );
        Ok(with_pool!(self, pool => grant_from_row(
            &sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(&grant.server_identity)
                .bind(&grant.server_name)
                .bind(&grant.tool)
                .bind(&grant.pin_hash)
                .bind(&grant.source)
                .bind(grant.created_ms)
                .fetch_one(pool)
                .await?
        )))
    }

    /// The grant in force for exactly this tool descriptor of this server identity.
    /// A grant made for another pin hash (an older or newer descriptor) does not match.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn grant_for(
        &self,
        server_identity: &str,
        tool: &str,
        pin_hash: &str,
    ) -> Result<Option<Grant>, StoreError> {
        let sql = format!(
            "SELECT {GRANT_COLUMNS} FROM approval_grants WHERE server_identity = $1 \
             AND tool = $2 AND pin_hash = $3 AND revoked_ms IS NULL"
        );
        Ok(
            with_pool!(self, pool => sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(server_identity)
            .bind(tool)
            .bind(pin_hash)
            .fetch_optional(pool)
            .await?
            .as_ref()
            .map(grant_from_row)),
        )
    }

    /// Grants matching `filter`, by server, tool and id.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn grants(&self, filter: &GrantFilter) -> Result<Vec<Grant>, StoreError> {
        let sql = format!(
            "SELECT {GRANT_COLUMNS} FROM approval_grants WHERE ($1 IS NULL OR server_name = $1) \
             AND ($2 = 1 OR revoked_ms IS NULL) ORDER BY server_name, tool, id"
        );
        Ok(
            with_pool!(self, pool => sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&filter.server_name)
            .bind(i64::from(filter.include_revoked))
            .fetch_all(pool)
            .await?
            .iter()
            .map(grant_from_row)
            .collect()),
        )
    }

    /// Revokes grant `id`. Returns the updated row, `None` when there is no grant in
    /// force with that id (one `UPDATE … RETURNING`).
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn revoke_grant(&self, id: i64, now_ms: i64) -> Result<Option<Grant>, StoreError> {
        let sql = format!(
            "UPDATE approval_grants SET revoked_ms = $2 WHERE id = $1 AND revoked_ms IS NULL \
             RETURNING {GRANT_COLUMNS}"
        );
        Ok(
            with_pool!(self, pool => sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(now_ms)
            .fetch_optional(pool)
            .await?
            .as_ref()
            .map(grant_from_row)),
        )
    }

    /// Appends one confirmation decision.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn record_decision(&self, d: &ApprovalDecision) -> Result<(), StoreError> {
        with_pool!(self, pool => sqlx::query(
            "INSERT INTO approval_decisions (time_ms, server_name, server_identity, tool, request_id, \
             digest, action, tier, reasons, channel, outcome, answer, latency_ms, arguments) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        )
        .bind(d.time_ms)
        .bind(&d.server_name)
        .bind(&d.server_identity)
        .bind(&d.tool)
        .bind(&d.request_id)
        .bind(&d.digest)
        .bind(&d.action)
        .bind(&d.tier)
        .bind(d.reasons.join(","))
        .bind(&d.channel)
        .bind(&d.outcome)
        .bind(&d.answer)
        .bind(d.latency_ms)
        .bind(&d.arguments)
        .execute(pool)
        .await
        .map(drop)?);
        Ok(())
    }

    /// The newest `limit` decisions (of `server_name` when given), oldest first.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn decisions(
        &self,
        server_name: Option<&str>,
        limit: i64,
    ) -> Result<Vec<ApprovalDecision>, StoreError> {
        Ok(with_pool!(self, pool => sqlx::query(
            "SELECT * FROM (SELECT id, time_ms, server_name, server_identity, tool, request_id, digest, \
             action, tier, reasons, channel, outcome, answer, latency_ms, arguments \
             FROM approval_decisions WHERE ($1 IS NULL OR server_name = $1) \
             ORDER BY id DESC LIMIT $2) AS newest ORDER BY id",
        )
        .bind(server_name)
        .bind(limit)
        .fetch_all(pool)
        .await?
        .iter()
        .map(decision_from_row)
        .collect()))
    }
}

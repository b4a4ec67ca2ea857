//! Approval grants and confirmation decisions (human in the loop).
//!
//! A [`Grant`] is an explicit "always allow" of one tool of one server identity, bound
//! to the tool's pin hash (SHA-256 of its RFC 8785 canonical descriptor): a changed
//! descriptor has another hash, so the grant stops matching without anyone touching
//! it. Grants are only ever written on an explicit user answer or by
//! `mcp-bastion approvals grant`; nothing here infers one. An [`ApprovalDecision`] is
//! the audit record of one confirmation: the policy's action, the channel that asked,
//! the answer, the call digest and the human's latency.

use crate::{Store, StoreError};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

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

fn grant_from_row(r: &SqliteRow) -> Grant {
    Grant {
        id: r.get("id"),
        server_identity: r.get("server_identity"),
        server_name: r.get("server_name"),
        tool: r.get("tool"),
        pin_hash: r.get("pin_hash"),
        source: r.get("source"),
        created_ms: r.get("created_ms"),
        revoked_ms: r.get("revoked_ms"),
    }
}

fn decision_from_row(r: &SqliteRow) -> ApprovalDecision {
    let reasons: Option<String> = r.get("reasons");
    ApprovalDecision {
        id: r.get("id"),
        time_ms: r.get("time_ms"),
        server_name: r.get("server_name"),
        server_identity: r.get("server_identity"),
        tool: r.get("tool"),
        request_id: r.get("request_id"),
        digest: r.get("digest"),
        action: r.get("action"),
        tier: r.get("tier"),
        reasons: reasons
            .filter(|s| !s.is_empty())
            .map(|s| s.split(',').map(str::to_owned).collect())
            .unwrap_or_default(),
        channel: r.get("channel"),
        outcome: r.get("outcome"),
        answer: r.get("answer"),
        latency_ms: r.get("latency_ms"),
        arguments: r.get("arguments"),
    }
}

const GRANT_COLUMNS: &str =
    "id, server_identity, server_name, tool, pin_hash, source, created_ms, revoked_ms";

impl Store {
    /// Records a grant for `(server_identity, tool, pin_hash)`; an existing revoked grant
    /// for the same triple is put back in force. Returns the row.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn put_grant(&self, grant: &Grant) -> Result<Grant, StoreError> {
        sqlx::query(
            "INSERT INTO approval_grants (server_identity, server_name, tool, pin_hash, source, created_ms, revoked_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, NULL) \
             ON CONFLICT (server_identity, tool, pin_hash) DO UPDATE SET revoked_ms = NULL, \
             source = excluded.source, created_ms = excluded.created_ms",
        )
        .bind(&grant.server_identity)
        .bind(&grant.server_name)
        .bind(&grant.tool)
        .bind(&grant.pin_hash)
        .bind(&grant.source)
        .bind(grant.created_ms)
        .execute(&self.pool)
        .await?;
        let sql = format!(
            "SELECT {GRANT_COLUMNS} FROM approval_grants \
             WHERE server_identity = $1 AND tool = $2 AND pin_hash = $3"
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&grant.server_identity)
            .bind(&grant.tool)
            .bind(&grant.pin_hash)
            .fetch_one(&self.pool)
            .await?;
        Ok(grant_from_row(&row))
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
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(server_identity)
            .bind(tool)
            .bind(pin_hash)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(grant_from_row))
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
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&filter.server_name)
            .bind(i64::from(filter.include_revoked))
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.iter().map(grant_from_row).collect())
    }

    /// Revokes grant `id`. Returns the updated row, `None` when there is no grant in
    /// force with that id.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn revoke_grant(&self, id: i64, now_ms: i64) -> Result<Option<Grant>, StoreError> {
        let done = sqlx::query(
            "UPDATE approval_grants SET revoked_ms = $2 WHERE id = $1 AND revoked_ms IS NULL",
        )
        .bind(id)
        .bind(now_ms)
        .execute(&self.pool)
        .await?
        .rows_affected()
            > 0;
        if !done {
            return Ok(None);
        }
        let sql = format!("SELECT {GRANT_COLUMNS} FROM approval_grants WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(grant_from_row))
    }

    /// Appends one confirmation decision.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn record_decision(&self, d: &ApprovalDecision) -> Result<(), StoreError> {
        sqlx::query(
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
        .execute(&self.pool)
        .await?;
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
        let rows = sqlx::query(
            "SELECT * FROM (SELECT id, time_ms, server_name, server_identity, tool, request_id, digest, \
             action, tier, reasons, channel, outcome, answer, latency_ms, arguments \
             FROM approval_decisions WHERE ($1 IS NULL OR server_name = $1) \
             ORDER BY id DESC LIMIT $2) ORDER BY id",
        )
        .bind(server_name)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(decision_from_row).collect())
    }
}

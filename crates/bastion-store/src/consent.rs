//! The URL consent ledger and elicitation flows (issue 6 §5, §6).
//!
//! Every URL-mode elicitation decision is one [`ConsentRecord`]: what the user (or
//! policy) decided about which normalized URL, for which server, session and request.
//! [`Store::record_consent`] writes the row and reads it back, comparing every field,
//! before the caller tells the server anything: a ledger that cannot be written or
//! reads back something else is an error, and the caller fails closed. A consent id can
//! be consumed once ([`Store::consume_consent`], enforced by a primary key: one
//! statement, so also across gateway instances sharing a `PostgreSQL` store).
//!
//! [`FlowRecord`] persists the URL elicitation state machine of
//! `bastion_core::elicit::flow` (state names as its `FlowState::as_str`).

use crate::backend::Cols;
use crate::{Store, StoreError};
use serde::{Deserialize, Serialize};

/// One URL-mode decision. JSON shape: the field names below.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsentRecord {
    /// Row id (assigned by the store; 0 before insertion).
    #[serde(default)]
    pub decision_id: i64,
    /// Random, unique id of this consent (hex).
    pub consent_id: String,
    /// `<name>:<launch hash>` of the server that asked.
    pub server_identity: String,
    /// The `--name`.
    pub server_name: String,
    /// The gateway session.
    pub session: String,
    /// The server's `elicitationId`.
    pub elicitation_id: Option<String>,
    /// The normalized URL shown (never fetched).
    pub normalized_url: String,
    /// Its registrable domain (public suffix list), when it has one.
    pub registrable_domain: Option<String>,
    /// SHA-256 (hex) of the canonical elicitation request params.
    pub request_digest: String,
    /// The URL gate's verdict: `allow`, `flag` or `block`.
    pub verdict: String,
    /// `accepted`, `declined`, `cancelled` or `refused`.
    pub decision: String,
    /// Finding codes or the refusal reason.
    pub reason: Option<String>,
    /// When the request arrived, unix ms.
    pub created_ms: i64,
    /// When it was decided, unix ms.
    pub decided_ms: i64,
}

/// One persisted URL elicitation flow.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowRecord {
    /// The `--name` of the server that asked.
    pub server_name: String,
    /// The gateway session.
    pub session: String,
    /// The server's `elicitationId`.
    pub elicitation_id: String,
    /// The normalized URL.
    pub url: String,
    /// State name (`CREATED`, `USER_REVIEW`, ..., `REQUIREMENT_VERIFIED`, `EXPIRED`).
    pub state: String,
    /// Creation, unix ms.
    pub created_ms: i64,
    /// Last transition, unix ms.
    pub updated_ms: i64,
    /// Completion deadline, unix ms.
    pub expires_ms: i64,
}

/// Why a consent could not be recorded faithfully.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConsentError {
    /// The write or the read-back failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The row read back differs from what was written (a damaged or tampered store).
    #[error(
        "the consent ledger read back a different record for consent {0}; treat the decision as refused"
    )]
    Mismatch(String),
}

impl From<sqlx::Error> for ConsentError {
    fn from(e: sqlx::Error) -> Self {
        Self::Store(StoreError::Query(e))
    }
}

const CONSENT_COLUMNS: &str = "decision_id, consent_id, server_identity, server_name, session, \
    elicitation_id, normalized_url, registrable_domain, request_digest, verdict, decision, reason, \
    created_ms, decided_ms";

fn consent_from_row(r: &impl Cols) -> ConsentRecord {
    ConsentRecord {
        decision_id: r.col("decision_id"),
        consent_id: r.col("consent_id"),
        server_identity: r.col("server_identity"),
        server_name: r.col("server_name"),
        session: r.col("session"),
        elicitation_id: r.col("elicitation_id"),
        normalized_url: r.col("normalized_url"),
        registrable_domain: r.col("registrable_domain"),
        request_digest: r.col("request_digest"),
        verdict: r.col("verdict"),
        decision: r.col("decision"),
        reason: r.col("reason"),
        created_ms: r.col("created_ms"),
        decided_ms: r.col("decided_ms"),
    }
}

fn flow_from_row(r: &impl Cols) -> FlowRecord {
    FlowRecord {
        server_name: r.col("server_name"),
        session: r.col("session"),
        elicitation_id: r.col("elicitation_id"),
        url: r.col("url"),
        state: r.col("state"),
        created_ms: r.col("created_ms"),
        updated_ms: r.col("updated_ms"),
        expires_ms: r.col("expires_ms"),
    }
}

impl Store {
    /// Writes one decision, reads it back by `consent_id` and compares every field;
    /// returns the stored row (with its `decision_id`).
    ///
    /// # Errors
    /// [`ConsentError::Store`] when the row cannot be written or read (a duplicate
    /// `consent_id` included); [`ConsentError::Mismatch`] when the read-back differs.
    pub async fn record_consent(&self, c: &ConsentRecord) -> Result<ConsentRecord, ConsentError> {
        let read_back =
            format!("SELECT {CONSENT_COLUMNS} FROM consent_ledger WHERE consent_id = $1");
        let stored = with_pool!(self, pool => {
            sqlx::query(
                "INSERT INTO consent_ledger (consent_id, server_identity, server_name, session, elicitation_id, \
                 normalized_url, registrable_domain, request_digest, verdict, decision, reason, created_ms, decided_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            )
            .bind(&c.consent_id)
            .bind(&c.server_identity)
            .bind(&c.server_name)
            .bind(&c.session)
            .bind(&c.elicitation_id)
            .bind(&c.normalized_url)
            .bind(&c.registrable_domain)
            .bind(&c.request_digest)
            .bind(&c.verdict)
            .bind(&c.decision)
            .bind(&c.reason)
            .bind(c.created_ms)
            .bind(c.decided_ms)
            .execute(pool)
            .await?;
            // A separate read (not RETURNING): what is compared is what a later reader
            // of the ledger gets.
            consent_from_row(
                &sqlx::query(sqlx::AssertSqlSafe(read_back))
                    .bind(&c.consent_id)
                    .fetch_one(pool)
                    .await?,
            )
        });
        let comparable = ConsentRecord {
            decision_id: stored.decision_id,
            ..c.clone()
        };
        if stored != comparable {
            return Err(ConsentError::Mismatch(c.consent_id.clone()));
        }
        Ok(stored)
    }

    /// Consumes consent `consent_id` for `purpose`: `true` the first time, `false` when
    /// it was already consumed or does not exist.
    ///
    /// One `INSERT … SELECT … ON CONFLICT DO NOTHING` on the primary key of
    /// `consent_uses`: of any number of concurrent attempts, in one process or in
    /// several sharing the database, exactly one inserts the row and gets `true`.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn consume_consent(
        &self,
        consent_id: &str,
        purpose: &str,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = with_pool!(self, pool => sqlx::query(
            "INSERT INTO consent_uses (consent_id, used_ms, purpose) \
             SELECT consent_id, $2, $3 FROM consent_ledger WHERE consent_id = $1 \
             ON CONFLICT (consent_id) DO NOTHING",
        )
        .bind(consent_id)
        .bind(now_ms)
        .bind(purpose)
        .execute(pool)
        .await?
        .rows_affected());
        Ok(done > 0)
    }

    /// The newest `limit` ledger rows (of `server_name` when given), oldest first.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn consents(
        &self,
        server_name: Option<&str>,
        limit: i64,
    ) -> Result<Vec<ConsentRecord>, StoreError> {
        let sql = format!(
            "SELECT * FROM (SELECT {CONSENT_COLUMNS} FROM consent_ledger \
             WHERE ($1 IS NULL OR server_name = $1) ORDER BY decision_id DESC LIMIT $2) AS newest \
             ORDER BY decision_id"
        );
        Ok(
            with_pool!(self, pool => sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(server_name)
            .bind(limit)
            .fetch_all(pool)
            .await?
            .iter()
            .map(consent_from_row)
            .collect()),
        )
    }

    /// Inserts or updates the flow of `(server_name, session, elicitation_id)`.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn put_flow(&self, f: &FlowRecord) -> Result<(), StoreError> {
        with_pool!(self, pool => sqlx::query(
            "INSERT INTO elicitation_flows (server_name, session, elicitation_id, url, state, created_ms, updated_ms, expires_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (server_name, session, elicitation_id) DO UPDATE SET state = excluded.state, \
             updated_ms = excluded.updated_ms, expires_ms = excluded.expires_ms",
        )
        .bind(&f.server_name)
        .bind(&f.session)
        .bind(&f.elicitation_id)
        .bind(&f.url)
        .bind(&f.state)
        .bind(f.created_ms)
        .bind(f.updated_ms)
        .bind(f.expires_ms)
        .execute(pool)
        .await
        .map(drop)?);
        Ok(())
    }

    /// Flows of `server_name` with `elicitation_id`, in any session (the caller decides
    /// what another session's flow means).
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn flows_with_id(
        &self,
        server_name: &str,
        elicitation_id: &str,
    ) -> Result<Vec<FlowRecord>, StoreError> {
        Ok(with_pool!(self, pool => sqlx::query(
            "SELECT server_name, session, elicitation_id, url, state, created_ms, updated_ms, expires_ms \
             FROM elicitation_flows WHERE server_name = $1 AND elicitation_id = $2 ORDER BY created_ms",
        )
        .bind(server_name)
        .bind(elicitation_id)
        .fetch_all(pool)
        .await?
        .iter()
        .map(flow_from_row)
        .collect()))
    }
}

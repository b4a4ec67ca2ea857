//! The audit log (`audit_events`): one row per decision about a message.
//!
//! Rows carry method, tool, sizes, digests, verdicts and reason codes, never payload text
//! or argument values (DESIGN §4 "Nothing secret is logged").

use crate::backend::Cols;
use crate::{Store, StoreError};
use serde::{Deserialize, Serialize};
use sqlx::QueryBuilder;

/// One audit event. JSON shape (as printed by `mcp-bastion audit --json`, one per line):
/// `{"id", "time_ms", "server", "direction", "message_kind", "method", "tool",
/// "request_id", "verdict", "reason", "codes", "bytes", "removed_chars", "digest",
/// "instance", "count"}`. The default is an empty event standing for one occurrence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEvent {
    /// Row id (assigned by the store; 0 before insertion).
    #[serde(default)]
    pub id: i64,
    /// Unix time of the event, milliseconds.
    pub time_ms: i64,
    /// The wrapped server's name (`wrap --name`).
    pub server: String,
    /// `host_to_server`, `server_to_host` or `gateway` (events of the gateway itself).
    pub direction: String,
    /// `request`, `notification`, `result`, `error` or `unknown` (rejected frames).
    pub message_kind: Option<String>,
    /// The JSON-RPC method (for responses: of the request answered).
    pub method: Option<String>,
    /// Tool name for `tools/call`, prompt name, or resource URI.
    pub tool: Option<String>,
    /// JSON text of the JSON-RPC id.
    pub request_id: Option<String>,
    /// `allow`, `sanitize`, `flag` or `block`.
    pub verdict: String,
    /// Stable reason code (`frame_too_large`, `request_timeout`, `blocked_descriptor`, ...).
    pub reason: Option<String>,
    /// Finding codes, in order, without repeats.
    #[serde(default)]
    pub codes: Vec<String>,
    /// Frame size, bytes.
    pub bytes: i64,
    /// Characters removed by sanitizers.
    #[serde(default)]
    pub removed_chars: i64,
    /// SHA-256 (lowercase hex) of the frame bytes.
    pub digest: Option<String>,
    /// The gateway instance that recorded it (`<host>-<pid>-<random>`, see
    /// `bastion_gateway::instance_id`), so the events of several gateways sharing one
    /// store stay apart (`scan` stamps its own process too); `None` for events recorded
    /// before the column existed (migration 6).
    #[serde(default)]
    pub instance: Option<String>,
    /// How many identical events this row stands for, at least 1 (a value below 1 is
    /// stored as 1). Above 1 only for refusals folded together: past a rate, the
    /// listener (`serve`) records its gate's refusals of a second as one row per method,
    /// verdict and reason, `bytes` then being their total (migration 8; 1 for every
    /// earlier row).
    #[serde(default = "one")]
    pub count: i64,
}

impl Default for AuditEvent {
    fn default() -> Self {
        Self {
            id: 0,
            time_ms: 0,
            server: String::new(),
            direction: String::new(),
            message_kind: None,
            method: None,
            tool: None,
            request_id: None,
            verdict: String::new(),
            reason: None,
            codes: Vec::new(),
            bytes: 0,
            removed_chars: 0,
            digest: None,
            instance: None,
            count: 1,
        }
    }
}

/// Serde's default for [`AuditEvent::count`].
fn one() -> i64 {
    1
}

/// Filter for [`Store::audit_events`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditQuery {
    /// Only this server.
    pub server: Option<String>,
    /// Only events at or after this unix time, milliseconds.
    pub since_ms: Option<i64>,
    /// At most this many events (the newest); `None` = 100.
    pub limit: Option<i64>,
    /// Only events of this gateway instance ([`AuditEvent::instance`]).
    pub instance: Option<String>,
}

impl Store {
    /// Appends one event.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database is locked beyond the busy timeout,
    /// read-only or full.
    pub async fn record_audit(&self, event: &AuditEvent) -> Result<(), StoreError> {
        self.record_audit_batch(std::slice::from_ref(event)).await
    }

    /// Appends events in one transaction (the gateway batches under load).
    ///
    /// # Errors
    /// As [`Store::record_audit`]; on error none of the batch is written.
    pub async fn record_audit_batch(&self, events: &[AuditEvent]) -> Result<(), StoreError> {
        with_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            for chunk in insert_chunks(events) {
                let mut q = QueryBuilder::new(
                    "INSERT INTO audit_events (time_ms, server, direction, message_kind, method, tool, request_id, \
                     verdict, reason, codes, bytes, removed_chars, digest, instance, count) ",
                );
                q.push_values(chunk, |mut row, e| {
                    row.push_bind(e.time_ms)
                        .push_bind(&e.server)
                        .push_bind(&e.direction)
                        .push_bind(&e.message_kind)
                        .push_bind(&e.method)
                        .push_bind(&e.tool)
                        .push_bind(&e.request_id)
                        .push_bind(&e.verdict)
                        .push_bind(&e.reason)
                        .push_bind((!e.codes.is_empty()).then(|| e.codes.join(",")))
                        .push_bind(e.bytes)
                        .push_bind(e.removed_chars)
                        .push_bind(&e.digest)
                        .push_bind(&e.instance)
                        .push_bind(e.count.max(1));
                });
                q.build().execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The newest events matching `query`, oldest first.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn audit_events(&self, query: &AuditQuery) -> Result<Vec<AuditEvent>, StoreError> {
        let mut events = with_pool!(self, pool => sqlx::query(SELECT_EVENTS)
        .bind(&query.server)
        .bind(query.since_ms)
        .bind(query.limit.unwrap_or(100).max(0))
        .bind(&query.instance)
        .fetch_all(pool)
        .await?
        .iter()
        .map(event_from_row)
        .collect::<Vec<_>>());
        events.reverse();
        Ok(events)
    }
}

/// The audit query of [`Store::audit_events`]: `$1` server, `$2` since (unix ms), `$3`
/// limit, `$4` instance, each filter off when `NULL`; newest first. Both backends plan it
/// as a scan by id, which is why `audit_events` carries no secondary index (migration 9).
const SELECT_EVENTS: &str = "SELECT id, time_ms, server, direction, message_kind, method, tool, \
     request_id, verdict, reason, codes, bytes, removed_chars, digest, instance, count \
     FROM audit_events WHERE ($1 IS NULL OR server = $1) AND ($2 IS NULL OR time_ms >= $2) \
     AND ($4 IS NULL OR instance = $4) ORDER BY id DESC LIMIT $3";

fn event_from_row(r: &impl Cols) -> AuditEvent {
    AuditEvent {
        id: r.col("id"),
        time_ms: r.col("time_ms"),
        server: r.col("server"),
        direction: r.col("direction"),
        message_kind: r.col("message_kind"),
        method: r.col("method"),
        tool: r.col("tool"),
        request_id: r.col("request_id"),
        verdict: r.col("verdict"),
        reason: r.col("reason"),
        codes: r
            .col::<Option<String>>("codes")
            .map(|c| c.split(',').map(str::to_owned).collect())
            .unwrap_or_default(),
        bytes: r.col("bytes"),
        removed_chars: r.col("removed_chars"),
        digest: r.col("digest"),
        instance: r.col("instance"),
        count: r.col("count"),
    }
}

/// Most rows per audit INSERT statement: 15 bound values each, well under `SQLite`'s limit
/// of 32 766 variables and `PostgreSQL`'s 65 535; one statement per chunk keeps round trips to the database worker
/// few under load.
const MAX_ROWS_PER_INSERT: usize = 256;

/// `events` cut into INSERT chunks whose sizes are powers of two (a batch of 300 is
/// 256 + 32 + 8 + 4): the connection caches one prepared statement per distinct SQL text,
/// so at most nine statement shapes are ever prepared. Chunks of every size from 1 to
/// 256 filled the statement cache with up to a hundred large multi-row statements (about
/// 15 MiB resident after some 20,000 requests of mixed traffic, measured with heaptrack)
/// and re-prepared a statement for most batches.
fn insert_chunks<T>(events: &[T]) -> impl Iterator<Item = &[T]> {
    let mut rest = events;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let fit = rest.len().min(MAX_ROWS_PER_INSERT);
        let n = 1usize << (usize::BITS - 1 - fit.leading_zeros());
        let (chunk, tail) = rest.split_at(n);
        rest = tail;
        Some(chunk)
    })
}

#[cfg(test)]
mod chunk_tests {
    use super::{MAX_ROWS_PER_INSERT, insert_chunks};

    #[test]
    fn chunks_are_powers_of_two_covering_the_batch_in_order() {
        for len in [0usize, 1, 2, 3, 7, 255, 256, 257, 300, 1000, 4097] {
            let items: Vec<usize> = (0..len).collect();
            let chunks: Vec<&[usize]> = insert_chunks(&items).collect();
            let joined: Vec<usize> = chunks.iter().flat_map(|c| c.iter().copied()).collect();
            assert_eq!(joined, items, "len {len}");
            for c in &chunks {
                assert!(
                    c.len().is_power_of_two() && c.len() <= MAX_ROWS_PER_INSERT,
                    "{len}: {}",
                    c.len()
                );
            }
        }
        // Every batch of at most 256 rows uses at most one statement per power of two.
        let shapes: std::collections::BTreeSet<usize> = (1..=2048usize)
            .flat_map(|len| {
                let items = vec![0u8; len];
                insert_chunks(&items).map(<[u8]>::len).collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(shapes.len(), 9, "{shapes:?}");
    }
}

#[cfg(test)]
mod plan_tests {
    use super::SELECT_EVENTS;
    use crate::backend::Backend;

    /// Each filter of the audit query, alone and together, is planned by `SQLite` as a
    /// scan by id that reads no index (so an index on `audit_events` would only make
    /// every row written more expensive).
    #[tokio::test]
    async fn the_audit_query_reads_no_index_with_any_filter() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("bastion.db").display());
        let store = crate::Store::open(&url).await.unwrap();
        let Backend::Sqlite(pool) = &store.backend else {
            panic!("a sqlite:// store is SQLite")
        };
        // Built from constants only.
        let query = format!("EXPLAIN QUERY PLAN {SELECT_EVENTS}");
        for (server, since, instance) in [
            (None, None, None),
            (Some("a"), None, None),
            (None, Some(1_i64), None),
            (Some("a"), Some(1), Some("host-1")),
        ] {
            let plan: Vec<(i64, i64, i64, String)> =
                sqlx::query_as(sqlx::AssertSqlSafe(query.as_str()))
                    .bind(server)
                    .bind(since)
                    .bind(100_i64)
                    .bind(instance)
                    .fetch_all(pool)
                    .await
                    .unwrap();
            assert!(
                plan.iter().all(|row| !row.3.contains("INDEX")),
                "{server:?} {since:?} {instance:?}: {plan:?}"
            );
        }
        store.close().await;
    }
}
